//! `/v1/events`: the merchant's events, one event with its deliveries and attempts, and
//! `POST /v1/events/{event_id}/redeliver` (idempotent), which queues a new delivery of the
//! event to each live endpoint subscribed to it.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::body::JsonBody;
use super::error::{ApiError, ApiResult};
use super::list::{List, Page, PageQuery};
use super::middleware::RequestId;
use crate::auth::Merchant;
use crate::idempotency::{IdempotencyKey, IdempotentRequest, Resource, StoredResponse};
use crate::startup::AppState;
use crate::webhooks::events::{self, Event};
use crate::webhooks::outbox;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_events))
        .routes(routes!(get_event))
        .routes(routes!(redeliver_event))
}

/// The merchant's events, newest first.
#[utoipa::path(get, path = "/v1/events", tag = "webhooks", params(PageQuery),
    responses((status = 200, body = List<Event>)))]
async fn list_events(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Event>>> {
    let rows = events::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One event with its deliveries and every attempt of each.
#[utoipa::path(get, path = "/v1/events/{event_id}", tag = "webhooks",
    responses((status = 200, body = Event), (status = 404)))]
async fn get_event(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(event_id): Path<String>,
) -> ApiResult<Json<Event>> {
    let id = events::parse_id(&event_id)?;
    let mut conn = state.pool.acquire().await?;
    events::find(&mut conn, &merchant.id, id)
        .await?
        .map(Json)
        .ok_or(ApiError::ResourceMissing("event"))
}

/// Sends the event again, as a new delivery to each live endpoint subscribed to it; answers
/// the event with its deliveries.
#[utoipa::path(post, path = "/v1/events/{event_id}/redeliver", tag = "webhooks",
    params(("Idempotency-Key" = String, Header, description = "One key per intended redelivery")),
    responses((status = 200, body = Event), (status = 404), (status = 409), (status = 422)))]
async fn redeliver_event(
    State(state): State<AppState>,
    merchant: Merchant,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(event_id): Path<String>,
    body: JsonBody,
) -> Response {
    redeliver(&state, &merchant.id, &key, &event_id, &body, &request_id).await
}

/// `POST /v1/events/{event_id}/redeliver` for `merchant_id`: the API's handler, and the
/// console's Redeliver button, which goes through the same engine with the form's key.
pub async fn redeliver(
    state: &AppState,
    merchant_id: &str,
    key: &IdempotencyKey,
    event_id: &str,
    body: &JsonBody,
    request_id: &str,
) -> Response {
    let id = match events::parse_id(event_id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    if let Err(error) = body.fields(&[]) {
        return error.into_response();
    }
    match events::exists(&state.pool, merchant_id, id).await {
        Ok(true) => {}
        Ok(false) => return ApiError::ResourceMissing("event").into_response(),
        Err(error) => return ApiError::from(error).into_response(),
    }
    // The route template is the same for every event: the event is part of what makes two
    // requests the same request.
    let fingerprinted = json!({"event_id": id, "body": body.0});
    let request = IdempotentRequest {
        merchant_id,
        key,
        endpoint: "POST /v1/events/{event_id}/redeliver",
        body: &fingerprinted,
        request_id,
    };
    state
        .idempotency
        .execute(&request, || async {
            let mut tx = state.pool.begin().await?;
            outbox::enqueue(&mut tx, merchant_id, id).await?;
            let event = events::find(&mut tx, merchant_id, id)
                .await?
                .ok_or(ApiError::ResourceMissing("event"))?;
            let resource = Resource {
                kind: "event",
                id: id.to_string(),
            };
            Ok((tx, StoredResponse::ok(&event, resource)))
        })
        .await
}
