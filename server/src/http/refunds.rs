//! Refunds: `POST /v1/orders/{id}/refunds` (idempotent; its refusals `409
//! invalid_state_transition`, `409 amount_exceeds_refundable` and `402 insufficient_funds` are
//! stored and replayed), `GET /v1/refunds/{id}` and `GET /v1/refunds?order=` (API.md §13). The
//! request debits the balance and queues the refund in one transaction with its idempotency
//! record; the payout worker then carries it to the partner.

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::response::Response;
use axum::Json;
use kaadxpay_types::ids::{OrderId, RefundId};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::author::ClientAddress;
use super::body::Body;
use super::error::ApiResult;
use super::list::PageQuery;
use super::outcome::execute;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{List, Page};
use crate::edge::middleware::RequestId;
use crate::idempotency::IdempotencyKey;
use crate::payments::refunds::{self, CreateRefund, Refund, RefundParameters};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_refund))
        .routes(routes!(list_refunds))
        .routes(routes!(get_refund))
}

/// Refunds (part of) a captured order to the customer's bank account.
#[utoipa::path(post, path = "/v1/orders/{id}/refunds", tag = "refunds",
    params(("Idempotency-Key" = String, Header)), request_body = RefundParameters,
    responses((status = 201, description = "The refund, `pending`, its amount already out of the available balance, queued for the partner bank.", body = Refund),
        (status = 402, description = "`insufficient_funds`: the available balance in the order's currency is lower than the amount (stored and replayed)."),
        (status = 409, description = "`invalid_state_transition`: the order is not captured; `amount_exceeds_refundable` (`param` `amount`): more than is left to refund, or nothing is left (both stored and replayed); or the key is in progress.")))]
async fn create_refund(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(order_id): Path<OrderId>,
    Body(refund): Body<RefundParameters>,
) -> Response {
    let command = CreateRefund { order_id, refund };
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// The refunds list's filter, as text.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RefundsQuery {
    /// Only the refunds of this order (`ord_…`).
    #[param(pattern = "^ord_[0-9A-Za-z]+$")]
    order: Option<String>,
}

/// Which order's refunds a list shows, if one.
pub struct OrderFilter(Option<OrderId>);

impl<S: Send + Sync> FromRequestParts<S> for OrderFilter {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let Query(query) = Query::<RefundsQuery>::from_request_parts(parts, state)
            .await
            .map_err(|err| Error::invalid_body(format!("The query string is invalid: {err}.")))?;
        let order = query.order.map(|id| {
            if id.starts_with(&format!("{}_", OrderId::PREFIX)) && !id.contains('\0') {
                Ok(OrderId::from(id))
            } else {
                Err(Error::invalid(
                    "order",
                    "order must be an order id (`ord_…`).",
                ))
            }
        });
        Ok(Self(order.transpose()?))
    }
}

/// The merchant's refunds (of one order with `order`), newest first.
#[utoipa::path(get, path = "/v1/refunds", tag = "refunds", params(RefundsQuery, PageQuery),
    responses((status = 200, body = List<Refund>)))]
async fn list_refunds(
    State(state): State<AppState>,
    merchant: Merchant,
    OrderFilter(order): OrderFilter,
    page: Page,
) -> ApiResult<Json<List<Refund>>> {
    let rows = refunds::list(&state.pool, &merchant.id, order.as_ref(), &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One refund, with its status and failure code.
#[utoipa::path(get, path = "/v1/refunds/{id}", tag = "refunds",
    responses((status = 200, body = Refund), (status = 404)))]
async fn get_refund(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<RefundId>,
) -> ApiResult<Json<Refund>> {
    refunds::find(&state.pool, &merchant.id, &id)
        .await?
        .map(|record| Json(record.refund))
        .ok_or(Error::ResourceMissing("refund"))
}
