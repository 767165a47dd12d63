//! `/v1/events`: the merchant's events, one event with its deliveries and attempts, and
//! `POST /v1/events/{event_id}/redeliver` (idempotent), which queues a new delivery of the
//! event to each live endpoint subscribed to it.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::author::ClientAddress;
use super::body::{Body, NoParameters};
use super::error::ApiResult;
use super::list::PageQuery;
use super::outcome::execute;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{Filters, List, Page};
use crate::edge::middleware::RequestId;
use crate::idempotency::IdempotencyKey;
use crate::service::state::AppState;
use crate::webhooks::events::{self, Event, RedeliverEvent};

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
    let rows = events::list(&state.pool, &merchant.id, &Filters::default(), &page).await?;
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
        .ok_or(Error::ResourceMissing("event"))
}

/// Sends the event again, as a new delivery to each live endpoint subscribed to it; answers
/// the event with its deliveries.
#[utoipa::path(post, path = "/v1/events/{event_id}/redeliver", tag = "webhooks",
    params(("Idempotency-Key" = String, Header)),
    request_body(content = NoParameters, description = "Nothing, or `{}`."),
    responses((status = 200, description = "The event with its deliveries, the new ones included.", body = Event)))]
async fn redeliver_event(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(event_id): Path<String>,
    Body(NoParameters {}): Body<NoParameters>,
) -> Response {
    match events::parse_id(&event_id) {
        Ok(event_id) => {
            let command = RedeliverEvent { event_id };
            execute(&state, &merchant, client, &key, &request_id, command).await
        }
        Err(missing) => missing.into_response(),
    }
}
