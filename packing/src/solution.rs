//! Response model of the packing API: packages with exact placements, per-package weight,
//! balance and hazmat figures, unfitted units with reasons, instruction outcomes and a summary.

/// A point in a box; the origin is the box corner at floor level. `x` runs along the box width,
/// `y` is vertical (along its height), `z` runs along its length.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Extents along width (x), height (y) and length (z).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Dimensions {
    pub width: f64,
    pub height: f64,
    pub length: f64,
}

/// One physical unit in a package.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedItem {
    pub item_id: String,
    /// Lowest corner of the unit.
    pub position: Point,
    /// The unit's extents as placed.
    pub dimensions: Dimensions,
    /// Whether the placed extents differ from the item's (width, height, length).
    pub rotated: bool,
    pub weight: f64,
}

/// Share of a package's weight over each quarter of its floor, split at the floor centre.
/// "Front" is `z` below half the length, "left" is `x` below half the width.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WeightDistribution {
    pub front_left: f64,
    pub front_right: f64,
    pub back_left: f64,
    pub back_right: f64,
    /// 1 when every quarter carries 25%, 0 when one quarter carries everything.
    pub balance_score: f64,
}

/// Hazmat figures of one package.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PackageHazmat {
    /// Distinct hazard classes in the package, sorted.
    pub classes: Vec<String>,
    /// No two classes in the package must be segregated.
    pub compliant: bool,
    /// Why the package is not compliant; empty when it is.
    pub issues: Vec<String>,
    /// Why units of this package were kept out of other packages (49 CFR 177.848 splits).
    pub notes: Vec<String>,
}

/// One packed box.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    pub warehouse_id: String,
    pub box_id: String,
    pub box_dimensions: Dimensions,
    /// One entry per physical unit.
    pub items: Vec<PlacedItem>,
    /// Sum of the unit weights (as the API document defines it; the box is not included).
    pub total_weight: f64,
    /// `total_weight` plus the box's tare weight: what the carrier weighs.
    pub gross_weight: f64,
    /// Units' volume over the box's inner volume, 0..1.
    pub volume_utilization: f64,
    /// The box's cost.
    pub cost: f64,
    /// Centre of gravity of the units (box coordinates); the box centre when empty.
    pub center_of_gravity: Point,
    pub weight_distribution: WeightDistribution,
    pub hazmat: PackageHazmat,
}

/// Why units could not be packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnfitReason {
    /// No allowed orientation fits in any box of the warehouses holding the item.
    TooLarge,
    /// It fits some box, but its weight (plus the box's tare) exceeds every such box's limit.
    TooHeavy,
    /// Not enough stock in any warehouse.
    NoInventory,
    /// A box would hold it, but the boxes of that kind have run out.
    NoBoxAvailable,
    /// It could only have gone into a package holding a class it must be segregated from.
    HazmatRestriction,
}

impl UnfitReason {
    /// The wire name of the reason.
    pub fn as_str(self) -> &'static str {
        match self {
            UnfitReason::TooLarge => "too_large",
            UnfitReason::TooHeavy => "too_heavy",
            UnfitReason::NoInventory => "no_inventory",
            UnfitReason::NoBoxAvailable => "no_box_available",
            UnfitReason::HazmatRestriction => "hazmat_restriction",
        }
    }
}

/// Units of one item left out for one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct UnfittedItem {
    pub item_id: String,
    pub quantity: i64,
    pub reason: UnfitReason,
}

/// How one instruction was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstructionStatus {
    Applied,
    NotUnderstood,
}

impl InstructionStatus {
    /// The wire name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            InstructionStatus::Applied => "applied",
            InstructionStatus::NotUnderstood => "not_understood",
        }
    }
}

/// One sentence of the free-text instructions and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct InstructionOutcome {
    pub text: String,
    pub status: InstructionStatus,
    /// What the reader made of it, or why it was not understood.
    pub detail: String,
}

/// Request-wide compliance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compliance {
    pub hazmat_compliant: bool,
    pub issues: Vec<String>,
}

/// Totals of a solution.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    pub total_packages: usize,
    pub total_items_packed: usize,
    /// Distinct warehouse ids with at least one package, sorted.
    pub warehouses_used: Vec<String>,
    /// Mean of the packages' `volume_utilization`; 0 with no package.
    pub average_utilization: f64,
    /// Sum of the packages' box costs.
    pub total_cost: f64,
    /// Share of each unit's base the packing was held to rest on something: the request's
    /// `min_support` when support is required, else 0.
    pub min_support: f64,
}

/// The packing of a request. Packages come in a deterministic order (by warehouse, then as
/// packed); the HTTP layer gives them ids of the form `pkg_{warehouse}_{box}_{random}`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PackSolution {
    pub packages: Vec<Package>,
    pub unfitted_items: Vec<UnfittedItem>,
    pub instructions: Vec<InstructionOutcome>,
    pub compliance: Compliance,
    pub summary: Summary,
}
