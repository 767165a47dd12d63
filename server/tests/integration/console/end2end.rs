//! The Playwright suite in `end2end/`, run against a real `kaadxpay` process in Debian's
//! Chromium, so that `cargo test` runs every test. It installs what it needs: the npm packages
//! (`npm ci`) and, when missing and running as root, Debian's `chromium` and a font with
//! Chinese glyphs (`fonts-wqy-microhei`, for the zh-CN journeys' screenshots). It prepares two
//! merchants with users, balances, orders and payouts, and a support user, and hands their
//! credentials and ids to the suite in environment variables.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use reqwest::Client;
use serde_json::{json, Value};

use common::tools::{npm_packages, run};
use common::{create_merchant, free_port, fresh_database, ServerProcess, TestMerchant};

fn end2end_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../end2end")
}

fn chromium_path() -> PathBuf {
    std::env::var_os("CHROMIUM_PATH")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// A font Chromium draws Chinese with; without one the zh-CN screenshots show empty boxes.
const CHINESE_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

fn ensure_chromium() {
    let missing: Vec<&str> = [
        (chromium_path(), "chromium"),
        (PathBuf::from(CHINESE_FONT), "fonts-wqy-microhei"),
    ]
    .into_iter()
    .filter(|(path, _)| !path.exists())
    .map(|(_, package)| package)
    .collect();
    if missing.is_empty() {
        return;
    }
    assert!(
        nix::unistd::geteuid().is_root(),
        "missing: install Debian's packages (`apt-get install {}`), or set CHROMIUM_PATH",
        missing.join(" ")
    );
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|status| status.success())
    };
    if !install() {
        run(Command::new("apt-get").arg("update"), "apt-get update");
        assert!(install(), "apt-get install {} failed", missing.join(" "));
    }
}

/// `POST`s or `PUT`s `body` to the server as `merchant`, expecting success.
async fn call(
    server: &ServerProcess,
    merchant: &TestMerchant,
    method: &str,
    path: &str,
    key: &str,
    body: Value,
) -> Value {
    let url = format!("{}{path}", server.base_url);
    let request = match method {
        "PUT" => Client::new().put(url),
        _ => Client::new().post(url).header("idempotency-key", key),
    };
    let response = request
        .bearer_auth(&merchant.api_key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{method} {path}: {}",
        response.status()
    );
    response.json().await.unwrap()
}

/// A webhook endpoint that never answers, a captured order (funding the balance), a pending
/// order and a payout for `merchant`.
async fn seed(server: &ServerProcess, merchant: &TestMerchant, name: &str) -> (Value, Value) {
    call(
        server,
        merchant,
        "POST",
        "/v1/webhook-endpoints",
        &format!("{name}-endpoint"),
        json!({"url": "http://127.0.0.1:9/hooks"}),
    )
    .await;
    let funding = call(
        server,
        merchant,
        "POST",
        "/v1/orders",
        &format!("{name}-funding"),
        json!({"amount": 500_000, "currency": "EUR", "description": "Funding"}),
    )
    .await;
    call(
        server,
        merchant,
        "PUT",
        &format!("/v1/orders/{}", funding["id"].as_str().unwrap()),
        "",
        json!({"status": "captured"}),
    )
    .await;
    let order = call(
        server,
        merchant,
        "POST",
        "/v1/orders",
        &format!("{name}-order"),
        json!({"amount": 1999, "currency": "EUR", "description": "Blue shoes"}),
    )
    .await;
    let destination = json!({"account_holder": "Grace Hopper", "iban": "GB82WEST12345698765432"});
    let payout = call(
        server,
        merchant,
        "POST",
        "/v1/payouts",
        &format!("{name}-payout"),
        json!({"amount": 1000, "currency": "EUR", "destination": destination}),
    )
    .await;
    (order, payout)
}

/// The partner's transfer id of a payout, once the payout worker has sent it.
async fn transfer_of(pool: &sqlx::PgPool, payout_id: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let transfer: Option<String> =
            sqlx::query_scalar("SELECT partner_transfer_id FROM payouts WHERE id = $1")
                .bind(payout_id)
                .fetch_one(pool)
                .await
                .unwrap();
        if let Some(transfer) = transfer {
            return transfer;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "payout {payout_id} was not sent to the partner within 30 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_passes_its_playwright_suite() {
    let dir = end2end_dir();
    ensure_chromium();
    npm_packages(&dir, &["@playwright/test", "@axe-core/playwright"]);

    let db_url = fresh_database().await;
    let pool = server::platform::db::connect(&db_url, 2, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let merchant = create_merchant(&pool, "Shop A").await;
    let other = create_merchant(&pool, "Shop B").await;
    let password = "correct horse battery";
    for (email, merchant_id) in [
        ("a@shop.test", Some(&merchant.id)),
        ("b@shop.test", Some(&other.id)),
        ("support@kaadxpay.test", None),
    ] {
        server::accounts::users::create(
            &pool,
            email,
            password,
            merchant_id.map(|id| (id.as_str(), app::console::Role::Owner)),
        )
        .await
        .unwrap();
    }
    // Orders take a second and a half to commit, so that a key is seen `in_progress` and then `completed`;
    // payouts go to a partner simulator, so that they have transfers to search support by.
    // The simulator sends its webhooks to the server (a returned payout is told that way), and
    // the server gives up on a silent partner after 2 s (the slow magic IBAN's lost answer).
    let port = free_port();
    let webhooks = format!("http://127.0.0.1:{port}/webhooks/partner");
    let partner = ServerProcess::partner_sim(&["--webhook-url", &webhooks]).await;
    let server = ServerProcess::start_at(
        port,
        &db_url,
        &[
            ("FAILPOINTS", "idempotency.in_transaction=return(1500)"),
            ("KAADXPAY_PARTNER_URL", &partner.base_url),
            ("KAADXPAY_PARTNER_TIMEOUT", "2s"),
        ],
    )
    .await;
    seed(&server, &merchant, "a").await;
    let (other_order, other_payout) = seed(&server, &other, "b").await;
    let other_transfer = transfer_of(&pool, other_payout["id"].as_str().unwrap()).await;

    let base_url = server.base_url.clone();
    let env = [
        ("KAADXPAY_BASE_URL", base_url),
        ("KAADXPAY_PASSWORD", password.to_owned()),
        ("KAADXPAY_MERCHANT_EMAIL", "a@shop.test".to_owned()),
        ("KAADXPAY_MERCHANT_API_KEY", merchant.api_key.clone()),
        ("KAADXPAY_SUPPORT_EMAIL", "support@kaadxpay.test".to_owned()),
        (
            "KAADXPAY_OTHER_ORDER",
            other_order["id"].as_str().unwrap().to_owned(),
        ),
        (
            "KAADXPAY_OTHER_PAYOUT",
            other_payout["id"].as_str().unwrap().to_owned(),
        ),
        ("KAADXPAY_OTHER_KEY", "b-payout".to_owned()),
        ("KAADXPAY_OTHER_TRANSFER", other_transfer),
        ("CHROMIUM_PATH", chromium_path().display().to_string()),
    ];
    // `PLAYWRIGHT_ARGS` (split at spaces, e.g. `tests/screens.spec.ts`) runs part of the suite
    // while working on it; unset, all of it.
    let only = std::env::var("PLAYWRIGHT_ARGS").unwrap_or_default();
    let status = tokio::task::spawn_blocking(move || {
        Command::new("npx")
            .args(["playwright", "test"])
            .args(only.split_whitespace())
            .current_dir(&dir)
            .envs(env)
            .status()
            .expect("npx runs")
    })
    .await
    .unwrap();
    assert!(
        status.success(),
        "the Playwright suite failed ({status}); see its report above and end2end/test-results/"
    );
}
