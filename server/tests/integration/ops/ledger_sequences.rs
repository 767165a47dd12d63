//! The ledger under random sequences (issue 30): captures, cancelled orders, payouts and
//! refunds that are paid or refused, top-ups (money the partner received, some reported twice),
//! and replays of any earlier request (its key and body again), in any order, through the API
//! of a real server. After each sequence every journal sums to zero (`kaadxpay ledger verify`),
//! the statement's items add up to the balance with each item's `balance_after` the running
//! sum, and a replay added no item.

use crate::common;

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

use common::{
    assert_ledger_whole, eventually, json, payout_body, spawn_app_and_partner, TestApp, IBAN,
};
use kaadxpay_partner::TEST_WEBHOOK_SECRET;

/// An IBAN the simulator refuses (docs/api.md, "Magic IBANs").
const REFUSED_IBAN: &str = "DE89370400440532013001";

#[derive(Debug, Clone)]
enum Step {
    /// An order of this many cents, captured.
    Capture(i64),
    /// An order of this many cents, cancelled.
    Cancel(i64),
    /// A payout of this many cents, paid (`false`) or refused by the partner (`true`).
    PayOut(i64, bool),
    /// The `n`-th earlier request again, same key and body (modulo their count).
    Replay(usize),
    /// Money received for the merchant at the partner (the simulator's `transfer.received`),
    /// reported a second time under another event id when `true`.
    TopUp(i64, bool),
    /// A refund of this many cents of the latest captured order, paid (`false`) or refused by
    /// the partner (`true`): refused when more than is left, the order not captured or the
    /// balance short, each answer definitive.
    Refund(i64, bool),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (1_i64..5_000).prop_map(Step::Capture),
        (1_i64..5_000).prop_map(Step::Cancel),
        (1_i64..3_000, any::<bool>()).prop_map(|(amount, refused)| Step::PayOut(amount, refused)),
        any::<usize>().prop_map(Step::Replay),
        (1_i64..5_000, any::<bool>()).prop_map(|(amount, again)| Step::TopUp(amount, again)),
        (1_i64..3_000, any::<bool>()).prop_map(|(amount, refused)| Step::Refund(amount, refused)),
    ]
}

/// A POST the sequence made: to replay it.
struct Sent {
    path: String,
    key: String,
    body: String,
}

async fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let (app, partner_url) = spawn_app_and_partner(0, &["--payout-interval", "20ms"]).await;
    let reference = json(app.get("/v1/funding-account").await).await["reference"].clone();
    let mut top_ups = 0;
    let mut sent: Vec<Sent> = Vec::new();
    let mut payouts = Vec::new();
    let mut refunds = Vec::new();
    let mut captured: Option<String> = None;
    for (n, step) in steps.into_iter().enumerate() {
        let key = format!("step-{n}");
        match step {
            Step::Capture(amount) | Step::Cancel(amount) => {
                let body = format!(r#"{{"amount": {amount}, "currency": "EUR"}}"#);
                let order = json(app.post("/v1/orders", Some(&key), &body).await).await;
                let to = if matches!(step, Step::Capture(_)) {
                    "captured"
                } else {
                    "cancelled"
                };
                let path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
                let moved = app.put(&path, &format!(r#"{{"status": "{to}"}}"#)).await;
                prop_assert_eq!(moved.status().as_u16(), 200);
                if to == "captured" {
                    captured = Some(path);
                }
                sent.push(Sent {
                    path: "/v1/orders".into(),
                    key,
                    body,
                });
            }
            Step::PayOut(amount, refused) => {
                let iban = if refused { REFUSED_IBAN } else { IBAN };
                let body = payout_body(amount, iban).to_string();
                let answer = app.post("/v1/payouts", Some(&key), &body).await;
                let status = answer.status().as_u16();
                prop_assert!(status == 201 || status == 402, "payout answered {}", status);
                if status == 201 {
                    payouts.push(json(answer).await["id"].as_str().unwrap().to_owned());
                }
                sent.push(Sent {
                    path: "/v1/payouts".into(),
                    key,
                    body,
                });
            }
            Step::Replay(which) if !sent.is_empty() => {
                let earlier = &sent[which % sent.len()];
                let again = app
                    .post(&earlier.path, Some(&earlier.key), &earlier.body)
                    .await;
                let replayed = again.headers().get("idempotent-replayed").is_some();
                prop_assert!(replayed, "a replay of {} was not replayed", earlier.key);
            }
            Step::Replay(_) => {}
            Step::Refund(amount, refused) => {
                let Some(order) = &captured else { continue };
                let iban = if refused { REFUSED_IBAN } else { IBAN };
                let body = serde_json::json!({"amount": amount,
                    "destination": {"account_holder": "Ada Lovelace", "iban": iban}})
                .to_string();
                let path = format!("{order}/refunds");
                let answer = app.post(&path, Some(&key), &body).await;
                let status = answer.status().as_u16();
                prop_assert!(
                    matches!(status, 201 | 402 | 409),
                    "refund answered {}",
                    status
                );
                if status == 201 {
                    refunds.push(json(answer).await["id"].as_str().unwrap().to_owned());
                }
                sent.push(Sent { path, key, body });
            }
            Step::TopUp(amount, again) => {
                let incoming: Value = app
                    .client
                    .post(format!("{partner_url}/_sim/incoming"))
                    .json(&serde_json::json!({"amount": amount, "currency": "EUR",
                        "reference": reference}))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                top_ups += 1;
                if again {
                    let event = serde_json::json!({"event_id": format!("evt_again_{n}"),
                        "type": "transfer.received", "data": incoming});
                    let body = serde_json::to_vec(&event).unwrap();
                    let now = chrono::Utc::now().timestamp();
                    let answer = app
                        .client
                        .post(format!("{}/webhooks/partner", app.base_url))
                        .header(
                            kaadxpay_partner::signature::HEADER,
                            kaadxpay_partner::signature::sign(TEST_WEBHOOK_SECRET, now, &body),
                        )
                        .body(body)
                        .send()
                        .await
                        .unwrap();
                    prop_assert_eq!(answer.status().as_u16(), 200);
                }
            }
        }
    }
    eventually(Duration::from_secs(15), "every top-up credited", || async {
        app.count("top_ups").await == top_ups
    })
    .await;
    settled(&app, "/v1/payouts", &payouts, ["paid", "failed"]).await;
    settled(&app, "/v1/refunds", &refunds, ["succeeded", "failed"]).await;
    assert_ledger_whole(&app.db_url);
    statement_adds_up(&app).await
}

/// Every one of `ids` under `collection` (payouts, refunds) in one of its `finals` states.
async fn settled(app: &TestApp, collection: &str, ids: &[String], finals: [&str; 2]) {
    for id in ids {
        let path = format!("{collection}/{id}");
        eventually(Duration::from_secs(15), "settled", || async {
            let status = json(app.get(&path).await).await["status"].clone();
            finals.iter().any(|state| status == *state)
        })
        .await;
    }
}

/// The statement, oldest first, runs to the balance: each item's `balance_after` is the sum so
/// far, and the last is what `available` is.
async fn statement_adds_up(app: &TestApp) -> Result<(), TestCaseError> {
    let page = json(app.get("/v1/balance-transactions?limit=100").await).await;
    prop_assert_eq!(&page["has_more"], &Value::Bool(false));
    let mut running = 0;
    for item in page["data"].as_array().unwrap().iter().rev() {
        running += item["amount"].as_i64().unwrap();
        prop_assert_eq!(item["balance_after"].as_i64(), Some(running), "{}", item);
    }
    let balance = json(app.get("/v1/balance").await).await;
    let available = balance["available"]
        .as_array()
        .unwrap()
        .iter()
        .find(|money| money["currency"] == "EUR")
        .map_or(0, |money| money["amount"].as_i64().unwrap());
    prop_assert_eq!(available, running);
    Ok(())
}

#[test]
fn random_sequences_keep_every_journal_at_zero_and_the_statement_equal_to_the_balance() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 6,
        failure_persistence: None,
        ..Config::default()
    });
    let sequences = proptest::collection::vec(step(), 4..16);
    let outcome = runner.run(&sequences, |steps| runtime.block_on(run(steps)));
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
