//! Hazmat classes and the segregation table that keeps incompatible classes in separate
//! packages. Source: 49 CFR 177.848(d), "Segregation Table for Hazardous Materials" (highway).

use std::fmt;

/// Rows and columns of the table, in the regulation's order.
#[cfg(test)]
const ROWS: [&str; 18] = [
    "1.1/1.2",
    "1.3",
    "1.4",
    "1.5",
    "1.6",
    "2.1",
    "2.2",
    "2.3 (zone A)",
    "2.3 (zone B)",
    "3",
    "4.1",
    "4.2",
    "4.3",
    "5.1",
    "5.2",
    "6.1",
    "7",
    "8",
];

/// The 177.848(d) table. `X`: may not be loaded together; `O`: only if separated so that a
/// leak cannot commingle them; `*`: explosives, governed by the compatibility table of
/// 177.848(f); `.`: no restriction. Inside one package neither `X` nor `O` can be honoured,
/// so both split; different explosive divisions are split too (compatibility groups are not
/// part of the request). Column order equals row order; a unit test checks symmetry.
const TABLE: [&[u8; 18]; 18] = [
    b"*****XXXXXXXXXXXXX", // 1.1, 1.2
    b"*****X.XXX.XXXXX.X", // 1.3
    b"*****O.OOO.O...O.O", // 1.4
    b"*****XXXXXXXXXXXXX", // 1.5
    b"*****.............", // 1.6
    b"XXOX...XO......OO.", // 2.1
    b"X..X..............", // 2.2
    b"XXOX.X...XXXXXX..X", // 2.3 zone A
    b"XXOX.O...OOOOOO..O", // 2.3 zone B
    b"XXOX...XO....O.X..", // 3
    b"X..X...XO......X.O", // 4.1
    b"XXOX...XO......X.X", // 4.2
    b"XX.X...XO......X.O", // 4.3
    b"XX.X...XOO.....X.O", // 5.1
    b"XX.X...XO......X.O", // 5.2
    b"XXOX.O...XXXXXX..X", // 6.1 (liquids, PG I, zone A)
    b"X..X.O............", // 7
    b"XXOX...XO.OXOOOX..", // 8 (liquids)
];

/// A parsed hazard class: its normalised name and the table rows it may fall under. A class
/// given without its division (e.g. `"2"`) is held to every division of that class, and rows
/// that depend on facts the request does not carry (2.3 hazard zone, 6.1 packing group,
/// whether a class 8 material is liquid) are read the strict way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HazClass {
    pub name: String,
    rows: u32,
}

/// Parses `"3"`, `"2.1"`, `"class 5.1"`, ...; `None` when it is no DOT class or division.
pub(crate) fn parse_class(s: &str) -> Option<HazClass> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.strip_prefix("class").unwrap_or(&t).trim();
    let (rows, name): (&[usize], &str) = match t {
        "1" => (&[0, 1, 2, 3, 4], "1"),
        "1.1" => (&[0], "1.1"),
        "1.2" => (&[0], "1.2"),
        "1.3" => (&[1], "1.3"),
        "1.4" => (&[2], "1.4"),
        "1.5" => (&[3], "1.5"),
        "1.6" => (&[4], "1.6"),
        "2" => (&[5, 6, 7], "2"),
        "2.1" => (&[5], "2.1"),
        "2.2" => (&[6], "2.2"),
        "2.3" => (&[7], "2.3"),
        "3" => (&[9], "3"),
        "4" => (&[10, 11, 12], "4"),
        "4.1" => (&[10], "4.1"),
        "4.2" => (&[11], "4.2"),
        "4.3" => (&[12], "4.3"),
        "5" => (&[13, 14], "5"),
        "5.1" => (&[13], "5.1"),
        "5.2" => (&[14], "5.2"),
        "6" => (&[15], "6"),
        "6.1" => (&[15], "6.1"),
        "6.2" => (&[], "6.2"),
        "7" => (&[16], "7"),
        "8" => (&[17], "8"),
        "9" => (&[], "9"),
        _ => return None,
    };
    Some(HazClass {
        name: name.to_string(),
        rows: rows.iter().fold(0, |m, r| m | 1 << r),
    })
}

/// What the table says about two classes sharing a package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Segregation {
    Allowed,
    /// `O` or different explosive divisions.
    Separate,
    /// `X`.
    Forbidden,
}

impl fmt::Display for Segregation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Segregation::Allowed => "no restriction",
            Segregation::Separate => "must be separated (O)",
            Segregation::Forbidden => "may not be loaded together (X)",
        })
    }
}

/// The strictest entry over every pair of rows the two classes may fall under. A class never
/// conflicts with itself.
pub(crate) fn segregation(a: &HazClass, b: &HazClass) -> Segregation {
    if a.name == b.name {
        return Segregation::Allowed;
    }
    let mut worst = Segregation::Allowed;
    for i in (0..18).filter(|i| a.rows & 1 << i != 0) {
        for j in (0..18).filter(|j| b.rows & 1 << j != 0) {
            let s = match TABLE[i][j] {
                b'X' => Segregation::Forbidden,
                b'O' | b'*' => Segregation::Separate,
                _ => Segregation::Allowed,
            };
            worst = worst.max(s);
        }
    }
    worst
}

/// Whether two classes may share a package.
pub(crate) fn compatible(a: &HazClass, b: &HazClass) -> bool {
    segregation(a, b) == Segregation::Allowed
}

/// A sentence explaining why two classes are kept apart, citing the table.
pub(crate) fn explain(a: &HazClass, b: &HazClass) -> String {
    format!(
        "class {} and class {}: {} under 49 CFR 177.848(d); packed separately",
        a.name,
        b.name,
        segregation(a, b)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_symmetric_and_well_formed() {
        assert_eq!(ROWS.len(), TABLE.len());
        for i in 0..18 {
            for j in 0..18 {
                assert_eq!(TABLE[i][j], TABLE[j][i], "{} vs {}", ROWS[i], ROWS[j]);
            }
        }
    }

    #[test]
    fn known_pairs() {
        let c = |s| parse_class(s).unwrap();
        assert!(!compatible(&c("3"), &c("5.1")));
        assert!(!compatible(&c("4.2"), &c("8")));
        assert!(!compatible(&c("2.1"), &c("2.3")));
        assert!(compatible(&c("3"), &c("8")));
        assert!(compatible(&c("3"), &c("9")));
        assert!(compatible(&c("2.2"), &c("3")));
        assert!(compatible(&c("class 3"), &c("3")));
        assert!(!compatible(&c("1.1"), &c("1.4")));
        assert!(!compatible(&c("2"), &c("3")));
        assert!(parse_class("10").is_none());
        assert!(parse_class("3.1").is_none());
    }
}
