//! What new keys write, on a quiet database (no other load running): commits
//! (`pg_stat_database.xact_commit`) and WAL (`pg_stat_wal.wal_bytes`) over a window of
//! [`KEYS`] new keys sent to the main server, less a quiet window of the same length without
//! requests, since `serve`'s background workers (sweeper, dispatcher, payouts, the `/readyz`
//! figures) commit too. The request log's batched inserts, made because of the requests, are
//! counted in. A backend reports its statistics lazily (at most once a second, an idle one within
//! 10 s), so each reading waits [`SETTLE`] first.

use std::time::Duration;

use tokio::time::Instant;

use crate::costs;
use crate::stack::{Keyed, Stack};

/// New keys per window, sent [`costs::send`]'s few at a time.
pub const KEYS: usize = 2000;
/// Past PostgreSQL's 10 s delay for an idle backend's statistics.
const SETTLE: Duration = Duration::from_secs(11);

/// Per new key, background subtracted.
pub struct Writes {
    pub commits: f64,
    pub wal_bytes: f64,
    /// Commits of the quiet window, for the row.
    pub quiet_commits: i64,
    pub window: Duration,
    pub errors: usize,
}

/// Commits and WAL bytes of the database so far.
async fn reading(stack: &Stack) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), \
           (SELECT wal_bytes::bigint FROM pg_stat_wal)",
    )
    .fetch_one(&stack.pool)
    .await
}

/// Sends `command`s under new keys `<prefix>-<n>` in one window, then waits as long without
/// any.
pub async fn measure(stack: &Stack, prefix: &str, command: Keyed<'_>) -> anyhow::Result<Writes> {
    let client = reqwest::Client::new();
    let keys: Vec<String> = (0..KEYS).map(|n| format!("{prefix}-{n}")).collect();
    tokio::time::sleep(SETTLE).await;
    let start = reading(stack).await?;
    let opened = Instant::now();
    let errors = costs::send(stack, &stack.server, &client, &keys, command).await;
    tokio::time::sleep(SETTLE).await;
    let loaded = reading(stack).await?;
    let window = opened.elapsed();
    tokio::time::sleep(window).await;
    let quiet = reading(stack).await?;
    let per_key = |loaded: i64, quiet: i64| (loaded - quiet) as f64 / KEYS as f64;
    Ok(Writes {
        commits: per_key(loaded.0 - start.0, quiet.0 - loaded.0),
        wal_bytes: per_key(loaded.1 - start.1, quiet.1 - loaded.1),
        quiet_commits: quiet.0 - loaded.0,
        window,
        errors,
    })
}
