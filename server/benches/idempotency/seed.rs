//! The completed keys the replay runs send again. Seeding survives a busy box: a key answered
//! `503` (shed), `409` (its first attempt still running) or not answered at all is retried
//! with a pause, and a key that still fails names the status and body it got.

use std::time::Duration;

use anyhow::bail;
use futures::StreamExt;
use tokio::time::Instant;

use crate::stack::Stack;

pub const REPLAY_KEYS: usize = 1000;
/// How long one key may keep being retried: beyond the server's default 60 s lease, after
/// which a key left `in_progress` by a lost attempt is taken over.
const PATIENCE: Duration = Duration::from_secs(90);

/// `<prefix>-1 ..= <prefix>-REPLAY_KEYS`.
pub fn replay_keys(prefix: &str) -> Vec<String> {
    (1..=REPLAY_KEYS).map(|n| format!("{prefix}-{n}")).collect()
}

/// Completes every key of [`replay_keys`], a few at a time.
pub async fn seed_replay_keys(stack: &Stack, prefix: &str) -> anyhow::Result<Vec<String>> {
    let keys = replay_keys(prefix);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()?;
    let outcomes: Vec<anyhow::Result<()>> = futures::stream::iter(&keys)
        .map(|key| create(stack, &client, key))
        .buffer_unordered(8)
        .collect()
        .await;
    outcomes.into_iter().collect::<anyhow::Result<()>>()?;
    Ok(keys)
}

async fn create(stack: &Stack, client: &reqwest::Client, key: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + PATIENCE;
    let mut pause = Duration::from_millis(100);
    let mut first = None;
    loop {
        let answer = match stack.post_order(client, key).send().await {
            Ok(response) if response.status() == 201 => {
                if let Some(first) = first {
                    eprintln!("  replay key {key} was created after a retry; first {first}");
                }
                return Ok(());
            }
            Ok(response) => {
                let status = response.status();
                let body = response.text().await.unwrap_or_default();
                if !matches!(status.as_u16(), 503 | 409 | 500 | 502 | 504) {
                    bail!("seeding replay key {key}: answered {status}: {body}");
                }
                format!("answered {status}: {body}")
            }
            Err(error) => format!("no answer: {error}"),
        };
        let first = first.get_or_insert_with(|| answer.clone());
        if Instant::now() + pause > deadline {
            bail!(
                "seeding replay key {key}: still failing after {PATIENCE:?}; first {first}, last {answer}"
            );
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}
