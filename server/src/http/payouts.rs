//! `/v1/payouts`: create (idempotent; `402 insufficient_funds` is stored and replayed), read, list.
//! The request debits the balance and queues the payout in one transaction with its idempotency
//! record; the payout worker then carries it to the partner.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::body::JsonBody;
use super::error::{ApiError, ApiResult};
use super::list::{List, Page, PageQuery};
use super::middleware::RequestId;
use crate::auth::Merchant;
use crate::idempotency::{IdempotencyKey, IdempotentRequest, StoredResponse};
use crate::payments::payouts::{self, NewPayout, Payout};
use crate::startup::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_payout, list_payouts))
        .routes(routes!(get_payout))
}

/// Pays out part of the balance to a bank account.
#[utoipa::path(post, path = "/v1/payouts", tag = "payouts",
    params(("Idempotency-Key" = String, Header, description = "One key per intended payout")),
    responses((status = 201, body = Payout), (status = 400), (status = 402), (status = 409), (status = 422)))]
async fn create_payout(
    State(state): State<AppState>,
    merchant: Merchant,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    body: JsonBody,
) -> Response {
    submit(&state, &merchant.id, &key, &body, &request_id).await
}

/// `POST /v1/payouts` for `merchant_id`: the API's handler, and the console's payout form,
/// which goes through the same engine with the form's key.
pub async fn submit(
    state: &AppState,
    merchant_id: &str,
    key: &IdempotencyKey,
    body: &JsonBody,
    request_id: &str,
) -> Response {
    let new_payout = match NewPayout::parse(body) {
        Ok(new_payout) => new_payout,
        Err(error) => return error.into_response(),
    };
    let request = IdempotentRequest {
        merchant_id,
        key,
        endpoint: "POST /v1/payouts",
        body: &body.0,
        request_id,
    };
    state
        .idempotency
        .execute(&request, || async {
            let mut tx = state.pool.begin().await?;
            let payout = payouts::create(&mut tx, merchant_id, key.as_str(), &new_payout).await?;
            let response = StoredResponse::created("/v1/payouts", "payout", &payout.id, &payout);
            Ok((tx, response))
        })
        .await
}

/// The merchant's payouts, newest first.
#[utoipa::path(get, path = "/v1/payouts", tag = "payouts", params(PageQuery),
    responses((status = 200, body = List<Payout>)))]
async fn list_payouts(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Payout>>> {
    let rows = payouts::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

#[utoipa::path(get, path = "/v1/payouts/{id}", tag = "payouts",
    responses((status = 200, body = Payout), (status = 404)))]
async fn get_payout(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<Payout>> {
    payouts::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(ApiError::ResourceMissing("payout"))
}
