//! Pure 3D bin packing engine of fulfilld: packs items into boxes across warehouses with exact
//! placements, hazmat segregation, weight balance and instructions. No IO, threads or clocks.

mod apart;
mod assemble;
mod balance;
pub mod baseline;
mod blocks;
mod bound;
mod caps;
pub mod carts;
mod check;
mod construct;
mod corner;
mod cover;
mod depot;
mod eject;
mod engine;
mod error;
mod floor;
mod geometry;
mod hazmat;
mod improve;
mod instructions;
mod kind_cap;
mod large;
mod levels;
mod merge;
pub mod model;
pub mod mpv;
mod orientation;
pub mod pallets;
mod placement;
mod platform;
mod point_first;
mod portfolio;
mod problem;
mod quick;
mod race;
mod resplit;
pub mod rng;
mod select;
mod shift;
pub mod solution;
pub mod split_bound;
mod stack;
mod suit;
mod validate;

pub use check::{MAX_LENGTH, MAX_UNITS, MAX_WEIGHT};
pub use error::{Error, Result};
pub use model::*;
pub use portfolio::{
    better_solution, pack_portfolio, pack_racing, pack_variant, race_winner, Entry,
};
pub use problem::WORK_PER_MS;
pub use problem::{SUPPORT_DEN, SUPPORT_NUM};
pub use race::Race;
pub use solution::*;
pub use validate::{validate, Violation, CONTACT_TOLERANCE};

/// Packs a request: the same request (time limit included) always gives the same solution.
/// Input errors come back as [`Error::Validation`] naming the field. The result is checked by
/// [`validate`] before it is returned; a packing that fails it is never handed out.
///
/// Pipeline: check the request (errors name the field); read the instructions;
/// assign units to warehouses (stock respected, chosen by the goal); per warehouse, pack box by
/// box from extreme points with every allowed turn, choosing each box kind by the goal; improve
/// within a deterministic work budget (repack weak boxes with others, move units out of the
/// weakest box); downsize boxes; for `balanced_weight`, centre each load; assemble the
/// response; run [`validate`] on it.
///
/// Conventions: lengths and weights are in the request's units, resolved internally to 1/1000
/// of a length unit (item sizes rounded up, box sizes down) so geometry is exact; `x` runs
/// along a box's width, `y` is vertical, `z` runs along its length; a unit "rests" when its
/// whole base ([`SUPPORT_NUM`]/[`SUPPORT_DEN`]), or the share `options.min_support`, lies on
/// the floor or on tops of units directly below it; the same request and time limit always give the same solution.
///
/// ```
/// use packing::{pack, validate, BoxType, Item, PackRequest, Warehouse};
///
/// let mut wh = Warehouse { warehouse_id: "w1".into(), ..Warehouse::default() };
/// wh.boxes.push(BoxType::new("medium", 12.0, 8.0, 10.0, 40.0));
/// wh.inventory.insert("mug".into(), 10);
/// let req = PackRequest {
///     items: vec![Item::new("mug", 4.0, 4.0, 4.0, 1.0, 6)],
///     warehouses: vec![wh],
///     ..PackRequest::default()
/// };
/// let sol = pack(&req).unwrap();
/// assert_eq!(sol.summary.total_packages, 1);
/// assert!(validate(&req, &sol).is_ok());
/// ```
pub fn pack(req: &PackRequest) -> Result<PackSolution> {
    portfolio::pack_variant(req, 0)
}
