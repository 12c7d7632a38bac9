//! The one table of who may call what as a person: every route has exactly one class
//! (an exhaustive `match`, so a new route does not compile until it is classified), and
//! each role the classes it may call. Checked by the pipeline for console sessions; API
//! clients are not people and keep their full access.

use storage::Role;

use super::routes::RouteId;

/// What a route does, as far as people's roles are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Needs no credentials (health, documents, the token endpoint, metrics, login).
    Open,
    /// The console's own session endpoints: anyone logged in.
    Session,
    /// Reading orders, packages and warehouses.
    ReadOrders,
    /// Moving packages along to `packed` at a packing station.
    Pack,
    /// Managing orders, products, warehouses, inventory and webhook deliveries.
    Operate,
    /// Managing API clients, webhook subscriptions, inbound secrets and users.
    Administer,
    /// For machines only: inbound callbacks and the packing service.
    Machines,
}

impl Class {
    pub const ALL: [Class; 7] = [
        Class::Open,
        Class::Session,
        Class::ReadOrders,
        Class::Pack,
        Class::Operate,
        Class::Administer,
        Class::Machines,
    ];
}

/// The class of a route.
pub fn class(id: RouteId) -> Class {
    use RouteId::*;
    match id {
        Health | Token | OpenApi | Docs | Metrics | PackingHealth | PackingOpenApi
        | ConsoleLoginForm | ConsoleLogin | ConsoleShell | ConsolePage => Class::Open,
        ConsoleLogout | ConsoleSession => Class::Session,
        ListOrders | GetOrder | ListOrderEvents | ListPackages | GetPackage | ListPackageEvents
        | PackageInstructions | PackageDiagram | PackageSlip | ListWarehouses | GetWarehouse => {
            Class::ReadOrders
        }
        MarkPackagePacked => Class::Pack,
        CreateOrder
        | UpdateOrder
        | CancelOrder
        | BulkImportOrders
        | PackOrder
        | ShipPackage
        | ListProducts
        | CreateProduct
        | GetProduct
        | UpdateProduct
        | DeleteProduct
        | GetProductBySku
        | CreateWarehouse
        | UpdateWarehouse
        | ListInventory
        | CreateInventory
        | GetInventory
        | AdjustInventory
        | ListInventoryAdjustments
        | ListWebhooks
        | GetWebhook
        | ListWebhookDeliveries
        | RetryWebhookDelivery
        | RecoverWebhookDeliveries
        | TestWebhook => Class::Operate,
        CreateWebhook | UpdateWebhook | DeleteWebhook | RotateWebhookSecret | ListUsers
        | CreateUser | DeleteUser | ListClients | CreateClient | DeleteClient
        | SetInboundSecret => Class::Administer,
        WmsPackageStatus | CarrierTracking | PackingOptimize => Class::Machines,
    }
}

/// Whether a person with `role` may call routes of `class`.
pub fn allows(role: Role, class: Class) -> bool {
    match class {
        Class::Open | Class::Session | Class::ReadOrders | Class::Pack => true,
        Class::Operate => matches!(role, Role::Operator | Role::Admin),
        Class::Administer => role == Role::Admin,
        Class::Machines => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::routes::{Access, ROUTES};

    #[test]
    fn every_route_has_a_class_that_fits_its_access() {
        for def in ROUTES {
            let class = class(def.id);
            let fits = match def.access {
                Access::Public | Access::TokenEndpoint | Access::Metrics => class == Class::Open,
                Access::Console => matches!(class, Class::Session | Class::Administer),
                Access::ApiKey | Access::Inbound => class == Class::Machines,
                Access::Client => !matches!(class, Class::Open | Class::Session | Class::Machines),
            };
            assert!(
                fits,
                "{} {} is {class:?} but {:?}",
                def.method, def.path, def.access
            );
        }
    }

    #[test]
    fn each_role_includes_the_one_below() {
        for class in Class::ALL {
            assert!(!allows(Role::Packer, class) || allows(Role::Operator, class));
            assert!(!allows(Role::Operator, class) || allows(Role::Admin, class));
        }
        assert!(allows(Role::Packer, Class::Pack) && !allows(Role::Packer, Class::Operate));
        assert!(
            allows(Role::Operator, Class::Operate) && !allows(Role::Operator, Class::Administer)
        );
        assert!(!allows(Role::Admin, Class::Machines));
    }
}
