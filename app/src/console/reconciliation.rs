//! Reconciliation runs and their items, test mode's magic IBANs, and "Run reconciliation now".

use async_trait::async_trait;

use super::*;

#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: RunId,
    pub date: NaiveDate,
    pub applied: bool,
    pub status: RunStatus,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub struct RunItem {
    pub kind: ItemKind,
    pub merchant_id: Option<MerchantId>,
    /// The payout or refund the transfer was made for (none for a transfer we never asked for).
    pub transfer_of: Option<TransferOf>,
    /// For a refund's transfer: the order the refund gives money back for (whose page lists it).
    pub refunded_order: Option<OrderId>,
    pub transfer_id: Option<String>,
    pub money: Option<Money>,
    pub action: Option<ReversalAction>,
    /// Why a reversal was not made: the partner's code, or what went wrong.
    pub detail: Option<String>,
}

/// A magic destination IBAN of test mode and what a payout to it does.
#[derive(Debug, Clone)]
pub struct MagicIban {
    pub iban: String,
    /// The simulator's scenario for it.
    pub scenario: Scenario,
}

/// Reconciliation runs and their items, test mode's magic IBANs, and "Run reconciliation now".
#[async_trait]
pub trait ReconciliationConsole: Send + Sync {
    /// The latest runs whose status and day (the day reconciled) pass `filter`, each with the
    /// status of the items `scope` may see.
    async fn runs(
        &self,
        scope: &Scope,
        filter: &ListFilter<RunStatus>,
    ) -> ConsoleResult<Vec<RunRow>>;
    /// A run with the items `scope` may see, and the status they make.
    async fn run(&self, scope: &Scope, id: &RunId)
        -> ConsoleResult<Option<(RunRow, Vec<RunItem>)>>;
    /// Test mode (the partner is the simulator): `Some` with its magic IBANs, else `None`.
    async fn test_mode(&self) -> Option<Vec<MagicIban>>;
    /// "Run reconciliation now": an applied run of the day `date` under the form's key,
    /// for support staff, or anyone in test mode (the backend checks); the run's id. Any number
    /// of submits of one form make one run; a member's is audited as `user`'s.
    async fn run_reconciliation(
        &self,
        user: &CurrentUser,
        date: NaiveDate,
        idempotency_key: &IdempotencyKey,
    ) -> ConsoleResult<RunId>;
}
