//! The input of the views: a packed box with its units as placed, in a shape the server can
//! fill from an engine result ([`PackedBox::from_package`]) or from a stored package.

use serde::Serialize;

/// A point in the box (see the crate's conventions): `y` is up, `z = 0` is the front.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Extents along x (width), y (height, vertical) and z (length, front to back).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Size {
    pub width: f64,
    pub height: f64,
    pub length: f64,
}

/// Which turns of an item are allowed; anything but `Any` keeps one side up, so the
/// instructions and diagrams show a "this side up" arrow for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    #[default]
    Any,
    Upright,
    Fixed,
}

impl Orientation {
    /// Whether the unit must stay with its top up ("this side up").
    pub fn keeps_upright(self) -> bool {
        self != Orientation::Any
    }

    /// The wire name, as in the packing API.
    pub fn as_str(self) -> &'static str {
        match self {
            Orientation::Any => "any",
            Orientation::Upright => "upright",
            Orientation::Fixed => "fixed",
        }
    }
}

impl From<packing::Orientation> for Orientation {
    fn from(o: packing::Orientation) -> Self {
        match o {
            packing::Orientation::Any => Orientation::Any,
            packing::Orientation::Upright => Orientation::Upright,
            packing::Orientation::Fixed => Orientation::Fixed,
        }
    }
}

/// Ranges `(from, to)` along x, y and z.
pub(crate) type Extent = [(f64, f64); 3];

/// One physical unit as placed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Unit {
    pub sku: String,
    /// The catalogue name; the SKU when there is none.
    pub name: String,
    /// Lowest corner (smallest x, y and z).
    pub position: Point,
    /// Extents as placed.
    pub dimensions: Size,
    /// Whether the placed extents differ from the item's own (width, height, length).
    pub rotated: bool,
    pub orientation: Orientation,
    pub fragile: bool,
    pub hazmat_class: Option<String>,
}

impl Unit {
    /// A unit named by its SKU, with its lowest corner at `position` and its placed extents
    /// `dimensions` (width, height, length); the rest default.
    pub fn new(sku: &str, position: [f64; 3], dimensions: [f64; 3]) -> Unit {
        let ([x, y, z], [width, height, length]) = (position, dimensions);
        Unit {
            sku: sku.into(),
            name: sku.into(),
            position: Point { x, y, z },
            dimensions: Size {
                width,
                height,
                length,
            },
            ..Unit::default()
        }
    }

    /// The unit's ranges along x, y and z.
    pub(crate) fn extent(&self) -> Extent {
        let (p, d) = (&self.position, &self.dimensions);
        [
            (p.x, p.x + d.width),
            (p.y, p.y + d.height),
            (p.z, p.z + d.length),
        ]
    }
}

/// A box and the units packed in it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PackedBox {
    pub box_id: String,
    /// Inner extents of the box.
    pub inner: Size,
    pub units: Vec<Unit>,
}

impl PackedBox {
    /// The box of an engine package. `items` are the request's items (for orientation rules,
    /// fragility and hazmat class); a unit whose item is missing keeps the defaults. Names are
    /// the SKUs: the engine knows no catalogue.
    pub fn from_package(pkg: &packing::Package, items: &[packing::Item]) -> PackedBox {
        let units = pkg
            .items
            .iter()
            .map(|p| {
                let item = items.iter().find(|i| i.item_id == p.item_id);
                Unit {
                    sku: p.item_id.clone(),
                    name: p.item_id.clone(),
                    position: Point {
                        x: p.position.x,
                        y: p.position.y,
                        z: p.position.z,
                    },
                    dimensions: Size {
                        width: p.dimensions.width,
                        height: p.dimensions.height,
                        length: p.dimensions.length,
                    },
                    rotated: p.rotated,
                    orientation: item.map_or(Orientation::Any, |i| i.orientation.into()),
                    fragile: item.is_some_and(|i| i.fragile),
                    hazmat_class: item.and_then(|i| i.hazmat.as_ref().map(|h| h.class.clone())),
                }
            })
            .collect();
        let d = pkg.box_dimensions;
        PackedBox {
            box_id: pkg.box_id.clone(),
            inner: Size {
                width: d.width,
                height: d.height,
                length: d.length,
            },
            units,
        }
    }

    /// The largest inner extent; tolerances scale with it.
    pub(crate) fn scale(&self) -> f64 {
        self.inner
            .width
            .max(self.inner.height)
            .max(self.inner.length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_package_takes_item_rules_and_keeps_placements() {
        let mut mug = packing::Item::new("mug", 4.0, 4.0, 4.0, 1.0, 2);
        mug.orientation = packing::Orientation::Upright;
        mug.fragile = true;
        mug.hazmat = Some(packing::Hazmat {
            class: "3".into(),
            un_number: None,
        });
        let mut wh = packing::Warehouse {
            warehouse_id: "w".into(),
            ..Default::default()
        };
        wh.boxes
            .push(packing::BoxType::new("b", 8.0, 4.0, 4.0, 10.0));
        wh.inventory.insert("mug".into(), 2);
        let req = packing::PackRequest {
            items: vec![mug],
            warehouses: vec![wh],
            ..Default::default()
        };
        let sol = packing::pack(&req).unwrap();
        let b = PackedBox::from_package(&sol.packages[0], &req.items);
        assert_eq!(b.box_id, "b");
        assert_eq!(b.inner.width, 8.0);
        assert_eq!(b.units.len(), 2);
        for (u, p) in b.units.iter().zip(&sol.packages[0].items) {
            assert_eq!(u.position.x, p.position.x);
            assert_eq!(u.dimensions.length, p.dimensions.length);
            assert_eq!(u.orientation, Orientation::Upright);
            assert!(u.fragile);
            assert_eq!(u.hazmat_class.as_deref(), Some("3"));
        }
    }
}
