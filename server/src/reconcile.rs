//! Reconciliation: the partner's transfers matched to our payouts by reference (the payout id)
//! and end-to-end key. Each payout's own transfer is `matched` (or `amount_mismatch`), every
//! further transfer for it is a `duplicate`, a payout we sent with no transfer is `missing`, and
//! a transfer we never asked for is `unknown`. A run for day D looks at the partner's transfers
//! of D-1, D and D+1, so a retry after midnight of a transfer made before it is a duplicate too.
//!
//! Applying reverses each duplicate at the partner once, ever, however many runs and replicas
//! run at once:
//! - runs for one day take a PostgreSQL advisory lock, so they follow one another;
//! - each reversal is claimed in `partner_reversals` (a row per transfer, a claim token and a
//!   lease) before the partner is called, and its outcome recorded, so runs of neighbouring days
//!   never both call, and a claimer that crashed is taken over once its lease runs out (asking
//!   the partner again is safe: reversing a reversed transfer answers it unchanged);
//! - a reversal the partner refuses (or does not answer usefully) is recorded on its item with
//!   a short code, never an internal error text, the run finishes `partial`, and the next run
//!   retries only what is unfinished.
//!
//! Inside `serve`, the daily job reconciles yesterday on one replica only: each day is claimed
//! in `scheduled_runs`; a partial run leaves the day to be claimed again at the next check.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Datelike, Days, NaiveDate, Utc};
use serde::Serialize;
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

use crate::ids::new_id;
use crate::partner::client::{PartnerClient, PartnerError};
use crate::partner::wire::Transfer;
use crate::payments::payouts::{self, partner_key};

/// How long a claimed reversal (or a claimed day) is its claimer's before another run may take
/// it over: well above a partner call.
const CLAIM_LEASE: Duration = Duration::from_secs(300);
/// The advisory lock namespace of reconciliation runs (the day is the second key).
const RUN_LOCK: i32 = 0x6b78_7072;
const DAILY_JOB: &str = "reconcile";

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Item {
    #[serde(skip)]
    pub merchant_id: Option<String>,
    /// `matched`, `duplicate`, `missing`, `unknown` or `amount_mismatch`.
    pub kind: String,
    pub payout_id: Option<String>,
    pub transfer_id: Option<String>,
    pub amount: Option<i64>,
    pub currency: Option<String>,
    /// For a duplicate: `reversed` by this run, `already_reversed`, `refused` by the partner,
    /// `failed` when the partner gave no useful answer (both retried by the next run),
    /// `in_progress` in another run, or null when not applied.
    pub action: Option<String>,
    /// Why a reversal was not made: the partner's code when it refused (`reversal_refused`),
    /// else what went wrong (`timeout`, `connection`, `server_error`, `in_flight`, ...).
    pub detail: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RunSummary {
    pub id: String,
    pub date: NaiveDate,
    pub applied: bool,
    /// `completed`, or `partial` when a duplicate is left to the next run.
    pub status: String,
    /// How many items of each kind.
    pub counts: BTreeMap<String, i64>,
}

#[derive(sqlx::FromRow)]
struct SentPayout {
    id: String,
    merchant_id: String,
    amount: i64,
    currency: String,
    idempotency_key: String,
    partner_transfer_id: Option<String>,
    status: String,
    created_at: DateTime<Utc>,
}

/// What became of one duplicate when the run applies.
enum Reversal {
    Reversed,
    AlreadyReversed,
    /// The partner said no (`422`): its code.
    Refused(String),
    /// No useful answer (a timeout, a `5xx`, another `4xx`...): what went wrong.
    Failed(&'static str),
    /// Another run holds its claim right now.
    InProgress,
}

impl Reversal {
    fn action(&self) -> &'static str {
        match self {
            Self::Reversed => "reversed",
            Self::AlreadyReversed => "already_reversed",
            Self::Refused(_) => "refused",
            Self::Failed(_) => "failed",
            Self::InProgress => "in_progress",
        }
    }

    fn finished(&self) -> bool {
        matches!(self, Self::Reversed | Self::AlreadyReversed)
    }

    /// What the item shows about an unmade reversal: a code, for people and for the API.
    fn detail(&self) -> Option<String> {
        match self {
            Self::Refused(code) => Some(code.clone()),
            Self::Failed(kind) => Some((*kind).to_owned()),
            Self::Reversed | Self::AlreadyReversed | Self::InProgress => None,
        }
    }
}

pub struct Reconciler {
    pub pool: PgPool,
    pub partner: PartnerClient,
}

impl Reconciler {
    /// Reconciles `date`, after any other run for it (in any process) has finished.
    pub async fn run(&self, date: NaiveDate, apply: bool) -> anyhow::Result<RunSummary> {
        // A connection of its own holds the day's lock: closing it releases the lock, even when
        // the run fails half way.
        let mut lock = PgConnection::connect_with(&self.pool.connect_options()).await?;
        sqlx::query("SELECT pg_advisory_lock($1, $2)")
            .bind(RUN_LOCK)
            .bind(day_number(date))
            .execute(&mut lock)
            .await?;
        let result = self.run_locked(date, apply).await;
        lock.close().await?;
        result
    }

    /// The daily job: reconciles and applies `date` unless another replica has done it or is
    /// doing it; returns the run it made, if any.
    pub async fn run_daily(&self, date: NaiveDate) -> anyhow::Result<Option<RunSummary>> {
        let token = Uuid::new_v4();
        let claimed: Option<Uuid> = sqlx::query_scalar(
            "INSERT INTO scheduled_runs (job, run_date, claim_token, claimed_until) \
             VALUES ($1, $2, $3, now() + make_interval(secs => $4)) \
             ON CONFLICT (job, run_date) DO UPDATE \
               SET claim_token = $3, claimed_until = now() + make_interval(secs => $4) \
               WHERE scheduled_runs.finished_at IS NULL AND scheduled_runs.claimed_until <= now() \
             RETURNING claim_token",
        )
        .bind(DAILY_JOB)
        .bind(date)
        .bind(token)
        .bind(CLAIM_LEASE.as_secs_f64())
        .fetch_optional(&self.pool)
        .await?;
        if claimed != Some(token) {
            return Ok(None);
        }
        let summary = self.run(date, true).await?;
        // A completed day is done for good; a partial one may be claimed again at once.
        sqlx::query(
            "UPDATE scheduled_runs SET \
               finished_at = CASE WHEN $4 THEN now() END, \
               claimed_until = CASE WHEN $4 THEN claimed_until ELSE now() END \
             WHERE job = $1 AND run_date = $2 AND claim_token = $3",
        )
        .bind(DAILY_JOB)
        .bind(date)
        .bind(token)
        .bind(summary.status == "completed")
        .execute(&self.pool)
        .await?;
        Ok(Some(summary))
    }

    async fn run_locked(&self, date: NaiveDate, apply: bool) -> anyhow::Result<RunSummary> {
        let mut transfers: Vec<Transfer> = Vec::new();
        for day in [date - Days::new(1), date, date + Days::new(1)] {
            let listed = self
                .partner
                .transfers_on(day)
                .await
                .with_context(|| format!("cannot list the partner's transfers of {day}"))?;
            transfers.extend(listed);
        }
        let references: Vec<&str> = transfers
            .iter()
            .filter(|transfer| transfer.created_at.date_naive() == date)
            .map(|transfer| transfer.reference.as_str())
            .collect();
        // Our payouts of the day, and any other payout a transfer of the day refers to.
        let payouts: Vec<SentPayout> = sqlx::query_as(
            "SELECT id, merchant_id, amount, currency, idempotency_key, partner_transfer_id, status, created_at \
             FROM payouts WHERE (created_at AT TIME ZONE 'UTC')::date = $1 OR id = ANY($2) ORDER BY created_at, id",
        )
        .bind(date)
        .bind(&references)
        .fetch_all(&self.pool)
        .await?;

        let run_id = new_id("rec");
        sqlx::query(
            "INSERT INTO reconciliation_runs (id, run_date, applied, status) VALUES ($1, $2, $3, 'running')",
        )
        .bind(&run_id)
        .bind(date)
        .bind(apply)
        .execute(&self.pool)
        .await?;
        let mut items = match_transfers(&payouts, &transfers, date);
        let mut unfinished = 0;
        if apply {
            for item in items.iter_mut().filter(|item| item.kind == "duplicate") {
                let reversal = self.reverse_duplicate(&run_id, item).await?;
                unfinished += usize::from(!reversal.finished());
                item.action = Some(reversal.action().to_owned());
                item.detail = reversal.detail();
            }
        }
        let status = if unfinished == 0 {
            "completed"
        } else {
            "partial"
        };
        self.store_items(&run_id, &items, status).await?;
        let mut counts = BTreeMap::new();
        for item in &items {
            *counts.entry(item.kind.clone()).or_insert(0) += 1;
        }
        tracing::info!(event = "reconciliation.finished", run_id, %date, apply, status, ?counts, "reconciliation run stored");
        Ok(RunSummary {
            id: run_id,
            date,
            applied: apply,
            status: status.to_owned(),
            counts,
        })
    }

    /// Reverses a duplicate transfer unless some run already has or is doing it: claims it,
    /// calls the partner, records the outcome.
    async fn reverse_duplicate(&self, run_id: &str, item: &Item) -> anyhow::Result<Reversal> {
        let (Some(transfer_id), Some(payout_id), Some(merchant_id)) =
            (&item.transfer_id, &item.payout_id, &item.merchant_id)
        else {
            unreachable!("a duplicate names its transfer, payout and merchant");
        };
        let token = Uuid::new_v4();
        let claimed: Option<Uuid> = sqlx::query_scalar(
            "INSERT INTO partner_reversals \
               (transfer_id, merchant_id, payout_id, run_id, state, claim_token, claimed_until) \
             VALUES ($1, $2, $3, $4, 'claimed', $5, now() + make_interval(secs => $6)) \
             ON CONFLICT (transfer_id) DO UPDATE SET state = 'claimed', run_id = $4, \
               claim_token = $5, claimed_until = now() + make_interval(secs => $6), \
               attempts = partner_reversals.attempts + 1 \
             WHERE partner_reversals.state = 'refused' \
                OR (partner_reversals.state = 'claimed' AND partner_reversals.claimed_until <= now()) \
             RETURNING claim_token",
        )
        .bind(transfer_id)
        .bind(merchant_id)
        .bind(payout_id)
        .bind(run_id)
        .bind(token)
        .bind(CLAIM_LEASE.as_secs_f64())
        .fetch_optional(&self.pool)
        .await?;
        if claimed != Some(token) {
            let state: String =
                sqlx::query_scalar("SELECT state FROM partner_reversals WHERE transfer_id = $1")
                    .bind(transfer_id)
                    .fetch_one(&self.pool)
                    .await?;
            return Ok(if state == "reversed" {
                Reversal::AlreadyReversed
            } else {
                Reversal::InProgress
            });
        }
        let reversal = match self.partner.reverse(transfer_id).await {
            Ok(transfer) => {
                let mut tx = self.pool.begin().await?;
                let recorded = sqlx::query(
                    "UPDATE partner_reversals SET state = 'reversed', reversed_at = now(), \
                       claimed_until = NULL, last_error = NULL \
                     WHERE transfer_id = $1 AND claim_token = $2",
                )
                .bind(transfer_id)
                .bind(token)
                .execute(&mut *tx)
                .await?;
                if recorded.rows_affected() == 1 {
                    payouts::mark_duplicate_reversed(&mut tx, payout_id).await?;
                }
                tx.commit().await?;
                tracing::info!(event = "reconciliation.reversed", transfer_id, payout_id, status = ?transfer.status, "duplicate transfer reversed");
                Reversal::Reversed
            }
            Err(error) => {
                let reversal = match &error {
                    PartnerError::Refused(code) => Reversal::Refused(code.clone()),
                    PartnerError::Transient { kind, .. } => Reversal::Failed(kind),
                };
                let code = reversal.detail();
                sqlx::query(
                    "UPDATE partner_reversals SET state = 'refused', claimed_until = NULL, last_error = $3 \
                     WHERE transfer_id = $1 AND claim_token = $2",
                )
                .bind(transfer_id)
                .bind(token)
                .bind(&code)
                .execute(&self.pool)
                .await?;
                tracing::warn!(
                    event = "reconciliation.refused",
                    transfer_id,
                    payout_id,
                    error = %error,
                    "the partner did not reverse a duplicate; the next run retries"
                );
                reversal
            }
        };
        Ok(reversal)
    }

    async fn store_items(&self, run_id: &str, items: &[Item], status: &str) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        for (position, item) in items.iter().enumerate() {
            sqlx::query(
                "INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, payout_id, transfer_id, amount, currency, action, detail) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(run_id)
            .bind(position as i32)
            .bind(&item.merchant_id)
            .bind(&item.kind)
            .bind(&item.payout_id)
            .bind(&item.transfer_id)
            .bind(item.amount)
            .bind(&item.currency)
            .bind(&item.action)
            .bind(&item.detail)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("UPDATE reconciliation_runs SET status = $2 WHERE id = $1")
            .bind(run_id)
            .bind(status)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }
}

/// The day as a number, the second key of its advisory lock.
fn day_number(date: NaiveDate) -> i32 {
    date.num_days_from_ce()
}

/// The items of a day, before any action.
fn match_transfers(payouts: &[SentPayout], transfers: &[Transfer], date: NaiveDate) -> Vec<Item> {
    let mut by_reference: HashMap<&str, Vec<&Transfer>> = HashMap::new();
    for transfer in transfers {
        by_reference
            .entry(&transfer.reference)
            .or_default()
            .push(transfer);
    }
    let mut items = Vec::new();
    for payout in payouts {
        let item = |kind: &str, transfer: Option<&Transfer>| Item {
            merchant_id: Some(payout.merchant_id.clone()),
            kind: kind.to_owned(),
            payout_id: Some(payout.id.clone()),
            transfer_id: transfer.map(|transfer| transfer.id.clone()),
            amount: Some(transfer.map_or(payout.amount, |transfer| transfer.amount)),
            currency: Some(transfer.map_or(payout.currency.clone(), |transfer| {
                transfer.currency.clone()
            })),
            action: None,
            detail: None,
        };
        let key = partner_key(&payout.id, &payout.idempotency_key);
        let mut own: Vec<&Transfer> = by_reference
            .remove(payout.id.as_str())
            .unwrap_or_default()
            .into_iter()
            .filter(|transfer| transfer.idempotency_key == key)
            .collect();
        if own.is_empty() {
            let sent = matches!(payout.status.as_str(), "in_transit" | "paid" | "reversed");
            if sent && payout.created_at.date_naive() == date {
                items.push(item("missing", None));
            }
            continue;
        }
        // The payout's own transfer is the one it recorded, else the first one made.
        own.sort_by_key(|transfer| {
            (
                Some(&transfer.id) != payout.partner_transfer_id.as_ref(),
                transfer.created_at,
            )
        });
        let (first, extras) = own.split_first().expect("not empty");
        let agrees = first.amount == payout.amount && first.currency == payout.currency;
        items.push(item(
            if agrees { "matched" } else { "amount_mismatch" },
            Some(first),
        ));
        items.extend(extras.iter().map(|extra| item("duplicate", Some(extra))));
    }
    // Whatever is left of the day, including transfers that name a payout but not its key, we
    // never asked for (the neighbouring days' leftovers are their own runs' business).
    let mut unknown: Vec<&Transfer> = by_reference.into_values().flatten().collect();
    unknown.extend(transfers.iter().filter(|transfer| {
        payouts.iter().any(|payout| {
            payout.id == transfer.reference
                && partner_key(&payout.id, &payout.idempotency_key) != transfer.idempotency_key
        })
    }));
    unknown.retain(|transfer| transfer.created_at.date_naive() == date);
    unknown.sort_by_key(|transfer| (transfer.created_at, transfer.id.clone()));
    items.extend(unknown.into_iter().map(|transfer| Item {
        merchant_id: None,
        kind: "unknown".into(),
        payout_id: None,
        transfer_id: Some(transfer.id.clone()),
        amount: Some(transfer.amount),
        currency: Some(transfer.currency.clone()),
        action: None,
        detail: None,
    }));
    items
}

/// A stored run as a merchant sees it: its own items only.
#[derive(Debug, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct StoredRun {
    pub id: String,
    /// Always `reconciliation_run`.
    pub object: String,
    pub date: NaiveDate,
    pub applied: bool,
    /// `running`, `completed`, or `partial` when a duplicate is left to the next run.
    pub status: String,
    pub created_at: DateTime<Utc>,
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Item>>,
}

const RUN_COLUMNS: &str =
    "id, 'reconciliation_run' AS object, run_date AS date, applied, status, created_at";

/// Runs, newest first, after the run `starting_after` when given.
pub async fn runs(
    pool: &PgPool,
    starting_after: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<StoredRun>> {
    sqlx::query_as(&format!(
        "SELECT {RUN_COLUMNS} FROM reconciliation_runs \
         WHERE $1::text IS NULL OR (created_at, id) < (SELECT created_at, id FROM reconciliation_runs WHERE id = $1) \
         ORDER BY created_at DESC, id DESC LIMIT $2"
    ))
    .bind(starting_after)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// One run with the items of `merchant_id`, or all its items when `None` (support staff).
pub async fn run_with_items(
    pool: &PgPool,
    id: &str,
    merchant_id: Option<&str>,
) -> sqlx::Result<Option<StoredRun>> {
    let run: Option<StoredRun> = sqlx::query_as(&format!(
        "SELECT {RUN_COLUMNS} FROM reconciliation_runs WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    let Some(mut run) = run else { return Ok(None) };
    let items = sqlx::query_as(
        "SELECT merchant_id, kind, payout_id, transfer_id, amount, currency, action, detail \
         FROM reconciliation_items \
         WHERE run_id = $1 AND ($2::text IS NULL OR merchant_id = $2) ORDER BY position",
    )
    .bind(id)
    .bind(merchant_id)
    .fetch_all(pool)
    .await?;
    run.items = Some(items);
    Ok(Some(run))
}
