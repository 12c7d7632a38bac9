//! The one `match` from a route to its handler.

use super::api::Api;
use super::ctx::Ctx;
use super::error::ApiError;
use super::response::Resp;
use super::routes::RouteId;
use super::{
    bulk_import, console, console_admin, health, inbound, inventory, login, metrics, orders,
    packages, packing_api, products, warehouses, webhooks,
};

pub(super) async fn dispatch(id: RouteId, ctx: &mut Ctx<'_>, api: &Api) -> Result<Resp, ApiError> {
    match id {
        RouteId::Health => Ok(health::fulfillment(ctx.app)),
        RouteId::PackingHealth => Ok(health::packing(ctx.app)),
        RouteId::Metrics => metrics::scrape(ctx),
        RouteId::OpenApi => Ok(api.docs.fulfillment_json()),
        RouteId::PackingOpenApi => Ok(api.docs.packing_json()),
        RouteId::PackingOptimize => packing_api::optimize(ctx).await,
        RouteId::Docs => Ok(api.docs.html()),
        RouteId::ListProducts => products::list(ctx),
        RouteId::CreateProduct => products::create(ctx),
        RouteId::GetProduct => products::get(ctx),
        RouteId::UpdateProduct => products::update(ctx),
        RouteId::DeleteProduct => products::delete(ctx),
        RouteId::GetProductBySku => products::get_by_sku(ctx),
        RouteId::ListWarehouses => warehouses::list(ctx),
        RouteId::CreateWarehouse => warehouses::create(ctx),
        RouteId::GetWarehouse => warehouses::get(ctx),
        RouteId::UpdateWarehouse => warehouses::update(ctx),
        RouteId::ListInventory => inventory::list(ctx),
        RouteId::CreateInventory => inventory::create(ctx),
        RouteId::GetInventory => inventory::get(ctx),
        RouteId::AdjustInventory => inventory::adjust(ctx),
        RouteId::ListInventoryAdjustments => inventory::history(ctx),
        RouteId::ListOrders => orders::list(ctx),
        RouteId::CreateOrder => orders::create(ctx),
        RouteId::GetOrder => orders::get(ctx),
        RouteId::UpdateOrder => orders::update(ctx),
        RouteId::CancelOrder => orders::cancel(ctx),
        RouteId::BulkImportOrders => bulk_import::import(ctx),
        RouteId::ListWebhooks => webhooks::list(ctx),
        RouteId::CreateWebhook => webhooks::create(ctx),
        RouteId::GetWebhook => webhooks::get(ctx),
        RouteId::UpdateWebhook => webhooks::update(ctx),
        RouteId::DeleteWebhook => webhooks::delete(ctx),
        RouteId::TestWebhook => webhooks::test(ctx),
        RouteId::ListWebhookDeliveries => webhooks::deliveries(ctx),
        RouteId::RetryWebhookDelivery => webhooks::retry(ctx),
        RouteId::RecoverWebhookDeliveries => webhooks::recover(ctx),
        RouteId::PackOrder => packages::pack(ctx).await,
        RouteId::ListPackages => packages::list(ctx),
        RouteId::GetPackage => packages::get(ctx),
        RouteId::ListPackageEvents => packages::events(ctx),
        RouteId::ShipPackage => packages::ship(ctx),
        RouteId::WmsPackageStatus => inbound::wms(ctx),
        RouteId::CarrierTracking => inbound::carrier(ctx),
        RouteId::ConsoleLoginForm => Ok(login::form(ctx)),
        RouteId::ConsoleLogin => login::login(ctx).await,
        RouteId::ConsoleLogout => login::logout(ctx),
        RouteId::ConsoleSession => login::session(ctx),
        RouteId::ConsoleShell | RouteId::ConsolePage => console::serve(ctx),
        RouteId::ListUsers => console_admin::list_users(ctx).await,
        RouteId::CreateUser => console_admin::create_user(ctx).await,
        RouteId::DeleteUser => console_admin::delete_user(ctx).await,
        RouteId::ListClients => console_admin::list_clients(ctx).await,
        RouteId::CreateClient => console_admin::create_client(ctx).await,
        RouteId::DeleteClient => console_admin::delete_client(ctx).await,
        RouteId::SetInboundSecret => console_admin::set_inbound_secret(ctx).await,
        RouteId::Token => Err(ApiError::internal("token route reached dispatch")),
    }
}
