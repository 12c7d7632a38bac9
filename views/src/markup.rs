//! Writing markup text: escaping for HTML and SVG (XML), and numbers rounded to one decimal
//! without `format!` (diagrams write thousands of coordinates).

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, safe inside
/// element content and quoted attribute values of HTML and XML. Control characters other than
/// tab, newline and carriage return (not allowed in XML 1.0) are dropped.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// Appends `text` escaped as [`escape_html`] does.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
}

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

    #[test]
    fn markup_and_quotes_are_neutralised() {
        assert_eq!(
            escape_html(r#"<script>alert("x&y")</script>'"#),
            "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&#39;"
        );
        assert_eq!(escape_html("Café 10\" box\u{0}"), "Café 10&quot; box");
        assert_eq!(escape_html("a\nb"), "a\nb");
    }

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
