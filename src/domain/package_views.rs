//! What a person at a packing bench sees of a stored package: its box and units as the
//! `views` crate takes them (names from the order's lines, turn rules and hazmat class from
//! the products), the loading order and the diagram scene, kept for the last few packages in
//! a small bounded cache so that stepping through a package does not rebuild its scene.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use storage::tables::{Orders, Packages, Products};
use storage::{OrderRecord, PackageRecord, Store};
use views::{loading_order, Orientation, PackedBox, Point, Scene, Size, Step, Unit};

/// Packages whose scenes are kept: a bench works on one package at a time, a few benches
/// share a server; a 200-unit scene is about 100 KB.
pub const KEPT: usize = 32;

/// One package made ready for the bench: the stored record, its order (for the slip), the
/// loading order and the scene every diagram of it is drawn from.
pub struct PackageView {
    pub package: PackageRecord,
    /// `None` only if the order record is gone (orders are never deleted).
    pub order: Option<OrderRecord>,
    pub steps: Vec<Step>,
    pub scene: Scene,
}

impl PackageView {
    /// Builds the view of `package` (reads its order and products).
    pub fn build(store: &Store, package: PackageRecord) -> storage::Result<PackageView> {
        let order = store.get::<Orders>(&package.order_id)?;
        let bx = packed_box(store, &package, order.as_ref())?;
        let steps = loading_order(&bx);
        let scene = Scene::new(&bx, &steps);
        Ok(PackageView {
            package,
            order,
            steps,
            scene,
        })
    }

    /// Units of each SKU, in the package's item order, with the name from the order line.
    pub fn contents(&self) -> Vec<(String, String, u32)> {
        self.package
            .items
            .iter()
            .map(|i| {
                (
                    i.sku.clone(),
                    line_name(self.order.as_ref(), &i.sku),
                    i.quantity,
                )
            })
            .collect()
    }
}

/// The name a unit of `sku` is shown with: its order line's (the catalogue name when the
/// order was placed), else the SKU.
fn line_name(order: Option<&OrderRecord>, sku: &str) -> String {
    order
        .and_then(|o| o.lines.iter().find(|l| l.sku == sku))
        .map(|l| l.name.clone())
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| sku.to_string())
}

/// The stored package as the views take it. Products give the turn rule and hazmat class
/// (a soft-deleted product still has its record); the catalogue has no fragility, so no unit
/// is marked fragile.
pub fn packed_box(
    store: &Store,
    p: &PackageRecord,
    order: Option<&OrderRecord>,
) -> storage::Result<PackedBox> {
    let mut units = Vec::with_capacity(p.items.iter().map(|i| i.placements.len()).sum());
    for item in &p.items {
        let product_id = order
            .and_then(|o| o.lines.iter().find(|l| l.sku == item.sku))
            .map(|l| l.product_id);
        let product = match product_id {
            Some(id) => store.get::<Products>(&id)?,
            None => None,
        };
        let orientation = match product.as_ref().map(|p| p.orientation) {
            Some(storage::Orientation::Upright) => Orientation::Upright,
            _ => Orientation::Any,
        };
        let hazmat_class = product
            .as_ref()
            .and_then(|p| p.hazmat.as_ref())
            .map(|h| h.class.clone());
        let name = line_name(order, &item.sku);
        for pl in &item.placements {
            units.push(Unit {
                sku: item.sku.clone(),
                name: name.clone(),
                position: Point {
                    x: pl.x,
                    y: pl.y,
                    z: pl.z,
                },
                dimensions: Size {
                    width: pl.width,
                    height: pl.height,
                    length: pl.length,
                },
                rotated: pl.rotated,
                orientation,
                fragile: false,
                hazmat_class: hazmat_class.clone(),
            });
        }
    }
    let [width, height, length] = p.box_dimensions;
    Ok(PackedBox {
        box_id: p.box_id.clone(),
        inner: Size {
            width,
            height,
            length,
        },
        units,
    })
}

/// The views of the last [`KEPT`] packages asked for, most recent first. A package's box and
/// placements never change once stored, so an entry stays valid; a product's turn rule or
/// hazmat class changed later shows once the entry has been pushed out.
#[derive(Default)]
pub struct Scenes {
    kept: Mutex<VecDeque<Arc<PackageView>>>,
}

impl Scenes {
    /// The view of package `id`, from the cache or built now; `None` for an unknown package.
    pub fn get(&self, store: &Store, id: u128) -> storage::Result<Option<Arc<PackageView>>> {
        if let Some(v) = self.take(id) {
            return Ok(Some(v));
        }
        let Some(package) = store.get::<Packages>(&id)? else {
            return Ok(None);
        };
        // Built outside the lock: two first requests for one package may both build it.
        let view = Arc::new(PackageView::build(store, package)?);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|v| v.package.id != id);
        kept.push_front(view.clone());
        kept.truncate(KEPT);
        Ok(Some(view))
    }

    /// The kept view of `id`, moved to the front.
    fn take(&self, id: u128) -> Option<Arc<PackageView>> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let at = kept.iter().position(|v| v.package.id == id)?;
        let v = kept.remove(at)?;
        kept.push_front(v.clone());
        Some(v)
    }

    /// How many views are kept.
    pub fn len(&self) -> usize {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::{
        Hazmat, OrderLine, OrderStatus, PackageItemRecord, PackageStatus, PlacementRecord,
        ProductRecord,
    };

    fn product(id: u128, sku: &str, upright: bool, hazmat: Option<&str>) -> ProductRecord {
        ProductRecord {
            id,
            sku: sku.into(),
            name: format!("{sku} catalogue"),
            description: String::new(),
            price: "1".into(),
            unit_cost: None,
            cost_currency: None,
            weight: Some(1.0),
            dimensions: None,
            hazmat: hazmat.map(|c| Hazmat {
                class: c.into(),
                un_number: "UN1263".into(),
            }),
            orientation: if upright {
                storage::Orientation::Upright
            } else {
                storage::Orientation::Any
            },
            low_stock_threshold: 0,
            created_at_ms: 0,
            updated_at_ms: 0,
            deleted_at_ms: None,
        }
    }

    fn line(sku: &str, product_id: u128, name: &str) -> OrderLine {
        OrderLine {
            sku: sku.into(),
            product_id,
            name: name.into(),
            quantity: 1,
            unit_price: "1".into(),
            unit_cost: None,
            cost_currency: None,
            allocations: vec![],
        }
    }

    fn at(x: f64, y: f64, z: f64, side: f64) -> PlacementRecord {
        PlacementRecord {
            x,
            y,
            z,
            width: side,
            height: side,
            length: side,
            rotated: false,
        }
    }

    fn package(id: u128, items: Vec<PackageItemRecord>) -> PackageRecord {
        PackageRecord {
            id,
            order_id: 7,
            warehouse_id: "W1".into(),
            box_id: "M".into(),
            box_dimensions: [8.0, 8.0, 4.0],
            status: PackageStatus::Created,
            progress: PackageStatus::Created,
            items,
            weight: 3.0,
            volume_utilization: 0.5,
            carrier: None,
            tracking_number: None,
            service: None,
            created_at_ms: 0,
            updated_at_ms: 0,
            shipped_at_ms: None,
            delivered_at_ms: None,
        }
    }

    /// A store with products 1 (MUG, upright) and 2 (PAINT, class 3), order 7 naming them,
    /// and packages 100.. each with a PAINT can on the floor and a MUG on top of it.
    fn seeded(packages: u128) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db"), &storage::StoreConfig::default()).unwrap();
        let order = OrderRecord {
            id: 7,
            external_id: "SO-7".into(),
            customer_id: None,
            customer_email: "a@example.com".into(),
            status: OrderStatus::Processing,
            lines: vec![line("MUG", 1, "Mug"), line("PAINT", 2, " ")],
            shipping_addresses: vec![],
            billing_address: None,
            total: "2".into(),
            item_count: 2,
            request_sha256: vec![],
            cancel_reason: None,
            pending_reason: None,
            created_at_ms: 0,
            updated_at_ms: 0,
        };
        let item = |sku: &str, placements: Vec<PlacementRecord>| PackageItemRecord {
            sku: sku.into(),
            inventory_id: 1,
            quantity: placements.len() as u32,
            placements,
        };
        store
            .transact(|tx| {
                tx.insert::<Products>(&1, &product(1, "MUG", true, None))?;
                tx.insert::<Products>(&2, &product(2, "PAINT", false, Some("3")))?;
                tx.insert::<Orders>(&7, &order)?;
                for id in 100..100 + packages {
                    let items = vec![
                        item("MUG", vec![at(0.0, 4.0, 0.0, 4.0)]),
                        item("PAINT", vec![at(0.0, 0.0, 0.0, 4.0)]),
                    ];
                    tx.insert::<Packages>(&id, &package(id, items))?;
                }
                Ok::<_, storage::Abort<std::convert::Infallible>>(())
            })
            .unwrap();
        store.durable_blocking().unwrap();
        (dir, store)
    }

    #[test]
    fn the_box_takes_names_from_the_order_and_rules_from_the_products() {
        let (_dir, store) = seeded(1);
        let view = Scenes::default().get(&store, 100).unwrap().unwrap();
        // The can on the floor first, the mug that rests on it second.
        let skus: Vec<&str> = view.steps.iter().map(|s| s.sku.as_str()).collect();
        assert_eq!(skus, ["PAINT", "MUG"]);
        let (paint, mug) = (&view.steps[0], &view.steps[1]);
        assert_eq!(mug.rests_on, [1]);
        assert_eq!(mug.name, "Mug");
        assert_eq!(mug.orientation, Orientation::Upright);
        assert_eq!(mug.hazmat_class, None);
        // A blank line name falls back to the SKU.
        assert_eq!(paint.name, "PAINT");
        assert_eq!(paint.orientation, Orientation::Any);
        assert_eq!(paint.hazmat_class.as_deref(), Some("3"));
        assert_eq!(mug.position.y, 4.0);
        assert_eq!(
            view.contents(),
            [
                ("MUG".into(), "Mug".into(), 1),
                ("PAINT".into(), "PAINT".into(), 1)
            ]
        );
        assert_eq!(view.scene.render(Some(2)).matches("data-step=").count(), 2);
    }

    #[test]
    fn the_cache_keeps_the_most_recent_packages_only() {
        let n = KEPT as u128 + 2;
        let (_dir, store) = seeded(n);
        let scenes = Scenes::default();
        assert!(scenes.get(&store, 1).unwrap().is_none(), "unknown package");
        let first = scenes.get(&store, 100).unwrap().unwrap();
        let again = scenes.get(&store, 100).unwrap().unwrap();
        assert!(Arc::ptr_eq(&first, &again), "a kept view is not rebuilt");
        for id in 101..100 + n {
            scenes.get(&store, id).unwrap().unwrap();
        }
        assert_eq!(scenes.len(), KEPT);
        // 100 and 101 were the least recently used: both were pushed out.
        let rebuilt = scenes.get(&store, 100).unwrap().unwrap();
        assert!(!Arc::ptr_eq(&first, &rebuilt));
        // Asking for a kept one moves it to the front, so it outlives the next insertions.
        // (That pushed out 102; 103 is now the oldest kept.)
        let kept = scenes.get(&store, 103).unwrap().unwrap();
        scenes.get(&store, 101).unwrap().unwrap();
        assert!(Arc::ptr_eq(
            &kept,
            &scenes.get(&store, 103).unwrap().unwrap()
        ));
        assert_eq!(scenes.len(), KEPT);
    }
}
