//! `GET /v1/idempotency-keys/{key}`: the live record of one of the merchant's keys, with its
//! timeline (the requests that came with it and the life of what it made).

use app::i18n::{in_language, Lang};
use app::moments::sentence;
use axum::extract::{Path, State};
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use crate::accounts::auth::Merchant;
use crate::console::timeline_moment;
use crate::contract::error::Error;
use crate::history::timeline;
use crate::idempotency::record::{self, KeyRecord};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_key))
}

/// The record and, in time order, what happened to the key and to what it made.
#[derive(Serialize, utoipa::ToSchema)]
struct KeyWithTimeline {
    #[serde(flatten)]
    record: KeyRecord,
    timeline: Vec<Entry>,
}

/// One thing that happened.
#[derive(Serialize, utoipa::ToSchema)]
struct Entry {
    at: DateTime<Utc>,
    /// `request`, `record`, `payout`, `order`, `partner_call`, `partner_webhook`, `event`,
    /// `delivery`, `reconciliation` or `reversal`.
    kind: &'static str,
    /// What happened, in English: the console's English sentence for it.
    summary: String,
    /// The id of what it names (a request, event, delivery attempt, transfer or run), if any.
    reference: Option<String>,
    /// Milliseconds since the entry before it (0 for the first).
    after_ms: i64,
}

/// The timeline as the API gives it: each moment's kind, and the console's sentence for it in
/// English.
fn in_english(entries: Vec<timeline::Entry>) -> Vec<Entry> {
    in_language(Lang::En, || {
        entries
            .into_iter()
            .map(|entry| {
                let moment = timeline_moment(entry.moment);
                Entry {
                    at: entry.at,
                    kind: moment.kind(),
                    summary: sentence(&moment),
                    reference: entry.reference,
                    after_ms: entry.after_ms,
                }
            })
            .collect()
    })
}

#[utoipa::path(get, path = "/v1/idempotency-keys/{key}", tag = "idempotency",
    params(("key" = String, Path, description = "The Idempotency-Key, URL-encoded")),
    responses((status = 200, body = KeyWithTimeline), (status = 404)))]
async fn get_key(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(key): Path<String>,
) -> ApiResult<Json<KeyWithTimeline>> {
    let record = record::find(&state.pool, &merchant.id, &key)
        .await?
        .ok_or(Error::ResourceMissing("idempotency key"))?;
    let timeline = in_english(timeline::of_key(&state.pool, &merchant.id, &record).await?);
    Ok(Json(KeyWithTimeline { record, timeline }))
}
