//! The services every adapter shares (the HTTP API, the console): the kernel the domain runs on
//! (the database pool, the idempotency engine), the metrics, the partner bank (and whether it is
//! the simulator: test mode), the API keys' cache and the request log, and the settings that
//! requests need. It knows neither adapter, so both can hold it without a loop through
//! `startup`.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;

use crate::accounts::auth::cache::ApiKeyCache;
use crate::accounts::auth::usage::KeyUsage;
use crate::payments::top_ups::FundingDetails;
use crate::platform::mail::Mailer;
use crate::platform::sealing::Sealer;
use crate::request_log::RequestLog;
use crate::service::config::Mode;
use crate::service::kernel::Kernel;
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner_sim::test_mode::TestMode;

/// The services, behind one `Arc`: the router clones its state into every layer and extractor a
/// request passes (about sixteen times per request), so a clone is one count, not one per part.
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl From<Services> for AppState {
    fn from(services: Services) -> Self {
        Self(Arc::new(services))
    }
}

/// What [`AppState`] holds, read through it as its own (`state.api_keys`).
pub struct Services {
    /// What the domain's commands reach (read through `Deref`: `state.pool`).
    pub kernel: Kernel,
    /// The exports' own connections ([`crate::exports::CONNECTIONS`]): a CSV export holds one
    /// for as long as its client takes to read it, never one that requests need.
    pub exports_pool: PgPool,
    /// API-key lookups, remembered for a few seconds.
    pub api_keys: Arc<ApiKeyCache>,
    /// The API keys used since their `last_used_at` was last written.
    pub key_usage: Arc<KeyUsage>,
    /// Test or live (`KAADXPAY_MODE`): the prefix of the keys made and accepted.
    pub mode: Mode,
    pub metrics: PrometheusHandle,
    /// The partner bank, asked whose transfer a partner webhook is about when that is unknown.
    pub partner: PartnerClient,
    pub partner_webhook_secret: Arc<str>,
    /// Where merchants send money to top up (with their own reference).
    pub funding: Arc<FundingDetails>,
    /// Whether the partner is the simulator (the console says so and lists the magic IBANs).
    pub test_mode: TestMode,
    /// Where served `/v1` requests are recorded.
    pub request_log: RequestLog,
    /// Seals and opens secrets kept at rest (TOTP secrets).
    pub sealer: Sealer,
    /// How long a console session's second factor counts for a step-up.
    pub step_up_window: Duration,
    /// Mails invitations when `KAADXPAY_SMTP_URL` is set, with links under `public_url`.
    pub mail: Option<InvitationMail>,
}

impl Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

/// The adapters reach the kernel's parts as their own (`state.pool`, `state.idempotency`), and
/// hand `&state` wherever the domain asks for the kernel.
impl Deref for Services {
    type Target = Kernel;

    fn deref(&self) -> &Kernel {
        &self.kernel
    }
}

/// How the console mails invitations: the mailer, and the address people reach the console at.
pub struct InvitationMail {
    pub mailer: Mailer,
    pub public_url: String,
}
