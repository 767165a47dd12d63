//! CSV exports of what the console's list pages show (API.md §12): a merchant's payouts,
//! orders, statement, request log and audit log, and a reconciliation run's items. It owns the SQL of each export,
//! its columns ([`columns`]) and the streaming: [`stream`] reads the rows on one pooled
//! connection as PostgreSQL sends them (`fetch`, never `fetch_all`), writes them as RFC 4180
//! CSV (UTF-8, CRLF) into chunks of about [`CHUNK`] bytes and hands the chunks over a channel
//! of [`IN_FLIGHT`] places, so an export holds a few chunks in memory however many rows it has,
//! and a client that goes away ends the query (the next send fails, the connection goes back).
//! Who may export what is the caller's to decide: every [`Export`] names its merchant (or, for
//! support staff's reconciliation items, none). It knows no HTTP; the console's adapter
//! (`console::exports`) turns the stream into a response body.

mod columns;

use kaadxpay_types::ids::MerchantId;
use std::io;

use chrono::{DateTime, Utc};
use futures::{Stream, TryStreamExt};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgPool};
use tokio::sync::mpsc;

pub use crate::contract::pagination::Filters;
use crate::history::audit::{self, AuditRow};
use crate::payments::orders::{Order, ORDER_COLUMNS};
use crate::payments::payouts::{Payout, PAYOUT_COLUMNS};
use crate::payments::statement::{BalanceTransaction, ITEM_COLUMNS};
use crate::reconcile::Item;
use crate::request_log::query::{LoggedRequest, COLUMNS as REQUEST_COLUMNS};

/// About how many bytes of CSV make one chunk of the body.
pub const CHUNK: usize = 64 * 1024;
/// How many chunks may wait for a slow client before the query waits too.
const IN_FLIGHT: usize = 2;

/// One export, with whose rows it holds.
#[derive(Debug, Clone)]
pub enum Export {
    Payouts {
        merchant_id: MerchantId,
        filters: Filters,
    },
    Orders {
        merchant_id: MerchantId,
        filters: Filters,
    },
    /// The statement; `status` is an item's type.
    Statement {
        merchant_id: MerchantId,
        filters: Filters,
    },
    /// The request log; `status` is an HTTP status (checked by the caller to be a number).
    Requests {
        merchant_id: MerchantId,
        filters: Filters,
    },
    /// The audit log, its entries of one action (or all) within the days.
    Audit {
        merchant_id: MerchantId,
        filters: audit::Filters,
    },
    /// A run's items: one merchant's, or (`None`, support staff) every merchant's.
    Reconciliation {
        run_id: String,
        merchant_id: Option<MerchantId>,
    },
}

/// A bound parameter of an export's statement.
enum Param {
    Text(Option<String>),
    Time(Option<DateTime<Utc>>),
}

/// The conditions every list export shares, on `$1` (merchant), `$2` (status, or the column
/// `status` names, as text), `$3` and `$4` (the period, start inclusive, end exclusive), newest
/// first as the pages list.
fn listed(
    columns: &str,
    table: &str,
    (status, status_type): (&str, &str),
    merchant_id: &MerchantId,
    filters: &Filters,
) -> (String, Vec<Param>) {
    let (start, end) = filters.period();
    let sql = format!(
        "SELECT {columns} FROM {table} WHERE merchant_id = $1 \
           AND ($2::text IS NULL OR {status} = $2::{status_type}) \
           AND ($3::timestamptz IS NULL OR created_at >= $3) \
           AND ($4::timestamptz IS NULL OR created_at < $4) \
         ORDER BY created_at DESC, id DESC"
    );
    let params = vec![
        Param::Text(Some(merchant_id.to_string())),
        Param::Text(filters.status.clone()),
        Param::Time(start),
        Param::Time(end),
    ];
    (sql, params)
}

/// `value` with every character but ASCII letters, digits, `.`, `_` and `-` made a `_`: a
/// filter typed into an address cannot break out of the file name or its header.
fn file_safe(value: &str) -> String {
    value
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// A text `status` column.
const STATUS: (&str, &str) = ("status", "text");

impl Export {
    /// A name for the file: what it holds, the filters it was made with (each named:
    /// `status-paid`, `action-member.invited`, `from-2026-12-01`, `to-2026-12-04`) and the day
    /// it was made (UTC): `payouts-status-paid-from-2026-12-01-2026-12-06.csv`. A run's items
    /// are named by the run.
    pub fn file_name(&self) -> String {
        let today = Utc::now().format("%Y-%m-%d");
        let (what, status, filters) = match self {
            Self::Payouts { filters, .. } => ("payouts", "status", filters.clone()),
            Self::Orders { filters, .. } => ("orders", "status", filters.clone()),
            Self::Statement { filters, .. } => ("balance", "type", filters.clone()),
            Self::Requests { filters, .. } => ("requests", "status", filters.clone()),
            Self::Audit { filters, .. } => ("audit", "action", filters.days()),
            Self::Reconciliation { run_id, .. } => return format!("reconciliation-{run_id}.csv"),
        };
        let named = [
            (status, filters.status),
            ("from", filters.from.map(|day| day.to_string())),
            ("to", filters.to.map(|day| day.to_string())),
        ];
        let mut name = what.to_owned();
        for (label, value) in named {
            if let Some(value) = value {
                name.push_str(&format!("-{label}-{}", file_safe(&value)));
            }
        }
        format!("{name}-{today}.csv")
    }

    fn statement(&self) -> (String, Vec<Param>) {
        match self {
            Self::Payouts {
                merchant_id,
                filters,
            } => listed(PAYOUT_COLUMNS, "payouts", STATUS, merchant_id, filters),
            Self::Orders {
                merchant_id,
                filters,
            } => listed(ORDER_COLUMNS, "orders", STATUS, merchant_id, filters),
            Self::Statement {
                merchant_id,
                filters,
            } => listed(
                ITEM_COLUMNS,
                "balance_transactions",
                ("type", "text"),
                merchant_id,
                filters,
            ),
            Self::Requests {
                merchant_id,
                filters,
            } => listed(
                REQUEST_COLUMNS,
                "request_log",
                ("status", "int2"),
                merchant_id,
                filters,
            ),
            Self::Audit {
                merchant_id,
                filters,
            } => listed(
                audit::ROW_COLUMNS,
                "audit_log",
                ("action", "text"),
                merchant_id,
                &filters.days(),
            ),
            Self::Reconciliation {
                run_id,
                merchant_id,
            } => (
                "SELECT merchant_id, kind, transfer_of, transfer_id, amount, currency, action, detail \
                 FROM reconciliation_items \
                 WHERE run_id = $1 AND ($2::text IS NULL OR merchant_id = $2) ORDER BY position"
                    .to_owned(),
                vec![
                    Param::Text(Some(run_id.clone())),
                    Param::Text(merchant_id.as_ref().map(MerchantId::to_string)),
                ],
            ),
        }
    }
}

/// Whether a reconciliation run of this id exists (its items may still be none of a merchant's).
pub async fn run_exists(pool: &PgPool, run_id: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM reconciliation_runs WHERE id = $1) AS "exists!""#,
        run_id,
    )
    .fetch_one(pool)
    .await
}

/// The export as chunks of CSV, its header line first. The rows are read by a task of their
/// own; a failure after the first chunk can only cut the body short (the status was sent), so
/// it ends the stream with an error, which the client sees as an incomplete download.
pub fn stream(pool: PgPool, export: Export) -> impl Stream<Item = io::Result<Vec<u8>>> {
    let (sender, receiver) = mpsc::channel(IN_FLIGHT);
    let (sql, params) = export.statement();
    match export {
        Export::Payouts { .. } => tokio::spawn(write::<Payout>(pool, sql, params, sender)),
        Export::Orders { .. } => tokio::spawn(write::<Order>(pool, sql, params, sender)),
        Export::Statement { .. } => {
            tokio::spawn(write::<BalanceTransaction>(pool, sql, params, sender))
        }
        Export::Requests { .. } => tokio::spawn(write::<LoggedRequest>(pool, sql, params, sender)),
        Export::Audit { .. } => tokio::spawn(write::<AuditRow>(pool, sql, params, sender)),
        Export::Reconciliation { .. } => tokio::spawn(write::<Item>(pool, sql, params, sender)),
    };
    futures::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    })
}

type Sender = mpsc::Sender<io::Result<Vec<u8>>>;

async fn write<R>(pool: PgPool, sql: String, params: Vec<Param>, sender: Sender)
where
    R: columns::CsvRow + for<'r> FromRow<'r, PgRow> + Send + Unpin,
{
    if let Err(error) = write_rows::<R>(&pool, &sql, params, &sender).await {
        tracing::error!(error = format!("{error:#}"), "a CSV export failed");
        let _ = sender
            .send(Err(io::Error::other("the export failed; try again")))
            .await;
    }
}

/// How many exports stream at once in a process: each on a connection of the exports' own
/// pool (`AppState::exports_pool`), never one that requests need; a further export waits for
/// one (up to the reserve pool's acquire timeout, then it ends unfinished).
pub const CONNECTIONS: u32 = 2;

/// Writes the rows into chunks and sends each when it is full; stops quietly when the client
/// is gone.
async fn write_rows<R>(
    pool: &PgPool,
    sql: &str,
    params: Vec<Param>,
    sender: &Sender,
) -> anyhow::Result<()>
where
    R: columns::CsvRow + for<'r> FromRow<'r, PgRow> + Send + Unpin,
{
    let mut conn = pool.acquire().await?;
    let mut query = sqlx::query_as::<_, R>(sql);
    for param in params {
        query = match param {
            Param::Text(text) => query.bind(text),
            Param::Time(at) => query.bind(at),
        };
    }
    let mut rows = query.fetch(&mut *conn);
    let mut chunk = columns::first_chunk_writer();
    chunk.write_record(R::HEADER)?;
    while let Some(row) = rows.try_next().await? {
        chunk.write_record(row.record())?;
        if chunk.get_ref().len() >= CHUNK {
            let full = std::mem::replace(&mut chunk, columns::chunk_writer());
            if sender
                .send(Ok(full.into_inner().map_err(|e| e.into_error())?))
                .await
                .is_err()
            {
                return Ok(());
            }
        }
    }
    let _ = sender
        .send(Ok(chunk.into_inner().map_err(|e| e.into_error())?))
        .await;
    Ok(())
}
