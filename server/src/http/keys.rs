//! `GET /v1/idempotency-keys/{key}`: the live record of one of the merchant's keys, with its
//! timeline (the requests that came with it and the life of what it made).

use axum::extract::{Path, State};
use axum::Json;
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::history::timeline::{self, Entry};
use crate::idempotency::record::{self, KeyRecord};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_idempotency_key))
}

/// The record and, in time order, what happened to the key and to what it made.
#[derive(Serialize, utoipa::ToSchema)]
struct KeyWithTimeline {
    #[serde(flatten)]
    record: KeyRecord,
    timeline: Vec<Entry>,
}

/// The live state of an `Idempotency-Key` and its timeline: every request that came with it.
#[utoipa::path(get, path = "/v1/idempotency-keys/{key}", tag = "idempotency",
    params(("key" = String, Path, description = "The Idempotency-Key, URL-encoded")),
    responses((status = 200, body = KeyWithTimeline), (status = 404)))]
async fn get_idempotency_key(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(key): Path<String>,
) -> ApiResult<Json<KeyWithTimeline>> {
    let record = record::find(&state.idempotency, &merchant.id, &key)
        .await?
        .ok_or(Error::ResourceMissing("idempotency key"))?;
    let timeline = timeline::of_key(&state.pool, &merchant.id, &record).await?;
    Ok(Json(KeyWithTimeline { record, timeline }))
}
