//! A merchant's orders: the list, one order, and capturing or cancelling it.

use async_trait::async_trait;

use super::*;

#[derive(Debug, Clone)]
pub struct OrderRow {
    pub id: OrderId,
    pub money: Money,
    pub status: OrderStatus,
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl Listed for OrderRow {
    type Id = OrderId;
}

/// A merchant's orders: the list, one order, and capturing or cancelling it.
#[async_trait]
pub trait OrdersConsole: Send + Sync {
    /// The merchant's orders that pass `filter`; a refusal names a filter that cannot be read.
    async fn orders(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<OrderStatus>,
        starting_after: Option<OrderId>,
    ) -> ConsoleResult<Page<OrderRow>>;
    async fn order(
        &self,
        merchant_id: &MerchantId,
        id: &OrderId,
    ) -> ConsoleResult<Option<OrderRow>>;
    /// `PUT /v1/orders/{id}` semantics (to `captured` or `cancelled`), audited as `user`'s: a
    /// refusal when the move is not allowed.
    async fn set_order_status(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &OrderId,
        to: OrderStatus,
    ) -> ConsoleResult<()>;
}
