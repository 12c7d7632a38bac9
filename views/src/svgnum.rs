//! Appending numbers to SVG text quickly and compactly: rounded to one decimal, no trailing
//! `.0`, no `-0`. Diagrams write thousands of coordinates, so this avoids `format!`.

/// Appends `v` rounded to one decimal.
pub(crate) fn push_num(out: &mut String, v: f64) {
    let tenths = (v * 10.0).round();
    if !tenths.is_finite() || tenths.abs() >= 1e15 {
        out.push('0');
        return;
    }
    let mut t = tenths as i64;
    if t < 0 {
        out.push('-');
        t = -t;
    }
    push_uint(out, (t / 10) as u64);
    let frac = t % 10;
    if frac != 0 {
        out.push('.');
        out.push((b'0' + frac as u8) as char);
    }
}

/// Appends an unsigned integer.
pub(crate) fn push_uint(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: f64) -> String {
        let mut s = String::new();
        push_num(&mut s, v);
        s
    }

    #[test]
    fn one_decimal_without_noise() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(-0.04), "0");
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.34), "12.3");
        assert_eq!(num(12.36), "12.4");
        assert_eq!(num(-3.25), "-3.3");
        assert_eq!(num(-0.5), "-0.5");
        assert_eq!(num(1234567.0), "1234567");
        assert_eq!(num(f64::NAN), "0");
    }
}
