//! Timelines (API.md §2, §9, §12): a key's shows every request that came with it, with its
//! verdict, in order, and the life of the payout it made (the partner calls under its
//! end-to-end key, the events sent to the merchant, their delivery attempts); support's search
//! finds that payout from any of its identifiers, across merchants, and lands on its timeline;
//! nobody else's timeline is visible. The payout's console page shows the same life.

use crate::common;

use std::time::Duration;

use serde_json::Value;

use common::browser::{assert_search_lands, page, signed_in};
use common::{create_merchant, eventually, json, spawn_app, TestApp};

const PAYOUT: &str = r#"{"amount": 400, "currency": "EUR", "destination": {"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"}}"#;
const OTHER_PAYOUT: &str = r#"{"amount": 401, "currency": "EUR", "destination": {"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"}}"#;

async fn key_record(app: &TestApp, key: &str) -> Value {
    json(app.get(&format!("/v1/idempotency-keys/{key}")).await).await
}

/// The timeline's entries, each a moment (`moment` names it) with its facts.
fn entries(record: &Value) -> Vec<Value> {
    record["timeline"]
        .as_array()
        .expect("the record has a timeline")
        .clone()
}

/// Whether an entry is the `moment` with every one of `facts`.
fn is(entry: &Value, moment: &str, facts: &[(&str, &str)]) -> bool {
    entry["moment"] == moment && facts.iter().all(|(name, value)| entry[*name] == *value)
}

/// A paid payout made under `key`, asked for five times (a new request, three replays and a
/// changed body), with a webhook endpoint that refuses connections; the payout's id and the
/// first answer's request id.
async fn paid_payout(app: &TestApp, key: &str) -> (Value, String) {
    app.fund(10_000).await;
    let endpoint = app
        .post(
            "/v1/webhook-endpoints",
            Some(&format!("endpoint-for-{key}")),
            r#"{"url": "http://127.0.0.1:9/hooks"}"#,
        )
        .await;
    assert_eq!(endpoint.status(), 201);
    let first = app.post("/v1/payouts", Some(key), PAYOUT).await;
    assert_eq!(first.status(), 201);
    let request_id = first.headers()["x-request-id"].to_str().unwrap().to_owned();
    let payout = json(first).await;
    for _ in 0..3 {
        assert_eq!(
            app.post("/v1/payouts", Some(key), PAYOUT).await.status(),
            201
        );
    }
    assert_eq!(
        app.post("/v1/payouts", Some(key), OTHER_PAYOUT)
            .await
            .status(),
        422
    );
    let id = payout["id"].as_str().unwrap().to_owned();
    eventually(Duration::from_secs(30), "the payout is paid", || async {
        json(app.get(&format!("/v1/payouts/{id}")).await).await["status"] == "paid"
    })
    .await;
    (payout, request_id)
}

#[tokio::test]
async fn a_keys_timeline_shows_every_attempt_in_order_and_the_payouts_life() {
    let app = spawn_app().await;
    let (payout, _) = paid_payout(&app, "timeline-key").await;
    let partner_key: String = sqlx::query_scalar("SELECT partner_key FROM payouts WHERE id = $1")
        .bind(payout["id"].as_str().unwrap())
        .fetch_one(&app.pool)
        .await
        .unwrap();
    // The request log is written in batches, within a few seconds.
    eventually(
        Duration::from_secs(20),
        "five requests on the timeline",
        || async {
            let record = key_record(&app, "timeline-key").await;
            entries(&record)
                .iter()
                .filter(|entry| is(entry, "request", &[]))
                .count()
                == 5
        },
    )
    .await;
    let record = key_record(&app, "timeline-key").await;
    let entries = entries(&record);
    let verdicts: Vec<&str> = entries
        .iter()
        .filter(|entry| is(entry, "request", &[]))
        .map(|entry| entry["verdict"].as_str().unwrap_or("none"))
        .collect();
    assert_eq!(
        verdicts,
        ["new", "replayed", "replayed", "replayed", "mismatch"],
        "{entries:#?}"
    );
    let has =
        |moment: &str, facts: &[(&str, &str)]| entries.iter().any(|entry| is(entry, moment, facts));
    assert!(
        has("record_stored", &[("endpoint", "POST /v1/payouts")]),
        "{entries:#?}"
    );
    assert!(
        has("payout_created", &[("partner_key", &partner_key)]),
        "{entries:#?}"
    );
    assert!(
        has(
            "partner_call",
            &[("call", "create"), ("partner_key", &partner_key)]
        ),
        "{entries:#?}"
    );
    assert!(
        has("event_sent", &[("event_type", "payout.created")]),
        "{entries:#?}"
    );
    assert!(
        has("event_sent", &[("event_type", "payout.paid")]),
        "{entries:#?}"
    );
    assert!(
        has(
            "delivery",
            &[
                ("event_type", "payout.created"),
                ("url", "http://127.0.0.1:9/hooks")
            ]
        ),
        "{entries:#?}"
    );
    let times: Vec<&str> = record["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["at"].as_str().unwrap())
        .collect();
    let parsed: Vec<chrono::DateTime<chrono::Utc>> =
        times.iter().map(|at| at.parse().unwrap()).collect();
    assert!(
        parsed.windows(2).all(|pair| pair[0] <= pair[1]),
        "{times:?}"
    );

    // The payout's page shows the same life to the merchant's members.
    let member = signed_in(&app, false).await;
    let shown = page(
        &app,
        &member,
        &format!("/payouts/{}", payout["id"].as_str().unwrap()),
    )
    .await;
    assert!(
        shown.contains("payout.paid sent to the merchant"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("create under {partner_key}")),
        "{shown}"
    );

    // Another merchant has no such key, and sees nothing of this one.
    let other = create_merchant(&app.pool, "Other").await;
    let answer = app
        .get_as(&other, "/v1/idempotency-keys/timeline-key")
        .await;
    assert_eq!(answer.status(), 404);
}

#[tokio::test]
async fn support_finds_a_payout_from_any_of_its_identifiers_and_lands_on_its_timeline() {
    let app = spawn_app().await;
    let (payout, request_id) = paid_payout(&app, "support-key").await;
    let id = payout["id"].as_str().unwrap();
    let (partner_key, transfer_id): (String, String) =
        sqlx::query_as("SELECT partner_key, partner_transfer_id FROM payouts WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let (event_id, delivery_id, attempt_id): (String, String, String) = sqlx::query_as(
        "SELECT e.id::text, d.id::text, a.id::text FROM events e \
         JOIN webhook_deliveries d ON d.event_id = e.id \
         JOIN webhook_attempts a ON a.delivery_id = d.id \
         WHERE e.event_type = 'payout.created' LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    eventually(
        Duration::from_secs(20),
        "the request log is written",
        || async {
            common::count(&app.pool, &format!("request_log WHERE id = '{request_id}'")).await == 1
        },
    )
    .await;

    let support = signed_in(&app, true).await;
    let payout_page = format!("/support/timeline?merchant={}&payout={id}", app.merchant.id);
    let key_page = format!(
        "/support/timeline?merchant={}&key=support-key",
        app.merchant.id
    );
    for (identifier, lands_on) in [
        (id, &payout_page),
        (transfer_id.as_str(), &payout_page),
        (partner_key.as_str(), &payout_page),
        (event_id.as_str(), &payout_page),
        (delivery_id.as_str(), &payout_page),
        (attempt_id.as_str(), &payout_page),
        ("support-key", &key_page),
        (request_id.as_str(), &key_page),
    ] {
        assert_search_lands(&app, &support, identifier, lands_on).await;
    }
    let timeline = page(&app, &support, &payout_page).await;
    assert!(timeline.contains(&transfer_id), "{timeline}");
    assert!(timeline.contains(&format!("create under {partner_key}")));
    assert!(timeline.contains("payout.paid sent to the merchant"));
    let key_timeline = page(&app, &support, &key_page).await;
    assert!(key_timeline.contains("POST /v1/payouts answered 422 mismatch"));

    // Support's pages are support's alone; a merchant's member gets a 404.
    let member = signed_in(&app, false).await;
    let (client, cookie) = &member;
    for path in [&payout_page, &format!("/support?q={id}")] {
        let answer = client
            .get(format!("{}{path}", app.base_url))
            .header("cookie", cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 404, "{path}");
    }
}

/// `browser` reading the console in Simplified Chinese (the language switch's cookie).
fn in_chinese(browser: &common::browser::Browser) -> common::browser::Browser {
    (
        browser.0.clone(),
        format!("{}; kaadxpay_lang=zh-CN", browser.1),
    )
}

/// Every amount on a timeline is written as people write it, with its currency, in both
/// languages; support's payout page shows the payout's facts above its timeline, its IBAN
/// masked, and changes nothing.
#[tokio::test]
async fn timelines_show_money_as_people_write_it_and_support_sees_the_payouts_facts() {
    let app = spawn_app().await;
    let (payout, _) = paid_payout(&app, "facts-key").await;
    let id = payout["id"].as_str().unwrap();
    let transfer_id: String =
        sqlx::query_scalar("SELECT partner_transfer_id FROM payouts WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .unwrap();

    let member = signed_in(&app, false).await;
    let merchant_page = page(&app, &member, &format!("/payouts/{id}")).await;
    assert!(
        merchant_page.contains("payout of 4.00 EUR created under end-to-end key"),
        "{merchant_page}"
    );
    assert!(!merchant_page.contains("minor units"), "{merchant_page}");
    let key_page = page(&app, &member, "/keys/facts-key").await;
    assert!(
        key_page.contains("payout of 4.00 EUR created"),
        "{key_page}"
    );
    let chinese = page(&app, &in_chinese(&member), &format!("/payouts/{id}")).await;
    assert!(chinese.contains("已创建提现：EUR 4.00"), "{chinese}");
    assert!(!chinese.contains("最小货币单位"), "{chinese}");

    let support = signed_in(&app, true).await;
    let payout_page = format!("/support/timeline?merchant={}&payout={id}", app.merchant.id);
    let shown = page(&app, &support, &payout_page).await;
    let facts = shown
        .split(r#"<dl class="card facts""#)
        .nth(1)
        .and_then(|rest| rest.split("</dl>").next())
        .unwrap_or_else(|| panic!("no facts card: {shown}"));
    for fact in [
        "Status",
        "Amount",
        "4.00 EUR",
        "paid",
        "Idempotency key",
        "facts-key",
        "Account holder",
        "Ada Lovelace",
        "****3000",
        transfer_id.as_str(),
        "Merchant",
        app.merchant.id.as_str(),
    ] {
        assert!(facts.contains(fact), "{fact} missing from {facts}");
    }
    assert!(!shown.contains("DE89370400440532013000"), "{shown}");
    assert!(shown.contains("payout of 4.00 EUR created"), "{shown}");
    // The facts come before the timeline; nothing on the page changes anything.
    assert!(shown.find("card facts") < shown.find("class=\"timeline"));
    assert!(
        !shown.contains("method=\"post\" action=\"/payouts"),
        "{shown}"
    );
    let chinese = page(&app, &in_chinese(&support), &payout_page).await;
    assert!(chinese.contains("EUR 4.00"), "{chinese}");
}

/// On a payout's timeline, the partner's events about a transfer that is not the payout's own
/// (a partner that booked it twice) are labelled as a duplicate that reconciliation reverses,
/// and once it did, as reversed; the payout's own transfer is not labelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_duplicate_transfer_is_labelled_on_the_payouts_timeline_until_and_once_reversed() {
    use kaadxpay_partner::client::PartnerClient;
    use kaadxpay_partner_sim::scenarios::{Scenario, MAGIC_IBANS};
    use server::reconcile::Reconciler;

    let (app, partner_url) = common::spawn_app_and_partner(
        0,
        &["--payout-interval", "100ms", "--payout-retry-base", "200ms"],
    )
    .await;
    app.fund(10_000).await;
    let iban = MAGIC_IBANS
        .iter()
        .find(|magic| magic.scenario == Scenario::Duplicated)
        .unwrap()
        .iban;
    let body = serde_json::json!({"amount": 1000, "currency": "EUR",
        "destination": {"account_holder": "Grace Hopper", "iban": iban}});
    let answer = app
        .post("/v1/payouts", Some("duplicated"), &body.to_string())
        .await;
    assert_eq!(answer.status(), 201);
    let id = json(answer).await["id"].as_str().unwrap().to_owned();
    eventually(
        Duration::from_secs(30),
        "both transfers' events recorded",
        || async {
            let own: Option<String> =
                sqlx::query_scalar("SELECT partner_transfer_id FROM payouts WHERE id = $1")
                    .bind(&id)
                    .fetch_one(&app.pool)
                    .await
                    .unwrap();
            let paid = common::count(
                &app.pool,
                &format!(
                    "partner_events WHERE transfer_of = '{id}' AND event_type = 'transfer.paid'"
                ),
            )
            .await;
            own.is_some() && paid == 2
        },
    )
    .await;
    let (own, duplicate): (String, String) = sqlx::query_as(
        "SELECT p.partner_transfer_id, e.transfer_id FROM payouts p \
         JOIN partner_events e ON e.transfer_of = p.id AND e.transfer_id <> p.partner_transfer_id \
         WHERE p.id = $1",
    )
    .bind(&id)
    .fetch_one(&app.pool)
    .await
    .unwrap();

    let member = signed_in(&app, false).await;
    let support = signed_in(&app, true).await;
    let support_page = format!("/support/timeline?merchant={}&payout={id}", app.merchant.id);
    let line_of = |shown: &str, transfer: &str| -> String {
        shown
            .split("<li")
            .find(|line| line.contains("timeline-partner_webhook") && line.contains(transfer))
            .unwrap_or_else(|| panic!("no event about {transfer}: {shown}"))
            .to_owned()
    };
    for shown in [
        page(&app, &member, &format!("/payouts/{id}")).await,
        page(&app, &support, &support_page).await,
    ] {
        let line = line_of(&shown, &duplicate);
        assert!(
            line.contains("duplicate transfer: reconciliation reverses it"),
            "{line}"
        );
        assert!(!line_of(&shown, &own).contains("duplicate"), "{shown}");
    }
    let chinese = page(&app, &in_chinese(&member), &format!("/payouts/{id}")).await;
    assert!(line_of(&chinese, &duplicate).contains("重复"), "{chinese}");

    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let today = chrono::Utc::now().date_naive();
    eventually(
        Duration::from_secs(30),
        "the duplicate reversed",
        || async {
            reconciler.run(today, true).await.unwrap();
            common::count(
                &app.pool,
                &format!(
                    "partner_reversals WHERE transfer_id = '{duplicate}' AND state = 'reversed'"
                ),
            )
            .await
                == 1
        },
    )
    .await;
    let shown = page(&app, &member, &format!("/payouts/{id}")).await;
    let line = line_of(&shown, &duplicate);
    assert!(
        line.contains("duplicate transfer: reconciliation reversed it"),
        "{line}"
    );
    assert!(!line_of(&shown, &own).contains("duplicate"), "{shown}");
}
