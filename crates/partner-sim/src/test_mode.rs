//! Test mode is whenever the partner is this simulator (API.md §12): in-process in embedded
//! mode, or `kaadxpay partner-sim` at `KAADXPAY_PARTNER_URL`. Then the outcomes are the
//! simulator's, the magic IBANs work, and the console says so, lists them, and lets anyone run
//! reconciliation now. A configured partner is asked once, `GET /_sim/config`: the simulator
//! answers it with its configuration; a real bank answers anything else, and its answer is
//! remembered, so it is asked once per process. No answer at all (the partner is down) is not
//! test mode, and is asked again next time.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::SimConfig;

/// How long the question may take: a page waits for it.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub struct TestMode {
    /// The configured partner, asked; `None` in embedded mode.
    partner_url: Option<String>,
    http: reqwest::Client,
    known: Arc<OnceLock<bool>>,
}

impl TestMode {
    /// The simulator runs in-process: always test mode.
    pub fn embedded() -> Self {
        Self::with(None)
    }

    /// The partner at `partner_url`: test mode if it is the simulator.
    pub fn at(partner_url: &str) -> Self {
        Self::with(Some(partner_url.trim_end_matches('/').to_owned()))
    }

    fn with(partner_url: Option<String>) -> Self {
        let http = reqwest::Client::builder()
            .timeout(PROBE_TIMEOUT)
            .build()
            .expect("a plain HTTP client builds");
        Self {
            partner_url,
            http,
            known: Arc::default(),
        }
    }

    /// Whether the partner payouts leave through is the simulator.
    pub async fn is_on(&self) -> bool {
        let Some(url) = &self.partner_url else {
            return true;
        };
        if let Some(known) = self.known.get() {
            return *known;
        }
        let Ok(answer) = self.http.get(format!("{url}/_sim/config")).send().await else {
            return false;
        };
        let simulator = answer.status().is_success() && answer.json::<SimConfig>().await.is_ok();
        *self.known.get_or_init(|| simulator)
    }
}
