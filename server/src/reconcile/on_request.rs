//! "Run reconciliation now": a person starts an applied run for a day (the console's button):
//! support staff always, a merchant's member only in test mode, checked here rather than by the
//! page that offers it. A member's run is audited (`reconciliation.run_started`) with the run's
//! start.
//!
//! Idempotent like every POST, through the same engine: the request carries a key, whose scope
//! is the member's merchant (support staff's keys are one scope of their own, [`Scope::Staff`]).
//! The run is the effect of a one-commit transaction ([`crate::idempotency::Once::transaction`])
//! that holds the key's lock while the run is made and commits the key's record, naming the
//! run, once it is stored. A repeat of the key (a double click, a resubmitted form) that finds
//! the key held waits for the lock and then answers the run the record names; the key used for
//! another day is refused (the day is the request's body). A run whose process died never
//! committed its record, and its lock went with its connection, so the key is free and asking
//! again runs again, which is safe: each duplicate is reversed once, ever.

use chrono::NaiveDate;
use serde::Serialize;

use super::{run_with_items, Reconciler, StoredRun};
use crate::contract::error::Error;
use crate::idempotency::{
    fingerprint, lock_key, Idempotency, IdempotencyKey, IdempotentRequest, Outcome, Scope,
    StoredResponse,
};
use crate::service::author::By;
use kaadxpay_partner_sim::test_mode::TestMode;
use kaadxpay_types::ids::MerchantId;

/// The keyed operation's endpoint in the key's record (the console's route).
pub const ENDPOINT: &str = "POST /reconciliation/run";

/// Who asks, as the console knows them.
#[derive(Debug, Clone, Copy)]
pub enum Requester<'a> {
    /// Support staff: see every merchant's items.
    Support,
    /// A member of this merchant, as the audit log names them: sees its items.
    Merchant(&'a MerchantId, &'a By),
}

impl<'a> Requester<'a> {
    /// Whose keys the request's key is among.
    fn scope(self) -> Scope<'a> {
        match self {
            Self::Support => Scope::Staff,
            Self::Merchant(merchant_id, _) => Scope::Merchant(merchant_id),
        }
    }
}

/// What makes two requests with one key the same request.
#[derive(Serialize)]
struct RunNow {
    date: NaiveDate,
}

#[derive(Debug, thiserror::Error)]
pub enum RunNowError {
    #[error("only support staff may run reconciliation when not in test mode")]
    NotAllowed,
    #[error("this key already ran reconciliation for another day")]
    KeyReused,
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl From<sqlx::Error> for RunNowError {
    fn from(err: sqlx::Error) -> Self {
        Self::Failed(err.into())
    }
}

impl From<Error> for RunNowError {
    fn from(err: Error) -> Self {
        match err {
            Error::Internal(cause) => Self::Failed(cause),
            other => Self::Failed(other.into()),
        }
    }
}

impl Reconciler {
    /// Reconciles and applies `date` for `requester` under `key` through `engine`, or answers
    /// the run an earlier request with `key` made; the run as `requester` sees it.
    pub async fn run_now(
        &self,
        engine: &Idempotency,
        requester: Requester<'_>,
        test_mode: &TestMode,
        date: NaiveDate,
        key: &IdempotencyKey,
    ) -> Result<StoredRun, RunNowError> {
        let started_by = match requester {
            Requester::Support => None,
            Requester::Merchant(..) if !test_mode.is_on().await => {
                return Err(RunNowError::NotAllowed)
            }
            Requester::Merchant(id, by) => Some((id, by)),
        };
        let request_hash = fingerprint(ENDPOINT, &RunNow { date });
        let request = IdempotentRequest {
            scope: requester.scope(),
            key,
            endpoint: ENDPOINT,
            request_hash: &request_hash,
            request_id: "",
        };
        // Held (another request with the key is running): wait for it, then its record answers,
        // or the key is free again if it stopped. Three passes settle a request that stops
        // while another waits.
        for _ in 0..3 {
            let outcome = engine
                .execute_once(
                    &request,
                    |once| async move {
                        once.transaction(async |_| {
                            let run = self.run_for(date, true, started_by).await?;
                            let answer = serde_json::json!({ "id": run.id });
                            let created = StoredResponse::created(
                                "/reconciliation",
                                "reconciliation_run",
                                &run.id,
                                &answer,
                            );
                            Ok::<_, Error>(created.recorded_verbatim())
                        })
                        .await
                    },
                    |resource| async move {
                        Err(
                            anyhow::anyhow!("a run is recorded by its bytes: {}", resource.id)
                                .into(),
                        )
                    },
                )
                .await?;
            let answer = match outcome {
                Outcome::Executed(answer) | Outcome::Replayed(answer) => answer,
                Outcome::InProgress => {
                    self.wait_for(request.scope, key).await?;
                    continue;
                }
                Outcome::KeyReused(_) => return Err(RunNowError::KeyReused),
                Outcome::Interrupted(error) => return Err(error.into()),
            };
            let run_id = answer
                .resource
                .ok_or_else(|| anyhow::anyhow!("the key's record names no run"))?
                .id;
            let visible_to = requester.scope().merchant().map(MerchantId::as_str);
            return run_with_items(&self.pool, &run_id, visible_to)
                .await?
                .ok_or_else(|| anyhow::anyhow!("the run {run_id} vanished").into());
        }
        Err(anyhow::anyhow!("the key {} stayed held", key.as_str()).into())
    }

    /// Waits until no request holds the key's lock (the one-commit path's, held while a run
    /// is made).
    async fn wait_for(&self, scope: Scope<'_>, key: &IdempotencyKey) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query!(
            "SELECT pg_advisory_xact_lock($1)",
            lock_key(scope, key.as_str())
        )
        .execute(&mut *tx)
        .await?;
        tx.rollback().await
    }
}
