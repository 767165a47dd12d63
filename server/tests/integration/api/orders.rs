//! Orders over HTTP: concurrency with one key, racing captures, the state machine, isolation
//! between merchants and the refusal of bad input, each checked by counting rows.

use crate::common;

use futures::future::join_all;

use common::{create_merchant, error_code, json, spawn_app};

const ORDER: &str = r#"{"amount": 2500, "currency": "USD"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_parallel_posts_with_one_key_make_one_order() {
    let app = spawn_app().await;
    let answers = join_all((0..100).map(|_| async {
        let response = app.post("/v1/orders", Some("one-intent"), ORDER).await;
        let status = response.status().as_u16();
        let replayed = response.headers().contains_key("idempotent-replayed");
        (status, replayed, response.bytes().await.unwrap())
    }))
    .await;

    assert_eq!(app.count("orders").await, 1);
    let created: Vec<_> = answers
        .iter()
        .filter(|(status, replayed, _)| *status == 201 && !replayed)
        .collect();
    assert_eq!(created.len(), 1, "exactly one request executes");
    let original = &created[0].2;
    for (status, replayed, body) in &answers {
        match status {
            201 => assert_eq!(
                body, original,
                "a replay is byte-identical (replayed: {replayed})"
            ),
            409 => assert_eq!(
                error_code(&serde_json::from_slice(body).unwrap()),
                "idempotency_request_in_progress"
            ),
            other => panic!("unexpected status {other}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_parallel_captures_credit_the_balance_once() {
    let app = spawn_app().await;
    let order = app.create_order("capture-race", ORDER).await;
    let path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
    let statuses = join_all((0..100).map(|_| async {
        app.put(&path, r#"{"status": "captured"}"#)
            .await
            .status()
            .as_u16()
    }))
    .await;
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    let balance = json(app.get("/v1/balance").await).await;
    assert_eq!(balance["object"], "balance");
    assert_eq!(
        balance["available"],
        serde_json::json!([{"currency": "USD", "amount": 2500}])
    );
}

#[tokio::test]
async fn orders_follow_their_state_machine() {
    let app = spawn_app().await;
    let captured = app.create_order("a", ORDER).await;
    let cancelled = app.create_order("b", ORDER).await;
    let captured_path = format!("/v1/orders/{}", captured["id"].as_str().unwrap());
    let cancelled_path = format!("/v1/orders/{}", cancelled["id"].as_str().unwrap());

    let response = json(app.put(&captured_path, r#"{"status": "captured"}"#).await).await;
    assert_eq!(response["status"], "captured");
    let again = app.put(&captured_path, r#"{"status": "captured"}"#).await;
    assert_eq!(
        again.status(),
        200,
        "asking for the current state changes nothing"
    );
    assert_eq!(json(again).await["updated_at"], response["updated_at"]);
    let refused = app.put(&captured_path, r#"{"status": "cancelled"}"#).await;
    assert_eq!(refused.status(), 409);
    assert_eq!(error_code(&json(refused).await), "invalid_state_transition");

    assert_eq!(
        json(app.put(&cancelled_path, r#"{"status": "cancelled"}"#).await).await["status"],
        "cancelled"
    );
    assert_eq!(
        app.put(&cancelled_path, r#"{"status": "captured"}"#)
            .await
            .status(),
        409
    );
    let pending = app.put(&cancelled_path, r#"{"status": "pending"}"#).await;
    assert_eq!(pending.status(), 400);
    assert_eq!(json(pending).await["error"]["param"], "status");

    let balance = json(app.get("/v1/balance").await).await;
    assert_eq!(
        balance["available"][0]["amount"], 2500,
        "only the captured order counts"
    );
}

#[tokio::test]
async fn orders_list_newest_first_and_page() {
    let app = spawn_app().await;
    let mut ids = Vec::new();
    for key in ["1", "2", "3"] {
        ids.push(
            app.create_order(key, ORDER).await["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let page = json(app.get("/v1/orders?limit=2").await).await;
    let listed: Vec<_> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()]);
    assert_eq!(page["has_more"], true);
    let rest = json(
        app.get(&format!("/v1/orders?limit=2&starting_after={}", ids[1]))
            .await,
    )
    .await;
    assert_eq!(rest["data"][0]["id"], ids[0].as_str());
    assert_eq!(rest["has_more"], false);
    for bad in [
        "limit=0",
        "limit=101",
        "limit=abc",
        "starting_after=ord_unknown",
    ] {
        let response = app.get(&format!("/v1/orders?{bad}")).await;
        assert_eq!(response.status(), 400, "{bad}");
    }
}

#[tokio::test]
async fn a_merchant_cannot_see_another_merchants_key_order_or_balance() {
    let app = spawn_app().await;
    let order = app.create_order("private", ORDER).await;
    let order_path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
    app.put(&order_path, r#"{"status": "captured"}"#).await;
    let intruder = create_merchant(&app.pool, "Intruder").await;

    for path in [order_path.as_str(), "/v1/idempotency-keys/private"] {
        let response = app.get_as(&intruder, path).await;
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(&json(response).await), "resource_missing");
    }
    let captured_by_intruder = app
        .client
        .put(format!("{}{order_path}", app.base_url))
        .bearer_auth(&intruder.api_key)
        .body(r#"{"status": "cancelled"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(captured_by_intruder.status(), 404);
    assert_eq!(
        json(app.get_as(&intruder, "/v1/balance").await).await["available"],
        serde_json::json!([])
    );
    assert_eq!(
        json(app.get_as(&intruder, "/v1/orders").await).await["data"],
        serde_json::json!([])
    );
    assert_eq!(json(app.get(&order_path).await).await["status"], "captured");
}

#[tokio::test]
async fn requests_without_a_valid_api_key_are_unauthorized() {
    let app = spawn_app().await;
    let anonymous = app.get_without_key("/v1/balance").await;
    assert_eq!(anonymous.status(), 401);
    assert_eq!(error_code(&json(anonymous).await), "unauthorized");
}

#[tokio::test]
async fn bad_input_gets_its_400_and_changes_nothing() {
    let app = spawn_app().await;
    let cases: Vec<(&str, String, Option<&str>)> = vec![
        ("malformed JSON", r#"{"amount": 1,"#.into(), None),
        ("not an object", "[1, 2]".into(), None),
        (
            "amount as a string",
            r#"{"amount": "100", "currency": "EUR"}"#.into(),
            Some("amount"),
        ),
        (
            "fractional amount",
            r#"{"amount": 10.5, "currency": "EUR"}"#.into(),
            Some("amount"),
        ),
        (
            "zero amount",
            r#"{"amount": 0, "currency": "EUR"}"#.into(),
            Some("amount"),
        ),
        (
            "negative amount",
            r#"{"amount": -100, "currency": "EUR"}"#.into(),
            Some("amount"),
        ),
        (
            "amount too large",
            r#"{"amount": 100000000001, "currency": "EUR"}"#.into(),
            Some("amount"),
        ),
        (
            "missing amount",
            r#"{"currency": "EUR"}"#.into(),
            Some("amount"),
        ),
        (
            "lower-case currency",
            r#"{"amount": 1, "currency": "eur"}"#.into(),
            Some("currency"),
        ),
        (
            "unknown currency",
            r#"{"amount": 1, "currency": "XYZ"}"#.into(),
            Some("currency"),
        ),
        (
            "currency as a number",
            r#"{"amount": 1, "currency": 978}"#.into(),
            Some("currency"),
        ),
        (
            "unknown field",
            r#"{"amount": 1, "currency": "EUR", "colour": "red"}"#.into(),
            Some("colour"),
        ),
        (
            "metadata not strings",
            r#"{"amount": 1, "currency": "EUR", "metadata": {"a": 1}}"#.into(),
            Some("metadata[a]"),
        ),
        (
            "too much metadata",
            format!(
                r#"{{"amount": 1, "currency": "EUR", "metadata": {{{}}}}}"#,
                (0..21)
                    .map(|i| format!(r#""k{i}": "v""#))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Some("metadata"),
        ),
    ];
    for (name, body, param) in &cases {
        let response = app
            .post(
                "/v1/orders",
                Some(&format!("bad-{}", name.replace(' ', "-"))),
                body,
            )
            .await;
        assert_eq!(response.status(), 400, "{name}");
        let body = json(response).await;
        assert_eq!(error_code(&body), "invalid_request", "{name}");
        assert!(
            !body["error"]["message"].as_str().unwrap().is_empty(),
            "{name}"
        );
        if let Some(param) = param {
            assert_eq!(body["error"]["param"], *param, "{name}");
        }
    }
    assert_eq!(
        app.snapshot().await,
        (0, 0, 0),
        "nothing was recorded or created"
    );
}
