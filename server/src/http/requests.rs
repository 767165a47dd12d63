//! `/v1/requests`: the merchant's request log (API.md §12), filtered and a page at a time, and
//! one request. The query string is parsed into [`Filters`] here, each refusal a `400` naming
//! its parameter; reading is [`crate::request_log::query`]'s.

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use super::list::PageQuery;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{List, Page};
use crate::request_log::query::{self, Filters, LoggedRequest};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_requests))
        .routes(routes!(get_request))
}

/// The request log's filters, as text, so that a bad value gets a `400` naming it.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FilterQuery {
    /// Requests that came with this `Idempotency-Key`.
    idempotency_key: Option<String>,
    /// Requests answered with this status.
    #[param(value_type = Option<i64>, minimum = 100, maximum = 599)]
    status: Option<String>,
    /// Requests to this route: the method and template, e.g. `POST /v1/orders`.
    route: Option<String>,
    /// Requests with this verdict: `new`, `replayed`, `in_progress` or `mismatch`.
    verdict: Option<String>,
    /// Requests made at or after this time (RFC 3339).
    #[serde(rename = "created[gte]")]
    #[param(rename = "created[gte]", value_type = Option<String>, format = DateTime)]
    created_gte: Option<String>,
    /// Requests made at or before this time (RFC 3339).
    #[serde(rename = "created[lte]")]
    #[param(rename = "created[lte]", value_type = Option<String>, format = DateTime)]
    created_lte: Option<String>,
    /// Text found in the request's id or in the `X-Request-Id` the client sent.
    q: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Filters {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let Query(query) = Query::<FilterQuery>::from_request_parts(parts, state)
            .await
            .map_err(|err| Error::invalid_body(format!("The query string is invalid: {err}.")))?;
        Ok(Self {
            idempotency_key: query.idempotency_key,
            status: query
                .status
                .as_deref()
                .map(query::status_filter)
                .transpose()?,
            route: query.route,
            verdict: query
                .verdict
                .as_deref()
                .map(query::verdict_filter)
                .transpose()?,
            created_gte: time("created[gte]", query.created_gte)?,
            created_lte: time("created[lte]", query.created_lte)?,
            search: query.q.filter(|text| !text.is_empty()),
            // The API lists every door's requests; the console can ask for one.
            door: None,
        })
    }
}

pub(super) fn time(param: &str, text: Option<String>) -> Result<Option<DateTime<Utc>>, Error> {
    text.map(|text| {
        DateTime::parse_from_rfc3339(&text)
            .map(|at| at.with_timezone(&Utc))
            .map_err(|_| {
                Error::invalid(
                    param,
                    format!("{param} must be an RFC 3339 time, e.g. 2026-12-04T00:00:00Z."),
                )
            })
    })
    .transpose()
}

/// The merchant's requests, newest first.
#[utoipa::path(get, path = "/v1/requests", tag = "requests", params(FilterQuery, PageQuery),
    responses((status = 200, body = List<LoggedRequest>)))]
async fn list_requests(
    State(state): State<AppState>,
    merchant: Merchant,
    filters: Filters,
    page: Page,
) -> ApiResult<Json<List<LoggedRequest>>> {
    let rows = query::list(&state.pool, &merchant.id, &filters, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One of the merchant's requests.
#[utoipa::path(get, path = "/v1/requests/{id}", tag = "requests",
    responses((status = 200, body = LoggedRequest), (status = 404)))]
async fn get_request(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<LoggedRequest>> {
    query::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("request"))
}
