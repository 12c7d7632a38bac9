//! The OpenAPI links of the success responses: which operations take the id (or SKU) that
//! a created or returned resource carries, so a client, and schemathesis' stateful phase,
//! can follow a resource from the response that made it to everything that uses it.

use serde_json::{json, Map, Value};

use super::super::routes::{RouteId, ROUTES};
use super::refs::op_id;

/// Target parameters and the JSON pointer into the source response's body each takes.
type Params = &'static [(&'static str, &'static str)];

const ID: Params = &[("id", "/id")];

/// The operations a response of `source` with `status` links to.
fn targets(source: RouteId, status: &str) -> Vec<(RouteId, Params)> {
    use RouteId::*;
    let product = || {
        vec![
            (GetProduct, ID),
            (UpdateProduct, ID),
            (DeleteProduct, ID),
            (GetProductBySku, &[("sku", "/sku")] as Params),
        ]
    };
    let order = || {
        vec![
            (GetOrder, ID),
            (UpdateOrder, ID),
            (CancelOrder, ID),
            (ListOrderEvents, ID),
            (PackOrder, ID),
            (ListPackages, &[("orderId", "/id")] as Params),
        ]
    };
    let webhook = |p: Params| {
        [
            GetWebhook,
            UpdateWebhook,
            DeleteWebhook,
            TestWebhook,
            ListWebhookDeliveries,
            RecoverWebhookDeliveries,
            RotateWebhookSecret,
        ]
        .map(|t| (t, p))
        .to_vec()
    };
    let package = |p: Params, order: Params| {
        let mut v = [
            GetPackage,
            ListPackageEvents,
            PackageInstructions,
            PackageDiagram,
            PackageSlip,
            ShipPackage,
            MarkPackagePacked,
        ]
        .map(|t| (t, p))
        .to_vec();
        v.push((GetOrder, order));
        v
    };
    let inventory = || {
        vec![
            (GetInventory, ID),
            (AdjustInventory, ID),
            (ListInventoryAdjustments, ID),
            (GetWarehouse, &[("id", "/warehouseId")] as Params),
            (GetProductBySku, &[("sku", "/sku")]),
        ]
    };
    match (source, status) {
        (CreateProduct, "201") | (GetProductBySku, "200") => product(),
        (CreateWarehouse, "201") => vec![
            (GetWarehouse, ID),
            (UpdateWarehouse, ID),
            (ListInventory, &[("warehouseId", "/id")]),
            (ListPackages, &[("warehouseId", "/id")]),
        ],
        (CreateInventory, "201") => inventory(),
        (AdjustInventory, "200") => vec![(ListInventoryAdjustments, ID)],
        (CreateOrder, "201" | "200") => order(),
        (PackOrder, "200") => vec![(ListPackages, &[("orderId", "/id")]), (GetOrder, ID)],
        (CreateWebhook, "201") => webhook(ID),
        (RotateWebhookSecret, "200") => webhook(&[("id", "/webhook/id")]),
        (TestWebhook, "202") | (RetryWebhookDelivery, "200") => vec![
            (
                RetryWebhookDelivery,
                &[("id", "/webhookId"), ("deliveryId", "/id")],
            ),
            (ListWebhookDeliveries, &[("id", "/webhookId")]),
            (GetWebhook, &[("id", "/webhookId")]),
        ],
        (GetPackage | ShipPackage, "200") => package(ID, &[("id", "/orderId")]),
        (MarkPackagePacked | WmsPackageStatus | CarrierTracking, "200") => {
            package(&[("id", "/package/id")], &[("id", "/package/orderId")])
        }
        _ => vec![],
    }
}

/// The `links` object of a response, `None` when it links nowhere.
pub(super) fn links(source: RouteId, status: &str) -> Option<Value> {
    let targets = targets(source, status);
    if targets.is_empty() {
        return None;
    }
    let mut out = Map::new();
    for (target, params) in targets {
        let summary = ROUTES
            .iter()
            .find(|r| r.id == target)
            .map_or("", |r| r.summary);
        let params: Map<String, Value> = params
            .iter()
            .map(|(name, pointer)| (name.to_string(), json!(format!("$response.body#{pointer}"))))
            .collect();
        out.insert(
            format!("{target:?}"),
            json!({ "operationId": op_id(target), "parameters": params, "description": summary }),
        );
    }
    Some(Value::Object(out))
}
