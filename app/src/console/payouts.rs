//! A merchant's payouts: the form, the lists, approvals and their thresholds.

use async_trait::async_trait;

use super::*;

#[derive(Debug, Clone)]
pub struct PayoutRow {
    pub id: PayoutId,
    pub money: Money,
    pub status: PayoutStatus,
    pub idempotency_key: IdempotencyKey,
    pub created_at: DateTime<Utc>,
}

impl Listed for PayoutRow {
    type Id = PayoutId;
}

#[derive(Debug, Clone)]
pub struct PayoutView {
    pub row: PayoutRow,
    pub account_holder: String,
    pub iban: String,
    pub partner_transfer_id: Option<String>,
    pub failure_code: Option<String>,
    pub updated_at: DateTime<Utc>,
    /// Who created it: a user or support staff by email, an API key by id.
    pub created_by: Option<Actor>,
    /// The member it counts as made by (its creator, or the maker of the key that made it), by
    /// email: four eyes are two people.
    pub accountable: Option<String>,
    /// The member who approved or rejected it, and when.
    pub decided: Option<(String, DateTime<Utc>)>,
}

/// A decision on a payout awaiting approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
    /// By the payout's own member, an owner or an admin: the amount comes back.
    Cancel,
}

/// A new-payout form as submitted.
#[derive(Debug, Clone)]
pub struct PayoutForm {
    pub idempotency_key: IdempotencyKey,
    /// In major units, as typed (`12.50`).
    pub amount: String,
    pub currency: String,
    pub account_holder: String,
    pub iban: String,
}

/// A merchant's payouts: the form, the lists, approvals and their thresholds.
#[async_trait]
pub trait PayoutsConsole: Send + Sync {
    /// What the merchant may pay out now, per currency it holds a balance in.
    async fn available(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>>;
    /// The merchant's payouts that pass `filter`; a refusal names a filter that cannot be read.
    async fn payouts(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<PayoutStatus>,
        starting_after: Option<PayoutId>,
    ) -> ConsoleResult<Page<PayoutRow>>;
    async fn payout(
        &self,
        merchant_id: &MerchantId,
        id: &PayoutId,
    ) -> ConsoleResult<Option<PayoutView>>;
    /// Submits a payout form through the idempotency engine, like `POST /v1/payouts` with the
    /// form's key: any number of submits of one form make one payout, whose id it answers.
    async fn submit_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        form: PayoutForm,
    ) -> ConsoleResult<PayoutId>;
    /// The merchant's payouts awaiting approval that `user` may approve (not its own), oldest
    /// first: `/payouts/approvals`, and the count on the menu's link to it.
    async fn awaiting_decision(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<Vec<PayoutRow>>;
    /// Whether a member of the merchant other than `user` could approve a payout (its role may
    /// create payouts): a threshold saved when none could would lock payouts awaiting approval.
    async fn another_approver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<bool>;
    /// What `user` may decide on `payout` awaiting approval: approve and reject (a member whose
    /// role may create payouts, and whose payout it is not), cancel (its own member, an owner or
    /// an admin); the server checks again when the form comes.
    fn decisions(&self, user: &CurrentUser, payout: &PayoutView) -> Vec<Decision>;
    /// Approves, rejects or cancels the merchant's payout `id` under the form's key (any number
    /// of submits of one form, or two members at once: one outcome); refused with `forbidden` to
    /// a member who may not.
    async fn decide_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &PayoutId,
        decision: Decision,
        idempotency_key: &IdempotencyKey,
    ) -> ConsoleResult<()>;
    /// The merchant's approval thresholds, one per currency.
    async fn thresholds(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>>;
    /// Sets the threshold of `currency` to `amount` in major units as typed (`500.00`), or
    /// removes it when `amount` is empty.
    async fn change_threshold(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        currency: Currency,
        amount: &str,
    ) -> ConsoleResult<()>;
}
