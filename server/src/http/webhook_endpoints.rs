//! `/v1/webhook-endpoints`: create (idempotent; the only answer that shows the secret), list,
//! read and delete a merchant's webhook endpoints.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::Json;
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::body::Body;
use super::error::ApiResult;
use super::list::PageQuery;
use super::middleware::RequestId;
use super::outcome::execute;
use crate::auth::Merchant;
use crate::error::Error;
use crate::idempotency::IdempotencyKey;
use crate::pagination::{List, Page};
use crate::state::AppState;
use crate::webhooks::endpoints::{self, CreateEndpoint, Endpoint};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_endpoint, list_endpoints))
        .routes(routes!(get_endpoint, delete_endpoint))
}

/// Creates an endpoint that receives the given event types (all of them when `events` is
/// left out), with its signing secret.
#[utoipa::path(post, path = "/v1/webhook-endpoints", tag = "webhooks",
    params(("Idempotency-Key" = String, Header)), request_body = CreateEndpoint,
    responses((status = 201, description = "The endpoint, with its signing secret (shown only here).", body = Endpoint)))]
async fn create_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Body(command): Body<CreateEndpoint>,
) -> Response {
    execute(&state, &merchant, &key, &request_id, command).await
}

/// The merchant's endpoints, newest first, without their secrets.
#[utoipa::path(get, path = "/v1/webhook-endpoints", tag = "webhooks", params(PageQuery),
    responses((status = 200, body = List<Endpoint>)))]
async fn list_endpoints(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Endpoint>>> {
    let rows = endpoints::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

#[utoipa::path(get, path = "/v1/webhook-endpoints/{id}", tag = "webhooks",
    responses((status = 200, body = Endpoint), (status = 404)))]
async fn get_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<Endpoint>> {
    endpoints::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("webhook endpoint"))
}

#[derive(Serialize, utoipa::ToSchema)]
struct Deleted {
    id: String,
    /// Always `webhook_endpoint`.
    object: &'static str,
    deleted: bool,
}

/// Deletes the endpoint: nothing more is sent to it, its pending deliveries stop.
#[utoipa::path(delete, path = "/v1/webhook-endpoints/{id}", tag = "webhooks",
    responses((status = 200, body = Deleted), (status = 404)))]
async fn delete_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    if !endpoints::delete(&state.pool, &merchant.id, &id).await? {
        return Err(Error::ResourceMissing("webhook endpoint"));
    }
    Ok(Json(Deleted {
        id,
        object: "webhook_endpoint",
        deleted: true,
    }))
}
