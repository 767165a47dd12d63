//! What the console sends the browser besides its pages (API.md §11): a
//! `Content-Security-Policy` that runs only the scripts given the answer's nonce and lets no
//! site frame the console, `nosniff`, `Referrer-Policy: same-origin`, and `no-store` on a page
//! that shows a secret; and where a secret path goes: an invitation's link, opened and used by
//! a member of another merchant, is in no merchant's request log and not in the logs.

use crate::common;

use std::time::Duration;

use app::console::Role;
use reqwest::Response;
use serde_json::Value;

use common::browser::{
    get, hidden, invite, page, shown_invitation_link, signed_in_as, submit, Browser,
};
use common::{
    browser_client, create_merchant, json, spawn_app, ServerProcess, TestApp, TestMerchant,
};

fn header<'r>(response: &'r Response, name: &str) -> &'r str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("{} has no {name}", response.url()))
        .to_str()
        .unwrap()
}

/// The nonce of the policy's `script-src` (`None` for `'none'`), after checking that the policy
/// names nothing else that runs scripts and forbids framing.
fn script_nonce(response: &Response) -> Option<String> {
    let policy = header(response, "content-security-policy").to_owned();
    let directive = |name: &str| {
        policy
            .split(';')
            .map(str::trim)
            .find_map(|directive| directive.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name}: {policy}"))
            .to_owned()
    };
    assert_eq!(directive("frame-ancestors"), "'none'", "{policy}");
    assert_eq!(header(response, "x-content-type-options"), "nosniff");
    assert_eq!(header(response, "referrer-policy"), "same-origin");
    let scripts = directive("script-src");
    if scripts == "'none'" {
        return None;
    }
    let nonce = scripts
        .strip_prefix("'nonce-")
        .and_then(|rest| rest.strip_suffix('\''))
        .unwrap_or_else(|| panic!("scripts only by nonce: {policy}"));
    assert!(nonce.len() >= 16, "{policy}");
    Some(nonce.to_owned())
}

/// Every `<script` of `html` carries `nonce` (the page's own, and leptos's); none may run
/// without one.
fn assert_scripts_carry(html: &str, nonce: Option<String>) {
    for script in html.split("<script").skip(1) {
        let tag = &script[..script.find('>').unwrap()];
        let nonce = nonce.as_deref().expect("no script may run");
        assert!(tag.contains(&format!("nonce=\"{nonce}\"")), "<script{tag}>");
    }
}

#[tokio::test]
async fn console_pages_run_only_their_own_scripts_and_cannot_be_framed() {
    let app = spawn_app().await;
    let visitor = browser_client()
        .get(format!("{}/login", app.base_url))
        .send()
        .await
        .unwrap();
    let nonce = script_nonce(&visitor);
    assert!(nonce.is_some(), "the sign-in page is a page of the app");
    assert_scripts_carry(&visitor.text().await.unwrap(), nonce);

    let owner = signed_in_as(&app, "framed@test", Some(Role::Owner)).await;
    let mut nonces = Vec::new();
    for path in ["/payouts/new", "/payouts/new", "/settings/keys", "/nowhere"] {
        let answer = get(&app, &owner, path).await;
        let nonce = script_nonce(&answer);
        let html = answer.text().await.unwrap();
        assert_scripts_carry(&html, nonce.clone());
        if path == "/payouts/new" {
            assert!(html.contains("getElementById('new-payout')"), "{html}");
        }
        nonces.push(nonce);
    }
    assert_ne!(nonces[0], nonces[1], "a nonce per answer");
}

/// The new API key's secret, shown once on the keys page: that page, and only it, is `no-store`.
async fn make_key(app: &TestApp, owner: &Browser) {
    let form = page(app, owner, "/settings/keys").await;
    let (client, cookie) = owner;
    let made = client
        .post(format!("{}/settings/keys", app.base_url))
        .header("cookie", cookie)
        .form(&[
            ("csrf", hidden(&form, "csrf").as_str()),
            ("idempotency_key", hidden(&form, "idempotency_key").as_str()),
            ("name", "Shown once"),
            ("access", "read_write"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 303);
}

#[tokio::test]
async fn a_page_that_shows_a_secret_is_never_stored() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "cached@test", Some(Role::Owner)).await;
    make_key(&app, &owner).await;
    let shown = get(&app, &owner, "/settings/keys").await;
    assert_eq!(header(&shown, "cache-control"), "no-store");
    assert!(shown.text().await.unwrap().contains("sk_test_"));
    let after = get(&app, &owner, "/settings/keys").await;
    assert_ne!(
        header(&after, "cache-control"),
        "no-store",
        "nothing secret"
    );

    invite(&app, &owner, "cached-guest@test", "viewer").await;
    let link = shown_invitation_link(&app, &owner).await;
    invite(&app, &owner, "cached-guest-2@test", "viewer").await;
    let team = get(&app, &owner, "/settings/team").await;
    assert_eq!(header(&team, "cache-control"), "no-store");
    let join = browser_client()
        .get(format!("{}{link}", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(header(&join, "cache-control"), "no-store", "{link}");
    let security = get(&app, &owner, "/settings/security").await;
    assert_eq!(header(&security, "cache-control"), "no-store");
}

async fn requests_of(app: &TestApp, merchant: &TestMerchant) -> Vec<Value> {
    let answer = app.get_as(merchant, "/v1/requests?limit=100").await;
    assert_eq!(answer.status(), 200);
    json(answer).await["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn an_invitation_opened_by_another_merchants_member_is_in_no_request_log_nor_the_logs() {
    let (db_url, pool, merchant) = common::database_with_merchant("Merchant A").await;
    let log = common::scratch_dir().join("kaadxpay.log");
    let server = ServerProcess::start_logging_to(&db_url, &[("RUST_LOG", "debug")], &log).await;
    let app = TestApp {
        base_url: server.base_url.clone(),
        db_url,
        pool,
        client: reqwest::Client::new(),
        merchant,
    };
    let owner = signed_in_as(&app, "inviter@a.test", Some(Role::Owner)).await;
    invite(&app, &owner, "outsider@b.test", "developer").await;
    let link = shown_invitation_link(&app, &owner).await;
    let token = link.trim_start_matches("/invitations/").to_owned();

    // A signed-in member of merchant B opens the link and joins with it.
    let other = create_merchant(&app.pool, "Merchant B").await;
    common::create_user(
        &app.pool,
        "member@b.test",
        Some((other.id.as_str(), Role::Owner)),
    )
    .await;
    let member: Browser = (
        browser_client(),
        common::signed_in(&app, "member@b.test").await,
    );
    assert!(page(&app, &member, &link).await.contains("password"));
    submit(&app, &member, &link, &[("password", "a good password")]).await;

    // B's key makes a request after it, which its log shows once written: the join is written
    // before it, if at all.
    let order = app
        .client
        .post(format!("{}/v1/orders", app.base_url))
        .bearer_auth(&other.api_key)
        .header("idempotency-key", "after-the-join")
        .body(r#"{"amount": 100, "currency": "EUR"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(order.status(), 201);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let logged = loop {
        let logged = requests_of(&app, &other).await;
        if logged
            .iter()
            .any(|entry| entry["idempotency_key"] == "after-the-join")
        {
            break logged;
        }
        assert!(tokio::time::Instant::now() < deadline, "{logged:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    for (merchant, logged) in [("B", logged), ("A", requests_of(&app, &app.merchant).await)] {
        let text = serde_json::to_string(&logged).unwrap();
        assert!(
            !text.contains(&token),
            "{merchant}'s log holds the token: {text}"
        );
    }
    let logs = std::fs::read_to_string(&log).unwrap();
    assert!(
        logs.contains("invitation accepted"),
        "the logs were read: {logs}"
    );
    assert!(!logs.contains(&token), "the logs hold the token");
}
