//! Reconciliation: the partner's transfers of one day matched to our payouts by reference (the
//! payout id) and end-to-end key. Each payout's own transfer is `matched` (or `amount_mismatch`),
//! every further transfer for it is a `duplicate`, a payout we sent with no transfer is
//! `missing`, and a transfer we never asked for is `unknown`. Applying reverses each duplicate
//! at the partner once, ever: `partner_reversals` holds one row per transfer, so runs repeated
//! or interrupted never reverse twice. Runs and their items are stored.

use std::collections::{BTreeMap, HashMap};

use anyhow::Context;
use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use sqlx::PgPool;

use crate::ids::new_id;
use crate::partner::client::PartnerClient;
use crate::partner::wire::{Transfer, TransferStatus};
use crate::payments::payouts::{self, partner_key};

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
    /// For a duplicate: `reversed` by this run, `already_reversed`, or null when not applied.
    pub action: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RunSummary {
    pub id: String,
    pub date: NaiveDate,
    pub applied: bool,
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

pub struct Reconciler {
    pub pool: PgPool,
    pub partner: PartnerClient,
}

impl Reconciler {
    pub async fn run(&self, date: NaiveDate, apply: bool) -> anyhow::Result<RunSummary> {
        let transfers = self
            .partner
            .transfers_on(date)
            .await
            .context("cannot list the partner's transfers")?;
        let references: Vec<&str> = transfers
            .iter()
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
        sqlx::query("INSERT INTO reconciliation_runs (id, run_date, applied) VALUES ($1, $2, $3)")
            .bind(&run_id)
            .bind(date)
            .bind(apply)
            .execute(&self.pool)
            .await?;
        let mut items = match_transfers(&payouts, &transfers, date);
        if apply {
            for item in items.iter_mut().filter(|item| item.kind == "duplicate") {
                item.action = Some(self.reverse_duplicate(&run_id, item).await?.to_owned());
            }
        }
        self.store_items(&run_id, &items).await?;
        let mut counts = BTreeMap::new();
        for item in &items {
            *counts.entry(item.kind.clone()).or_insert(0) += 1;
        }
        tracing::info!(event = "reconciliation.finished", run_id, %date, apply, ?counts, "reconciliation run stored");
        Ok(RunSummary {
            id: run_id,
            date,
            applied: apply,
            counts,
        })
    }

    /// Reverses a duplicate transfer unless some run already has.
    async fn reverse_duplicate(&self, run_id: &str, item: &Item) -> anyhow::Result<&'static str> {
        let (Some(transfer_id), Some(payout_id), Some(merchant_id)) =
            (&item.transfer_id, &item.payout_id, &item.merchant_id)
        else {
            unreachable!("a duplicate names its transfer, payout and merchant");
        };
        sqlx::query(
            "INSERT INTO partner_reversals (transfer_id, merchant_id, payout_id, run_id) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (transfer_id) DO NOTHING",
        )
        .bind(transfer_id)
        .bind(merchant_id)
        .bind(payout_id)
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        let reversed_at: Option<DateTime<Utc>> =
            sqlx::query_scalar("SELECT reversed_at FROM partner_reversals WHERE transfer_id = $1")
                .bind(transfer_id)
                .fetch_one(&self.pool)
                .await?;
        if reversed_at.is_some() {
            return Ok("already_reversed");
        }
        // The partner's reversal of a reversed transfer answers it unchanged, so asking again
        // after a crash between these two statements is safe.
        let transfer = self
            .partner
            .reverse(transfer_id)
            .await
            .with_context(|| format!("cannot reverse {transfer_id}"))?;
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE partner_reversals SET reversed_at = now() WHERE transfer_id = $1")
            .bind(transfer_id)
            .execute(&mut *tx)
            .await?;
        payouts::mark_duplicate_reversed(&mut tx, payout_id).await?;
        tx.commit().await?;
        tracing::info!(event = "reconciliation.reversed", transfer_id, payout_id, status = ?transfer.status, "duplicate transfer reversed");
        Ok("reversed")
    }

    async fn store_items(&self, run_id: &str, items: &[Item]) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        for (position, item) in items.iter().enumerate() {
            sqlx::query(
                "INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, payout_id, transfer_id, amount, currency, action) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
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
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await
    }
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
        for extra in extras {
            let mut duplicate = item("duplicate", Some(extra));
            if extra.status == TransferStatus::Reversed {
                duplicate.action = Some("already_reversed".into());
            }
            items.push(duplicate);
        }
    }
    // Whatever is left, including transfers that name a payout but not its key, we never asked for.
    let mut unknown: Vec<&Transfer> = by_reference.into_values().flatten().collect();
    unknown.extend(transfers.iter().filter(|transfer| {
        payouts.iter().any(|payout| {
            payout.id == transfer.reference
                && partner_key(&payout.id, &payout.idempotency_key) != transfer.idempotency_key
        })
    }));
    unknown.sort_by_key(|transfer| (transfer.created_at, transfer.id.clone()));
    items.extend(unknown.into_iter().map(|transfer| Item {
        merchant_id: None,
        kind: "unknown".into(),
        payout_id: None,
        transfer_id: Some(transfer.id.clone()),
        amount: Some(transfer.amount),
        currency: Some(transfer.currency.clone()),
        action: None,
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
    pub created_at: DateTime<Utc>,
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Item>>,
}

const RUN_COLUMNS: &str =
    "id, 'reconciliation_run' AS object, run_date AS date, applied, created_at";

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
        "SELECT merchant_id, kind, payout_id, transfer_id, amount, currency, action FROM reconciliation_items \
         WHERE run_id = $1 AND ($2::text IS NULL OR merchant_id = $2) ORDER BY position",
    )
    .bind(id)
    .bind(merchant_id)
    .fetch_all(pool)
    .await?;
    run.items = Some(items);
    Ok(Some(run))
}
