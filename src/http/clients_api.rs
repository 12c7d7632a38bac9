//! API clients managed from the console by an admin: list, create (the secret and API
//! key are answered once) and delete. People only (`Access::Console`): a machine's
//! credentials never mint more credentials; the `clients` commands remain for scripts.

use serde::Deserialize;
use serde_json::json;
use storage::Tier;

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::response::{json, Resp};
use super::text::short_text;
use hyper::StatusCode;

fn rfc3339(unix: i64) -> Option<String> {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()?
        .format(&time::format_description::well_known::Rfc3339)
        .ok()
}

fn failed(e: anyhow::Error) -> ApiError {
    ApiError::internal(format!("{e:#}"))
}

/// `GET /api/clients`: every client, oldest first, without secrets.
pub fn list(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let mut rows = ctx.app.clients.list().map_err(failed)?;
    rows.sort_by(|a, b| (a.created_at, &a.client_id).cmp(&(b.created_at, &b.client_id)));
    let clients: Vec<_> = rows
        .iter()
        .map(|c| {
            json!({ "clientId": c.client_id, "name": c.name, "tier": c.tier,
                    "createdAt": rfc3339(c.created_at) })
        })
        .collect();
    Ok(json(StatusCode::OK, &json!({ "clients": clients })))
}

#[derive(Deserialize)]
struct CreateInput {
    #[serde(default)]
    name: Field<String>,
    #[serde(default)]
    tier: Field<String>,
}

/// `POST /api/clients` `{name, tier}`: 201 with the credentials, shown this once.
pub async fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let i: CreateInput = body::json(&ctx.body)?;
    let name = short_text("name", i.name.required("name")?, 200)?;
    let tier = match i.tier.optional() {
        None => Tier::Starter,
        Some(t) => Tier::parse(&t).ok_or_else(|| {
            let names: Vec<&str> = Tier::ALL.iter().map(|t| t.as_str()).collect();
            ApiError::validation("tier", format!("tier must be one of {}.", names.join(", ")))
        })?,
    };
    let clients = ctx.app.clients.clone();
    // Creating a client flushes the store before it returns: off the async threads.
    let creds = tokio::task::spawn_blocking(move || clients.create(&name, tier))
        .await
        .map_err(ApiError::internal)?
        .map_err(failed)?;
    Ok(json(
        StatusCode::CREATED,
        &json!({ "clientId": creds.client_id, "clientSecret": creds.client_secret,
                 "apiKey": creds.api_key, "tier": creds.tier }),
    ))
}

/// `DELETE /api/clients/{id}`: 204; its tokens and key stop working at once.
pub async fn delete(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = ctx.param("id").to_string();
    let clients = ctx.app.clients.clone();
    let existed = tokio::task::spawn_blocking(move || clients.delete(&id))
        .await
        .map_err(ApiError::internal)?
        .map_err(failed)?;
    if !existed {
        return Err(ApiError::not_found("No API client with this id."));
    }
    Ok(super::response::bytes(
        StatusCode::NO_CONTENT,
        "application/json",
        bytes::Bytes::new(),
    ))
}
