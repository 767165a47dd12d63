//! `kaadxpay partner-sim`: a faithful partner bank. It keeps transfers in a durable store,
//! honours `X-Idempotency-Key` (mode `mature`) or ignores it (mode `immature`: every call is a
//! new transfer), settles each accepted transfer shortly after (`transfer.paid`, or
//! `transfer.failed` for an account holder containing `REJECT`), refuses a bad IBAN checksum
//! definitively (`422`), reverses paid transfers, and injects faults changeable at run time
//! with `PUT /_sim/config`: `latency_ms`, `error_rate` (a 503, nothing done), `timeout_rate`
//! (the transfer is made but the answer never comes), and the behaviours real partners show:
//! `unprocessable_reads` (a status check answers `422`), `refuse_repeats` (keys ignored, a
//! repeated key refused with `422 duplicate_transfer`), `overlapping_days` (a day's listing also
//! returns the neighbouring days' transfers) and `refuse_reversals` (`409 not_reversible`, for as
//! long as it is set). `GET /_sim/stats` counts the reversal calls it received.

mod notifier;
mod store;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use chrono::{NaiveDate, Utc};
use clap::{Args, ValueEnum};
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::net::TcpListener;

use self::notifier::Notifier;
use self::store::Store;
use crate::ids::new_id;
use crate::partner::wire::{Transfer, TransferList, TransferRequest, TransferStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Mature,
    Immature,
}

#[derive(Debug, Clone, Args)]
pub struct SimArgs {
    #[arg(long, default_value = "127.0.0.1:4000")]
    pub addr: SocketAddr,
    #[arg(long, value_enum, default_value = "mature")]
    pub mode: Mode,
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
    #[arg(long, default_value_t = 0.0)]
    pub error_rate: f64,
    #[arg(long, default_value_t = 0.0)]
    pub timeout_rate: f64,
    #[command(flatten)]
    pub behaviours: Behaviours,
    /// Where to send `transfer.*` webhooks.
    #[arg(long)]
    pub webhook_url: Option<String>,
    #[arg(long, env = "KAADXPAY_PARTNER_WEBHOOK_SECRET", default_value = crate::partner::TEST_WEBHOOK_SECRET)]
    pub webhook_secret: String,
    /// The durable store (JSON lines); by default `partner-sim.jsonl` in the data folder.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// How long after acceptance a transfer settles.
    #[arg(long, default_value = "200ms", value_parser = humantime::parse_duration)]
    pub settle_after: Duration,
}

/// The ways of real partners that the simulator can show from its start (all off by default).
#[derive(Debug, Clone, Default, Args)]
pub struct Behaviours {
    /// Answer every status check (`GET /v1/transfers/{id}`) with `422 validation_error`.
    #[arg(long)]
    pub unprocessable_reads: bool,
    /// Ignore keys and refuse a create whose key already made a transfer with
    /// `422 duplicate_transfer` (with `--timeout-rate`, the first answer is lost).
    #[arg(long)]
    pub refuse_repeats: bool,
    /// List the day before and the day after with each day asked for.
    #[arg(long)]
    pub overlapping_days: bool,
    /// Answer every reversal with `409 not_reversible` until told otherwise.
    #[arg(long)]
    pub refuse_reversals: bool,
}

/// The faults and mode, as `PUT /_sim/config` sets them (any subset of the fields).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SimConfig {
    pub mode: Mode,
    pub latency_ms: u64,
    pub error_rate: f64,
    pub timeout_rate: f64,
    /// A status check answers `422 validation_error`, as some partners' read APIs do.
    pub unprocessable_reads: bool,
    /// Keys are ignored and a create repeating a key is refused with `422 duplicate_transfer`.
    pub refuse_repeats: bool,
    /// The listing of a day also returns the day before's and the day after's transfers.
    pub overlapping_days: bool,
    /// Every reversal is answered `409 not_reversible` (a transfer not settled over a weekend,
    /// a back office that says no) for as long as this is set.
    pub refuse_reversals: bool,
}

#[derive(Deserialize)]
struct ConfigChange {
    mode: Option<Mode>,
    latency_ms: Option<u64>,
    error_rate: Option<f64>,
    timeout_rate: Option<f64>,
    unprocessable_reads: Option<bool>,
    refuse_repeats: Option<bool>,
    overlapping_days: Option<bool>,
    refuse_reversals: Option<bool>,
}

/// What `GET /_sim/stats` counts, for tests that prove how often we call.
#[derive(Debug, Default)]
struct Stats {
    /// Every `POST /v1/transfers/{id}/reversal` received, answered or not.
    reversal_calls: AtomicU64,
}

#[derive(Clone)]
struct Sim {
    config: Arc<RwLock<SimConfig>>,
    store: Arc<Store>,
    notifier: Notifier,
    settle_after: Duration,
    stats: Arc<Stats>,
}

/// Binds the simulator; the returned future serves it.
/// Binds the simulator on `args.addr`, its store in `data_dir` unless `args.store` names one.
pub async fn bind(
    args: SimArgs,
    data_dir: &std::path::Path,
) -> anyhow::Result<(
    SocketAddr,
    impl std::future::Future<Output = std::io::Result<()>>,
)> {
    let sim = Sim {
        config: Arc::new(RwLock::new(SimConfig {
            mode: args.mode,
            latency_ms: args.latency_ms,
            error_rate: args.error_rate,
            timeout_rate: args.timeout_rate,
            unprocessable_reads: args.behaviours.unprocessable_reads,
            refuse_repeats: args.behaviours.refuse_repeats,
            overlapping_days: args.behaviours.overlapping_days,
            refuse_reversals: args.behaviours.refuse_reversals,
        })),
        store: Arc::new(Store::open(
            &args
                .store
                .unwrap_or_else(|| data_dir.join("partner-sim.jsonl")),
        )?),
        notifier: Notifier::new(args.webhook_url, args.webhook_secret),
        settle_after: args.settle_after,
        stats: Arc::default(),
    };
    // Transfers accepted before a restart still settle.
    for transfer in sim
        .store
        .filter(|transfer| transfer.status == TransferStatus::Accepted)
    {
        sim.settle_later(transfer.id);
    }
    let router = Router::new()
        .route("/v1/transfers", post(create_transfer).get(list_transfers))
        .route("/v1/transfers/{id}", get(get_transfer))
        .route("/v1/transfers/{id}/reversal", post(reverse_transfer))
        .route("/_sim/config", put(set_config).get(get_config))
        .route("/_sim/stats", get(get_stats))
        .with_state(sim);
    let listener = TcpListener::bind(args.addr).await?;
    let addr = listener.local_addr()?;
    Ok((addr, async move { axum::serve(listener, router).await }))
}

fn refusal(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({"error": {"code": code, "message": message}})),
    )
        .into_response()
}

/// The ISO 13616 check: move the first four characters to the end, letters to numbers, mod 97 = 1.
fn iban_is_valid(iban: &str) -> bool {
    let iban: String = iban.chars().filter(|c| !c.is_whitespace()).collect();
    if !(15..=34).contains(&iban.len()) || !iban.chars().all(|c| c.is_ascii_alphanumeric()) {
        return false;
    }
    let rearranged = iban[4..].chars().chain(iban[..4].chars());
    let mut remainder = 0u32;
    for c in rearranged {
        let value = c.to_digit(36).expect("alphanumeric");
        remainder = if value >= 10 {
            (remainder * 100 + value) % 97
        } else {
            (remainder * 10 + value) % 97
        };
    }
    remainder == 1
}

impl Sim {
    fn settle_later(&self, id: String) {
        let sim = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(sim.settle_after).await;
            let Some(mut transfer) = sim.store.get(&id) else {
                return;
            };
            if transfer.status != TransferStatus::Accepted {
                return;
            }
            let (status, event) = if transfer.destination.account_holder.contains("REJECT") {
                (TransferStatus::Failed, "transfer.failed")
            } else {
                (TransferStatus::Paid, "transfer.paid")
            };
            transfer.status = status;
            if sim.store.put(&transfer).is_ok() {
                sim.notifier.send(event, transfer);
            }
        });
    }
}

async fn create_transfer(
    State(sim): State<Sim>,
    headers: HeaderMap,
    Json(request): Json<TransferRequest>,
) -> Response {
    let config = sim.config.read().expect("config lock").clone();
    if config.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(config.latency_ms)).await;
    }
    let (fail, time_out) = {
        let mut rng = rand::thread_rng();
        (
            rng.gen_bool(config.error_rate.clamp(0.0, 1.0)),
            rng.gen_bool(config.timeout_rate.clamp(0.0, 1.0)),
        )
    };
    if fail {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "Injected fault: nothing was done.",
        );
    }
    let Some(key) = headers
        .get("x-idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "idempotency_key_missing",
            "Send X-Idempotency-Key.",
        );
    };
    if !iban_is_valid(&request.destination.iban) {
        return refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_account",
            "The destination IBAN does not exist.",
        );
    }
    let transfer = Transfer {
        id: new_id("tr"),
        status: TransferStatus::Accepted,
        amount: request.amount,
        currency: request.currency,
        reference: request.reference,
        destination: request.destination,
        idempotency_key: key,
        created_at: Utc::now(),
    };
    let once_per_key = config.mode == Mode::Mature || config.refuse_repeats;
    let transfer = match sim.store.create(once_per_key, transfer) {
        Ok((_, false)) if config.refuse_repeats => {
            return refusal(
                StatusCode::UNPROCESSABLE_ENTITY,
                "duplicate_transfer",
                "A transfer with this reference was already made.",
            )
        }
        Ok((existing, false)) => return (StatusCode::OK, Json(existing)).into_response(),
        Ok((created, true)) => created,
        Err(err) => {
            tracing::error!(error = ?err, "the partner store failed");
            return refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_failed",
                "The ledger could not be written.",
            );
        }
    };
    sim.settle_later(transfer.id.clone());
    if time_out {
        // The transfer exists, but its answer is lost: the caller's timeout fires first.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    (StatusCode::CREATED, Json(transfer)).into_response()
}

#[derive(Deserialize)]
struct DateQuery {
    date: Option<NaiveDate>,
}

async fn list_transfers(
    State(sim): State<Sim>,
    Query(query): Query<DateQuery>,
) -> Json<TransferList> {
    let margin = if sim.config.read().expect("config lock").overlapping_days {
        1
    } else {
        0
    };
    let data = sim.store.filter(|transfer| {
        query
            .date
            .is_none_or(|date| (transfer.created_at.date_naive() - date).num_days().abs() <= margin)
    });
    Json(TransferList { data })
}

async fn get_transfer(State(sim): State<Sim>, Path(id): Path<String>) -> Response {
    if sim.config.read().expect("config lock").unprocessable_reads {
        return refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_error",
            "The request could not be validated.",
        );
    }
    match sim.store.get(&id) {
        Some(transfer) => Json(transfer).into_response(),
        None => refusal(
            StatusCode::NOT_FOUND,
            "transfer_missing",
            "No such transfer.",
        ),
    }
}

/// Reverses a paid transfer; reversing a reversed one answers it unchanged.
async fn reverse_transfer(State(sim): State<Sim>, Path(id): Path<String>) -> Response {
    sim.stats.reversal_calls.fetch_add(1, Ordering::SeqCst);
    if sim.config.read().expect("config lock").refuse_reversals {
        return refusal(
            StatusCode::CONFLICT,
            "not_reversible",
            "The transfer cannot be reversed now.",
        );
    }
    let Some(mut transfer) = sim.store.get(&id) else {
        return refusal(
            StatusCode::NOT_FOUND,
            "transfer_missing",
            "No such transfer.",
        );
    };
    match transfer.status {
        TransferStatus::Reversed => Json(transfer).into_response(),
        TransferStatus::Paid => {
            transfer.status = TransferStatus::Reversed;
            if sim.store.put(&transfer).is_err() {
                return refusal(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "store_failed",
                    "The ledger could not be written.",
                );
            }
            sim.notifier.send("transfer.reversed", transfer.clone());
            Json(transfer).into_response()
        }
        _ => refusal(
            StatusCode::CONFLICT,
            "not_reversible",
            "Only a paid transfer can be reversed.",
        ),
    }
}

async fn set_config(State(sim): State<Sim>, Json(change): Json<ConfigChange>) -> Json<SimConfig> {
    let mut config = sim.config.write().expect("config lock");
    config.mode = change.mode.unwrap_or(config.mode);
    config.latency_ms = change.latency_ms.unwrap_or(config.latency_ms);
    config.error_rate = change.error_rate.unwrap_or(config.error_rate);
    config.timeout_rate = change.timeout_rate.unwrap_or(config.timeout_rate);
    config.unprocessable_reads = change
        .unprocessable_reads
        .unwrap_or(config.unprocessable_reads);
    config.refuse_repeats = change.refuse_repeats.unwrap_or(config.refuse_repeats);
    config.overlapping_days = change.overlapping_days.unwrap_or(config.overlapping_days);
    config.refuse_reversals = change.refuse_reversals.unwrap_or(config.refuse_reversals);
    Json(config.clone())
}

async fn get_config(State(sim): State<Sim>) -> Json<SimConfig> {
    Json(sim.config.read().expect("config lock").clone())
}

async fn get_stats(State(sim): State<Sim>) -> Json<serde_json::Value> {
    Json(json!({"reversal_calls": sim.stats.reversal_calls.load(Ordering::SeqCst)}))
}

#[cfg(test)]
mod tests {
    use super::iban_is_valid;

    #[test]
    fn iban_checksums_are_checked() {
        assert!(iban_is_valid("DE89370400440532013000"));
        assert!(iban_is_valid("GB82 WEST 1234 5698 7654 32"));
        assert!(!iban_is_valid("DE89370400440532013001"));
        assert!(!iban_is_valid("DE89"));
    }
}
