//! Settings are checked at start: `serve` with a real partner refuses to run without that
//! partner's webhook secret (the simulator's published one would let anyone forge
//! `transfer.failed`), with a database of its own without a key to seal secrets with (or with
//! a key that is not one), bad values stop the process with one line each instead of a panic
//! later, and the published demo merchant exists only when asked for.

use crate::common;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, fresh_database, wait_until_answering, ServerProcess, TEST_SECRETS_KEY};

/// Runs `kaadxpay serve` on a fresh database with `env`, expecting it to exit on its own.
async fn serve_expecting_exit(env: &[(&str, &str)]) -> Output {
    let db_url = fresh_database().await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(["serve", "--addr", &format!("127.0.0.1:{}", free_port())])
        .env("DATABASE_URL", &db_url)
        .env_remove("KAADXPAY_PARTNER_WEBHOOK_SECRET")
        .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kaadxpay starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let output = child.wait_with_output().unwrap();
            panic!(
                "kaadxpay kept running with {env:?}; it printed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child.wait_with_output().unwrap()
}

fn lines_naming(output: &Output, variable: &str) -> usize {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| line.contains(variable))
        .count()
}

#[tokio::test]
async fn a_real_partner_without_its_webhook_secret_is_refused_at_start() {
    let output = serve_expecting_exit(&[("KAADXPAY_PARTNER_URL", "http://127.0.0.1:9")]).await;
    assert!(!output.status.success(), "it must exit with an error");
    assert_eq!(
        lines_naming(&output, "KAADXPAY_PARTNER_WEBHOOK_SECRET"),
        1,
        "one line names the missing secret: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn mail_without_the_public_url_its_links_need_is_refused_at_start() {
    let output = serve_expecting_exit(&[("KAADXPAY_SMTP_URL", "smtp://127.0.0.1:9")]).await;
    assert!(!output.status.success(), "it must exit with an error");
    assert_eq!(
        lines_naming(&output, "KAADXPAY_PUBLIC_URL"),
        1,
        "one line names the missing URL: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn bad_settings_stop_the_start_with_one_line_each() {
    let output = serve_expecting_exit(&[
        ("KAADXPAY_SWEEP_INTERVAL", "0s"),
        ("KAADXPAY_PAYOUT_INTERVAL", "0ms"),
        ("KAADXPAY_PAYOUT_LEASE", "5s"),
        ("KAADXPAY_PARTNER_TIMEOUT", "10s"),
        ("KAADXPAY_WEBHOOK_LEASE", "3s"),
        ("KAADXPAY_DB_POOL_SIZE", "0"),
        ("KAADXPAY_TRUSTED_PROXIES", "10.0.0.0/8, proxy.internal"),
    ])
    .await;
    assert_eq!(output.status.code(), Some(2), "a usage error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "no panic: {stderr}");
    for variable in [
        "KAADXPAY_SWEEP_INTERVAL",
        "KAADXPAY_PAYOUT_INTERVAL",
        "KAADXPAY_PAYOUT_LEASE",
        "KAADXPAY_WEBHOOK_LEASE",
        "KAADXPAY_DB_POOL_SIZE",
        "KAADXPAY_TRUSTED_PROXIES",
    ] {
        assert_eq!(
            stderr
                .lines()
                .filter(|line| line.starts_with(&format!("kaadxpay: {variable}")))
                .count(),
            1,
            "one line for {variable}: {stderr}"
        );
    }
}

const DEMO_API_KEY: &str = "sk_test_demo_0000000000000000000000000000000";

/// `GET /v1/balance` with the published demo key.
async fn demo_balance_answer(base_url: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{base_url}/v1/balance"))
        .bearer_auth(DEMO_API_KEY)
        .send()
        .await
        .unwrap()
}

async fn demo_key_status(base_url: &str) -> u16 {
    demo_balance_answer(base_url).await.status().as_u16()
}

#[tokio::test]
async fn the_published_demo_merchant_exists_only_with_demo() {
    let db_url = fresh_database().await;
    let plain = ServerProcess::start(&db_url, &[]).await;
    assert_eq!(
        demo_key_status(&plain.base_url).await,
        401,
        "no demo merchant"
    );
    let pool = sqlx::PgPool::connect(&db_url).await.unwrap();
    assert_eq!(
        common::count(&pool, "users").await,
        0,
        "no published logins"
    );
    plain.kill();

    let demo = |port: u16| {
        Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
            .args(["serve", "--demo", "--addr", &format!("127.0.0.1:{port}")])
            .env("DATABASE_URL", &db_url)
            .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    };
    let port = free_port();
    let mut first = demo(port);
    let base_url = format!("http://127.0.0.1:{port}");
    wait_until_answering(&format!("{base_url}/healthz")).await;
    let status = demo_key_status(&base_url).await;
    let funded = demo_balance(&base_url).await;
    let top_ups: serde_json::Value = reqwest::Client::new()
        .get(format!("{base_url}/v1/top-ups"))
        .bearer_auth(DEMO_API_KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(status, 200, "--demo creates the demo merchant");
    assert_eq!(funded, 1_000_000, "it starts with 10,000.00 EUR to pay out");
    assert_eq!(
        top_ups["data"][0]["amount"], 1_000_000,
        "money in from the partner, a top-up: {top_ups}"
    );

    let port = free_port();
    let mut again = demo(port);
    let base_url = format!("http://127.0.0.1:{port}");
    wait_until_answering(&format!("{base_url}/healthz")).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let balance = demo_balance(&base_url).await;
    again.kill().unwrap();
    again.wait().unwrap();
    assert_eq!(balance, 1_000_000, "funded once, not at every start");
}

/// The demo merchant's available EUR, once it has some (within 20 s).
async fn demo_balance(base_url: &str) -> i64 {
    let read = || async {
        let answer = demo_balance_answer(base_url).await;
        let balance: serde_json::Value = answer.json().await.unwrap();
        balance["available"]
            .as_array()
            .and_then(|amounts| amounts.iter().find(|amount| amount["currency"] == "EUR"))
            .and_then(|eur| eur["amount"].as_i64())
    };
    common::eventually(
        Duration::from_secs(20),
        "the demo merchant's funding",
        || async { read().await.is_some() },
    )
    .await;
    read().await.unwrap()
}

#[tokio::test]
async fn a_secrets_key_that_is_not_32_bytes_in_hex_is_refused_at_start() {
    let short = "00112233445566778899aabbccddeeff";
    let not_hex = "zz".repeat(32);
    for (key, what) in [
        (short, "16 bytes"),
        (not_hex.as_str(), "not hex"),
        ("", "empty"),
    ] {
        let output = serve_expecting_exit(&[("KAADXPAY_SECRETS_KEY", key)]).await;
        assert_eq!(output.status.code(), Some(2), "{what}: a usage error");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{what}: no panic: {stderr}");
        assert_eq!(
            stderr
                .lines()
                .filter(|line| line.starts_with("kaadxpay: KAADXPAY_SECRETS_KEY"))
                .count(),
            1,
            "{what}: one line names the key: {stderr}"
        );
        assert!(
            key.is_empty() || !stderr.contains(key),
            "{what}: the key is never printed: {stderr}"
        );
    }

    // With a database of its own and no key at all, `serve` says so instead of starting.
    let db_url = fresh_database().await;
    let output = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(["serve", "--addr", &format!("127.0.0.1:{}", free_port())])
        .env("DATABASE_URL", &db_url)
        .env_remove("KAADXPAY_SECRETS_KEY")
        .env("KAADXPAY_PARTNER_WEBHOOK_SECRET", "whsec_test")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("kaadxpay: KAADXPAY_SECRETS_KEY must be set when DATABASE_URL is"),
        "{stderr}"
    );
}

/// Live mode (API.md §1) needs a real partner, and `--demo` is never beside one: each refused
/// at start in one line.
#[tokio::test]
async fn live_mode_without_a_partner_and_demo_beside_a_real_partner_are_refused_at_start() {
    let output = serve_expecting_exit(&[("KAADXPAY_MODE", "live")]).await;
    assert!(!output.status.success(), "it must exit with an error");
    assert_eq!(
        lines_naming(&output, "KAADXPAY_MODE is live"),
        1,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let db_url = fresh_database().await;
    let output = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args([
            "serve",
            "--demo",
            "--addr",
            &format!("127.0.0.1:{}", free_port()),
        ])
        .env("DATABASE_URL", &db_url)
        .env("KAADXPAY_PARTNER_URL", "http://127.0.0.1:9")
        .env("KAADXPAY_PARTNER_WEBHOOK_SECRET", "whsec_partner")
        .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("kaadxpay runs");
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        lines_naming(
            &output,
            "--demo is refused when KAADXPAY_PARTNER_URL is set"
        ),
        1,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let pool = sqlx::PgPool::connect(&db_url).await.unwrap();
    assert_eq!(
        common::count(&pool, "merchants").await,
        0,
        "no demo merchant"
    );
    assert_eq!(common::count(&pool, "users").await, 0, "no demo logins");
}
