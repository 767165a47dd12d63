//! No input, however malformed, panics a handler or drops the connection (API.md §1): property
//! tests drive every body parser with arbitrary JSON and strings (each rejection must be a
//! `400` naming its `param`), and HTTP tests send what once crashed a handler, oversized bodies
//! and idempotency keys in every shape.

use crate::common;

use axum::extract::FromRequest;
use proptest::prelude::*;
use serde_json::{Map, Value};

use common::{error_code, json, spawn_app};
use server::contract::error::Error;
use server::contract::input::command;
use server::http::body::Body;
use server::idempotency::fingerprint;
use server::payments::orders::{CreateOrder, UpdateOrder};
use server::payments::payouts::CreatePayout;
use server::webhooks::endpoints::CreateEndpoint;

/// Any JSON value, nested a few levels, with strings that include non-ASCII characters, NUL
/// and other control characters.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |n| n.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[A-Z]{2}[0-9]{2}[A-Za-z0-9éß€ ]{0,40}".prop_map(Value::String),
        control_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Short text that often holds NUL (which PostgreSQL cannot store) and other control characters.
fn control_text() -> impl Strategy<Value = String> {
    "[\\x00-\\x1f\\x7fa-zA-Z0-9 ]{0,12}"
}

/// What a parser accepted must be storable: no text in it holds NUL.
fn assert_storable<T: serde::Serialize>(parser: &str, body: &Value, parsed: &T) {
    let stored = serde_json::to_string(parsed).expect("a command serialises");
    assert!(
        !stored.contains("\\u0000"),
        "{parser} accepted text PostgreSQL cannot store: {body}"
    );
}

/// Checks one parser on `body`: a refusal is a named `400`, an acceptance is storable.
fn check_parser<T: serde::Serialize + serde::de::DeserializeOwned>(parser: &str, body: &Value) {
    match command::<T>(body) {
        Ok(parsed) => assert_storable(parser, body, &parsed),
        Err(error) => assert_named_400(parser, body, error),
    }
}

/// Field names the parsers know, mixed with arbitrary ones.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "amount",
            "currency",
            "description",
            "metadata",
            "destination",
            "account_holder",
            "iban",
            "url",
            "events",
            "status",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
        control_text(),
    ]
}

/// A body object whose known fields are often present with arbitrary values.
fn any_body() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(field_name(), any_json(), 0..8)
        .prop_map(|map| Value::Object(map.into_iter().collect::<Map<_, _>>()))
}

fn assert_named_400(parser: &str, body: &Value, error: Error) {
    assert_eq!(error.status(), 400, "{parser} on {body}: {error}");
    match error {
        Error::InvalidRequest { param: Some(_), .. } => {}
        other => panic!("{parser} on {body}: a rejection without its param: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn body_parsers_never_panic_and_name_the_param_they_refuse(body in any_body()) {
        check_parser::<CreateOrder>("CreateOrder", &body);
        check_parser::<CreatePayout>("CreatePayout", &body);
        check_parser::<CreateEndpoint>("CreateEndpoint", &body);
        if let Err(error) = command::<UpdateOrder>(&body) {
            assert_named_400("UpdateOrder", &body, error);
        }
        assert_eq!(fingerprint("POST /v1/orders", &body).len(), 32);
    }

    #[test]
    fn payout_destinations_of_any_text_never_panic(
        holder in prop_oneof![any::<String>(), control_text()],
        iban in prop_oneof![any::<String>(), Just("DE89370400440532013000".to_owned())],
        description in control_text(),
    ) {
        let body = serde_json::json!({
            "amount": 100, "currency": "EUR",
            "destination": {"account_holder": holder, "iban": iban},
            "description": description,
        });
        check_parser::<CreatePayout>("CreatePayout", &body);
    }

    #[test]
    fn order_texts_of_any_characters_are_storable_or_refused_by_name(
        description in control_text(),
        key in control_text(),
        value in control_text(),
    ) {
        let body = serde_json::json!({
            "amount": 100, "currency": "EUR", "description": description, "metadata": {key: value},
        });
        check_parser::<CreateOrder>("CreateOrder", &body);
    }

    #[test]
    fn any_bytes_as_a_body_are_parsed_or_refused_with_a_400(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let request = axum::extract::Request::new(axum::body::Body::from(bytes));
        if let Err(error) = runtime.block_on(Body::<serde_json::Map<String, Value>>::from_request(request, &())) {
            assert_eq!(error.status(), 400, "{error}");
        }
    }
}

const IBANS_THAT_ONCE_PANICKED: [&str; 4] = [
    "ÉÉ89370400440532013000",
    "D€89370400440532013000",
    "DE€9370400440532013000",
    "ßß€€€€€€€€€€€€€€",
];

#[tokio::test]
async fn a_non_ascii_iban_gets_a_400_and_the_connection_stays_up() {
    let app = spawn_app().await;
    for (index, iban) in IBANS_THAT_ONCE_PANICKED.iter().enumerate() {
        let body = serde_json::json!({
            "amount": 100, "currency": "EUR",
            "destination": {"account_holder": "Ada", "iban": iban},
        });
        let response = app
            .post(
                "/v1/payouts",
                Some(&format!("iban-{index}")),
                &body.to_string(),
            )
            .await;
        assert_eq!(response.status(), 400, "{iban}");
        let answer = json(response).await;
        assert_eq!(answer["error"]["param"], "destination[iban]", "{iban}");
    }
    assert_eq!(
        app.count("idempotency_keys").await,
        0,
        "refused before execution"
    );
}

#[tokio::test]
async fn a_body_over_64_kib_gets_413_and_changes_nothing() {
    let app = spawn_app().await;
    let huge = format!(
        r#"{{"amount": 1, "currency": "EUR", "description": "{}"}}"#,
        "x".repeat(70_000)
    );
    for path in ["/v1/orders", "/v1/payouts", "/v1/webhook-endpoints"] {
        let response = app.post(path, Some("huge"), &huge).await;
        assert_eq!(response.status(), 413, "{path}");
        assert_eq!(error_code(&json(response).await), "request_too_large");
    }
    assert_eq!(app.snapshot().await, (0, 0, 0), "nothing was recorded");
}

#[tokio::test]
async fn the_database_refuses_amounts_and_currencies_the_contract_refuses() {
    let app = spawn_app().await;
    let insert = |amount: i64, currency: &'static str| {
        sqlx::query(
            "INSERT INTO orders (id, merchant_id, amount, currency, status) \
             VALUES (gen_random_uuid()::text, $1, $2, $3, 'pending')",
        )
        .bind(&app.merchant.id)
        .bind(amount)
        .bind(currency)
        .execute(&app.pool)
    };
    assert!(insert(100_000_000_000, "EUR").await.is_ok(), "the maximum");
    for (amount, currency) in [(100_000_000_001, "EUR"), (1, "eur"), (1, "EURO"), (1, "")] {
        assert!(
            insert(amount, currency).await.is_err(),
            "{amount} {currency} is refused"
        );
    }
}

/// U+0000, which PostgreSQL cannot store, wherever a request carries text: a body field is a
/// `400` naming it (and its key stays free), a path id names no object (`404`), a cursor is a
/// `400` naming `starting_after`; never a `500`.
#[tokio::test]
async fn nul_anywhere_is_refused_by_name_and_leaves_the_key_free() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let iban = "DE89370400440532013000";
    let refused = [
        (
            "/v1/orders",
            serde_json::json!({"amount": 100, "currency": "EUR", "description": "a\u{0}b"}),
            "description",
        ),
        (
            "/v1/orders",
            serde_json::json!({"amount": 100, "currency": "EUR", "metadata": {"sku": "\u{0}"}}),
            "metadata[sku]",
        ),
        (
            "/v1/payouts",
            serde_json::json!({"amount": 100, "currency": "EUR", "description": "\u{0}",
            "destination": {"account_holder": "Ada", "iban": iban}}),
            "description",
        ),
        (
            "/v1/payouts",
            serde_json::json!({"amount": 100, "currency": "EUR",
            "destination": {"account_holder": "Ada\u{0}", "iban": iban}}),
            "destination[account_holder]",
        ),
    ];
    for (index, (path, body, param)) in refused.iter().enumerate() {
        let response = app
            .post(path, Some(&format!("nul-{index}")), &body.to_string())
            .await;
        assert_eq!(response.status(), 400, "{body}");
        assert_eq!(json(response).await["error"]["param"], *param, "{body}");
    }
    assert_eq!(
        app.count("idempotency_keys").await,
        1,
        "only the funding order's key"
    );
    let storable = serde_json::json!({"amount": 100, "currency": "EUR", "description": "ab"});
    let retried = app
        .post("/v1/orders", Some("nul-0"), &storable.to_string())
        .await;
    assert_eq!(
        retried.status(),
        201,
        "the refused request left its key free"
    );

    for path in [
        "/v1/orders/ord_%00",
        "/v1/payouts/po_%00",
        "/v1/events/%00",
        "/v1/idempotency-keys/a%00b",
        "/v1/reconciliation-runs/rec_%00",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(
            error_code(&json(response).await),
            "resource_missing",
            "{path}"
        );
    }
    for list in ["orders", "payouts", "events", "webhook-endpoints"] {
        let response = app.get(&format!("/v1/{list}?starting_after=x%00")).await;
        assert_eq!(response.status(), 400, "{list}");
        assert_eq!(
            json(response).await["error"]["param"],
            "starting_after",
            "{list}"
        );
    }
}

/// The backstop: text with U+0000 that reaches a statement (here in a signed partner event,
/// which is parsed with its own type) is a `400`, not a `500` the partner would retry for ever.
#[tokio::test]
async fn a_signed_partner_event_holding_nul_is_a_400() {
    use kaadxpay_partner::{signature, TEST_WEBHOOK_SECRET};
    let app = spawn_app().await;
    let now = chrono::Utc::now();
    let body = serde_json::to_vec(&serde_json::json!({
        "event_id": "evt_\u{0}", "type": "transfer.paid", "created_at": now,
        "data": {"transfer": {
            "id": "tr_1", "status": "paid", "amount": 100, "currency": "EUR", "reference": "po_1",
            "destination": {"account_holder": "Ada", "iban": "DE89370400440532013000"},
            "idempotency_key": "kxp-po_1-k", "created_at": now,
        }}
    }))
    .unwrap();
    let response = app
        .client
        .post(format!("{}/webhooks/partner", app.base_url))
        .header(
            signature::HEADER,
            signature::sign(TEST_WEBHOOK_SECRET, now.timestamp(), &body),
        )
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(app.count("partner_events").await, 0);
}
