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
