//! Settings, from flags and environment variables, validated when the command line is parsed.
//! Durations are written like `24h`, `60s` or `500ms`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

/// How long a merchant's webhook endpoint has to answer.
pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// The mode a deployment runs in (`KAADXPAY_MODE`, API.md §1): `live` beside a real partner
/// only. What it means for API keys is `accounts::auth`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Mode {
    #[default]
    Test,
    Live,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Json,
    Pretty,
}

/// Settings shared by every command.
#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// The PostgreSQL database. Without it, an embedded cluster is started under --data-dir.
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,

    /// The database as the role that owns the tables, for the migrations (every command applies
    /// them first); default DATABASE_URL. A hardened `serve` connects with DATABASE_URL as a
    /// role that cannot change or delete audit entries (deploy/roles.sql).
    #[arg(
        long,
        env = "KAADXPAY_MIGRATE_DATABASE_URL",
        hide_env_values = true,
        global = true
    )]
    pub migrate_database_url: Option<String>,

    /// Where the embedded PostgreSQL keeps its cluster.
    #[arg(
        long,
        env = "KAADXPAY_DATA_DIR",
        default_value = ".data",
        global = true
    )]
    pub data_dir: PathBuf,

    /// Connections in the database pool.
    #[arg(
        long,
        env = "KAADXPAY_DB_POOL_SIZE",
        default_value_t = 16,
        global = true
    )]
    pub db_pool_size: u32,

    /// How long a request may wait for a database connection before it is answered `503`.
    #[arg(long, env = "KAADXPAY_DB_ACQUIRE_TIMEOUT", default_value = "1s", value_parser = humantime::parse_duration, global = true)]
    pub db_acquire_timeout: Duration,

    /// Requests served at once by this process. Default: one per database connection.
    #[arg(long, env = "KAADXPAY_MAX_IN_FLIGHT", global = true)]
    pub max_in_flight: Option<usize>,

    /// Requests that may wait in line for a turn, each at most --admission-wait; one that
    /// finds the line full is answered `503` at once. Default: a quarter of --max-in-flight.
    #[arg(long, env = "KAADXPAY_MAX_WAITING", global = true)]
    pub max_waiting: Option<usize>,

    /// How long a request waits in line for a turn before it is answered `503`.
    #[arg(long, env = "KAADXPAY_ADMISSION_WAIT", default_value = "2ms", value_parser = humantime::parse_duration, global = true)]
    pub admission_wait: Duration,

    /// How long a client has to send a request's headers before its connection is closed.
    #[arg(long, env = "KAADXPAY_HEADER_READ_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration, global = true)]
    pub header_read_timeout: Duration,

    /// How long a client has, once its headers are in, to send the body: then `408`.
    #[arg(long, env = "KAADXPAY_BODY_READ_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration, global = true)]
    pub body_read_timeout: Duration,

    /// How long a request may take from its headers to its answer, body included; a request
    /// still being served then is answered `503` (its body, if late, got `408` before).
    #[arg(long, env = "KAADXPAY_REQUEST_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration, global = true)]
    pub request_timeout: Duration,

    /// How long an idempotency record answers for its key.
    #[arg(long, env = "KAADXPAY_IDEMPOTENCY_TTL", default_value = "24h", value_parser = humantime::parse_duration, global = true)]
    pub idempotency_ttl: Duration,

    /// How long a claim stays live without completing before the sweeper may fail it.
    #[arg(long, env = "KAADXPAY_IDEMPOTENCY_LEASE", default_value = "60s", value_parser = humantime::parse_duration, global = true)]
    pub idempotency_lease: Duration,

    /// How often the sweeper looks for abandoned claims.
    #[arg(long, env = "KAADXPAY_SWEEP_INTERVAL", default_value = "5s", value_parser = humantime::parse_duration, global = true)]
    pub sweep_interval: Duration,

    /// How often expired idempotency records are deleted.
    #[arg(long, env = "KAADXPAY_PURGE_INTERVAL", default_value = "1h", value_parser = humantime::parse_duration, global = true)]
    pub purge_interval: Duration,

    /// `test` or `live` (API.md §1): keys are made `sk_test_…` or `sk_live_…`, and a key of the
    /// other mode is refused. `live` needs KAADXPAY_PARTNER_URL: never the simulator, never
    /// `--demo`. (`--mode` is the partner simulator's.)
    #[arg(
        id = "deployment_mode",
        long = "deployment-mode",
        env = "KAADXPAY_MODE",
        value_enum,
        default_value = "test",
        global = true
    )]
    pub mode: Mode,

    /// The partner bank. Without it, `serve` runs the partner simulator in-process on
    /// `127.0.0.1:4000` (or a free port), which is also where `reconcile` looks by default.
    #[arg(long, env = "KAADXPAY_PARTNER_URL", global = true)]
    pub partner_url: Option<String>,

    /// The secret the partner signs its webhooks with. Required with --partner-url; without
    /// it (the in-process simulator) the simulator's published test secret is used.
    #[arg(long, env = "KAADXPAY_PARTNER_WEBHOOK_SECRET", global = true)]
    pub partner_webhook_secret: Option<String>,

    /// Our account at the partner that merchants top up their balance by sending money to,
    /// each with its own reference (`GET /v1/funding-account`).
    #[arg(
        long,
        env = "KAADXPAY_FUNDING_IBAN",
        default_value = "GB33BUKB20201555555555",
        global = true
    )]
    pub funding_iban: String,

    /// The holder's name of the funding account, as senders must write it.
    #[arg(
        long,
        env = "KAADXPAY_FUNDING_ACCOUNT_HOLDER",
        default_value = "Kaadxpay Client Funds",
        global = true
    )]
    pub funding_account_holder: String,

    /// How long a call to the partner may take before it counts as a timeout.
    #[arg(long, env = "KAADXPAY_PARTNER_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration, global = true)]
    pub partner_timeout: Duration,

    /// How long the payout worker holds a payout it works on before another process may take
    /// it; must outlast a partner call (--partner-timeout).
    #[arg(long, env = "KAADXPAY_PAYOUT_LEASE", default_value = "60s", value_parser = humantime::parse_duration, global = true)]
    pub payout_lease: Duration,

    /// How often the payout worker looks for due payouts.
    #[arg(long, env = "KAADXPAY_PAYOUT_INTERVAL", default_value = "1s", value_parser = humantime::parse_duration, global = true)]
    pub payout_interval: Duration,

    /// The delay before a payout's first retry after a timeout or 5xx; each retry doubles it.
    #[arg(long, env = "KAADXPAY_PAYOUT_RETRY_BASE", default_value = "1s", value_parser = humantime::parse_duration, global = true)]
    pub payout_retry_base: Duration,

    /// How often an in-transit payout is polled at the partner, in case its webhook never comes.
    #[arg(long, env = "KAADXPAY_PAYOUT_POLL_INTERVAL", default_value = "30s", value_parser = humantime::parse_duration, global = true)]
    pub payout_poll_interval: Duration,

    /// How often `serve` checks whether the previous day still needs reconciling (and
    /// applying; one replica does it, once per day, the first check one interval after start)
    /// and retries the unfinished reversals that are due, whatever their day.
    #[arg(long, env = "KAADXPAY_RECONCILE_INTERVAL", default_value = "30s", value_parser = humantime::parse_duration, global = true)]
    pub reconcile_interval: Duration,
    /// The delays between webhook attempts, jittered by ±20 %; when they run out the delivery fails.
    #[arg(long, env = "KAADXPAY_WEBHOOK_RETRY_SCHEDULE", default_value = "5s,30s,2m,10m,30m,1h,3h,6h,12h,24h", value_parser = duration_list, global = true)]
    pub webhook_retry_schedule: Delays,

    /// How often the webhook dispatcher looks for due deliveries.
    #[arg(long, env = "KAADXPAY_WEBHOOK_INTERVAL", default_value = "1s", value_parser = humantime::parse_duration, global = true)]
    pub webhook_interval: Duration,

    /// How long a dispatcher holds a delivery it is sending before another may claim it again;
    /// keep it above the 10 s send timeout.
    #[arg(long, env = "KAADXPAY_WEBHOOK_LEASE", default_value = "60s", value_parser = humantime::parse_duration, global = true)]
    pub webhook_lease: Duration,

    /// Let webhook endpoints be loopback, private, link-local or other internal addresses
    /// (local development and tests; the embedded mode turns it on). Off, such URLs are refused
    /// at registration and again, after DNS resolution, on every send.
    #[arg(long, env = "KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS", default_value_t = false,
          action = clap::ArgAction::Set, value_name = "true|false", global = true)]
    pub webhook_allow_private_networks: bool,

    /// The address people reach the service at, e.g. `https://pay.example.com`; with
    /// `https://` the console's session cookie is marked `Secure`.
    #[arg(long, env = "KAADXPAY_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,

    /// The proxies in front of the service, as comma-separated CIDRs (`10.0.0.0/8,192.0.2.7/32`):
    /// a request from one of them comes from the last address of its `X-Forwarded-For` that is
    /// not one of them. Unset, a request comes from its connection's peer, whatever it sends.
    #[arg(long, env = "KAADXPAY_TRUSTED_PROXIES", global = true)]
    pub trusted_proxies: Option<String>,

    /// Where invitations are mailed from: `smtp://user:password@host:587?tls=required`
    /// (STARTTLS), `smtps://user:password@host` (TLS) or, on a trusted network only,
    /// `smtp://host:25` (no TLS). Unset, the console shows an invitation's link for the inviter
    /// to pass on (the embedded mode's way).
    #[arg(long, env = "KAADXPAY_SMTP_URL", global = true)]
    pub smtp_url: Option<String>,

    /// The sender of the invitations mailed through `KAADXPAY_SMTP_URL`.
    #[arg(
        long,
        env = "KAADXPAY_MAIL_FROM",
        default_value = "Kaadxpay <no-reply@kaadxpay.invalid>",
        global = true
    )]
    pub mail_from: String,
    /// The key two-step sign-in's TOTP secrets, webhook endpoint secrets and the stored answers
    /// that show one are sealed with at rest: 64 hexadecimal
    /// characters (32 bytes, e.g. `openssl rand -hex 32`), the same on every replica. Required
    /// by `serve` with DATABASE_URL; the embedded mode keeps one in `<data dir>/secrets.key`.
    #[arg(
        long,
        env = "KAADXPAY_SECRETS_KEY",
        hide_env_values = true,
        global = true
    )]
    pub secrets_key: Option<Hidden>,

    /// How long a second factor given in a console session counts for a step-up (creating a
    /// payout, changing webhook endpoints or the team) before another code is asked for.
    #[arg(long, env = "KAADXPAY_STEP_UP_WINDOW", default_value = "10m", value_parser = humantime::parse_duration, global = true)]
    pub step_up_window: Duration,

    #[command(flatten)]
    pub retention: RetentionSettings,

    #[command(flatten)]
    pub request_log: RequestLogSettings,

    /// `json` lines for machines, `pretty` for people.
    #[arg(
        long,
        env = "KAADXPAY_LOG_FORMAT",
        default_value = "json",
        global = true
    )]
    pub log_format: LogFormat,
}

/// Where `reconcile` and the embedded partner simulator meet when no partner URL is given.
pub const LOCAL_PARTNER_ADDR: &str = "127.0.0.1:4000";

impl Settings {
    /// Every value that cannot work, one sentence each naming its variable; empty when all is
    /// well. Run at start, before anything else, so a bad setting never surfaces as a panic or
    /// a silent misbehaviour later.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let positive = [
            ("KAADXPAY_DB_ACQUIRE_TIMEOUT", self.db_acquire_timeout),
            ("KAADXPAY_ADMISSION_WAIT", self.admission_wait),
            ("KAADXPAY_HEADER_READ_TIMEOUT", self.header_read_timeout),
            ("KAADXPAY_BODY_READ_TIMEOUT", self.body_read_timeout),
            ("KAADXPAY_REQUEST_TIMEOUT", self.request_timeout),
            ("KAADXPAY_IDEMPOTENCY_TTL", self.idempotency_ttl),
            ("KAADXPAY_IDEMPOTENCY_LEASE", self.idempotency_lease),
            ("KAADXPAY_SWEEP_INTERVAL", self.sweep_interval),
            ("KAADXPAY_PURGE_INTERVAL", self.purge_interval),
            ("KAADXPAY_PARTNER_TIMEOUT", self.partner_timeout),
            ("KAADXPAY_PAYOUT_LEASE", self.payout_lease),
            ("KAADXPAY_PAYOUT_INTERVAL", self.payout_interval),
            ("KAADXPAY_PAYOUT_RETRY_BASE", self.payout_retry_base),
            ("KAADXPAY_PAYOUT_POLL_INTERVAL", self.payout_poll_interval),
            ("KAADXPAY_RECONCILE_INTERVAL", self.reconcile_interval),
            ("KAADXPAY_WEBHOOK_INTERVAL", self.webhook_interval),
            ("KAADXPAY_WEBHOOK_LEASE", self.webhook_lease),
            ("KAADXPAY_STEP_UP_WINDOW", self.step_up_window),
        ];
        for (name, value) in positive {
            if value.is_zero() {
                problems.push(format!("{name} must be longer than zero."));
            }
        }
        if self.db_pool_size == 0 {
            problems.push("KAADXPAY_DB_POOL_SIZE must be at least 1.".to_owned());
        }
        if self.max_in_flight == Some(0) {
            problems.push("KAADXPAY_MAX_IN_FLIGHT must be at least 1.".to_owned());
        }
        // A body that runs out the request's time would be answered 503, not 408.
        if self.body_read_timeout >= self.request_timeout {
            problems.push(format!(
                "KAADXPAY_BODY_READ_TIMEOUT ({}) must be shorter than KAADXPAY_REQUEST_TIMEOUT ({}): the body is read within the request's time.",
                humantime::format_duration(self.body_read_timeout),
                humantime::format_duration(self.request_timeout)
            ));
        }
        // A lease that can run out mid-call lets a second worker send the same payout at once.
        if self.payout_lease <= self.partner_timeout {
            problems.push(format!(
                "KAADXPAY_PAYOUT_LEASE ({}) must be longer than KAADXPAY_PARTNER_TIMEOUT ({}): a payout is leased for it while the partner is called.",
                humantime::format_duration(self.payout_lease),
                humantime::format_duration(self.partner_timeout)
            ));
        }
        if self.webhook_lease <= WEBHOOK_TIMEOUT {
            problems.push(format!(
                "KAADXPAY_WEBHOOK_LEASE ({}) must be longer than the {} webhook send timeout.",
                humantime::format_duration(self.webhook_lease),
                humantime::format_duration(WEBHOOK_TIMEOUT)
            ));
        }
        if let Some(url) = &self.public_url {
            let parsed = reqwest::Url::parse(url).ok();
            if !parsed.is_some_and(|url| matches!(url.scheme(), "http" | "https")) {
                problems.push(format!(
                    "KAADXPAY_PUBLIC_URL ({url}) must be an absolute http:// or https:// URL."
                ));
            }
        }
        problems
    }

    /// What `serve` (with `--demo` or not) needs beyond [`Settings::problems`]: a real
    /// partner's webhooks are only trusted with a secret of its own, never the simulator's
    /// published one; live mode needs a real partner, and the demo merchant and logins never
    /// exist beside one.
    pub fn serve_problems(&self, demo: bool) -> Vec<String> {
        let mut problems = Vec::new();
        if self.mode == Mode::Live && self.partner_url.is_none() {
            problems.push(
                "KAADXPAY_PARTNER_URL must be set when KAADXPAY_MODE is live: live mode never uses the in-process partner simulator.".to_owned(),
            );
        }
        if demo && self.partner_url.is_some() {
            problems.push(
                "--demo is refused when KAADXPAY_PARTNER_URL is set: the demo logins and the demo API key never exist beside a real partner.".to_owned(),
            );
        }
        if self.smtp_url.is_some() && self.public_url.is_none() {
            problems.push(
                "KAADXPAY_PUBLIC_URL must be set when KAADXPAY_SMTP_URL is: a mailed invitation links to it.".to_owned(),
            );
        }
        if self.partner_url.is_some() && self.partner_webhook_secret.is_none() {
            problems.push(
                "KAADXPAY_PARTNER_WEBHOOK_SECRET must be set when KAADXPAY_PARTNER_URL is: it is how the partner's webhooks are told from forgeries.".to_owned(),
            );
        }
        if self.database_url.is_some() && self.secrets_key.is_none() {
            problems.push(
                "KAADXPAY_SECRETS_KEY must be set when DATABASE_URL is: it seals two-step sign-in and webhook endpoint secrets at rest. Make one with `openssl rand -hex 32` and give every replica the same.".to_owned(),
            );
        }
        problems
    }

    /// Whether people reach the service over `https://` (its public URL says so).
    pub fn serves_https(&self) -> bool {
        self.public_url
            .as_deref()
            .is_some_and(|url| url.starts_with("https://"))
    }

    /// Requests served at once before the excess is shed: about as many as can hold a
    /// database connection, so an admitted request seldom waits for one.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.unwrap_or(self.db_pool_size as usize)
    }

    /// A short line: enough to absorb a burst's jitter, never a queue to wait out.
    pub fn max_waiting(&self) -> usize {
        self.max_waiting
            .unwrap_or_else(|| (self.max_in_flight() / 4).max(1))
    }

    /// The configured partner, or the local simulator's address.
    pub fn partner_url_or_local(&self) -> String {
        self.partner_url
            .clone()
            .unwrap_or_else(|| format!("http://{LOCAL_PARTNER_ADDR}"))
    }
}

/// A setting's text that is never printed (`Debug` hides it), such as a key.
#[derive(Clone)]
pub struct Hidden(pub String);

impl std::fmt::Debug for Hidden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hidden(…)")
    }
}

impl std::str::FromStr for Hidden {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Self(text.to_owned()))
    }
}

/// Each kind of history's retention, for `history::retention::Retention`.
#[derive(Debug, Clone, Args)]
pub struct RetentionSettings {
    /// How long webhook events are kept (with their deliveries and attempts; never while a
    /// delivery is still pending).
    #[arg(long = "event-retention", env = "KAADXPAY_EVENT_RETENTION", default_value = "30d", value_parser = humantime::parse_duration, global = true)]
    pub events: Duration,

    /// How long each webhook delivery attempt is kept.
    #[arg(long = "webhook-attempt-retention", env = "KAADXPAY_WEBHOOK_ATTEMPT_RETENTION", default_value = "30d", value_parser = humantime::parse_duration, global = true)]
    pub webhook_attempts: Duration,

    /// How long the partner's webhook events are kept for deduplication by `event_id`.
    #[arg(long = "partner-event-retention", env = "KAADXPAY_PARTNER_EVENT_RETENTION", default_value = "90d", value_parser = humantime::parse_duration, global = true)]
    pub partner_events: Duration,

    /// How long the payout worker's calls to the partner (payout timelines) are kept.
    #[arg(long = "partner-call-retention", env = "KAADXPAY_PARTNER_CALL_RETENTION", default_value = "90d", value_parser = humantime::parse_duration, global = true)]
    pub partner_calls: Duration,

    /// How long failed console sign-ins are kept (at least the 15-minute throttle window).
    #[arg(long = "login-failure-retention", env = "KAADXPAY_LOGIN_FAILURE_RETENTION", default_value = "1d", value_parser = humantime::parse_duration, global = true)]
    pub login_failures: Duration,

    /// How long the hourly idempotency outcome counts (the console's chart) are kept.
    #[arg(long = "outcome-retention", env = "KAADXPAY_OUTCOME_RETENTION", default_value = "7d", value_parser = humantime::parse_duration, global = true)]
    pub outcome_counts: Duration,

    /// How long the audit log is kept (at least 365 days; the database refuses younger deletes).
    #[arg(long = "audit-retention", env = "KAADXPAY_AUDIT_RETENTION", default_value = "365d", value_parser = humantime::parse_duration, global = true)]
    pub audit: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// The request log's settings, for `request_log::Settings`.
#[derive(Debug, Clone, Args)]
#[group(id = "request_log_settings")]
pub struct RequestLogSettings {
    /// Whether authenticated `/v1` requests are recorded in the request log.
    #[arg(
        long = "request-log",
        env = "KAADXPAY_REQUEST_LOG",
        default_value = "on",
        global = true
    )]
    pub switch: Switch,

    /// How long request log entries are kept; whole UTC days are dropped once all of the day
    /// is older than this.
    #[arg(long = "request-log-retention", env = "KAADXPAY_REQUEST_LOG_RETENTION", default_value = "30d", value_parser = humantime::parse_duration, global = true)]
    pub retention: Duration,

    /// Entries waiting for the writer; when it is full, new entries are dropped and counted.
    #[arg(
        long = "request-log-buffer",
        env = "KAADXPAY_REQUEST_LOG_BUFFER",
        default_value_t = 5_000,
        global = true
    )]
    pub buffer: usize,
}

/// A list of durations given as one value (`5s,30s,2m`); named, because clap reads a field
/// spelled `Vec<…>` as a flag given many times.
pub type Delays = Vec<Duration>;

/// Comma-separated durations such as `5s,30s,2m`.
fn duration_list(text: &str) -> Result<Delays, String> {
    text.split(',')
        .map(|step| {
            humantime::parse_duration(step.trim()).map_err(|err| format!("{step:?}: {err}"))
        })
        .collect()
}

/// Settings of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, env = "KAADXPAY_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    /// Create the demo merchant (always done on the embedded database).
    #[arg(long)]
    pub demo: bool,
}

impl ServeArgs {
    /// `serve`'s flags as given after it, with those given before it (`kaadxpay --addr A
    /// serve` is `kaadxpay serve --addr A`): `before` is what the command line's `matches`
    /// read before the subcommand, where an unset flag has its default too.
    pub fn with_flags_before(self, before: Self, matches: &clap::ArgMatches) -> Self {
        let on_command_line = |matches: Option<&clap::ArgMatches>| {
            matches.and_then(|matches| matches.value_source("addr"))
                == Some(clap::parser::ValueSource::CommandLine)
        };
        let addr_before =
            on_command_line(Some(matches)) && !on_command_line(matches.subcommand_matches("serve"));
        Self {
            addr: if addr_before { before.addr } else { self.addr },
            demo: self.demo || before.demo,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::duration_list;
    use std::time::Duration;

    #[test]
    fn a_duration_list_is_read_in_order_and_bad_steps_are_refused() {
        assert_eq!(
            duration_list("5s, 2m"),
            Ok(vec![Duration::from_secs(5), Duration::from_secs(120)])
        );
        assert!(duration_list("5s,soon").is_err());
    }
}
