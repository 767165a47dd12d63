//! "Run reconciliation now": a person starts an applied run for a day (the console's button):
//! support staff always, a merchant's member only in test mode, checked here rather than by the
//! page that offers it. A member's run is audited (`reconciliation.run_started`) with the run's
//! start. Idempotent like every POST: the request carries a key, which is the member's merchant's
//! own (support staff's keys are theirs together), the run it made is stored with that key when
//! it finishes, and a repeat of the key (a double click, a resubmitted form) waits for the first
//! and answers its run instead of running again; the key used for another day is refused. A run that never finished (its process died) left its key
//! free, and asking again runs again, which is safe: each duplicate is reversed once, ever.

use chrono::NaiveDate;
use sqlx::Connection;

use super::{hold, run_with_items, Reconciler, RunRequest, StoredRun};
use crate::idempotency::IdempotencyKey;
use crate::service::author::By;
use kaadxpay_partner_sim::test_mode::TestMode;
use kaadxpay_types::ids::MerchantId;

/// The advisory lock namespace of requests to run now (the key's hash is the second key).
const REQUEST_LOCK: i32 = 0x6b78_7073;

/// Who asks, as the console knows them.
#[derive(Debug, Clone, Copy)]
pub enum Requester<'a> {
    /// Support staff: see every merchant's items.
    Support,
    /// A member of this merchant, as the audit log names them: sees its items.
    Merchant(&'a MerchantId, &'a By),
}

#[derive(Debug, thiserror::Error)]
pub enum RunNowError {
    #[error("only support staff may run reconciliation when not in test mode")]
    NotAllowed,
    #[error("this key already ran reconciliation for {0}")]
    KeyReused(NaiveDate),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl From<sqlx::Error> for RunNowError {
    fn from(err: sqlx::Error) -> Self {
        Self::Failed(err.into())
    }
}

impl Reconciler {
    /// Reconciles and applies `date` for `requester` under `key`, or answers the run an earlier
    /// request with `key` made; the run as `requester` sees it.
    pub async fn run_now(
        &self,
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
        let request = RunRequest {
            key: key.as_str(),
            started_by,
        };
        let lock = hold(
            &self.pool,
            sqlx::query!(
                "SELECT pg_advisory_lock($1, hashtext(coalesce($2, '') || ' ' || $3))",
                REQUEST_LOCK,
                request.requested_for(),
                request.key,
            ),
        )
        .await?;
        let result = self.run_once_for_key(date, &request).await;
        lock.close().await?;
        let run_id = result?;
        run_with_items(&self.pool, &run_id, request.requested_for())
            .await?
            .ok_or_else(|| anyhow::anyhow!("the run {run_id} vanished").into())
    }

    /// The run the request's key made, or a new one; under the key's lock.
    async fn run_once_for_key(
        &self,
        date: NaiveDate,
        request: &RunRequest<'_>,
    ) -> Result<String, RunNowError> {
        let made = sqlx::query!(
            r#"SELECT id, run_date AS "run_date: NaiveDate" FROM reconciliation_runs
               WHERE request_key = $1 AND requested_for IS NOT DISTINCT FROM $2"#,
            request.key,
            request.requested_for(),
        )
        .fetch_optional(&self.pool)
        .await?
        .map(|run| (run.id, run.run_date));
        match made {
            Some((_, other)) if other != date => Err(RunNowError::KeyReused(other)),
            Some((run_id, _)) => Ok(run_id),
            None => Ok(self.run_for(date, true, Some(request)).await?.id),
        }
    }
}
