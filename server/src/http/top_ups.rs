//! Money in (API.md §13): `GET /v1/funding-account` (where to send money, with the merchant's
//! reference), `GET /v1/top-ups` and `GET /v1/top-ups/{id}`, and the partner's
//! `transfer.received` webhook, which `partner_webhooks` hands here once its signature holds.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use kaadxpay_types::ids::TopUpId;
use serde_json::json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use super::list::PageQuery;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{List, Page};
use crate::payments::partner_events::Applied;
use crate::payments::top_ups::{self, FundingAccount, TopUp};
use crate::service::state::AppState;
use kaadxpay_partner::wire::{IncomingEvent, TRANSFER_RECEIVED};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_funding_account))
        .routes(routes!(list_top_ups))
        .routes(routes!(get_top_up))
}

/// Where to send a bank transfer to top up the balance: the account, and the reference the
/// transfer must carry (this merchant's alone).
#[utoipa::path(get, path = "/v1/funding-account", tag = "top_ups",
    responses((status = 200, body = FundingAccount)))]
async fn get_funding_account(
    State(state): State<AppState>,
    merchant: Merchant,
) -> ApiResult<Json<FundingAccount>> {
    Ok(Json(
        top_ups::funding_account(&state.pool, &state.funding, &merchant.id).await?,
    ))
}

/// The money received for the merchant, newest first: each transfer the partner received with
/// the merchant's reference, credited once.
#[utoipa::path(get, path = "/v1/top-ups", tag = "top_ups", params(PageQuery),
    responses((status = 200, body = List<TopUp>)))]
async fn list_top_ups(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<TopUp>>> {
    let rows = top_ups::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One top-up.
#[utoipa::path(get, path = "/v1/top-ups/{id}", tag = "top_ups",
    responses((status = 200, body = TopUp), (status = 404)))]
async fn get_top_up(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<TopUpId>,
) -> ApiResult<Json<TopUp>> {
    top_ups::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("top_up"))
}

/// Whether a partner event's `type` is `transfer.received`.
pub(super) fn is_incoming(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        event_type: String,
    }
    serde_json::from_slice::<Kind>(body).is_ok_and(|kind| kind.event_type == TRANSFER_RECEIVED)
}

/// A signed `transfer.received`: credits the merchant whose reference it carries, once (a
/// repeat, an incoming transfer already credited or a reference that is no merchant's answers
/// `200` and credits nothing); one the partner describes unusably is `400` and changes nothing.
pub(super) async fn received(state: &AppState, body: &[u8]) -> Response {
    let event: IncomingEvent = match serde_json::from_slice(body) {
        Ok(event) => event,
        Err(err) => {
            return Error::invalid_body(format!("The partner event is not understood: {err}."))
                .into_response()
        }
    };
    if let Err(unusable) = top_ups::check(&event.data) {
        tracing::warn!(event_id = event.event_id, error = %unusable, "refused a transfer.received");
        return Error::invalid_body(format!("The partner event is not usable: {unusable}."))
            .into_response();
    }
    match top_ups::apply_event(&state.pool, &event).await {
        Ok(applied) => Json(json!({"received": true, "duplicate": applied == Applied::Duplicate}))
            .into_response(),
        Err(err) => Error::from(err).into_response(),
    }
}
