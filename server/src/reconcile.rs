//! Reconciliation: the partner's transfers matched to our payouts and refunds (whose transfers
//! are judged alike, a refund's state read as its transfer's, see `payments::outgoing`; an
//! item's `transfer_of` names either, its wire field `payout_id`) by reference (the payout's
//! or refund's id) and end-to-end key. Each payout's own transfer is `matched` (or
//! `amount_mismatch`, or `status_mismatch` when the payout's status contradicts it: ours
//! `failed`/`reversed` while the partner has it `accepted`/`paid`, or ours `paid` while the
//! partner has it `failed`;
//! money that may have left is a person's call, so such an item is shown and counted, never
//! acted on), every further transfer for it is a `duplicate`, a payout we sent with no transfer
//! is `missing`, and a transfer we never asked for is `unknown`. A run for day D looks at the
//! partner's transfers of D-1, D and D+1, so a retry after midnight of a transfer made before
//! it is a duplicate too; each transfer counts once however many day listings show it, and
//! only those made inside that window count (a partner's date filter may overlap).
//!
//! Applying reverses each duplicate at the partner once, ever, however many runs and replicas
//! run at once:
//! - runs for one day take a PostgreSQL advisory lock, so they follow one another;
//! - each reversal is claimed in `partner_reversals` (a row per transfer, a claim token and a
//!   lease) before the partner is called, and its outcome recorded, so runs of neighbouring days
//!   never both call, and a claimer that crashed is taken over once its lease runs out (asking
//!   the partner again is safe: reversing a reversed transfer answers it unchanged);
//! - a transfer recorded as a payout's own is never claimed, whatever a run concluded;
//! - a reversal the partner refuses (or does not answer usefully) is recorded on its item with
//!   a short code, never an internal error text, and the run finishes `partial`; from then on
//!   the reversal worker ([`reversals`]) retries it with back-off whatever its day, and marks
//!   the items of every run that showed it once it is done.
//!
//! A run's status follows from its items: `attention` with a `status_mismatch`, else `partial`
//! with an unfinished reversal, else `completed` (the database's `reconciliation_run_status`).
//! A merchant sees a run through its own items only: their status, never the run's whole one. Inside `serve`, the daily job reconciles
//! yesterday on one replica only: each day is claimed in `scheduled_runs` and done once run.
//!
//! A run also lists the money the partner received that day ([`incoming`]): applying credits
//! what no webhook did, and a reference that is no merchant's is an item `unknown_incoming`.

pub mod incoming;
pub mod on_request;
pub mod reversals;

use kaadxpay_types::ids::{new_id, MerchantId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Datelike, Days, NaiveDate, Utc};
use serde::Serialize;
use sqlx::postgres::PgArguments;
use sqlx::{Connection, PgConnection, PgPool, Postgres};
use uuid::Uuid;

use crate::contract::pagination::Filters;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::payments::outgoing::{self, TransferOf};
use crate::service::author::By;
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner::wire::{Transfer, TransferStatus};
use kaadxpay_types::{PayoutStatus, ReversalAction};

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
    /// `matched`, `duplicate`, `missing`, `unknown`, `amount_mismatch` or `status_mismatch`
    /// (the payout's status contradicts its own transfer's at the partner: for a person), or
    /// `unknown_incoming` (money received with a reference that is no merchant's: support staff
    /// only; `transfer_id` is the partner's `in_…`).
    pub kind: String,
    // The payout or refund the transfer was made for: `payout_id` on the wire (API.md §7).
    #[serde(rename = "payout_id")]
    #[schema(value_type = Option<String>)]
    pub transfer_of: Option<TransferOf>,
    pub transfer_id: Option<String>,
    pub amount: Option<i64>,
    pub currency: Option<String>,
    /// For a duplicate: `reversed` (by this run, or later by the reversal worker),
    /// `already_reversed`, `refused` by the partner, `failed` when the partner gave no useful
    /// answer (both retried with back-off until done), `in_progress` in another run,
    /// `resolved` by a person, `not_reversed` (it is a payout's own transfer), or null when not
    /// applied.
    pub action: Option<String>,
    /// Why a reversal was not made: the partner's code when it answered one
    /// (`not_reversible`), else what went wrong (`timeout`, `connection`, `server_error`, ...).
    /// For an `unknown_incoming`: the reference the sender wrote.
    pub detail: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RunSummary {
    pub id: String,
    pub date: NaiveDate,
    pub applied: bool,
    /// `completed`, `partial` (a reversal is still unfinished) or `attention` (a
    /// `status_mismatch` was found).
    pub status: String,
    /// How many items of each kind.
    pub counts: BTreeMap<String, i64>,
}

/// A payout or refund we sent (its transfer is judged alike, see `payments::outgoing`).
struct Sent {
    of: TransferOf,
    merchant_id: MerchantId,
    amount: i64,
    currency: String,
    partner_key: String,
    partner_transfer_id: Option<String>,
    status: PayoutStatus,
    created_at: DateTime<Utc>,
}

/// What became of one duplicate when it was to be reversed.
pub(crate) enum Reversal {
    Reversed,
    AlreadyReversed,
    /// The partner answered no, with its code (`not_reversible`, ...).
    Refused(String),
    /// No useful answer (a timeout, a `5xx`, ...): what went wrong.
    Failed(&'static str),
    /// Another run holds its claim right now.
    InProgress,
    /// A person marked it dealt with.
    Resolved,
    /// It is a payout's own transfer: never reversed.
    OwnTransfer,
}

impl Reversal {
    fn action(&self) -> ReversalAction {
        match self {
            Self::Reversed => ReversalAction::Reversed,
            Self::AlreadyReversed => ReversalAction::AlreadyReversed,
            Self::Refused(_) => ReversalAction::Refused,
            Self::Failed(_) => ReversalAction::Failed,
            Self::InProgress => ReversalAction::InProgress,
            Self::Resolved => ReversalAction::Resolved,
            Self::OwnTransfer => ReversalAction::NotReversed,
        }
    }

    /// What the item shows about an unmade reversal: a code, for people and for the API.
    fn detail(&self) -> Option<String> {
        match self {
            Self::Refused(code) => Some(code.clone()),
            Self::Failed(kind) => Some((*kind).to_owned()),
            Self::OwnTransfer => Some("own_transfer".to_owned()),
            Self::Reversed | Self::AlreadyReversed | Self::InProgress | Self::Resolved => None,
        }
    }
}

pub struct Reconciler {
    pub pool: PgPool,
    pub partner: PartnerClient,
}

/// The member who asked for a run now (audited with the run's start), when not support staff.
type StartedBy<'a> = Option<(&'a MerchantId, &'a By)>;

impl Reconciler {
    /// Reconciles `date`, after any other run for it (in any process) has finished.
    pub async fn run(&self, date: NaiveDate, apply: bool) -> anyhow::Result<RunSummary> {
        self.run_for(date, apply, None).await
    }

    /// [`Reconciler::run`], its start audited as the member's who asked for it, if any.
    async fn run_for(
        &self,
        date: NaiveDate,
        apply: bool,
        started_by: StartedBy<'_>,
    ) -> anyhow::Result<RunSummary> {
        let lock = hold(
            &self.pool,
            sqlx::query!(
                "SELECT pg_advisory_lock($1, $2)",
                RUN_LOCK,
                day_number(date),
            ),
        )
        .await?;
        let result = self.run_locked(date, apply, started_by).await;
        lock.close().await?;
        result
    }

    /// The daily job: reconciles and applies `date` unless another replica has done it or is
    /// doing it; returns the run it made, if any.
    pub async fn run_daily(&self, date: NaiveDate) -> anyhow::Result<Option<RunSummary>> {
        let token = Uuid::new_v4();
        let claimed = sqlx::query_scalar!(
            "INSERT INTO scheduled_runs (job, run_date, claim_token, claimed_until) \
             VALUES ($1, $2, $3, now() + make_interval(secs => $4)) \
             ON CONFLICT (job, run_date) DO UPDATE \
               SET claim_token = $3, claimed_until = now() + make_interval(secs => $4) \
               WHERE scheduled_runs.finished_at IS NULL AND scheduled_runs.claimed_until <= now() \
             RETURNING claim_token",
            DAILY_JOB,
            date as _,
            token,
            CLAIM_LEASE.as_secs_f64(),
        )
        .fetch_optional(&self.pool)
        .await?;
        if claimed != Some(token) {
            return Ok(None);
        }
        let summary = self.run(date, true).await?;
        // The day is done once run: what it left unfinished is the reversal worker's.
        sqlx::query!(
            "UPDATE scheduled_runs SET finished_at = now() \
             WHERE job = $1 AND run_date = $2 AND claim_token = $3",
            DAILY_JOB,
            date as _,
            token,
        )
        .execute(&self.pool)
        .await?;
        Ok(Some(summary))
    }

    async fn run_locked(
        &self,
        date: NaiveDate,
        apply: bool,
        started_by: StartedBy<'_>,
    ) -> anyhow::Result<RunSummary> {
        // Each transfer once, and only those made inside the window, whatever the partner's
        // date filter returns.
        let window = [date - Days::new(1), date, date + Days::new(1)];
        let mut transfers: Vec<Transfer> = Vec::new();
        let mut seen = HashSet::new();
        for day in window {
            let listed = self
                .partner
                .transfers_on(day)
                .await
                .with_context(|| format!("cannot list the partner's transfers of {day}"))?;
            transfers.extend(listed.into_iter().filter(|transfer| {
                window.contains(&transfer.created_at.date_naive())
                    && seen.insert(transfer.id.clone())
            }));
        }
        let received = incoming::received_on(&self.partner, date).await?;
        let references: Vec<&str> = transfers
            .iter()
            .filter(|transfer| transfer.created_at.date_naive() == date)
            .map(|transfer| transfer.reference.as_str())
            .collect();
        // Our payouts and refunds of the day, and any other one a transfer of the day refers to.
        let sent = sqlx::query!(
            r#"SELECT kind AS "kind!", id AS "id!", merchant_id AS "merchant_id!: MerchantId",
                 amount AS "amount!", currency AS "currency!", partner_key AS "partner_key!",
                 partner_transfer_id, status AS "status!",
                 created_at AS "created_at!: DateTime<Utc>"
               FROM outgoing_transfers
               WHERE (created_at AT TIME ZONE 'UTC')::date = $1 OR id = ANY($2)
               ORDER BY created_at, id"#,
            date as _,
            &references as &[&str],
        )
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(|row| {
            let (of, status) = outgoing::read(&row.kind, &row.id, row.status)?;
            Ok(Sent {
                of,
                merchant_id: row.merchant_id,
                amount: row.amount,
                currency: row.currency,
                partner_key: row.partner_key,
                partner_transfer_id: row.partner_transfer_id,
                status,
                created_at: row.created_at,
            })
        })
        .collect::<sqlx::Result<Vec<Sent>>>()?;

        let run_id = new_id("rec");
        let mut tx = self.pool.begin().await?;
        sqlx::query!(
            "INSERT INTO reconciliation_runs (id, run_date, applied, status) VALUES ($1, $2, $3, 'running')",
            run_id,
            date as _,
            apply,
        )
        .execute(&mut *tx)
        .await?;
        if let Some((merchant_id, by)) = started_by {
            let entry = Entry::new(
                merchant_id,
                by,
                Action::ReconciliationRunStarted,
                ObjectType::ReconciliationRun,
                &run_id,
            );
            let after = serde_json::json!({"date": date, "applied": apply});
            audit::record(&mut tx, &entry.after(after)).await?;
        }
        tx.commit().await?;
        let mut items = match_transfers(&sent, &transfers, date);
        if apply {
            for item in items.iter_mut().filter(|item| item.kind == "duplicate") {
                let reversal = self.reverse_duplicate(&run_id, item).await?;
                item.action = Some(reversal.action().as_str().to_owned());
                item.detail = reversal.detail();
            }
        }
        items.extend(incoming::settle(&self.pool, &received, apply).await?);
        let status = self.store_items(&run_id, &items).await?;
        let mut counts = BTreeMap::new();
        for item in &items {
            *counts.entry(item.kind.clone()).or_insert(0) += 1;
        }
        tracing::info!(event = "reconciliation.finished", run_id, %date, apply, status, ?counts, "reconciliation run stored");
        Ok(RunSummary {
            id: run_id,
            date,
            applied: apply,
            status,
            counts,
        })
    }

    /// Reverses a duplicate transfer unless some run already has or is doing it: claims it,
    /// calls the partner, records the outcome.
    async fn reverse_duplicate(&self, run_id: &str, item: &Item) -> anyhow::Result<Reversal> {
        let (Some(transfer_id), Some(of), Some(merchant_id)) =
            (&item.transfer_id, &item.transfer_of, &item.merchant_id)
        else {
            unreachable!("a duplicate names its transfer, its payout or refund, and its merchant");
        };
        let token = Uuid::new_v4();
        // Never a transfer recorded as a payout's own, whatever the matching concluded.
        let attempts = sqlx::query_scalar!(
            "INSERT INTO partner_reversals \
               (transfer_id, merchant_id, transfer_of, run_id, state, claim_token, claimed_until) \
             SELECT $1, $2, $3, $4, 'claimed', $5, now() + make_interval(secs => $6) \
             WHERE NOT EXISTS (SELECT 1 FROM outgoing_transfers WHERE partner_transfer_id = $1) \
             ON CONFLICT (transfer_id) DO UPDATE SET state = 'claimed', run_id = $4, \
               claim_token = $5, claimed_until = now() + make_interval(secs => $6), \
               attempts = partner_reversals.attempts + 1 \
             WHERE partner_reversals.state = 'refused' \
                OR (partner_reversals.state = 'claimed' AND partner_reversals.claimed_until <= now()) \
             RETURNING attempts",
            transfer_id,
            merchant_id,
            of as _,
            run_id,
            token,
            CLAIM_LEASE.as_secs_f64(),
        )
        .fetch_optional(&self.pool)
        .await?;
        let Some(attempts) = attempts else {
            let seen = sqlx::query!(
                r#"SELECT EXISTS (SELECT 1 FROM outgoing_transfers WHERE partner_transfer_id = $1) AS "own!",
                     (SELECT state FROM partner_reversals WHERE transfer_id = $1) AS state"#,
                transfer_id,
            )
            .fetch_one(&self.pool)
            .await?;
            return Ok(match seen.state.as_deref() {
                _ if seen.own => Reversal::OwnTransfer,
                Some("reversed") => Reversal::AlreadyReversed,
                Some("resolved") => Reversal::Resolved,
                _ => Reversal::InProgress,
            });
        };
        let claim = reversals::Claim {
            transfer_id: transfer_id.clone(),
            transfer_of: of.clone(),
            claim_token: token,
            attempts,
        };
        Ok(claim.reverse(&self.pool, &self.partner).await?)
    }

    /// Stores the run's items and its status, which follows from the items; returns the status.
    async fn store_items(&self, run_id: &str, items: &[Item]) -> sqlx::Result<String> {
        let mut tx = self.pool.begin().await?;
        for (position, item) in items.iter().enumerate() {
            sqlx::query!(
                "INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, transfer_of, transfer_id, amount, currency, action, detail) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                run_id,
                position as i32,
                item.merchant_id,
                item.kind,
                item.transfer_of.as_ref() as _,
                item.transfer_id,
                item.amount,
                item.currency,
                item.action,
                item.detail,
            )
            .execute(&mut *tx)
            .await?;
        }
        let status = set_status(&mut tx, &[run_id]).await?;
        tx.commit().await?;
        Ok(status.into_iter().next().expect("the run was stored"))
    }
}

/// A connection of its own that took `lock` (a `pg_advisory_lock`): closing it releases the
/// lock, even when the work it guards fails half way.
async fn hold(
    pool: &PgPool,
    lock: sqlx::query::Query<'_, Postgres, PgArguments>,
) -> sqlx::Result<PgConnection> {
    let mut conn = PgConnection::connect_with(&pool.connect_options()).await?;
    lock.execute(&mut conn).await?;
    Ok(conn)
}

/// Sets each of `run_ids`' status from its items (see the module's rule); returns them.
pub(crate) async fn set_status(
    conn: &mut PgConnection,
    run_ids: &[&str],
) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar!(
        r#"UPDATE reconciliation_runs AS run SET status = reconciliation_run_status(run.id, NULL)
           WHERE id = ANY($1) RETURNING status AS "status!""#,
        run_ids as &[&str],
    )
    .fetch_all(conn)
    .await
}

/// The day as a number, the second key of its advisory lock.
fn day_number(date: NaiveDate) -> i32 {
    date.num_days_from_ce()
}

/// Whether our payout's `status` contradicts its own transfer's at the partner: the money went
/// (or may still go) while we gave it back, or we say paid while the partner says it failed.
fn contradicts(status: PayoutStatus, transfer: TransferStatus) -> bool {
    match status {
        // A payout never sent (awaiting approval, rejected or cancelled) has no transfer of its
        // own.
        PayoutStatus::Failed
        | PayoutStatus::Reversed
        | PayoutStatus::Rejected
        | PayoutStatus::Cancelled
        | PayoutStatus::PendingApproval => {
            matches!(transfer, TransferStatus::Accepted | TransferStatus::Paid)
        }
        PayoutStatus::Paid => transfer == TransferStatus::Failed,
        PayoutStatus::Pending | PayoutStatus::InTransit => false,
    }
}

/// The items of a day, before any action.
fn match_transfers(outgoing: &[Sent], transfers: &[Transfer], date: NaiveDate) -> Vec<Item> {
    let mut by_reference: HashMap<&str, Vec<&Transfer>> = HashMap::new();
    for transfer in transfers {
        by_reference
            .entry(&transfer.reference)
            .or_default()
            .push(transfer);
    }
    let mut items = Vec::new();
    for sent in outgoing {
        let item = |kind: &str, transfer: Option<&Transfer>| Item {
            merchant_id: Some(sent.merchant_id.to_string()),
            kind: kind.to_owned(),
            transfer_of: Some(sent.of.clone()),
            transfer_id: transfer.map(|transfer| transfer.id.clone()),
            amount: Some(transfer.map_or(sent.amount, |transfer| transfer.amount)),
            currency: Some(
                transfer.map_or(sent.currency.clone(), |transfer| transfer.currency.clone()),
            ),
            action: None,
            detail: None,
        };
        let key = &sent.partner_key;
        let mut own: Vec<&Transfer> = by_reference
            .remove(sent.of.as_str())
            .unwrap_or_default()
            .into_iter()
            .filter(|transfer| transfer.idempotency_key == *key)
            .collect();
        if own.is_empty() {
            if sent.status.may_have_left() && sent.created_at.date_naive() == date {
                items.push(item("missing", None));
            }
            continue;
        }
        // Its own transfer is the one it recorded, else the first one made.
        own.sort_by_key(|transfer| {
            (
                Some(&transfer.id) != sent.partner_transfer_id.as_ref(),
                transfer.created_at,
            )
        });
        let (first, extras) = own.split_first().expect("not empty");
        let kind = if first.amount != sent.amount || first.currency != sent.currency {
            "amount_mismatch"
        } else if contradicts(sent.status, first.status) {
            "status_mismatch"
        } else {
            "matched"
        };
        items.push(item(kind, Some(first)));
        items.extend(extras.iter().map(|extra| item("duplicate", Some(extra))));
    }
    // Whatever is left of the day, including transfers that name a payout but not its key, we
    // never asked for (the neighbouring days' leftovers are their own runs' business).
    let mut unknown: Vec<&Transfer> = by_reference.into_values().flatten().collect();
    unknown.extend(transfers.iter().filter(|transfer| {
        outgoing.iter().any(|sent| {
            sent.of.as_str() == transfer.reference && sent.partner_key != transfer.idempotency_key
        })
    }));
    unknown.retain(|transfer| transfer.created_at.date_naive() == date);
    unknown.sort_by_key(|transfer| (transfer.created_at, transfer.id.clone()));
    items.extend(unknown.into_iter().map(|transfer| Item {
        merchant_id: None,
        kind: "unknown".into(),
        transfer_of: None,
        transfer_id: Some(transfer.id.clone()),
        amount: Some(transfer.amount),
        currency: Some(transfer.currency.clone()),
        action: None,
        detail: None,
    }));
    items
}

/// A stored run as a merchant sees it: its own items only, and the status they make.
#[derive(Debug, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct StoredRun {
    pub id: String,
    /// Always `reconciliation_run`.
    pub object: String,
    pub date: NaiveDate,
    pub applied: bool,
    #[schema(schema_with = run_statuses)]
    pub status: String,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub items: Option<Vec<Item>>,
}

fn run_statuses() -> utoipa::openapi::schema::Object {
    crate::contract::schema::one_of(
        &["running", "completed", "partial", "attention"],
        "`running`, `completed`, `partial` (a reversal is still unfinished) or `attention` (a \
         `status_mismatch` needs a person).",
    )
}

/// The runs as the merchant `$1` sees them (every item's, for `NULL`): a finished run's status
/// is its items' of that merchant.
const RUNS_SEEN_BY: &str = "(SELECT id, 'reconciliation_run' AS object, run_date AS date, \
       applied, created_at, CASE WHEN status = 'running' OR $1::text IS NULL THEN status \
         ELSE reconciliation_run_status(id, $1) END AS status \
     FROM reconciliation_runs) AS run";

/// Runs as `merchant_id` sees them (support staff: `None`), newest first, after the run
/// `starting_after` when given.
pub async fn runs(
    pool: &PgPool,
    merchant_id: Option<&str>,
    filters: &Filters,
    starting_after: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<StoredRun>> {
    sqlx::query_as(&format!(
        "SELECT * FROM {RUNS_SEEN_BY} \
         WHERE ($2::text IS NULL OR (created_at, id) < (SELECT created_at, id FROM reconciliation_runs WHERE id = $2)) \
           AND ($4::text IS NULL OR status = $4) \
           AND ($5::date IS NULL OR date >= $5) AND ($6::date IS NULL OR date <= $6) \
         ORDER BY created_at DESC, id DESC LIMIT $3"
    ))
    .bind(merchant_id)
    .bind(starting_after)
    .bind(limit)
    .bind(filters.status.as_deref())
    .bind(filters.from)
    .bind(filters.to)
    .fetch_all(pool)
    .await
}

/// One run with the items of `merchant_id` and the status they make, or all its items when
/// `None` (support staff).
pub async fn run_with_items(
    pool: &PgPool,
    id: &str,
    merchant_id: Option<&str>,
) -> sqlx::Result<Option<StoredRun>> {
    let run: Option<StoredRun> =
        sqlx::query_as(&format!("SELECT * FROM {RUNS_SEEN_BY} WHERE id = $2"))
            .bind(merchant_id)
            .bind(id)
            .fetch_optional(pool)
            .await?;
    let Some(mut run) = run else { return Ok(None) };
    let items = sqlx::query_as!(
        Item,
        r#"SELECT merchant_id, kind, transfer_of AS "transfer_of: TransferOf", transfer_id,
             amount, currency, action, detail
           FROM reconciliation_items
           WHERE run_id = $1 AND ($2::text IS NULL OR merchant_id = $2) ORDER BY position"#,
        id,
        merchant_id,
    )
    .fetch_all(pool)
    .await?;
    run.items = Some(items);
    Ok(Some(run))
}
