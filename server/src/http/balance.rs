//! `GET /v1/balance` and the statement, `GET /v1/balance-transactions` (API.md §13). The
//! statement's query string is parsed into [`StatementFilters`] here, each refusal a `400`
//! naming its parameter.

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::Json;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use super::list::PageQuery;
use super::requests::time;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{List, Page};
use crate::payments::balance::{self, Balance};
use crate::payments::money::Currency;
use crate::payments::statement::{self, BalanceTransaction, StatementFilters};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_balance))
        .routes(routes!(list_balance_transactions))
}

/// What the merchant can pay out or refund, and what payouts awaiting approval hold back, per
/// currency.
#[utoipa::path(get, path = "/v1/balance", tag = "balance", responses((status = 200, body = Balance)))]
async fn get_balance(
    State(state): State<AppState>,
    merchant: Merchant,
) -> ApiResult<Json<Balance>> {
    Ok(Json(balance::of_merchant(&state.pool, &merchant.id).await?))
}

/// The statement's filters, as text, so that a bad value gets a `400` naming it.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatementQuery {
    /// Items in this currency.
    #[param(value_type = Option<Currency>)]
    currency: Option<String>,
    /// Items of this type: `order_captured`, `payout`, `payout_returned`, `refund`,
    /// `refund_returned`, `top_up`, `reservation` or `reservation_released`.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    kind: Option<String>,
    /// Items made at or after this time (RFC 3339).
    #[serde(rename = "created[gte]")]
    #[param(rename = "created[gte]", value_type = Option<String>, format = DateTime)]
    created_gte: Option<String>,
    /// Items made at or before this time (RFC 3339).
    #[serde(rename = "created[lte]")]
    #[param(rename = "created[lte]", value_type = Option<String>, format = DateTime)]
    created_lte: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for StatementFilters {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let Query(query) = Query::<StatementQuery>::from_request_parts(parts, state)
            .await
            .map_err(|err| Error::invalid_body(format!("The query string is invalid: {err}.")))?;
        let currency = query
            .currency
            .map(|code| {
                Currency::try_from(code)
                    .map(|currency| currency.code().to_owned())
                    .map_err(|why| Error::invalid("currency", format!("currency {why}.")))
            })
            .transpose()?;
        Ok(Self {
            currency,
            kind: query.kind.map(StatementFilters::kind).transpose()?,
            created_gte: time("created[gte]", query.created_gte)?,
            created_lte: time("created[lte]", query.created_lte)?,
        })
    }
}

/// The statement: every change of the `available` balance, with the balance after it, newest
/// first.
#[utoipa::path(get, path = "/v1/balance-transactions", tag = "balance",
    params(StatementQuery, PageQuery),
    responses((status = 200, body = List<BalanceTransaction>)))]
async fn list_balance_transactions(
    State(state): State<AppState>,
    merchant: Merchant,
    filters: StatementFilters,
    page: Page,
) -> ApiResult<Json<List<BalanceTransaction>>> {
    let rows = statement::list(&state.pool, &merchant.id, &filters, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}
