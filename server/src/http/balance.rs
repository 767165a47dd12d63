//! `GET /v1/balance`.

use axum::extract::State;
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use crate::accounts::auth::Merchant;
use crate::payments::balance::{self, Balance};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_balance))
}

/// What the merchant can pay out, per currency.
#[utoipa::path(get, path = "/v1/balance", tag = "balance", responses((status = 200, body = Balance)))]
async fn get_balance(
    State(state): State<AppState>,
    merchant: Merchant,
) -> ApiResult<Json<Balance>> {
    Ok(Json(balance::of_merchant(&state.pool, &merchant.id).await?))
}
