//! Money in through the API (API.md §13, §11): every key of a merchant reads its funding
//! account and its top-ups, a read-only one included; nobody without a key reads anything; a
//! merchant's funding reference is its own and stays the same; another merchant's top-up is
//! `404` and never listed; and no key can make money arrive through `/v1`.

use crate::common;

use serde_json::{json, Value};

use common::{create_merchant, error_code, json, spawn_app, TestApp, TestMerchant};

const READS: [&str; 3] = ["/v1/funding-account", "/v1/top-ups", "/v1/top-ups/tu_none"];

async fn funding_account(app: &TestApp, merchant: &TestMerchant) -> Value {
    let answer = app.get_as(merchant, "/v1/funding-account").await;
    assert_eq!(answer.status(), 200);
    json(answer).await
}

/// Money with `merchant`'s reference, reported by a signed `transfer.received`; its top-up.
async fn top_up_for(app: &TestApp, merchant: &TestMerchant, amount: i64) -> Value {
    let reference = funding_account(app, merchant).await["reference"].clone();
    let incoming = json!({"id": format!("in_{amount}"), "amount": amount, "currency": "EUR",
        "reference": reference, "received_at": chrono::Utc::now()});
    let event = json!({"event_id": format!("evt_{amount}"), "type": "transfer.received",
        "data": incoming});
    let body = serde_json::to_vec(&event).unwrap();
    let header = kaadxpay_partner::signature::sign(
        kaadxpay_partner::TEST_WEBHOOK_SECRET,
        chrono::Utc::now().timestamp(),
        &body,
    );
    let answer = app
        .client
        .post(format!("{}/webhooks/partner", app.base_url))
        .header(kaadxpay_partner::signature::HEADER, header)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let listed = json(app.get_as(merchant, "/v1/top-ups").await).await;
    listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|top_up| top_up["amount"] == amount)
        .unwrap_or_else(|| panic!("the top-up of {amount} is listed: {listed}"))
        .clone()
}

#[tokio::test]
async fn no_key_reads_nothing() {
    let app = spawn_app().await;
    for path in READS {
        let answer = app.get_without_key(path).await;
        assert_eq!(answer.status(), 401, "{path}");
        assert_eq!(error_code(&json(answer).await), "unauthorized");
    }
}

#[tokio::test]
async fn each_merchant_has_its_own_reference_and_sees_only_its_own_top_ups() {
    let app = spawn_app().await;
    let other = create_merchant(&app.pool, "Other").await;
    let mine = funding_account(&app, &app.merchant).await;
    let theirs = funding_account(&app, &other).await;
    assert_eq!(
        mine.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["account_holder", "iban", "object", "reference"]
    );
    assert_eq!(
        mine["iban"], theirs["iban"],
        "one account, told apart by reference"
    );
    assert_ne!(mine["reference"], theirs["reference"]);
    assert_eq!(funding_account(&app, &app.merchant).await, mine, "stable");

    let their_top_up = top_up_for(&app, &other, 300).await;
    let my_top_up = top_up_for(&app, &app.merchant, 500).await;
    let their_path = format!("/v1/top-ups/{}", their_top_up["id"].as_str().unwrap());
    let answer = app.get_as(&app.merchant, &their_path).await;
    assert_eq!(answer.status(), 404);
    assert_eq!(error_code(&json(answer).await), "resource_missing");
    assert_eq!(app.get_as(&other, &their_path).await.status(), 200);
    let listed = json(app.get("/v1/top-ups").await).await;
    assert_eq!(listed["data"], json!([my_top_up]));
    assert_eq!(listed["has_more"], false);
    // An id of another kind names no top-up.
    assert_eq!(app.get("/v1/top-ups/po_123").await.status(), 404);
}

#[tokio::test]
async fn a_read_only_key_reads_and_no_key_makes_money_arrive() {
    let app = spawn_app().await;
    top_up_for(&app, &app.merchant, 800).await;
    let created = app
        .post(
            "/v1/api-keys",
            Some("read-only"),
            r#"{"name": "Dashboard", "access": "read_only"}"#,
        )
        .await;
    assert_eq!(created.status(), 201);
    let read_only = TestMerchant {
        id: app.merchant.id.clone(),
        api_key: json(created).await["secret"].as_str().unwrap().to_owned(),
    };
    assert_eq!(
        funding_account(&app, &read_only).await,
        funding_account(&app, &app.merchant).await
    );
    let listed = json(app.get_as(&read_only, "/v1/top-ups").await).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);

    let before = app.count("top_ups").await;
    for key in [&app.merchant, &read_only] {
        for path in ["/v1/top-ups", "/v1/funding-account"] {
            let answer = app
                .post_as(
                    key,
                    path,
                    Some("money-please"),
                    r#"{"amount": 100, "currency": "EUR"}"#,
                )
                .await;
            assert!(
                [403, 405].contains(&answer.status().as_u16()),
                "{path}: {}",
                answer.status()
            );
        }
    }
    assert_eq!(app.count("top_ups").await, before);
}
