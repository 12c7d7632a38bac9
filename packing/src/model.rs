//! Request model of the packing API (`packing-api.md` section 2 plus `decisions.md` section 7):
//! plain data in the caller's units, which the HTTP layer maps from and to JSON.

use std::collections::BTreeMap;

/// Unit of every length in a request and its solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LengthUnit {
    /// Inches (the default).
    #[default]
    In,
    /// Centimetres.
    Cm,
}

/// Unit of every weight in a request and its solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightUnit {
    Lb,
    Kg,
}

/// Which turns of an item are allowed. `height` is always the vertical axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Orientation {
    /// All six axis-aligned turns.
    #[default]
    Any,
    /// Turns about the vertical axis only: the item's height stays vertical ("this side up").
    Upright,
    /// No turn at all.
    Fixed,
}

/// What the packer optimises first. The goals differ in how warehouses and boxes are chosen:
/// `fewest_warehouses` ships from the fewest warehouses that can supply the order, then needs
/// the fewest packages; `fewest_packages` and `balanced_weight` may add a warehouse when that
/// saves packages; `lowest_cost` and `best_fit` ship from the fewest warehouses. Preferred
/// warehouses come first among equally good choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Goal {
    /// Fewest packages (a warehouse more if that saves one), then smallest and cheapest boxes.
    #[default]
    FewestPackages,
    /// Lowest total box cost.
    LowestCost,
    /// Ship from as few warehouses as possible, then fewest packages.
    FewestWarehouses,
    /// Highest volume utilization (least empty box volume).
    BestFit,
    /// Fewest packages, then the centre of gravity of each package nearest its floor centre.
    BalancedWeight,
}

macro_rules! wire_names {
    ($ty:ty { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// The wire name of this value.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $name),+ }
            }
            /// Parses the wire name; `None` for anything else.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($name => Some(Self::$variant),)+ _ => None }
            }
        }
    };
}

wire_names!(LengthUnit { In => "in", Cm => "cm" });
wire_names!(WeightUnit { Lb => "lb", Kg => "kg" });
wire_names!(Orientation { Any => "any", Upright => "upright", Fixed => "fixed" });
wire_names!(Goal {
    FewestPackages => "fewest_packages",
    LowestCost => "lowest_cost",
    FewestWarehouses => "fewest_warehouses",
    BestFit => "best_fit",
    BalancedWeight => "balanced_weight",
});

/// Hazardous-material classification of an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazmat {
    /// DOT hazard class or division, e.g. `"3"`, `"2.1"`, `"5.1"`, `"1.4"`.
    pub class: String,
    /// UN identification number, e.g. `"UN1203"`; reported only.
    pub un_number: Option<String>,
}

/// One line of the request: `quantity` identical physical units.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub item_id: String,
    pub width: f64,
    pub height: f64,
    pub length: f64,
    /// Weight of one unit.
    pub weight: f64,
    pub quantity: i64,
    pub orientation: Orientation,
    pub hazmat: Option<Hazmat>,
    /// Only fragile units may rest above a fragile unit (with "fragile on top": none at all).
    pub fragile: bool,
    /// `false`: nothing may be placed above this unit.
    pub stackable: bool,
}

impl Item {
    /// An item with the defaults of the API: any orientation, not hazmat, not fragile, stackable.
    pub fn new(id: &str, width: f64, height: f64, length: f64, weight: f64, quantity: i64) -> Self {
        Item {
            item_id: id.to_string(),
            width,
            height,
            length,
            weight,
            quantity,
            orientation: Orientation::Any,
            hazmat: None,
            fragile: false,
            stackable: true,
        }
    }
}

/// A kind of box a warehouse can ship in. `height` is its vertical axis (the box is never turned).
#[derive(Debug, Clone, PartialEq)]
pub struct BoxType {
    pub box_id: String,
    pub width: f64,
    pub height: f64,
    pub length: f64,
    /// Limit of the packed box's gross weight: the items plus `tare_weight`.
    pub max_weight: f64,
    /// Boxes of this kind available; `None` means unlimited.
    pub quantity: Option<i64>,
    /// Cost of one box, in the caller's currency; 0 when not given.
    pub cost: f64,
    /// Weight of the empty box; 0 when not given.
    pub tare_weight: f64,
}

impl BoxType {
    /// A box with unlimited quantity, no cost and no tare.
    pub fn new(id: &str, width: f64, height: f64, length: f64, max_weight: f64) -> Self {
        BoxType {
            box_id: id.to_string(),
            width,
            height,
            length,
            max_weight,
            quantity: None,
            cost: 0.0,
            tare_weight: 0.0,
        }
    }
}

/// A warehouse: its boxes and its stock. An item missing from `inventory` has no stock there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Warehouse {
    pub warehouse_id: String,
    pub boxes: Vec<BoxType>,
    pub inventory: BTreeMap<String, i64>,
}

/// `options` of the optimize request.
#[derive(Debug, Clone, PartialEq)]
pub struct PackOptions {
    pub goal: Goal,
    /// Free text read by the rule reader of `instructions.rs`; empty when not given.
    pub instructions: String,
    /// Effort allowed to the whole request, every pass together, converted to a deterministic
    /// work budget (the engine never reads a clock). `None` means [`default_time_limit_ms`] of
    /// the request's unit count for each pass, and at most 10 passes (`DEFAULT_PASSES`).
    pub time_limit_ms: Option<u64>,
    /// Every unit must rest on the floor or on units below it (default `true`).
    pub require_support: bool,
    /// With `require_support`, the share of each unit's base that must rest on the floor or
    /// on tops of units directly below it: 0.5 to 1.0, default 1.0 (the whole base).
    pub min_support: f64,
}

/// Effort budget used when `time_limit_ms` is absent, for requests of up to this many units.
pub const DEFAULT_TIME_LIMIT_MS: u64 = 100;
/// Most effort the default budget gives a large request.
pub const DEFAULT_TIME_LIMIT_MAX_MS: u64 = 200;

/// The budget used when `time_limit_ms` is absent: 2 ms per unit, at least
/// [`DEFAULT_TIME_LIMIT_MS`] and at most [`DEFAULT_TIME_LIMIT_MAX_MS`]. Orders of 100-200 units
/// still gain boxes from a longer search where small ones have stopped (BENCHMARKS.md, session
/// 16), and small orders, which set the median latency, keep the short budget.
pub fn default_time_limit_ms(units: u64) -> u64 {
    (2 * units).clamp(DEFAULT_TIME_LIMIT_MS, DEFAULT_TIME_LIMIT_MAX_MS)
}
/// Largest accepted `time_limit_ms`.
pub const MAX_TIME_LIMIT_MS: u64 = 60_000;

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            goal: Goal::FewestPackages,
            instructions: String::new(),
            time_limit_ms: None,
            require_support: true,
            min_support: 1.0,
        }
    }
}

/// The optimize request body.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PackRequest {
    pub items: Vec<Item>,
    pub warehouses: Vec<Warehouse>,
    pub units: LengthUnit,
    /// `None`: lb with inches, kg with centimetres.
    pub weight_units: Option<WeightUnit>,
    pub options: PackOptions,
}

impl PackRequest {
    /// The weight unit in force: the explicit one, or the one that goes with `units`.
    pub fn weight_unit(&self) -> WeightUnit {
        self.weight_units.unwrap_or(match self.units {
            LengthUnit::In => WeightUnit::Lb,
            LengthUnit::Cm => WeightUnit::Kg,
        })
    }
}
