//! A captured order's refunds: the list on the order's page, and the "Refund" form.

use async_trait::async_trait;

use super::*;

#[derive(Debug, Clone)]
pub struct RefundRow {
    pub id: RefundId,
    pub money: Money,
    pub status: RefundStatus,
    pub failure_code: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// The "Refund" form as typed.
#[derive(Debug, Clone)]
pub struct RefundForm {
    pub idempotency_key: IdempotencyKey,
    /// In major units of the order's currency, as typed (`12.50`); empty for what is left.
    pub amount: String,
    pub account_holder: String,
    pub iban: String,
}

/// A captured order's refunds: the list, and refunding (the right to capture's, API.md §13).
#[async_trait]
pub trait RefundsConsole: Send + Sync {
    /// The order's refunds, newest first.
    async fn refunds_of_order(
        &self,
        merchant_id: &MerchantId,
        order: &OrderId,
    ) -> ConsoleResult<Vec<RefundRow>>;
    /// `POST /v1/orders/{id}/refunds` under the form's key, as `user`: the refund made (or the
    /// one the key made before), or the refusal (`invalid_state_transition`,
    /// `amount_exceeds_refundable`, `insufficient_funds`, a field that is not valid).
    async fn submit_refund(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        order: &OrderId,
        form: RefundForm,
    ) -> ConsoleResult<RefundId>;
}
