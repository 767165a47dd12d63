//! Idempotency outcomes (new, replayed, in progress, mismatch) per merchant and hour, for the
//! console's chart and the Prometheus counter. Counting a replay must not cost a database
//! write on the replay's path, so counts gather in memory and a worker adds them to
//! `idempotency_outcomes` every few seconds. They are diagnostics: a crash loses at most the
//! last few seconds of counts, never a record or a response.

use kaadxpay_types::ids::MerchantId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use sqlx::PgPool;

use crate::scope::Scope;

type Bucket = (MerchantId, DateTime<Utc>, &'static str);

#[derive(Clone, Default)]
pub struct Outcomes {
    pending: Arc<Mutex<HashMap<Bucket, i64>>>,
}

impl Outcomes {
    /// Counts `outcome` for `/metrics`, and for the merchant's chart when the key was a
    /// merchant's.
    pub fn count(&self, scope: Scope<'_>, outcome: &'static str) {
        metrics::counter!("kaadxpay_idempotency_outcomes_total", "outcome" => outcome).increment(1);
        let Some(merchant_id) = scope.merchant() else {
            return;
        };
        let hour = Utc::now()
            .duration_trunc(TimeDelta::hours(1))
            .expect("an hour divides time");
        *self
            .pending
            .lock()
            .expect("outcomes lock")
            .entry((merchant_id.to_owned(), hour, outcome))
            .or_insert(0) += 1;
    }

    /// Adds the gathered counts to the table; returns how many buckets were written.
    pub async fn flush(&self, pool: &PgPool) -> sqlx::Result<u64> {
        let pending = std::mem::take(&mut *self.pending.lock().expect("outcomes lock"));
        let buckets = pending.len() as u64;
        for ((merchant_id, hour, outcome), count) in pending {
            sqlx::query(
                "INSERT INTO idempotency_outcomes (merchant_id, hour, outcome, count) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (merchant_id, hour, outcome) DO UPDATE SET count = idempotency_outcomes.count + EXCLUDED.count",
            )
            .bind(merchant_id)
            .bind(hour)
            .bind(outcome)
            .bind(count)
            .execute(pool)
            .await?;
        }
        Ok(buckets)
    }
}

/// One hour's outcomes of a merchant.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Hour {
    pub hour: DateTime<Utc>,
    pub new: i64,
    pub replayed: i64,
    pub in_progress: i64,
    pub mismatch: i64,
}

/// A merchant's outcomes in each of the last `hours` hours, the current one last, quiet hours
/// included (as written by the last [`Outcomes::flush`]).
pub async fn last_hours(
    pool: &PgPool,
    merchant_id: &MerchantId,
    hours: i64,
) -> sqlx::Result<Vec<Hour>> {
    let this_hour = Utc::now()
        .duration_trunc(TimeDelta::hours(1))
        .expect("an hour divides time");
    let counts: Vec<(DateTime<Utc>, String, i64)> = sqlx::query_as(
        "SELECT hour, outcome, count FROM idempotency_outcomes WHERE merchant_id = $1 AND hour > $2",
    )
    .bind(merchant_id)
    .bind(this_hour - TimeDelta::hours(hours))
    .fetch_all(pool)
    .await?;
    Ok((0..hours)
        .rev()
        .map(|ago| {
            let mut bucket = Hour {
                hour: this_hour - TimeDelta::hours(ago),
                ..Hour::default()
            };
            for (_, outcome, count) in counts.iter().filter(|(at, _, _)| *at == bucket.hour) {
                match outcome.as_str() {
                    "new" => bucket.new += count,
                    "replayed" => bucket.replayed += count,
                    "in_progress" => bucket.in_progress += count,
                    _ => bucket.mismatch += count,
                }
            }
            bucket
        })
        .collect())
}
