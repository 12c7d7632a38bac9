//! Pure rendering of packed boxes for people at a packing bench: the loading order
//! ([`loading_order`]), isometric SVG diagrams ([`diagram`], [`Scene`]) and the printable packing
//! slip ([`slip_html`]). No IO, no clocks, no threads; JSON shapes and URLs belong to the server.
//!
//! Conventions, shared with the packing engine: lengths are in the package's units; a position
//! is the unit's lowest corner, measured from the box's inner front-left corner at floor level.
//! Seen from the front, `x` runs along the box's width from left to right, `y` is vertical (up is
//! `+y`, the floor is `y = 0`) and `z` runs along its length away from the viewer. The **front**
//! of the box is its `z = 0` face and "left" is small `x`, as in the engine's weight distribution
//! ("front" is `z` below half the length, "left" is `x` below half the width); so "back to
//! front" means from large `z` to small `z`. Units are lowered in from the open top.
//!
//! ```
//! use packing::{pack, BoxType, Item, Orientation, PackRequest, Warehouse};
//! use views::{diagram, loading_order, PackedBox, Scene};
//!
//! let mut wh = Warehouse { warehouse_id: "w1".into(), ..Warehouse::default() };
//! wh.boxes.push(BoxType::new("medium", 12.0, 8.0, 10.0, 40.0));
//! wh.inventory.insert("mug".into(), 6);
//! let mug = Item { orientation: Orientation::Upright, ..Item::new("mug", 4.0, 4.0, 4.0, 1.0, 6) };
//! let req = PackRequest { items: vec![mug], warehouses: vec![wh], ..PackRequest::default() };
//! let sol = pack(&req).unwrap();
//!
//! // The server fills a PackedBox from the engine's package (or from a stored package and its
//! // catalogue entries), then numbers the steps and draws them.
//! let bx = PackedBox::from_package(&sol.packages[0], &req.items);
//! let steps = loading_order(&bx);
//! assert_eq!(steps.len(), 6);
//! assert!(steps.iter().all(|s| s.rests_on.iter().all(|&r| r < s.step)));
//! let json = serde_json::to_string(&steps[0]).unwrap();
//! assert!(json.contains("\"restsOn\":[]") && json.contains("\"orientation\":\"upright\""));
//! // One picture, or a Scene to draw every step of the box from one projection.
//! let complete = diagram(&bx, &steps, None);
//! let scene = Scene::new(&bx, &steps);
//! assert_eq!(scene.render(None), complete);
//! assert_eq!(scene.render(Some(3)).matches("data-step=").count(), 3);
//! ```

mod diagram;
mod geometry;
mod markup;
mod model;
mod order;
mod paint;
mod slip;

pub use diagram::{diagram, Scene};
pub use markup::escape_html;
pub use model::{Orientation, PackedBox, Point, Size, Unit};
pub use order::{loading_order, Step};
pub use slip::{slip_html, ContentLine, PaperSize, Slip};
