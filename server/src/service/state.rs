//! The services every adapter shares (the HTTP API, the console): the database pool, the
//! idempotency engine, the metrics, the partner bank (and whether it is the simulator: test mode), and the settings that requests need. It
//! knows neither adapter, so both can hold it without a loop through `startup`.

use std::sync::Arc;
use std::time::Duration;

use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;

use crate::accounts::auth::cache::ApiKeyCache;
use crate::accounts::auth::usage::KeyUsage;
use crate::idempotency::Idempotency;
use crate::platform::mail::Mailer;
use crate::platform::sealing::Sealer;
use crate::request_log::RequestLog;
use crate::service::config::Mode;
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner_sim::test_mode::TestMode;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    /// The exports' own connections ([`crate::exports::CONNECTIONS`]): a CSV export holds one
    /// for as long as its client takes to read it, never one that requests need.
    pub exports_pool: PgPool,
    /// API-key lookups, remembered for a few seconds.
    pub api_keys: Arc<ApiKeyCache>,
    /// The API keys used since their `last_used_at` was last written.
    pub key_usage: Arc<KeyUsage>,
    pub idempotency: Idempotency,
    /// Test or live (`KAADXPAY_MODE`): the prefix of the keys made and accepted.
    pub mode: Mode,
    pub metrics: PrometheusHandle,
    /// The partner bank, asked whose transfer a partner webhook is about when that is unknown.
    pub partner: PartnerClient,
    pub partner_webhook_secret: Arc<str>,
    /// Whether the partner is the simulator (the console says so and lists the magic IBANs).
    pub test_mode: TestMode,
    /// Webhook endpoints may be internal addresses (local development and tests).
    pub webhook_allow_private_networks: bool,
    /// Where served `/v1` requests are recorded.
    pub request_log: RequestLog,
    /// Seals and opens secrets kept at rest (TOTP secrets).
    pub sealer: Sealer,
    /// How long a console session's second factor counts for a step-up.
    pub step_up_window: Duration,
    /// Mails invitations when `KAADXPAY_SMTP_URL` is set, with links under `public_url`.
    pub mail: Option<Arc<InvitationMail>>,
}

/// How the console mails invitations: the mailer, and the address people reach the console at.
pub struct InvitationMail {
    pub mailer: Mailer,
    pub public_url: String,
}
