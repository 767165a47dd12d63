//! No input, however malformed, panics a handler or drops the connection (API.md §1): property
//! tests drive every body parser with arbitrary JSON and strings (each rejection must be a
//! `400` naming its `param`), and HTTP tests send what once crashed a handler, oversized bodies
//! and idempotency keys in every shape.

mod common;

use axum::extract::FromRequest;
use proptest::prelude::*;
use serde_json::{Map, Value};

use common::{error_code, json, spawn_app};
use server::error::Error;
use server::http::body::Body;
use server::idempotency::fingerprint::fingerprint;
use server::input::command;
use server::payments::orders::{CreateOrder, UpdateOrder};
use server::payments::payouts::CreatePayout;
use server::webhooks::endpoints::CreateEndpoint;

/// Any JSON value, nested a few levels, with strings that include non-ASCII characters.
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
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
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
        if let Err(error) = command::<CreateOrder>(&body) {
            assert_named_400("CreateOrder", &body, error);
        }
        if let Err(error) = command::<CreatePayout>(&body) {
            assert_named_400("CreatePayout", &body, error);
        }
        if let Err(error) = command::<CreateEndpoint>(&body) {
            assert_named_400("CreateEndpoint", &body, error);
        }
        if let Err(error) = command::<UpdateOrder>(&body) {
            assert_named_400("UpdateOrder", &body, error);
        }
        assert_eq!(fingerprint("POST /v1/orders", &body).len(), 32);
    }

    #[test]
    fn payout_destinations_of_any_text_never_panic(
        holder in any::<String>(),
        iban in any::<String>(),
    ) {
        let body = serde_json::json!({
            "amount": 100, "currency": "EUR",
            "destination": {"account_holder": holder, "iban": iban},
        });
        if let Err(error) = command::<CreatePayout>(&body) {
            assert_named_400("CreatePayout", &body, error);
        }
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
