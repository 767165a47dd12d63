//! Reversals of duplicate transfers (of payouts and refunds alike), retried until done whatever
//! their day. A reversal the
//! partner refused or did not answer is due again after a back-off (the first retry within a
//! minute, then doubling, at most every few hours), and the reversal worker, on every replica
//! each `KAADXPAY_RECONCILE_INTERVAL`, claims the due ones (fenced by a claim token under a
//! lease, as runs claim them, so a reversal is asked for by one claimer at a time), asks the
//! partner, and records the outcome, until the partner reverses it or a person marks it
//! `resolved`. A transfer recorded as a payout's or refund's own is never claimed. The worker
//! then marks the items of every run that showed a finished reversal, so those runs' statuses
//! follow, and exports the figures an alert watches: unfinished reversals, `partial` runs (count
//! and age of the oldest), and the payouts and refunds the latest run of each day found
//! contradicting the partner.

use std::time::Duration;

use sqlx::PgPool;
use uuid::Uuid;

use super::{set_status, Reversal, CLAIM_LEASE};
use crate::payments::outgoing::{Outgoing, TransferOf};
use kaadxpay_partner::client::PartnerClient;

/// The delay before a refused reversal's first retry; each further retry doubles it.
const FIRST_RETRY: Duration = Duration::from_secs(30);
const MAX_BACKOFF: Duration = Duration::from_secs(6 * 3600);
/// Reversals claimed per run.
const BATCH: i64 = 50;

/// A reversal this process holds the claim of: only its token may record the outcome.
pub(crate) struct Claim {
    pub transfer_id: String,
    /// The payout or refund the duplicate was made for.
    pub transfer_of: TransferOf,
    pub claim_token: Uuid,
    /// Claims of the reversal so far, this one included.
    pub attempts: i32,
}

impl Claim {
    /// Asks the partner to reverse the transfer and records what it said.
    pub(crate) async fn reverse(
        &self,
        pool: &PgPool,
        partner: &PartnerClient,
    ) -> sqlx::Result<Reversal> {
        let (transfer_id, of) = (&self.transfer_id, &self.transfer_of);
        let error = match partner.reverse(transfer_id).await {
            Ok(transfer) => {
                let mut tx = pool.begin().await?;
                let recorded = sqlx::query!(
                    "UPDATE partner_reversals SET state = 'reversed', reversed_at = now(), \
                       claimed_until = NULL, next_attempt_at = NULL, last_error = NULL \
                     WHERE transfer_id = $1 AND claim_token = $2",
                    transfer_id,
                    self.claim_token,
                )
                .execute(&mut *tx)
                .await?;
                if recorded.rows_affected() == 1 {
                    of.mark_duplicate_reversed(&mut tx).await?;
                }
                tx.commit().await?;
                tracing::info!(event = "reconciliation.reversed", transfer_id, transfer_of = %of, status = ?transfer.status, "duplicate transfer reversed");
                return Ok(Reversal::Reversed);
            }
            Err(error) => error,
        };
        let reversal = match error.code.clone() {
            Some(code) => Reversal::Refused(code),
            None => Reversal::Failed(error.kind),
        };
        let exponent = self.attempts.clamp(1, 16) as u32 - 1;
        let backoff = FIRST_RETRY
            .saturating_mul(2u32.saturating_pow(exponent))
            .min(MAX_BACKOFF);
        sqlx::query!(
            "UPDATE partner_reversals SET state = 'refused', claimed_until = NULL, last_error = $3, \
               next_attempt_at = now() + make_interval(secs => $4) \
             WHERE transfer_id = $1 AND claim_token = $2",
            transfer_id,
            self.claim_token,
            reversal.detail(),
            backoff.as_secs_f64(),
        )
        .execute(pool)
        .await?;
        tracing::warn!(
            event = "reconciliation.refused",
            transfer_id,
            transfer_of = %of,
            attempts = self.attempts,
            error = %error,
            "the partner did not reverse a duplicate; retrying later"
        );
        Ok(reversal)
    }
}

#[derive(Clone)]
pub struct ReversalWorker {
    pub pool: PgPool,
    pub partner: PartnerClient,
}

impl ReversalWorker {
    /// Retries the due reversals, marks the runs whose reversals are done, and exports the
    /// figures; returns how many reversals it asked for.
    pub async fn run_once(&self) -> sqlx::Result<u64> {
        let claims = sqlx::query_as!(
            Claim,
            r#"UPDATE partner_reversals SET state = 'claimed', claim_token = gen_random_uuid(),
                 claimed_until = now() + make_interval(secs => $1), attempts = attempts + 1
               WHERE transfer_id IN (
                 SELECT transfer_id FROM partner_reversals AS reversal
                 WHERE ((state = 'refused' AND coalesce(next_attempt_at, now()) <= now())
                        OR (state = 'claimed' AND claimed_until <= now()))
                   AND NOT EXISTS (SELECT 1 FROM outgoing_transfers
                                   WHERE partner_transfer_id = reversal.transfer_id)
                 ORDER BY next_attempt_at NULLS FIRST LIMIT $2 FOR UPDATE SKIP LOCKED)
               RETURNING transfer_id, transfer_of AS "transfer_of: TransferOf",
                 claim_token AS "claim_token!", attempts"#,
            CLAIM_LEASE.as_secs_f64(),
            BATCH,
        )
        .fetch_all(&self.pool)
        .await?;
        for claim in &claims {
            claim.reverse(&self.pool, &self.partner).await?;
        }
        mark_finished_items(&self.pool).await?;
        self.export_figures().await?;
        Ok(claims.len() as u64)
    }

    async fn export_figures(&self) -> sqlx::Result<()> {
        let figures = sqlx::query!(
            r#"SELECT
                 (SELECT count(*) FROM partner_reversals WHERE state IN ('claimed', 'refused'))
                   AS "reversals!",
                 (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
                    FROM partner_reversals WHERE state IN ('claimed', 'refused'))
                   AS "oldest_reversal!",
                 (SELECT count(*) FROM reconciliation_runs WHERE status = 'partial') AS "partial!",
                 (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
                    FROM reconciliation_runs WHERE status = 'partial') AS "oldest_partial!",
                 (SELECT count(DISTINCT item.transfer_of) FROM reconciliation_items AS item
                    JOIN (SELECT DISTINCT ON (run_date) id FROM reconciliation_runs
                          WHERE status <> 'running' ORDER BY run_date, created_at DESC, id DESC) AS latest
                      ON latest.id = item.run_id
                    WHERE item.kind = 'status_mismatch') AS "mismatches!""#,
        )
        .fetch_one(&self.pool)
        .await?;
        metrics::gauge!("kaadxpay_reconciliation_unfinished_reversals")
            .set(figures.reversals as f64);
        metrics::gauge!("kaadxpay_reconciliation_oldest_unfinished_reversal_seconds")
            .set(figures.oldest_reversal);
        metrics::gauge!("kaadxpay_reconciliation_partial_runs").set(figures.partial as f64);
        metrics::gauge!("kaadxpay_reconciliation_oldest_partial_run_seconds")
            .set(figures.oldest_partial);
        metrics::gauge!("kaadxpay_reconciliation_status_mismatches").set(figures.mismatches as f64);
        Ok(())
    }
}

/// A person marks an unfinished reversal dealt with (`kaadxpay reversals resolve`): it is never
/// asked for again, and the runs that showed it no longer count it as unfinished. A reversal
/// whose claimer is asking the partner right now is left alone (try again in a few minutes).
/// Returns whether there was such an unfinished reversal.
pub async fn resolve(pool: &PgPool, transfer_id: &str) -> sqlx::Result<bool> {
    let resolved = sqlx::query!(
        "UPDATE partner_reversals SET state = 'resolved', claim_token = NULL, \
           claimed_until = NULL, next_attempt_at = NULL \
         WHERE transfer_id = $1 \
           AND (state = 'refused' OR (state = 'claimed' AND claimed_until <= now()))",
        transfer_id,
    )
    .execute(pool)
    .await?;
    mark_finished_items(pool).await?;
    Ok(resolved.rows_affected() == 1)
}

/// The items of every run that showed a reversal now done (or resolved) say so, and those runs'
/// statuses follow.
async fn mark_finished_items(pool: &PgPool) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    let runs = sqlx::query_scalar!(
        "UPDATE reconciliation_items AS item SET action = reversal.state, detail = NULL \
         FROM partner_reversals AS reversal \
         WHERE item.transfer_id = reversal.transfer_id AND item.kind = 'duplicate' \
           AND item.action IN ('refused', 'failed', 'in_progress') \
           AND reversal.state IN ('reversed', 'resolved') \
         RETURNING item.run_id",
    )
    .fetch_all(&mut *tx)
    .await?;
    if !runs.is_empty() {
        let runs: Vec<&str> = runs.iter().map(String::as_str).collect();
        set_status(&mut tx, &runs).await?;
    }
    tx.commit().await
}
