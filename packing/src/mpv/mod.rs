//! Martello-Pisinger-Vigo 3D bin packing instances, generated exactly as the authors'
//! `test3dbpp.c` does (classes 1-8, its 32-bit `lrand48`, instance v of size n seeded with
//! v + n), as packing requests; their lower bounds live in `bounds.rs`.

mod bounds;

pub use bounds::{ccm_bound, dff_bound, l2_bound, rotation_bound, stack_bound, volume_bound};

use crate::model::{BoxType, Item, Orientation, PackRequest, Warehouse};

/// The generator of `test3dbpp.c`: SRAND48/LRAND48 written for 32-bit `unsigned int`, so that
/// every machine produces the instances of the authors' HP9000.
#[derive(Debug, Clone)]
pub struct Lrand48 {
    h: u32,
    l: u32,
}

impl Lrand48 {
    pub fn new(seed: u32) -> Self {
        Lrand48 { h: seed, l: 0x330E }
    }

    /// The next value, `lrand48()`: 31 bits.
    pub fn draw(&mut self) -> u32 {
        self.h = self
            .h
            .wrapping_mul(0xDEEC_E66D)
            .wrapping_add(self.l.wrapping_mul(0x5DEEC));
        self.l = self.l.wrapping_mul(0xE66D).wrapping_add(0xB);
        self.h = self.h.wrapping_add(self.l >> 16);
        self.l &= 0xFFFF;
        self.h >> 1
    }

    /// `rint(a, b)` of the C code: uniform in `a..=b`.
    pub fn rint(&mut self, a: i64, b: i64) -> i64 {
        (self.draw() % (b - a + 1) as u32) as i64 + a
    }
}

/// One instance: a cubic bin and the items' (w, h, d).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    pub class: u8,
    pub n: usize,
    pub index: u32,
    pub bin: i64,
    pub items: Vec<[i64; 3]>,
}

/// Bin size per class: 100 for classes 1-5 and 8, 10 for class 6, 40 for class 7.
pub fn bin_size(class: u8) -> i64 {
    match class {
        6 => 10,
        7 => 40,
        _ => 100,
    }
}

/// One item of `class` (the `randomtype` of the C code). Classes 1-5 mix the five types of
/// Martello and Vigo: with probability 1/2 the class's own type, else types 1-5 uniformly.
fn item(r: &mut Lrand48, class: u8, b: i64) -> [i64; 3] {
    let mut t = class;
    if class <= 5 {
        let pick = r.rint(1, 10);
        if pick <= 5 {
            t = pick as u8;
        }
    }
    let (w, h, d) = (b, b, b);
    match t {
        1 => [r.rint(1, w / 2), r.rint(2 * h / 3, h), r.rint(2 * d / 3, d)],
        2 => [r.rint(2 * w / 3, w), r.rint(1, h / 2), r.rint(2 * d / 3, d)],
        3 => [r.rint(2 * w / 3, w), r.rint(2 * h / 3, h), r.rint(1, d / 2)],
        // The C code draws this width from W/2..H; the bins are cubes, so it is the same.
        4 => [r.rint(w / 2, h), r.rint(h / 2, h), r.rint(d / 2, d)],
        5 => [r.rint(1, w / 2), r.rint(1, h / 2), r.rint(1, d / 2)],
        6 => [r.rint(1, 10), r.rint(1, 10), r.rint(1, 10)],
        7 => [r.rint(1, 35), r.rint(1, 35), r.rint(1, 35)],
        _ => [r.rint(1, 100), r.rint(1, 100), r.rint(1, 100)],
    }
}

/// Instance `index` (1-based) of size `n` of `class` (1-8).
pub fn instance(class: u8, n: usize, index: u32) -> Instance {
    assert!((1..=8).contains(&class), "classes 1-8");
    let mut r = Lrand48::new(index + n as u32);
    let b = bin_size(class);
    let items = (0..n).map(|_| item(&mut r, class, b)).collect();
    Instance {
        class,
        n,
        index,
        bin: b,
        items,
    }
}

impl Instance {
    /// The instance as a packing request: one warehouse with unlimited bins and stock, weight
    /// zero, every item the given orientation rule.
    pub fn request(&self, orientation: Orientation) -> PackRequest {
        let b = self.bin as f64;
        let mut wh = Warehouse {
            warehouse_id: "mpv".into(),
            boxes: vec![BoxType::new("bin", b, b, b, 1.0)],
            ..Warehouse::default()
        };
        let items = self
            .items
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let id = format!("i{i}");
                wh.inventory.insert(id.clone(), 1);
                Item {
                    orientation,
                    ..Item::new(&id, d[0] as f64, d[1] as f64, d[2] as f64, 0.0, 1)
                }
            })
            .collect();
        PackRequest {
            items,
            warehouses: vec![wh],
            ..PackRequest::default()
        }
    }
}
