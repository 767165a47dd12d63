//! `GET /v1/idempotency-keys/{key}`: the live record of one of the merchant's keys.

use axum::extract::{Path, State};
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use crate::auth::Merchant;
use crate::error::Error;
use crate::idempotency::record::{self, KeyRecord};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_key))
}

#[utoipa::path(get, path = "/v1/idempotency-keys/{key}", tag = "idempotency",
    params(("key" = String, Path, description = "The Idempotency-Key, URL-encoded")),
    responses((status = 200, body = KeyRecord), (status = 404)))]
async fn get_key(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(key): Path<String>,
) -> ApiResult<Json<KeyRecord>> {
    record::find(&state.pool, &merchant.id, &key)
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("idempotency key"))
}
