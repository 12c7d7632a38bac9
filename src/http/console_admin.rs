//! The console's administration endpoints, for people with the `admin` role only (a
//! console session: API clients are machines and do not mint credentials): users, API
//! clients and inbound secrets, as the `users`, `clients` and `inbound` commands manage
//! them. Under `/console/api/`, so not part of the API documents.

use hyper::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::Tier;

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::response::{json, Resp};
use crate::accounts::{password, users};
use crate::domain::time_fmt::rfc3339;

/// Runs blocking account work (Argon2 hashing, waits for durability) off the runtime.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::internal(format!("{e:#}")))
}

#[derive(Deserialize)]
struct UserInput {
    #[serde(default)]
    username: Field<String>,
    #[serde(default)]
    role: Field<String>,
    #[serde(default)]
    password: Field<String>,
}

/// `GET /console/api/users`.
pub async fn list_users(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let accounts = ctx.app.accounts.clone();
    let list = blocking(move || accounts.list_users()).await?;
    let users: Vec<Value> = list
        .into_iter()
        .map(|u| json!({"username": u.username, "role": u.role, "createdAt": rfc3339(u.created_at * 1000)}))
        .collect();
    Ok(json(StatusCode::OK, &json!({ "users": users })))
}

/// `POST /console/api/users` `{username, role, password?}`: 201 with the generated
/// password, shown this once, when none was given.
pub async fn create_user(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let input: UserInput = body::json(&ctx.body)?;
    let name = input.username.required("username")?;
    users::validate_name(&name).map_err(|e| ApiError::validation("username", e.to_string()))?;
    let role = input.role.required("role")?;
    users::parse_role(&role).map_err(|e| ApiError::validation("role", e.to_string()))?;
    let chosen = input.password.optional();
    if let Some(p) = &chosen {
        password::check_rule(p).map_err(|e| ApiError::validation("password", e.to_string()))?;
    }
    let accounts = ctx.app.accounts.clone();
    let taken = {
        let (accounts, name) = (accounts.clone(), name.clone());
        blocking(move || Ok(accounts.list_users()?.iter().any(|u| u.username == name))).await?
    };
    if taken {
        return Err(ApiError::conflict("conflict", "A user with this name exists.").on("username"));
    }
    let created = blocking(move || accounts.create_user(&name, &role, chosen)).await?;
    Ok(json(StatusCode::CREATED, &created))
}

/// `DELETE /console/api/users/{name}`: the user's sessions end at once.
pub async fn delete_user(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let accounts = ctx.app.accounts.clone();
    delete_named(ctx, "name", "No such user.", move |name| {
        accounts.delete_user(name)
    })
    .await
}

/// Deletes what the path parameter `param` names: `{"deleted": it}`, or 404 with
/// `missing` when `delete` finds nothing.
async fn delete_named(
    ctx: &Ctx<'_>,
    param: &str,
    missing: &str,
    delete: impl FnOnce(&str) -> anyhow::Result<bool> + Send + 'static,
) -> Result<Resp, ApiError> {
    let name = ctx.param(param).to_string();
    let shown = name.clone();
    if !blocking(move || delete(&name)).await? {
        return Err(ApiError::not_found(missing));
    }
    Ok(json(StatusCode::OK, &json!({ "deleted": shown })))
}

#[derive(Deserialize)]
struct ClientInput {
    #[serde(default)]
    name: Field<String>,
    #[serde(default)]
    tier: Field<String>,
}

/// `GET /console/api/clients` (no secrets).
pub async fn list_clients(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let clients = ctx.app.clients.clone();
    let list = blocking(move || clients.list()).await?;
    let out: Vec<Value> = list
        .into_iter()
        .map(|c| json!({"clientId": c.client_id, "name": c.name, "tier": c.tier, "createdAt": rfc3339(c.created_at * 1000)}))
        .collect();
    Ok(json(StatusCode::OK, &json!({ "clients": out })))
}

/// `POST /console/api/clients` `{name, tier?}`: 201 with the secret and API key, shown
/// this once.
pub async fn create_client(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let input: ClientInput = body::json(&ctx.body)?;
    let name = input.name.required("name")?.trim().to_string();
    if name.is_empty() || name.len() > 200 {
        return Err(ApiError::validation(
            "name",
            "name needs 1 to 200 characters.",
        ));
    }
    let tier_name = input.tier.optional().unwrap_or_else(|| "starter".into());
    let tier = Tier::parse(&tier_name).ok_or_else(|| {
        ApiError::validation(
            "tier",
            "tier must be starter, growth, pro, enterprise or unlimited.",
        )
    })?;
    let clients = ctx.app.clients.clone();
    let c = blocking(move || clients.create(&name, tier)).await?;
    Ok(json(
        StatusCode::CREATED,
        &json!({"clientId": c.client_id, "clientSecret": c.client_secret, "apiKey": c.api_key, "tier": c.tier}),
    ))
}

/// `DELETE /console/api/clients/{id}`: its tokens and key stop working at once.
pub async fn delete_client(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let clients = ctx.app.clients.clone();
    delete_named(ctx, "id", "No such client.", move |id| clients.delete(id)).await
}

#[derive(Deserialize)]
struct SecretInput {
    #[serde(default)]
    source: Field<String>,
    #[serde(default)]
    secret: Field<String>,
}

/// `POST /console/api/inbound-secrets` `{source, secret}` (`wms` or `carrier:NAME`).
pub async fn set_inbound_secret(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let input: SecretInput = body::json(&ctx.body)?;
    let source = input.source.required("source")?;
    let secret = input.secret.required("secret")?;
    if secret.len() < 16 {
        return Err(ApiError::validation(
            "secret",
            "secret needs at least 16 characters.",
        ));
    }
    crate::clients::validate_source(&source)
        .map_err(|e| ApiError::validation("source", e.to_string()))?;
    let clients = ctx.app.clients.clone();
    let shown = source.clone();
    blocking(move || clients.set_inbound_secret(&source, &secret)).await?;
    Ok(json(StatusCode::OK, &json!({ "source": shown })))
}
