//! What one request costs, in figures that hold from machine to machine (its CPU time is
//! [`crate::processes`]'):
//! - round trips to PostgreSQL, counted by a [`CountingProxy`] in front of a second
//!   `kaadxpay serve` on the same database, and the statements `pg_stat_statements` saw
//!   meanwhile (when the cluster preloads it).
//!
//! Both servers' background workers also run during a window (the `/readyz` figures each
//! second, the webhook dispatcher, the sweeper, the flushes of key use and outcomes), and the
//! request log's writer writes the window's requests in batches on a connection of its own. So
//! a window of requests is followed by one as long without any: its round trips (the workers',
//! less the writer's) are subtracted from the window's, and the writer's round trips over both
//! (the window's last batch is written after it) are counted apart, per request: the requests'
//! own round trips, and what their log costs beside them.

use std::time::Duration;

use tokio::time::Instant;

use futures::StreamExt;

use crate::counting_proxy::CountingProxy;
use crate::database;
use crate::stack::{Keyed, Server, Stack};

/// The counting server's background workers put off to an hour (as `profile.sh` does), so that
/// a window of a thousand replays, under a second, does not count a poll that happens to fall in
/// it: the quiet window after it is subtracted, but one poll more or less in either moves a
/// replay's figure by a few hundredths. Key use and outcomes are still flushed, and the request
/// log still written.
const WORKERS_PUT_OFF: &[(&str, &str)] = &[
    ("KAADXPAY_SWEEP_INTERVAL", "1h"),
    ("KAADXPAY_PAYOUT_POLL_INTERVAL", "1h"),
    ("KAADXPAY_RECONCILE_INTERVAL", "1h"),
    ("KAADXPAY_WEBHOOK_INTERVAL", "1h"),
];

/// Requests per window, and how many are in flight at once.
const REQUESTS: usize = 2000;
const CONCURRENCY: usize = 8;

/// Per request, over one window.
pub struct PerRequest {
    /// The requests' own: less the request log's writer's and the quiet window's.
    pub round_trips: f64,
    /// The request log's writer's, for the window's requests.
    pub request_log_round_trips: f64,
    /// Round trips of the window as long without requests (the background workers'), which
    /// [`PerRequest::round_trips`] is net of.
    pub quiet_round_trips: u64,
    /// `None` without `pg_stat_statements`.
    pub statements: Option<f64>,
    /// Requests that did not get the expected answer (they still count in the denominator).
    pub errors: usize,
}

pub struct RoundTrips {
    pub new_key: PerRequest,
    /// Replays the proxied server reads from the database (it has not seen their keys).
    pub replay_database: PerRequest,
    /// The same replays again, answered from its cache.
    pub replay_cache: PerRequest,
}

/// Sends [`REQUESTS`] new keys, then each of `replay_keys` (completed keys) twice, through a
/// proxied server that has never seen them: the first pass reads them from the database, the
/// second finds them in its cache.
pub async fn round_trips(stack: &Stack, replay_keys: &[String]) -> anyhow::Result<RoundTrips> {
    let proxied = Proxied::start(stack, Keyed::Order).await?;
    let new_key = proxied.new_keys(stack, "rt-new", Keyed::Order).await?;
    let replay_database = proxied.window(stack, replay_keys, Keyed::Order).await?;
    let replay_cache = proxied.window(stack, replay_keys, Keyed::Order).await?;
    Ok(RoundTrips {
        new_key,
        replay_database,
        replay_cache,
    })
}

/// A second `kaadxpay serve` on the stack's database whose connection goes through a
/// [`CountingProxy`].
pub struct Proxied {
    proxy: CountingProxy,
    server: Server,
    client: reqwest::Client,
}

impl Proxied {
    /// Starts it and warms it up with `command`s under new keys: its pool opens its
    /// connections and prepares its statements outside the windows.
    pub async fn start(stack: &Stack, command: Keyed<'_>) -> anyhow::Result<Self> {
        let proxy = CountingProxy::start(&stack.db_url)?;
        let server = Server::start_with(&proxy.url("postgres"), WORKERS_PUT_OFF).await?;
        let client = reqwest::Client::new();
        let warm: Vec<String> = (0..4 * CONCURRENCY)
            .map(|n| format!("rt-warm-{}-{n}", command.name()))
            .collect();
        send(stack, &server, &client, &warm, command).await;
        // The warm-up's log written: its writer's connection is then known to copy.
        tokio::time::sleep(Duration::from_secs(1)).await;
        Ok(Self {
            proxy,
            server,
            client,
        })
    }

    /// A window of [`REQUESTS`] `command`s under new keys `<prefix>-<n>`.
    pub async fn new_keys(
        &self,
        stack: &Stack,
        prefix: &str,
        command: Keyed<'_>,
    ) -> anyhow::Result<PerRequest> {
        let keys: Vec<String> = (0..REQUESTS).map(|n| format!("{prefix}-{n}")).collect();
        self.window(stack, &keys, command).await
    }

    async fn window(
        &self,
        stack: &Stack,
        keys: &[String],
        command: Keyed<'_>,
    ) -> anyhow::Result<PerRequest> {
        let statements_before = statements(stack).await?;
        let before = self.trips();
        let opened = Instant::now();
        let errors = send(stack, &self.server, &self.client, keys, command).await;
        let loaded = self.trips();
        let statements_after = statements(stack).await?;
        tokio::time::sleep(opened.elapsed()).await;
        let quiet = self.trips();
        let requests = keys.len() as f64;
        let others = |(all, copying): (u64, u64)| all - copying;
        let quiet_round_trips = others(quiet) - others(loaded);
        Ok(PerRequest {
            round_trips: (others(loaded) - others(before)) as f64 / requests
                - quiet_round_trips as f64 / requests,
            request_log_round_trips: (quiet.1 - before.1) as f64 / requests,
            quiet_round_trips,
            // Less the one statement that read the count before.
            statements: statements_before
                .zip(statements_after)
                .map(|(before, after)| (after - before - 1) as f64 / requests),
            errors,
        })
    }

    /// Round trips so far: all, and the request log's writer's (the connection that copies).
    fn trips(&self) -> (u64, u64) {
        (self.proxy.round_trips(), self.proxy.copying_round_trips())
    }
}

async fn statements(stack: &Stack) -> anyhow::Result<Option<i64>> {
    if !stack.statement_stats {
        return Ok(None);
    }
    Ok(Some(database::statement_calls(&stack.pool).await?))
}

/// Posts one `command` per key, [`CONCURRENCY`] at a time; returns how many did not answer
/// `201` (a new key's order or refund, or its replay).
pub async fn send(
    stack: &Stack,
    server: &Server,
    client: &reqwest::Client,
    keys: &[String],
    command: Keyed<'_>,
) -> usize {
    futures::stream::iter(keys)
        .map(|key| async move {
            let answer = stack
                .post_to(&server.base_url, client, key, command)
                .send()
                .await;
            matches!(answer, Ok(response) if response.status() == 201)
        })
        .buffer_unordered(CONCURRENCY)
        .filter(|ok| std::future::ready(!ok))
        .count()
        .await
}
