//! What a payout's and a refund's transfers share, below both (and below
//! `payments::outgoing`, which dispatches to them): the end-to-end key, who makes a move, and
//! the move itself.

use std::time::Duration;

use sqlx::PgConnection;
use uuid::Uuid;

/// The end-to-end key of a payout's or refund's transfer: the same on every attempt, from any
/// process (`kxp-{id}-{idempotency_key}`).
pub fn partner_key(id: &str, idempotency_key: &str) -> String {
    format!("kxp-{id}-{idempotency_key}")
}

/// Who makes a move: the worker holding the job under its fencing token, or the partner's
/// webhook (which holds no job). A worker whose lease ran out and whose job another worker took
/// has a stale token, and its moves change nothing.
#[derive(Debug, Clone, Copy)]
pub enum Mover {
    Worker(Uuid),
    Webhook,
}

impl Mover {
    pub(crate) fn lease_token(self) -> Option<Uuid> {
        match self {
            Self::Worker(token) => Some(token),
            Self::Webhook => None,
        }
    }
}

/// A move of a payout's or refund's status: from one of `from` to `to`, about its own
/// transfer only.
pub struct Move<'a> {
    pub from: Vec<&'static str>,
    pub to: &'static str,
    /// The transfer the move is about (recorded as its own if it has none yet).
    pub transfer_id: Option<&'a str>,
    pub failure_code: Option<&'a str>,
    /// When it is next due for the worker (`None`: never again).
    pub next_attempt_in: Option<Duration>,
}

impl Move<'_> {
    /// Makes the move on the row `id` of `table` (`payouts` or `refunds`) if it is in one of the
    /// `from` states, its transfer (if it has one yet) is the move's, and `mover` still holds
    /// the job when it is a worker; the moved row read as `columns`, or `None` when there was
    /// nothing to do. One conditional `UPDATE`, so a move made twice (a webhook and a poll, two
    /// workers) happens once.
    pub async fn make<T>(
        &self,
        conn: &mut PgConnection,
        (table, columns): (&str, &str),
        id: &str,
        mover: Mover,
    ) -> sqlx::Result<Option<T>>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
    {
        sqlx::query_as(&format!(
            "UPDATE {table} SET status = $3, \
               partner_transfer_id = coalesce(partner_transfer_id, $4), \
               failure_code = coalesce($5, failure_code), locked_until = NULL, lease_token = NULL, \
               next_attempt_at = now() + make_interval(secs => $6), updated_at = now() \
             WHERE id = $1 AND status = ANY($2) \
               AND ($4::text IS NULL OR partner_transfer_id IS NULL OR partner_transfer_id = $4) \
               AND ($7::uuid IS NULL OR lease_token = $7) \
             RETURNING {columns}"
        ))
        .bind(id)
        .bind(&self.from)
        .bind(self.to)
        .bind(self.transfer_id)
        .bind(self.failure_code)
        .bind(self.next_attempt_in.map(|due| due.as_secs_f64()))
        .bind(mover.lease_token())
        .fetch_optional(conn)
        .await
    }
}

/// Reconciliation reversed a duplicate transfer of the row `id` of `table`: it stays as it is
/// (its own transfer went out once) and counts the reversal.
pub async fn count_duplicate_reversed(
    conn: &mut PgConnection,
    table: &str,
    id: &str,
) -> sqlx::Result<()> {
    sqlx::query(&format!(
        "UPDATE {table} SET duplicates_reversed = duplicates_reversed + 1, updated_at = now() \
         WHERE id = $1"
    ))
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// What the partner's answers tell of a transfer, as a move of its payout or refund.
#[derive(Debug, Clone, Copy)]
pub enum To<'a> {
    /// The partner accepted the transfer; the worker polls it again after the duration.
    InTransit(&'a str, Duration),
    /// The partner paid it (a payout is `paid`, a refund `succeeded`).
    Paid(&'a str),
    /// It failed for good, with this code (and this transfer, if one was made): its amount
    /// comes back in the same transaction.
    Failed(Option<&'a str>, &'a str),
    /// Its own transfer came back: its amount comes back, once.
    Reversed(&'a str),
}
