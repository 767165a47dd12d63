//! Console sign-in throttling (API.md §9, §11), through the real login form: atomic (a burst of
//! parallel guesses counts every guess and at most five are checked), per account and client
//! address and per client address, never across addresses (failures from one address never
//! refuse the right password from another), the client address read from `X-Forwarded-For`
//! only behind a trusted proxy; and an unknown email costs the same Argon2 verification as a
//! wrong password.

use crate::common;

use futures::future::join_all;
use reqwest::Client;

use common::webhooks::{create_endpoint, IDLE_WORKER};
use common::{count, signed_in, spawn_app, ServerProcess, TestApp, Visitor};

async fn app_with_user(email: &str) -> TestApp {
    let app = spawn_app().await;
    common::create_user(
        &app.pool,
        email,
        Some((app.merchant.id.as_str(), app::console::Role::Owner)),
    )
    .await;
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_parallel_wrong_passwords_count_twenty_and_only_five_are_checked() {
    let app = app_with_user("ada@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    let answers =
        join_all((0..20).map(|_| visitor.sign_in("ada@example.com", "wrong-password"))).await;
    assert_eq!(
        count(&app.pool, "login_failures WHERE email = 'ada@example.com'").await,
        20,
        "every guess counts"
    );
    let checked = answers
        .iter()
        .filter(|to| to.ends_with("error=invalid"))
        .count();
    let throttled = answers
        .iter()
        .filter(|to| to.ends_with("error=throttled"))
        .count();
    assert_eq!((checked, throttled), (5, 15), "{answers:?}");
    assert_eq!(
        visitor.sign_in("ada@example.com", "right-password").await,
        "/login?error=throttled",
        "even the right password waits out the window"
    );
}

#[tokio::test]
async fn an_address_guessing_across_accounts_is_throttled() {
    let app = app_with_user("grace@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    for n in 0..20 {
        let to = visitor
            .sign_in(&format!("nobody-{n}@example.com"), "guess")
            .await;
        assert_eq!(to, "/login?error=invalid", "guess {n}");
    }
    assert_eq!(
        visitor.sign_in("grace@example.com", "right-password").await,
        "/login?error=throttled",
        "twenty failures from one address throttle it, whichever accounts they tried"
    );
}

#[tokio::test]
async fn failures_from_one_address_never_refuse_the_right_password_from_another() {
    let app = app_with_user("victim@example.com").await;
    let attacker = Visitor::arrive_from(&app.base_url, "127.0.0.1", None).await;
    for n in 0..20 {
        attacker
            .sign_in(&format!("made-up-{n}@example.com"), "guess")
            .await;
    }
    for _ in 0..6 {
        attacker.sign_in("victim@example.com", "guess").await;
    }
    assert_eq!(
        attacker
            .sign_in("victim@example.com", "right-password")
            .await,
        "/login?error=throttled",
        "the guessing address is refused"
    );
    let victim = Visitor::arrive_from(&app.base_url, "127.0.0.2", None).await;
    assert_eq!(
        victim.sign_in("victim@example.com", "right-password").await,
        "/",
        "the right password from another address signs in"
    );
}

/// The address of the newest audit entry of `action`.
async fn audited_address(app: &TestApp, action: &str) -> String {
    sqlx::query_scalar(
        "SELECT host(client_address) FROM audit_log WHERE action = $1 ORDER BY created_at DESC LIMIT 1",
    )
    .bind(action)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// The right password of `behind@example.com` is refused to `visitor`, whose guesses were
/// audited as from `address`.
async fn assert_refused_from(app: &TestApp, visitor: &Visitor, address: &str) {
    assert_eq!(
        visitor
            .sign_in("behind@example.com", "right-password")
            .await,
        "/login?error=throttled"
    );
    assert_eq!(audited_address(app, "user.sign_in_failed").await, address);
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_client_is_the_last_untrusted_forwarded_address() {
    let app = common::spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    common::create_user(
        &app.pool,
        "behind@example.com",
        Some((app.merchant.id.as_str(), app::console::Role::Owner)),
    )
    .await;
    // Through the proxy (127.0.0.1), one client guesses until it is refused...
    let guesser =
        Visitor::arrive_from(&app.base_url, "127.0.0.1", Some("6.6.6.6, 203.0.113.1")).await;
    for _ in 0..5 {
        guesser.sign_in("behind@example.com", "guess").await;
    }
    assert_refused_from(&app, &guesser, "203.0.113.1").await;
    // ... while another client behind the same proxy signs in, recorded by its own address.
    let other = Visitor::arrive_from(&app.base_url, "127.0.0.1", Some("203.0.113.2")).await;
    assert_eq!(
        other.sign_in("behind@example.com", "right-password").await,
        "/"
    );
    assert_eq!(audited_address(&app, "user.signed_in").await, "203.0.113.2");

    // A peer that is no trusted proxy is the client, whatever it forwards: a new address in
    // each guess's header does not get it past the throttle.
    for n in 0..5 {
        let spoofer =
            Visitor::arrive_from(&app.base_url, "127.0.0.2", Some(&format!("198.51.100.{n}")))
                .await;
        spoofer.sign_in("behind@example.com", "guess").await;
    }
    let spoofer = Visitor::arrive_from(&app.base_url, "127.0.0.2", Some("198.51.100.99")).await;
    assert_refused_from(&app, &spoofer, "127.0.0.2").await;
}

#[tokio::test]
async fn an_email_holding_nul_is_refused_by_name_before_it_reaches_the_database() {
    let app = app_with_user("nul@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    let response = visitor.submit("nul\u{0}@example.com", "guess").await;
    assert_eq!(response.status(), 400);
    let answer: serde_json::Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["param"], "email");
    assert_eq!(count(&app.pool, "login_failures").await, 0);
}

#[tokio::test]
async fn the_right_password_signs_in_and_leaves_no_failure_behind() {
    let app = app_with_user("alan@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    assert_eq!(
        visitor.sign_in("alan@example.com", "right-password").await,
        "/"
    );
    assert_eq!(count(&app.pool, "login_failures").await, 0);
}

#[tokio::test]
async fn an_unknown_email_costs_one_argon2_verification() {
    // A process of its own, so that its metrics count only this sign-in.
    let db_url = common::fresh_database().await;
    let server = ServerProcess::start(&db_url, &[]).await;
    let visitor = Visitor::arrive(&server.base_url).await;
    assert_eq!(
        visitor.sign_in("nobody@example.com", "guess").await,
        "/login?error=invalid"
    );
    let metrics = reqwest::get(format!("{}/metrics", server.base_url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics
            .lines()
            .any(|line| line == "kaadxpay_login_verifications_total 1"),
        "one verification for an unknown email"
    );
}

async fn page(app: &TestApp, cookie: &str, path: &str) -> String {
    page_asking(app, cookie, path, &[]).await
}

/// A page as a browser sending `headers` besides its cookie sees it.
async fn page_asking(app: &TestApp, cookie: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let request = app
        .client
        .get(format!("{}{path}", app.base_url))
        .header("cookie", cookie);
    let request = headers.iter().fold(request, |request, (name, value)| {
        request.header(*name, *value)
    });
    request.send().await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn refusals_show_a_fixed_sentence_never_text_from_the_address() {
    let app = app_with_user("edsger@example.com").await;
    let cookie = signed_in(&app, "edsger@example.com").await;
    let forged = page(
        &app,
        &cookie,
        "/payouts/new?error=Your%20account%20is%20frozen%3B%20call%20%2B1-555-0100",
    )
    .await;
    assert!(
        !forged.contains("frozen"),
        "the address's text is not shown"
    );
    assert!(forged.contains("That did not work; reload the page and try again."));
    let known = page(&app, &cookie, "/payouts/new?error=insufficient_funds").await;
    assert!(known.contains("The available balance is lower than the payout amount."));
}

#[tokio::test]
async fn idempotency_keys_are_url_encoded_in_console_links() {
    let app = app_with_user("barbara@example.com").await;
    let cookie = signed_in(&app, "barbara@example.com").await;
    app.fund(500).await;
    let payout = common::payout_body(100, common::IBAN);
    let created: serde_json::Value = common::json(
        app.post("/v1/payouts", Some("a&b?c#d/%e"), &payout.to_string())
            .await,
    )
    .await;
    let html = page(
        &app,
        &cookie,
        &format!("/payouts/{}", created["id"].as_str().unwrap()),
    )
    .await;
    assert!(
        html.contains("/keys/a%26b%3Fc%23d%2F%25e"),
        "the key's link is its page's address, encoded"
    );
}

#[tokio::test]
async fn a_keys_page_is_at_its_own_address_and_the_look_up_form_redirects_there() {
    let app = app_with_user("kim@example.com").await;
    let cookie = signed_in(&app, "kim@example.com").await;
    app.fund(500).await;
    let payout = common::payout_body(100, common::IBAN);
    let created = app
        .post("/v1/payouts", Some("a&b?c#d/%e"), &payout.to_string())
        .await;
    assert_eq!(created.status(), 201);
    let encoded = "a%26b%3Fc%23d%2F%25e";
    let looked_up = common::browser_client()
        .get(format!("{}/keys?key={encoded}", app.base_url))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(looked_up.status(), 303);
    assert_eq!(looked_up.headers()["location"], format!("/keys/{encoded}"));
    let html = page(&app, &cookie, &format!("/keys/{encoded}")).await;
    assert!(
        html.contains("<code>a&amp;b?c#d/%e</code>") && html.contains("key-record"),
        "{html}"
    );
    let unknown = page(&app, &cookie, "/keys/no-such-key").await;
    assert!(unknown.contains("No record for this key."), "{unknown}");
}

#[tokio::test]
async fn the_session_cookie_is_secure_behind_an_https_public_url() {
    let set_cookie = |app: TestApp| async move {
        let visitor = Client::new()
            .get(format!("{}/login", app.base_url))
            .send()
            .await
            .unwrap();
        visitor.headers()["set-cookie"].to_str().unwrap().to_owned()
    };
    let plain = set_cookie(spawn_app().await).await;
    assert!(!plain.contains("Secure"), "{plain}");
    let https =
        set_cookie(common::spawn_app_with(&["--public-url", "https://pay.example.com"]).await)
            .await;
    assert!(https.contains("Secure"), "{https}");
}

/// A reconciliation run with one item of the test merchant; returns the run's id.
async fn run_with_an_item(app: &TestApp) -> String {
    sqlx::query(
        "INSERT INTO reconciliation_runs (id, run_date, applied) VALUES ('rec_console_test', current_date, false)",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, transfer_of, transfer_id, amount, currency) \
         VALUES ('rec_console_test', 0, $1, 'duplicate', 'po_shown_to_its_merchant_only', 'tr_console_test', 100, 'EUR')",
    )
    .bind(&app.merchant.id)
    .execute(&app.pool)
    .await
    .unwrap();
    "rec_console_test".to_owned()
}

#[tokio::test]
async fn unknown_paths_answer_a_plain_404_and_no_page_shows_data_without_a_user() {
    let app = app_with_user("ken@example.com").await;
    let run = run_with_an_item(&app).await;
    let cookie = signed_in(&app, "ken@example.com").await;
    let own_run = page(&app, &cookie, &format!("/reconciliation/{run}")).await;
    assert!(
        own_run.contains("po_shown_to_its_merchant_only"),
        "the merchant sees its own item: {own_run}"
    );
    let trailing = format!("/reconciliation/{run}/");
    for path in [
        "/reconciliation/abc/",
        "/reconciliation/",
        "/payouts/",
        trailing.as_str(),
        "/no-such-page",
    ] {
        for cookie in ["", cookie.as_str()] {
            let response = app
                .client
                .get(format!("{}{path}", app.base_url))
                .header("cookie", cookie)
                .send()
                .await
                .unwrap();
            let status = response.status();
            let html = response.text().await.unwrap();
            assert_eq!(
                status,
                404,
                "{path} (signed in: {}): {html}",
                !cookie.is_empty()
            );
            assert!(
                !html.contains("po_shown_to_its_merchant_only") && !html.contains("Reconciliation"),
                "{path} renders no console page: {html}"
            );
        }
    }
}

#[tokio::test]
async fn the_key_page_never_shows_a_webhook_endpoint_secret() {
    let app = app_with_user("radia@example.com").await;
    let cookie = signed_in(&app, "radia@example.com").await;
    let body = r#"{"url": "http://127.0.0.1:9/hooks"}"#;
    let created = app
        .post("/v1/webhook-endpoints", Some("endpoint-with-secret"), body)
        .await;
    assert_eq!(created.status(), 201);
    let created = created.text().await.unwrap();
    assert!(created.contains("whsec_"), "{created}");
    let replayed = app
        .post("/v1/webhook-endpoints", Some("endpoint-with-secret"), body)
        .await;
    assert_eq!(
        replayed.text().await.unwrap(),
        created,
        "the API's replay of the creation stays byte-exact"
    );

    let html = page(&app, &cookie, "/keys?key=endpoint-with-secret").await;
    assert!(html.contains("Stored response"), "{html}");
    assert!(html.contains("redacted"), "{html}");
    assert!(!html.contains("whsec_"), "the secret is not shown: {html}");
}

#[tokio::test]
async fn the_key_page_shows_the_answer_of_every_command_recorded_by_reference() {
    let app = app_with_user("grace@example.com").await;
    let cookie = signed_in(&app, "grace@example.com").await;
    let created = app
        .post(
            "/v1/api-keys",
            Some("key-by-reference"),
            r#"{"name": "Ops"}"#,
        )
        .await;
    assert_eq!(created.status(), 201);
    let id = common::json(created).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let html = page(&app, &cookie, "/keys?key=key-by-reference").await;
    let shown = html
        .split("<pre class=\"response\">")
        .nth(1)
        .unwrap_or_else(|| panic!("no stored response shown: {html}"));
    assert!(shown.contains(&id), "the answer that made the key: {shown}");
}

#[tokio::test]
async fn list_pages_filter_by_status_and_days_from_their_address_and_pages_keep_the_filters() {
    let app = spawn_app().await;
    let browser = common::browser::signed_in(&app, false).await;
    let mut captured = Vec::new();
    for n in 0..23 {
        let order = common::json(
            app.post(
                "/v1/orders",
                Some(&format!("filtered-{n}")),
                r#"{"amount": 100, "currency": "EUR"}"#,
            )
            .await,
        )
        .await;
        let id = order["id"].as_str().unwrap().to_owned();
        if n % 4 == 0 {
            let moved = app
                .put(&format!("/v1/orders/{id}"), r#"{"status": "captured"}"#)
                .await;
            assert_eq!(moved.status(), 200);
            captured.push(id);
        }
    }
    let listed = |html: &str| html.matches("href=\"/orders/ord_").count();
    let page = |path: &'static str| common::browser::page(&app, &browser, path);

    let only_captured = page("/orders?status=captured").await;
    assert_eq!(listed(&only_captured), captured.len(), "{only_captured}");
    assert!(captured
        .iter()
        .all(|id| only_captured.contains(id.as_str())));
    assert_eq!(listed(&page("/orders?status=pending").await), 17);
    let today = chrono::Utc::now().date_naive();
    let on = |query: String| {
        let (app, browser) = (&app, &browser);
        async move { common::browser::page(app, browser, &format!("/orders?{query}")).await }
    };
    let this_day = on(format!("status=captured&from={today}&to={today}")).await;
    assert_eq!(listed(&this_day), captured.len());
    assert_eq!(
        listed(&page("/orders?from=2000-01-01&to=2000-01-31").await),
        0
    );
    assert_eq!(listed(&page("/payouts?status=paid").await), 0);
    let refused = page("/orders?from=yesterday").await;
    assert!(refused.contains("Dates are days"), "{refused}");
    assert!(!refused.contains("href=\"/orders/ord_"));

    // 23 orders of today make two pages, and the second keeps the filter.
    let first = on(format!("from={today}")).await;
    assert_eq!(listed(&first), 20);
    let next = first
        .split("href=\"/orders?")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a next page")
        .replace("&amp;", "&");
    assert!(next.contains(&format!("from={today}")), "{next}");
    assert_eq!(listed(&on(next).await), 3);
}

#[tokio::test]
async fn reconciliation_runs_filter_by_status_and_the_day_they_reconciled() {
    let app = spawn_app().await;
    let support = common::browser::signed_in(&app, true).await;
    for (id, day, status) in [
        ("rec_old_done", "2026-11-01", "completed"),
        ("rec_old_attention", "2026-11-02", "attention"),
        ("rec_new_done", "2026-12-01", "completed"),
    ] {
        sqlx::query(
            "INSERT INTO reconciliation_runs (id, run_date, applied, status) VALUES ($1, $2::date, true, $3)",
        )
        .bind(id)
        .bind(day)
        .bind(status)
        .execute(&app.pool)
        .await
        .unwrap();
    }
    let shown = |html: &str| {
        ["rec_old_done", "rec_old_attention", "rec_new_done"]
            .into_iter()
            .filter(|id| html.contains(&format!("href=\"/reconciliation/{id}\"")))
            .collect::<Vec<_>>()
    };
    let page = |path: &'static str| common::browser::page(&app, &support, path);
    assert_eq!(shown(&page("/reconciliation").await).len(), 3);
    assert_eq!(
        shown(&page("/reconciliation?status=completed").await),
        ["rec_old_done", "rec_new_done"]
    );
    assert_eq!(
        shown(&page("/reconciliation?from=2026-11-01&to=2026-11-30").await),
        ["rec_old_done", "rec_old_attention"]
    );
    assert_eq!(
        shown(&page("/reconciliation?status=attention&from=2026-11-02&to=2026-11-02").await),
        ["rec_old_attention"]
    );
    assert!(page("/reconciliation?to=11/30")
        .await
        .contains("Dates are days"));
}

#[tokio::test]
async fn pages_speak_chinese_when_the_browser_or_the_language_switch_asks() {
    let app = app_with_user("lin@example.com").await;
    let session = signed_in(&app, "lin@example.com").await;
    let english = page(&app, &session, "/payouts/new").await;
    assert!(english.contains(r#"<html lang="en""#) && english.contains("Pay out"));

    let chinese = &[("accept-language", "zh-CN,zh;q=0.9,en;q=0.8")];
    let asked = page_asking(&app, &session, "/payouts/new", chinese).await;
    assert!(asked.contains(r#"<html lang="zh-CN""#), "{asked}");
    assert!(asked.contains("新建提现") && asked.contains("收款人姓名"));
    assert!(!asked.contains("Account holder"), "no English label left");
    let refused = page_asking(
        &app,
        &session,
        "/payouts/new?error=insufficient_funds",
        chinese,
    );
    assert!(
        refused.await.contains("可用余额低于提现金额。"),
        "error sentences too"
    );

    // The switch, as a visitor on the sign-in page uses it: a cookie, and back to that page.
    let browser = common::browser_client();
    let switched = browser
        .get(format!("{}/language", app.base_url))
        .query(&[("lang", "zh-CN"), ("back", "/payouts?status=paid")])
        .send()
        .await
        .unwrap();
    assert_eq!(switched.status(), 303);
    assert_eq!(switched.headers()["location"], "/payouts?status=paid");
    let remembered = common::first_cookie(&switched);
    assert_eq!(remembered, "kaadxpay_lang=zh-CN");
    let cookies = format!("{session}; {remembered}");
    let chosen = page_asking(&app, &cookies, "/payouts", &[("accept-language", "en")]).await;
    assert!(chosen.contains(r#"<html lang="zh-CN""#) && chosen.contains("导出 CSV"));

    // What the server answers outside the pages speaks it too, with its own status: a path the
    // console does not have, and a form whose token does not match.
    let nowhere = page_asking(&app, "", "/no-such-page", chinese).await;
    assert!(
        nowhere.contains(r#"<html lang="zh-CN""#) && nowhere.contains("页面不存在"),
        "{nowhere}"
    );
    let forged = app
        .client
        .post(format!("{}/logout", app.base_url))
        .header("cookie", &cookies)
        .form(&[("csrf", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);
    let forged = forged.text().await.unwrap();
    assert!(forged.contains("此表单已过期或并非来自本站"), "{forged}");

    // Never an open redirect.
    for back in [
        "//evil.example/",
        "https://evil.example/",
        "/\\evil.example",
    ] {
        let answer = browser
            .get(format!("{}/language", app.base_url))
            .query(&[("lang", "en"), ("back", back)])
            .send()
            .await
            .unwrap();
        assert_eq!(answer.headers()["location"], "/", "{back}");
    }
}

/// An app whose dispatcher stays idle (its first run finds nothing), so that only the test moves
/// deliveries, and the endpoint it made (at an address that answers nothing), as created.
async fn idle_app_with_an_endpoint() -> (TestApp, serde_json::Value) {
    let app = common::spawn_app_with(&IDLE_WORKER).await;
    let endpoint = create_endpoint(
        &app,
        "idle-endpoint",
        serde_json::json!({"url": "http://127.0.0.1:9/hooks"}),
    )
    .await;
    (app, endpoint)
}

#[tokio::test]
async fn webhook_events_filter_by_a_deliverys_status_and_their_days() {
    let (app, _) = idle_app_with_an_endpoint().await;
    let browser = common::browser::signed_in(&app, false).await;
    for n in 0..3 {
        app.create_order(
            &format!("filtered-event-{n}"),
            r#"{"amount": 100, "currency": "EUR"}"#,
        )
        .await;
    }
    // One event's delivery failed for good, another's was delivered, the third's is pending.
    let events: Vec<String> = sqlx::query_scalar(
        "WITH marked AS ( \
           UPDATE webhook_deliveries d SET status = m.status \
           FROM (SELECT id, (ARRAY['failed', 'delivered'])[row_number() OVER (ORDER BY created_at)] \
                 AS status FROM webhook_deliveries ORDER BY created_at LIMIT 2) m \
           WHERE d.id = m.id RETURNING d.event_id, d.status) \
         SELECT event_id::text FROM marked ORDER BY status DESC",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let [failed, delivered] = [&events[0], &events[1]];
    let page = |path: String| {
        let (app, browser) = (&app, &browser);
        async move { common::browser::page(app, browser, &path).await }
    };
    let listed = |html: &str| html.matches("<section class=\"card event\">").count();

    let only_failed = page("/webhooks?status=failed".into()).await;
    assert_eq!(listed(&only_failed), 1, "{only_failed}");
    assert!(only_failed.contains(failed.as_str()));
    let only_delivered = page("/webhooks?status=delivered".into()).await;
    assert_eq!(listed(&only_delivered), 1);
    assert!(only_delivered.contains(delivered.as_str()));
    assert_eq!(listed(&page("/webhooks?status=pending".into()).await), 1);
    let today = chrono::Utc::now().date_naive();
    assert_eq!(
        listed(&page(format!("/webhooks?from={today}&to={today}")).await),
        3
    );
    assert_eq!(
        listed(&page("/webhooks?from=2000-01-01&to=2000-01-31".into()).await),
        0
    );
    let refused = page("/webhooks?from=yesterday".into()).await;
    assert!(refused.contains("Dates are days"), "{refused}");
}

/// The words of a `curl` command as a POSIX shell reads them (single quotes, `'\''` inside).
fn shell_words(command: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut in_word) = (Vec::new(), String::new(), false, false);
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => (quoted, in_word) = (!quoted, true),
            // Outside quotes a backslash keeps the next character (a line break: nothing).
            '\\' if !quoted => match chars.next() {
                Some('\n') | None => {}
                Some(next) => (word, in_word) = (word + &next.to_string(), true),
            },
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            c => (word, in_word) = (word + &c.to_string(), true),
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[tokio::test]
async fn a_delivery_shown_as_curl_is_signed_with_the_endpoints_secret() {
    let (app, endpoint) = idle_app_with_an_endpoint().await;
    let secret = endpoint["secret"].as_str().unwrap().to_owned();
    app.create_order(
        "curl-order",
        r#"{"amount": 100, "currency": "EUR", "description": "it's"}"#,
    )
    .await;

    let owner = common::browser::signed_in(&app, false).await;
    let html = common::browser::page(&app, &owner, "/webhooks").await;
    let start = html.find("<pre><code>curl").expect("a curl command") + "<pre><code>".len();
    let command = html[start..start + html[start..].find("</code>").unwrap()]
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let words = shell_words(&command);
    assert_eq!(
        words[..4],
        ["curl", "-X", "POST", "http://127.0.0.1:9/hooks"]
    );
    let mut headers = axum::http::HeaderMap::new();
    let mut body = None;
    for pair in words[4..].chunks(2) {
        match pair[0].as_str() {
            "-H" => {
                let (name, value) = pair[1].split_once(": ").unwrap();
                headers.insert(
                    axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                    value.parse().unwrap(),
                );
            }
            "--data-binary" => body = Some(pair[1].clone()),
            other => panic!("an unexpected word {other} in {command}"),
        }
    }
    let body = body.expect("the body");
    assert!(body.contains("it's"), "the quote inside survives: {body}");
    standardwebhooks::Webhook::new(&secret)
        .unwrap()
        .verify(body.as_bytes(), &headers)
        .expect("the command's signature verifies with the endpoint's secret");
    // Beside it, the code that verifies a delivery by hand (api::webhooks runs it).
    let owner_page = html.replace("&quot;", "\"");
    for verifier in [
        "def verify(secret: str, headers: dict, body: bytes)",
        "function verify(secret, headers, body",
    ] {
        assert!(owner_page.contains(verifier), "{verifier}");
    }

    // Only those who manage integrations are shown them.
    let viewer =
        common::browser::signed_in_as(&app, "viewer@test", Some(app::console::Role::Viewer)).await;
    let html = common::browser::page(&app, &viewer, "/webhooks").await;
    assert!(!html.contains("curl -X POST"), "{html}");
    assert!(!html.contains("def verify("), "{html}");
}

#[tokio::test]
async fn the_events_of_the_webhooks_page_come_a_page_at_a_time() {
    let app = app_with_user("eve@example.com").await;
    let cookie = signed_in(&app, "eve@example.com").await;
    for n in 0..23 {
        app.create_order(
            &format!("order-{n}"),
            r#"{"amount": 100, "currency": "EUR"}"#,
        )
        .await;
    }
    let events = |html: &str| html.matches(r#"<section class="card event">"#).count();
    let first = page(&app, &cookie, "/webhooks").await;
    assert_eq!(events(&first), 20, "a page of 20 events");
    let next = first
        .split(r#"<p class="pager"><a href=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a link to the next page")
        .replace("&amp;", "&");
    assert!(next.starts_with("/webhooks?starting_after="), "{next}");
    let second = page(&app, &cookie, &next).await;
    assert_eq!(events(&second), 3, "the rest on the next page");
    assert!(!second.contains(r#"class="pager""#), "and no page after it");
}
