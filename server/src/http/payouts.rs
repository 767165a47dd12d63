//! `/v1/payouts`: create (idempotent; `402 insufficient_funds` is stored and replayed), read, list.
//! The request debits the balance and queues the payout in one transaction with its idempotency
//! record; the payout worker then carries it to the partner. At or above the merchant's
//! approval threshold the payout is created `pending_approval` instead; `approve` and `reject`
//! are for console members only, and answer an API key `403 forbidden`; `cancel` is for the
//! payout's own member (a key counts as its maker), an owner or an admin.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::Json;
use kaadxpay_types::ids::PayoutId;
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
use crate::payments::approvals::{self, CancelPayout};
use crate::payments::payouts::{self, CreatePayout, Payout};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_payout, list_payouts))
        .routes(routes!(get_payout))
        .routes(routes!(approve_payout))
        .routes(routes!(reject_payout))
        .routes(routes!(cancel_payout))
}

/// Pays out part of the balance to a bank account.
#[utoipa::path(post, path = "/v1/payouts", tag = "payouts",
    params(("Idempotency-Key" = String, Header)), request_body = CreatePayout,
    responses((status = 201, description = "The payout, queued for the partner bank, or `pending_approval` when its amount is at or above the merchant's approval threshold for its currency.", body = Payout),
        (status = 402, description = "The balance in this currency is lower than the amount (`insufficient_funds`, stored and replayed).")))]
async fn create_payout(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Body(command): Body<CreatePayout>,
) -> Response {
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// The merchant's payouts, newest first.
#[utoipa::path(get, path = "/v1/payouts", tag = "payouts", params(PageQuery),
    responses((status = 200, body = List<Payout>)))]
async fn list_payouts(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Payout>>> {
    let rows = payouts::list(&state.pool, &merchant.id, &Filters::default(), &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One payout, with its partner transfer and failure code when it has them.
#[utoipa::path(get, path = "/v1/payouts/{id}", tag = "payouts",
    responses((status = 200, body = Payout), (status = 404)))]
async fn get_payout(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<PayoutId>,
) -> ApiResult<Json<Payout>> {
    payouts::find(&state.pool, &merchant.id, &id)
        .await?
        .map(|record| Json(record.payout))
        .ok_or(Error::ResourceMissing("payout"))
}

/// Approves a payout awaiting approval. Approvals are made by a second member in the console
/// (API.md §11): an API key always gets `403 forbidden`.
#[utoipa::path(post, path = "/v1/payouts/{id}/approve", tag = "payouts",
    params(("Idempotency-Key" = String, Header)),
    responses((status = 200, description = "The payout, `pending` (for a console member with the right; never for an API key).", body = Payout),
        (status = 403, description = "`forbidden`: an API key may not approve a payout; a member does it in the console.")))]
async fn approve_payout(
    _merchant: Merchant,
    _key: IdempotencyKey,
    Path(_id): Path<PayoutId>,
) -> ApiResult<Json<Payout>> {
    Err(Error::Forbidden(approvals::NOT_FOR_API_KEYS))
}

/// Cancels a payout awaiting approval: it is `cancelled` and its amount is back in the balance.
/// For the member it counts as made by (a key's maker, for a payout made with a key), an owner
/// or an admin.
#[utoipa::path(post, path = "/v1/payouts/{id}/cancel", tag = "payouts",
    params(("Idempotency-Key" = String, Header)),
    request_body(content = NoParameters, description = "Nothing, or `{}`."),
    responses((status = 200, description = "The payout, `cancelled`.", body = Payout),
        (status = 403, description = "`forbidden`: the payout is another member's, and the key's maker is not an owner or admin."),
        (status = 404, description = "No such payout."),
        (status = 409, description = "`invalid_state_transition`: the payout is not awaiting approval.")))]
async fn cancel_payout(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(payout_id): Path<PayoutId>,
    Body(NoParameters {}): Body<NoParameters>,
) -> Response {
    let command = CancelPayout { payout_id };
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// Rejects a payout awaiting approval. Rejections are made by a member in the console
/// (API.md §11): an API key always gets `403 forbidden`.
#[utoipa::path(post, path = "/v1/payouts/{id}/reject", tag = "payouts",
    params(("Idempotency-Key" = String, Header)),
    responses((status = 200, description = "The payout, `rejected`, its amount back in the balance (for a console member with the right; never for an API key).", body = Payout),
        (status = 403, description = "`forbidden`: an API key may not reject a payout; a member does it in the console.")))]
async fn reject_payout(
    _merchant: Merchant,
    _key: IdempotencyKey,
    Path(_id): Path<PayoutId>,
) -> ApiResult<Json<Payout>> {
    Err(Error::Forbidden(approvals::NOT_FOR_API_KEYS))
}
