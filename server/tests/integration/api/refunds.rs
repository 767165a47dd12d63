//! Refunds through the API (API.md §13, issue 30 item 4): a refund of a captured order debits
//! `available` once (a `refund` item on the statement) and raises the order's
//! `amount_refunded`; its refusals come in the contract's order, each stored and replayed byte
//! for byte; however many refunds race with distinct keys, their sum never exceeds the order;
//! a replay adds nothing; and the ledger stays whole.

use crate::common;

use futures::future::join_all;
use serde_json::{json, Value};

use common::{error_code, json, payout_body, spawn_app, TestApp, IBAN};

/// The body of a refund of `amount` (all that is left when `None`) to a customer's account.
pub fn refund_body(amount: Option<i64>, iban: &str) -> Value {
    let mut body = json!({"destination": {"account_holder": "Grace Hopper", "iban": iban},
        "reason": "requested_by_customer"});
    if let Some(amount) = amount {
        body["amount"] = json!(amount);
    }
    body
}

/// A captured order of `amount` EUR cents (the key names it): its id.
pub async fn captured_order(app: &TestApp, key: &str, amount: i64) -> String {
    let body = format!(r#"{{"amount": {amount}, "currency": "EUR"}}"#);
    let order = app.create_order(key, &body).await;
    let id = order["id"].as_str().unwrap().to_owned();
    let captured = app
        .put(&format!("/v1/orders/{id}"), r#"{"status": "captured"}"#)
        .await;
    assert_eq!(captured.status(), 200);
    id
}

/// `POST /v1/orders/{order}/refunds` with `body` under `key`.
pub async fn refund(app: &TestApp, order: &str, key: &str, body: &Value) -> reqwest::Response {
    app.post(
        &format!("/v1/orders/{order}/refunds"),
        Some(key),
        &body.to_string(),
    )
    .await
}

async fn order_of(app: &TestApp, id: &str) -> Value {
    json(app.get(&format!("/v1/orders/{id}")).await).await
}

#[tokio::test]
async fn a_refund_debits_available_once_and_shows_on_the_order_the_statement_and_its_lists() {
    let app = spawn_app().await;
    let order = captured_order(&app, "order", 1000).await;
    assert_eq!(order_of(&app, &order).await["amount_refunded"], 0);

    let made = refund(&app, &order, "refund-1", &refund_body(Some(300), IBAN)).await;
    assert_eq!(made.status(), 201);
    let location = made.headers()["location"].to_str().unwrap().to_owned();
    let made = json(made).await;
    let id = made["id"].as_str().unwrap();
    assert!(id.starts_with("re_"), "{id}");
    assert_eq!(location, format!("/v1/refunds/{id}"));
    assert_eq!(made["object"], "refund");
    assert_eq!(made["order"], order);
    assert_eq!(
        (made["amount"].as_i64(), made["currency"].as_str()),
        (Some(300), Some("EUR"))
    );
    assert_eq!(made["status"], "pending");
    assert_eq!(made["reason"], "requested_by_customer");
    assert_eq!(made["idempotency_key"], "refund-1");
    assert_eq!(made["failure_code"], Value::Null);
    assert_eq!(made["destination"]["iban"], IBAN);

    assert_eq!(order_of(&app, &order).await["amount_refunded"], 300);
    assert_eq!(app.available_eur().await, 700);
    let fetched = json(app.get(&format!("/v1/refunds/{id}")).await).await;
    assert_eq!(fetched["id"], id);
    let listed = json(app.get(&format!("/v1/refunds?order={order}")).await).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(listed["has_more"], false);
    let other = captured_order(&app, "other", 500).await;
    let none = json(app.get(&format!("/v1/refunds?order={other}")).await).await;
    assert_eq!(none["data"], json!([]));
    let bad = app.get("/v1/refunds?order=po_123").await;
    assert_eq!(bad.status(), 400);
    assert_eq!(json(bad).await["error"]["param"], "order");

    let statement = json(app.get("/v1/balance-transactions?type=refund").await).await;
    let items = statement["data"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{statement}");
    assert_eq!(items[0]["amount"], -300);
    assert_eq!(items[0]["balance_after"], 700);
    assert_eq!(items[0]["source"], json!({"type": "refund", "id": id}));

    // The rest, by default; then nothing is left.
    let rest = json(refund(&app, &order, "refund-2", &refund_body(None, IBAN)).await).await;
    assert_eq!(rest["amount"], 700);
    assert_eq!(order_of(&app, &order).await["amount_refunded"], 1000);
    let nothing = refund(&app, &order, "refund-3", &refund_body(None, IBAN)).await;
    assert_eq!(nothing.status(), 409);
    let nothing = json(nothing).await;
    assert_eq!(error_code(&nothing), "amount_exceeds_refundable");
    assert_eq!(nothing["error"]["param"], "amount");

    // Another merchant's refund is nobody's here.
    let listed = json(app.get("/v1/refunds?limit=1").await).await;
    assert_eq!(listed["has_more"], true);
    let missing = app.get("/v1/refunds/re_nothing").await;
    assert_eq!(missing.status(), 404);
}

/// Each refusal in the contract's order, stored and replayed byte for byte, changing nothing.
#[tokio::test]
async fn refusals_come_in_the_contracts_order_and_are_replayed_byte_for_byte() {
    let app = spawn_app().await;
    let pending = app
        .create_order("pending", r#"{"amount": 1000, "currency": "EUR"}"#)
        .await;
    let pending = pending["id"].as_str().unwrap();
    let order = captured_order(&app, "captured", 1000).await;
    // Leave 100 available: less than the order.
    let payout = app
        .post(
            "/v1/payouts",
            Some("payout"),
            &payout_body(900, IBAN).to_string(),
        )
        .await;
    assert_eq!(payout.status(), 201);

    let cases: [(&str, &str, Value, u16, &str); 4] = [
        (
            "not-captured",
            pending,
            refund_body(Some(10), IBAN),
            409,
            "invalid_state_transition",
        ),
        // More than is left wins over more than is available.
        (
            "too-much",
            &order,
            refund_body(Some(1001), IBAN),
            409,
            "amount_exceeds_refundable",
        ),
        (
            "poor",
            &order,
            refund_body(Some(500), IBAN),
            402,
            "insufficient_funds",
        ),
        (
            "no-order",
            "ord_missing",
            refund_body(Some(10), IBAN),
            404,
            "resource_missing",
        ),
    ];
    for (key, order_id, body, status, code) in cases {
        let first = refund(&app, order_id, key, &body).await;
        assert_eq!(first.status(), status, "{key}");
        let first_bytes = first.bytes().await.unwrap();
        let answer: Value = serde_json::from_slice(&first_bytes).unwrap();
        assert_eq!(error_code(&answer), code, "{key}: {answer}");
        if code == "amount_exceeds_refundable" {
            assert_eq!(answer["error"]["param"], "amount");
        }
        let again = refund(&app, order_id, key, &body).await;
        assert_eq!(again.status(), status);
        assert_eq!(again.headers()["idempotent-replayed"], "true", "{key}");
        assert_eq!(again.bytes().await.unwrap(), first_bytes, "{key}");
    }
    // The balance became enough, but the stored answer stands.
    captured_order(&app, "more", 5000).await;
    let replayed = refund(&app, &order, "poor", &refund_body(Some(500), IBAN)).await;
    assert_eq!(replayed.status(), 402);
    assert_eq!(app.count("refunds").await, 0);
    assert_eq!(order_of(&app, &order).await["amount_refunded"], 0);
    // A new key succeeds now.
    let fresh = refund(&app, &order, "rich", &refund_body(Some(500), IBAN)).await;
    assert_eq!(fresh.status(), 201);
    // Bad input is a 400 naming its field, and changes nothing.
    for (body, param) in [
        (
            json!({"amount": 0, "destination": {"account_holder": "A", "iban": IBAN}}),
            "amount",
        ),
        (json!({"amount": 10}), "destination"),
        (refund_body(Some(10), "DE00"), "destination[iban]"),
        (
            json!({"amount": 10, "reason": "bored", "destination": {"account_holder": "A", "iban": IBAN}}),
            "reason",
        ),
    ] {
        let refused = refund(&app, &order, "bad", &body).await;
        assert_eq!(refused.status(), 400, "{body}");
        let refused = json(refused).await;
        assert!(
            refused["error"]["param"]
                .as_str()
                .unwrap_or_default()
                .starts_with(param),
            "{refused}"
        );
    }
    assert_eq!(app.count("refunds").await, 1);
}

#[tokio::test]
async fn a_created_refund_replays_as_created_whatever_it_became() {
    let app = spawn_app().await;
    let order = captured_order(&app, "order", 1000).await;
    let body = refund_body(Some(250), IBAN);
    let first = refund(&app, &order, "once", &body).await;
    assert_eq!(first.status(), 201);
    let first_bytes = first.bytes().await.unwrap();
    let id = serde_json::from_slice::<Value>(&first_bytes).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    sqlx::query("UPDATE refunds SET status = 'succeeded', updated_at = now() WHERE id = $1")
        .bind(&id)
        .execute(&app.pool)
        .await
        .unwrap();
    let again = refund(&app, &order, "once", &body).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.bytes().await.unwrap(), first_bytes);
    // The same key on another order is another request.
    let other = captured_order(&app, "other", 1000).await;
    let reused = refund(&app, &other, "once", &body).await;
    assert_eq!(reused.status(), 422);
    assert_eq!(app.count("refunds").await, 1);
    assert_eq!(app.available_eur().await, 1750);
}

/// However many refunds race on one order, with distinct keys, their sum never exceeds the
/// captured amount: counted in rows, on the order and in the ledger.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_parallel_refunds_with_distinct_keys_never_exceed_the_order() {
    let app = spawn_app().await;
    // Plenty available: only the order's amount may stop them.
    captured_order(&app, "funds", 1_000_000).await;
    let order = captured_order(&app, "order", 1000).await;
    let answers = join_all((0..50).map(|n| {
        let (app, order) = (&app, &order);
        async move {
            let body = refund_body(Some(70), IBAN);
            // As a client does: a busy server's 503 is sent again with the same key.
            loop {
                let answer = refund(app, order, &format!("race-{n}"), &body).await;
                let status = answer.status().as_u16();
                if status != 503 {
                    return (status, json(answer).await);
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        }
    }))
    .await;
    let made = answers.iter().filter(|(status, _)| *status == 201).count();
    for (status, answer) in &answers {
        assert!(
            *status == 201 || (*status == 409 && error_code(answer) == "amount_exceeds_refundable"),
            "{status} {answer}"
        );
    }
    // 1000 / 70: 14 fit (980), the 15th would not.
    assert_eq!(made, 14);
    let refunded: i64 = sqlx::query_scalar(
        "SELECT coalesce(sum(amount), 0)::int8 FROM refunds WHERE order_id = $1 AND status <> 'failed'",
    )
    .bind(&order)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(refunded, 980);
    assert_eq!(order_of(&app, &order).await["amount_refunded"], 980);
    let journals: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM ledger_journals WHERE kind = 'refund' AND source_id IN \
           (SELECT id FROM refunds WHERE order_id = $1)",
    )
    .bind(&order)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(journals, 14);
    // The rest is 20: a default refund takes exactly it.
    let rest = json(refund(&app, &order, "rest", &refund_body(None, IBAN)).await).await;
    assert_eq!(rest["amount"], 20);
}
