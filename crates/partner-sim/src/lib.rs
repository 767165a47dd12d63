//! `kaadxpay partner-sim`: a faithful partner bank. It keeps transfers in a durable store,
//! honours `X-Idempotency-Key` (mode `mature`) or ignores it (mode `immature`: every call is a
//! new transfer), settles each accepted transfer shortly after (`transfer.paid`, or
//! `transfer.failed` for an account holder containing `REJECT`), refuses a bad IBAN checksum
//! definitively (`422`), reverses paid transfers, and injects faults changeable at run time
//! with `PUT /_sim/config`: `latency_ms` (before a transfer is made, and before money in is
//! answered), `error_rate` (a 503, nothing done), `timeout_rate`
//! (the transfer is made but the answer never comes), and the behaviours real partners show:
//! `unprocessable_reads` (a status check answers `422`), `refuse_repeats` (keys ignored, a
//! repeated key refused with `422 duplicate_transfer`), `overlapping_days` (a day's listing also
//! returns the neighbouring days' transfers) and `refuse_reversals` (`409 not_reversible`, for as
//! long as it is set). `GET /_sim/stats` counts the reversal calls it received.
//!
//! Money in (API.md §13): `POST /_sim/incoming` makes money arrive in our funding account (an
//! incoming transfer `in_…`, as durable as the transfers), reported by a signed
//! `transfer.received` webhook unless `drop_incoming_webhooks` is set, and listed by day at
//! `GET /v1/incoming?date=`.
//!
//! Test mode: a transfer to one of the magic IBANs of [`scenarios`] gets that scenario's outcome
//! whatever the mode and faults (refused, paid, returned, slow, booked twice, held until
//! `POST /_sim/transfers/{id}/release` settles it), and [`test_mode`] tells the server whether
//! its partner is this simulator.

mod notifier;
pub mod scenarios;
mod store;
pub mod test_mode;

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
use self::scenarios::{scenario_of, Scenario, RETURN_AFTER};
use self::store::Store;
use kaadxpay_partner::wire::{
    IncomingList, IncomingTransfer, Transfer, TransferList, TransferRequest, TransferStatus,
};
use kaadxpay_types::ids::new_id;

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
    #[arg(long, env = "KAADXPAY_PARTNER_WEBHOOK_SECRET", default_value = kaadxpay_partner::TEST_WEBHOOK_SECRET)]
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
    /// Lose every `transfer.received` webhook (the money still arrives and is listed).
    #[arg(long)]
    pub drop_incoming_webhooks: bool,
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
    /// Money that arrives is never reported by `transfer.received` (only its listing shows it).
    #[serde(default)]
    pub drop_incoming_webhooks: bool,
}

impl SimConfig {
    /// What a transfer to a magic IBAN is treated with: its scenario alone decides.
    const FAULTLESS: Self = Self {
        mode: Mode::Mature,
        latency_ms: 0,
        error_rate: 0.0,
        timeout_rate: 0.0,
        unprocessable_reads: false,
        refuse_repeats: false,
        overlapping_days: false,
        refuse_reversals: false,
        drop_incoming_webhooks: false,
    };

    /// Waits `latency_ms` before an answer, as a slow bank does.
    async fn answer_late(&self) {
        if self.latency_ms > 0 {
            tokio::time::sleep(Duration::from_millis(self.latency_ms)).await;
        }
    }
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
    drop_incoming_webhooks: Option<bool>,
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
            drop_incoming_webhooks: args.behaviours.drop_incoming_webhooks,
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
    // Transfers accepted before a restart still settle (a held one waits for its release),
    // and a paid one of the returned scenario still comes back.
    for transfer in sim.store.filter(|_| true) {
        match (transfer.status, scenario_of(&transfer.destination.iban)) {
            (TransferStatus::Accepted, Some(Scenario::Held)) => {}
            (TransferStatus::Accepted, _) => sim.settle_later(transfer.id),
            (TransferStatus::Paid, Some(Scenario::Returned)) => sim.return_later(transfer.id),
            _ => {}
        }
    }
    let router = Router::new()
        .route("/v1/transfers", post(create_transfer).get(list_transfers))
        .route("/v1/transfers/{id}", get(get_transfer))
        .route("/v1/transfers/{id}/reversal", post(reverse_transfer))
        .route("/v1/incoming", get(list_incoming))
        .route("/_sim/transfers/{id}/release", post(release_transfer))
        .route("/_sim/incoming", post(receive_incoming))
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
    /// The mode and faults a transfer to `iban` is treated with.
    fn config_for(&self, iban: &str) -> SimConfig {
        match scenario_of(iban) {
            Some(_) => SimConfig::FAULTLESS,
            None => self.config.read().expect("config lock").clone(),
        }
    }

    fn settle_later(&self, id: String) {
        let sim = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(sim.settle_after).await;
            if let Err(err) = sim.settle(&id) {
                tracing::error!(error = ?err, "the partner store failed");
            }
        });
    }

    /// Settles an accepted transfer and says so: `failed` for an account holder containing
    /// `REJECT` (outside the scenarios), else `paid` (a returned scenario's comes back later).
    /// Returns it, or `None` when it was not accepted.
    fn settle(&self, id: &str) -> anyhow::Result<Option<Transfer>> {
        let Some(transfer) = self.store.get(id) else {
            return Ok(None);
        };
        let scenario = scenario_of(&transfer.destination.iban);
        let (status, event) =
            if scenario.is_none() && transfer.destination.account_holder.contains("REJECT") {
                (TransferStatus::Failed, "transfer.failed")
            } else {
                (TransferStatus::Paid, "transfer.paid")
            };
        let settled = self
            .store
            .transition(id, TransferStatus::Accepted, status)?;
        if let Some(settled) = &settled {
            self.notifier.send(event, settled.clone());
            if scenario == Some(Scenario::Returned) {
                self.return_later(settled.id.clone());
            }
        }
        Ok(settled)
    }

    /// The partner returns a paid transfer of the returned scenario, [`RETURN_AFTER`] from now.
    fn return_later(&self, id: String) {
        let sim = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(RETURN_AFTER).await;
            if let Err(err) = sim.reverse(&id) {
                tracing::error!(error = ?err, "the partner store failed");
            }
        });
    }

    /// Reverses a paid transfer and says so (`transfer.reversed`); `None` when it was not paid.
    fn reverse(&self, id: &str) -> anyhow::Result<Option<Transfer>> {
        let reversed = self
            .store
            .transition(id, TransferStatus::Paid, TransferStatus::Reversed)?;
        if let Some(reversed) = &reversed {
            self.notifier.send("transfer.reversed", reversed.clone());
        }
        Ok(reversed)
    }
}

fn store_failed(err: &anyhow::Error) -> Response {
    tracing::error!(error = ?err, "the partner store failed");
    refusal(
        StatusCode::INTERNAL_SERVER_ERROR,
        "store_failed",
        "The ledger could not be written.",
    )
}

async fn create_transfer(
    State(sim): State<Sim>,
    headers: HeaderMap,
    Json(request): Json<TransferRequest>,
) -> Response {
    let scenario = scenario_of(&request.destination.iban);
    let config = sim.config_for(&request.destination.iban);
    config.answer_late().await;
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
    if scenario == Some(Scenario::Refused) {
        return refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            "account_closed",
            "The destination account is closed.",
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
        Ok((existing, false)) => {
            if scenario == Some(Scenario::Slow) {
                // The repeat after the lost answer: now the transfer goes ahead.
                sim.settle_later(existing.id.clone());
            }
            return (StatusCode::OK, Json(existing)).into_response();
        }
        Ok((created, true)) => created,
        Err(err) => return store_failed(&err),
    };
    match scenario {
        Some(Scenario::Duplicated) => {
            let twin = Transfer {
                id: new_id("tr"),
                created_at: Utc::now(),
                ..transfer.clone()
            };
            if let Err(err) = sim.store.create(false, twin.clone()) {
                return store_failed(&err);
            }
            sim.settle_later(transfer.id.clone());
            sim.settle_later(twin.id);
        }
        // Settled when released, or when the key is asked again.
        Some(Scenario::Held | Scenario::Slow) => {}
        _ => sim.settle_later(transfer.id.clone()),
    }
    if time_out || scenario == Some(Scenario::Slow) {
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

/// The faults that apply to a call about the transfer `id`: a scenario's transfer has none.
fn config_about(sim: &Sim, transfer: Option<&Transfer>) -> SimConfig {
    match transfer {
        Some(transfer) => sim.config_for(&transfer.destination.iban),
        None => sim.config.read().expect("config lock").clone(),
    }
}

fn transfer_missing() -> Response {
    refusal(
        StatusCode::NOT_FOUND,
        "transfer_missing",
        "No such transfer.",
    )
}

async fn get_transfer(State(sim): State<Sim>, Path(id): Path<String>) -> Response {
    let transfer = sim.store.get(&id);
    if config_about(&sim, transfer.as_ref()).unprocessable_reads {
        return refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_error",
            "The request could not be validated.",
        );
    }
    match transfer {
        Some(transfer) => Json(transfer).into_response(),
        None => transfer_missing(),
    }
}

/// Reverses a paid transfer; reversing a reversed one answers it unchanged.
async fn reverse_transfer(State(sim): State<Sim>, Path(id): Path<String>) -> Response {
    sim.stats.reversal_calls.fetch_add(1, Ordering::SeqCst);
    let transfer = sim.store.get(&id);
    if config_about(&sim, transfer.as_ref()).refuse_reversals {
        return refusal(
            StatusCode::CONFLICT,
            "not_reversible",
            "The transfer cannot be reversed now.",
        );
    }
    if transfer.is_none() {
        return transfer_missing();
    }
    match sim.reverse(&id) {
        Ok(Some(reversed)) => Json(reversed).into_response(),
        Ok(None) => match sim.store.get(&id) {
            Some(transfer) if transfer.status == TransferStatus::Reversed => {
                Json(transfer).into_response()
            }
            _ => refusal(
                StatusCode::CONFLICT,
                "not_reversible",
                "Only a paid transfer can be reversed.",
            ),
        },
        Err(err) => store_failed(&err),
    }
}

/// A person settles an accepted transfer now (test mode's held scenario waits for this): it is
/// paid (or failed, as settling decides) and answered; a settled one is answered unchanged.
async fn release_transfer(State(sim): State<Sim>, Path(id): Path<String>) -> Response {
    match sim.settle(&id) {
        Ok(Some(settled)) => Json(settled).into_response(),
        Ok(None) => match sim.store.get(&id) {
            Some(transfer) => Json(transfer).into_response(),
            None => transfer_missing(),
        },
        Err(err) => store_failed(&err),
    }
}

/// `POST /_sim/incoming`: what a sender's bank transfer to our funding account carries.
#[derive(Deserialize)]
struct IncomingRequest {
    amount: i64,
    currency: String,
    reference: String,
}

/// The longest reference a bank transfer carries (SEPA's remittance information).
const MAX_REFERENCE_LEN: usize = 140;

/// Money arrives: the incoming transfer is made durable, then reported by `transfer.received`
/// (unless `drop_incoming_webhooks`), and answered `201`.
async fn receive_incoming(
    State(sim): State<Sim>,
    request: Result<Json<IncomingRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(request)) = request else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Send {\"amount\", \"currency\", \"reference\"}.",
        );
    };
    if !(1..=100_000_000_000).contains(&request.amount) {
        return refusal(
            StatusCode::BAD_REQUEST,
            "invalid_amount",
            "The amount must be 1 to 100000000000 minor units.",
        );
    }
    if request.currency.len() != 3 || !request.currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return refusal(
            StatusCode::BAD_REQUEST,
            "invalid_currency",
            "The currency must be three upper-case letters.",
        );
    }
    let reference = request.reference.trim();
    if reference.is_empty()
        || reference.chars().count() > MAX_REFERENCE_LEN
        || reference.chars().any(char::is_control)
    {
        return refusal(
            StatusCode::BAD_REQUEST,
            "invalid_reference",
            "The reference must be 1 to 140 printable characters.",
        );
    }
    let incoming = IncomingTransfer {
        id: new_id("in"),
        amount: request.amount,
        currency: request.currency,
        reference: reference.to_owned(),
        received_at: Utc::now(),
    };
    if let Err(err) = sim.store.receive(incoming.clone()) {
        return store_failed(&err);
    }
    let config = sim.config.read().expect("config lock").clone();
    if !config.drop_incoming_webhooks {
        sim.notifier.send_incoming(incoming.clone());
    }
    // A slow bank is slow to answer for money coming in too: it has arrived meanwhile.
    config.answer_late().await;
    (StatusCode::CREATED, Json(incoming)).into_response()
}

/// The money received on a day (with the neighbouring days when `overlapping_days` is set, as
/// for transfers).
async fn list_incoming(
    State(sim): State<Sim>,
    Query(query): Query<DateQuery>,
) -> Json<IncomingList> {
    let margin = if sim.config.read().expect("config lock").overlapping_days {
        1
    } else {
        0
    };
    Json(IncomingList {
        data: sim.store.incoming_on(query.date, margin),
    })
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
    config.drop_incoming_webhooks = change
        .drop_incoming_webhooks
        .unwrap_or(config.drop_incoming_webhooks);
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
