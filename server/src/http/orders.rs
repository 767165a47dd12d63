//! `/v1/orders`: create (idempotent, with its `order.created` event in the same transaction),
//! read, list, and `PUT` to capture or cancel.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::Json;
use kaadxpay_types::ids::OrderId;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::author::{by_key, ClientAddress};
use super::body::Body;
use super::error::ApiResult;
use super::list::PageQuery;
use super::outcome::execute;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{Filters, List, Page};
use crate::edge::middleware::RequestId;
use crate::idempotency::IdempotencyKey;
use crate::payments::orders::{self, CreateOrder, Order, UpdateOrder};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_order, list_orders))
        .routes(routes!(get_order, update_order))
}

/// Creates a pending order.
#[utoipa::path(post, path = "/v1/orders", tag = "orders",
    params(("Idempotency-Key" = String, Header)), request_body = CreateOrder,
    responses((status = 201, description = "The order, created pending.", body = Order)))]
async fn create_order(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Body(command): Body<CreateOrder>,
) -> Response {
    execute(&state, &merchant, client, &key, &request_id, command).await
}

/// The merchant's orders, newest first.
#[utoipa::path(get, path = "/v1/orders", tag = "orders", params(PageQuery),
    responses((status = 200, body = List<Order>)))]
async fn list_orders(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Order>>> {
    let rows = orders::list(&state.pool, &merchant.id, &Filters::default(), &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One order.
#[utoipa::path(get, path = "/v1/orders/{id}", tag = "orders",
    responses((status = 200, body = Order), (status = 404)))]
async fn get_order(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<OrderId>,
) -> ApiResult<Json<Order>> {
    orders::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("order"))
}

/// Captures or cancels a pending order; naturally idempotent, so no key is needed.
#[utoipa::path(put, path = "/v1/orders/{id}", tag = "orders", request_body = UpdateOrder,
    responses((status = 200, description = "The order in the state asked for.", body = Order),
        (status = 409, description = "The order is no longer pending (`invalid_state_transition`).")))]
async fn update_order(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    Path(id): Path<OrderId>,
    Body(update): Body<UpdateOrder>,
) -> ApiResult<Json<Order>> {
    let by = by_key(&merchant, client);
    Ok(Json(
        orders::transition(&state.pool, &merchant.id, &id, update.status, &by).await?,
    ))
}
