//! `/v1/orders`: create (idempotent, with its `order.created` event in the same transaction),
//! read, list, and `PUT` to capture or cancel.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::body::JsonBody;
use super::error::{ApiError, ApiResult};
use super::list::{List, Page, PageQuery};
use super::middleware::RequestId;
use crate::auth::Merchant;
use crate::failpoints;
use crate::idempotency::{IdempotencyKey, IdempotentRequest, StoredResponse};
use crate::payments::orders::{self, NewOrder, Order, Target};
use crate::startup::AppState;
use crate::webhooks::outbox::{self, EventType};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_order, list_orders))
        .routes(routes!(get_order, update_order))
}

/// Creates a pending order.
#[utoipa::path(post, path = "/v1/orders", tag = "orders",
    params(("Idempotency-Key" = String, Header, description = "One key per intended order")),
    responses((status = 201, body = Order), (status = 400), (status = 409), (status = 422)))]
async fn create_order(
    State(state): State<AppState>,
    merchant: Merchant,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    body: JsonBody,
) -> Response {
    let new_order = match NewOrder::parse(&body) {
        Ok(new_order) => new_order,
        Err(error) => return error.into_response(),
    };
    let request = IdempotentRequest {
        merchant_id: &merchant.id,
        key: &key,
        endpoint: "POST /v1/orders",
        body: &body.0,
        request_id: &request_id,
    };
    state
        .idempotency
        .execute(&request, || async {
            let mut tx = state.pool.begin().await?;
            let order = orders::insert(&mut tx, &merchant.id, &new_order).await?;
            outbox::publish(&mut tx, &merchant.id, EventType::OrderCreated, &order).await?;
            failpoints::check("order.before_commit")?;
            let response = StoredResponse::created("/v1/orders", "order", &order.id, &order);
            Ok((tx, response))
        })
        .await
}

/// The merchant's orders, newest first.
#[utoipa::path(get, path = "/v1/orders", tag = "orders", params(PageQuery),
    responses((status = 200, body = List<Order>)))]
async fn list_orders(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<Order>>> {
    let rows = orders::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

#[utoipa::path(get, path = "/v1/orders/{id}", tag = "orders",
    responses((status = 200, body = Order), (status = 404)))]
async fn get_order(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<Order>> {
    orders::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(ApiError::ResourceMissing("order"))
}

/// Captures or cancels a pending order; naturally idempotent, so no key is needed.
#[utoipa::path(put, path = "/v1/orders/{id}", tag = "orders",
    responses((status = 200, body = Order), (status = 404), (status = 409)))]
async fn update_order(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
    body: JsonBody,
) -> ApiResult<Json<Order>> {
    let target = Target::parse(&body)?;
    Ok(Json(
        orders::transition(&state.pool, &merchant.id, &id, target).await?,
    ))
}
