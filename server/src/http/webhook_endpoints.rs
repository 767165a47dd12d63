//! `/v1/webhook-endpoints`: create (idempotent; with rotation, the only answers that show the
//! secret), list, read, update (`PATCH`: URL, events, disabled) and delete a merchant's webhook
//! endpoints; and the idempotent actions on one: rotate its secret, recover its failed
//! deliveries, send it a test event.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::Json;
use kaadxpay_types::ids::EndpointId;
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::author::{by_key, ClientAddress};
use super::body::Body;
use super::error::ApiResult;
use super::list::PageQuery;
use super::outcome::execute;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{List, Page};
use crate::edge::middleware::RequestId;
use crate::idempotency::IdempotencyKey;
use crate::service::state::AppState;
use crate::webhooks::endpoints::{self, CreateEndpoint, Endpoint};
use crate::webhooks::events::Event;
use crate::webhooks::management::{
    self, Recover, RecoverBody, Recovery, RotateSecret, RotateSecretBody, SendTestEvent,
    SendTestEventBody, UpdateEndpoint,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_webhook_endpoint, list_webhook_endpoints))
        .routes(routes!(
            get_webhook_endpoint,
            update_webhook_endpoint,
            delete_webhook_endpoint
        ))
        .routes(routes!(rotate_webhook_endpoint_secret))
        .routes(routes!(recover_webhook_deliveries))
        .routes(routes!(send_webhook_test_event))
}

/// Creates an endpoint that receives the given event types (all of them when `events` is
/// left out), with its signing secret.
#[utoipa::path(post, path = "/v1/webhook-endpoints", tag = "webhooks",
    params(("Idempotency-Key" = String, Header)), request_body = CreateEndpoint,
    responses((status = 201, description = "The endpoint, with its signing secret (shown only here).", body = Endpoint)))]
async fn create_webhook_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Body(command): Body<CreateEndpoint>,
) -> Response {
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// The merchant's endpoints, newest first, without their secrets.
#[utoipa::path(get, path = "/v1/webhook-endpoints", tag = "webhooks", params(PageQuery),
    responses((status = 200, body = List<Endpoint>)))]
async fn list_webhook_endpoints(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Endpoint>>> {
    let rows = endpoints::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One webhook endpoint, without its secret.
#[utoipa::path(get, path = "/v1/webhook-endpoints/{id}", tag = "webhooks",
    responses((status = 200, body = Endpoint), (status = 404)))]
async fn get_webhook_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<EndpointId>,
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
async fn delete_webhook_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    Path(id): Path<EndpointId>,
) -> ApiResult<Json<Deleted>> {
    let by = by_key(&merchant, client);
    if !endpoints::delete(&state.pool, &merchant.id, &id, &by).await? {
        return Err(Error::ResourceMissing("webhook endpoint"));
    }
    Ok(Json(Deleted {
        id: id.into(),
        object: "webhook_endpoint",
        deleted: true,
    }))
}

/// Changes the endpoint's URL, its event types, or whether it is disabled; a field left out
/// stays as it is. Disabling stops its pending deliveries, and events raised while it is
/// disabled are never sent to it.
#[utoipa::path(patch, path = "/v1/webhook-endpoints/{id}", tag = "webhooks",
    request_body = UpdateEndpoint,
    responses((status = 200, description = "The endpoint as changed, without its secret.", body = Endpoint)))]
async fn update_webhook_endpoint(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    Path(id): Path<EndpointId>,
    Body(change): Body<UpdateEndpoint>,
) -> ApiResult<Json<Endpoint>> {
    let by = by_key(&merchant, client);
    Ok(Json(
        management::update(&state, &merchant.id, &id, &change, &by).await?,
    ))
}

/// Gives the endpoint a new signing secret. Until `previous_secret_expires_at` every delivery
/// carries both signatures, the new one first; then only the new one.
#[utoipa::path(post, path = "/v1/webhook-endpoints/{id}/rotate-secret", tag = "webhooks",
    params(("Idempotency-Key" = String, Header)), request_body = RotateSecretBody,
    responses((status = 200, description = "The endpoint with its new secret (shown only here) and `previous_secret_expires_at`.", body = Endpoint)))]
async fn rotate_webhook_endpoint_secret(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(id): Path<EndpointId>,
    Body(RotateSecretBody { overlap }): Body<RotateSecretBody>,
) -> Response {
    let command = RotateSecret {
        endpoint_id: id,
        overlap,
    };
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// Queues a new delivery (same event, same body) of every delivery to the endpoint whose
/// retries ran out or that its `410 Gone` stopped, last attempted at or after `since`.
#[utoipa::path(post, path = "/v1/webhook-endpoints/{id}/recover", tag = "webhooks",
    params(("Idempotency-Key" = String, Header)), request_body = RecoverBody,
    responses((status = 200, description = "How many deliveries were queued.", body = Recovery),
        (status = 409, description = "The endpoint is disabled: enable it first.")))]
async fn recover_webhook_deliveries(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(id): Path<EndpointId>,
    Body(RecoverBody { since }): Body<RecoverBody>,
) -> Response {
    let command = Recover {
        endpoint_id: id,
        since,
    };
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// Sends the endpoint, and it only, a signed event of the type with made-up data, marked
/// `"test": true` in its body and `kaadxpay-test: true` in its headers.
#[utoipa::path(post, path = "/v1/webhook-endpoints/{id}/test", tag = "webhooks",
    params(("Idempotency-Key" = String, Header)), request_body = SendTestEventBody,
    responses((status = 200, description = "The test event with its delivery, as `GET /v1/events/{event_id}` shows it.", body = Event),
        (status = 409, description = "The endpoint is disabled: enable it first.")))]
async fn send_webhook_test_event(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(id): Path<EndpointId>,
    Body(SendTestEventBody { event_type }): Body<SendTestEventBody>,
) -> Response {
    let command = SendTestEvent {
        endpoint_id: id,
        event_type,
    };
    execute(&state, &merchant, client, &key, &request_id, command).await
}
