//! Exact money: amounts are `rust_decimal::Decimal`, never summed binary floats.

use std::str::FromStr;

use rust_decimal::Decimal;

/// At most this many decimal places are accepted for prices and costs.
pub const MAX_SCALE: u32 = 4;

/// Parses a decimal amount from its JSON text (`19.99`). JSON numbers reach us as the
/// shortest decimal that round-trips the parsed f64, which is the literal the client
/// wrote for any amount with up to 15 significant digits.
pub fn parse(text: &str) -> Option<Decimal> {
    let d = Decimal::from_str(text)
        .or_else(|_| Decimal::from_scientific(text))
        .ok()?;
    Some(d.normalize())
}

pub fn is_valid_amount(d: &Decimal) -> bool {
    !d.is_sign_negative() && d.scale() <= MAX_SCALE && *d < Decimal::from(1_000_000_000_000i64)
}

/// A stored decimal amount rendered as a JSON number without building a `Value`: an
/// integer stays an integer; otherwise the nearest f64, whose shortest form is the
/// decimal itself for amounts of up to 15 significant digits.
pub struct Amount<'a>(pub &'a str);

impl serde::Serialize for Amount<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(i) = self.0.parse::<i64>() {
            return s.serialize_i64(i);
        }
        match self.0.parse::<f64>() {
            Ok(f) => s.serialize_f64(f),
            Err(_) => s.serialize_none(),
        }
    }
}

/// A computed decimal (a line total, a parsed cost) rendered like a stored [`Amount`].
pub struct Dec(pub Decimal);

impl serde::Serialize for Dec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Amount(&self.0.normalize().to_string()).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_exact() {
        let a = parse("0.1").unwrap();
        let b = parse("0.2").unwrap();
        assert_eq!((a + b).to_string(), "0.3");
        let line_total = Dec(parse("19.99").unwrap() * Decimal::from(3));
        assert_eq!(serde_json::to_string(&line_total).unwrap(), "59.97");
        assert!(is_valid_amount(&parse("10.1234").unwrap()));
        assert!(!is_valid_amount(&parse("10.12345").unwrap()));
        assert!(!is_valid_amount(&parse("-1").unwrap()));
        assert_eq!(parse("1e2").unwrap().to_string(), "100");
    }

    #[test]
    fn amounts_render_like_their_decimals() {
        for (text, json) in [
            ("19.99", "19.99"),
            ("100", "100"),
            ("0.1", "0.1"),
            ("60.27", "60.27"),
            ("12345678.9012", "12345678.9012"),
        ] {
            assert_eq!(serde_json::to_string(&Amount(text)).unwrap(), json);
            let d = Dec(parse(text).unwrap() * Decimal::from(1));
            assert_eq!(serde_json::to_string(&d).unwrap(), json);
        }
    }
}
