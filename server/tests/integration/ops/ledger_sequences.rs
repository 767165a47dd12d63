//! The ledger under random sequences (issue 30): captures, cancelled orders, payouts and
//! refunds to the magic IBANs of test mode (each sequence sends to every one: paid, refused,
//! returned by the partner, slow, duplicated by the partner, held until released), top-ups (money the partner received,
//! reported once, twice, or never by webhook), reconciliation runs (which reverse duplicate
//! transfers and credit the top-ups no webhook reported), and replays of any earlier request
//! (its key and body again), in any order, through the API of a real server. After each
//! sequence, once every transfer has settled and a last reconciliation has run: each payout and
//! refund ended as its IBAN says, each duplicate transfer was reversed once, each incoming
//! transfer was credited once, every journal sums to zero (`kaadxpay ledger verify`), the
//! statement's items add up to the balance with each item's `balance_after` the running sum,
//! the balance is what the money that stayed in says, and a replay added no item.

use crate::common;

use std::time::Duration;

use chrono::Utc;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use common::{
    assert_ledger_whole, configure_partner, eventually, json, partner_transfers,
    partner_transfers_of, payout_body, spawn_app_and_partner, TestApp,
};
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner::TEST_WEBHOOK_SECRET;
use kaadxpay_partner_sim::scenarios::{MagicIban, Scenario, MAGIC_IBANS};
use server::reconcile::Reconciler;

/// How the partner reports money it received.
#[derive(Debug, Clone, Copy)]
enum Delivery {
    /// One `transfer.received` webhook.
    Once,
    /// Two, under different event ids.
    Twice,
    /// None (the simulator's `drop_incoming_webhooks`): only reconciliation finds it.
    Never,
}

#[derive(Debug, Clone)]
enum Step {
    /// An order of this many cents, captured.
    Capture(i64),
    /// An order of this many cents, cancelled.
    Cancel(i64),
    /// A payout of this many cents to a magic IBAN.
    PayOut(i64, MagicIban),
    /// A refund of this many cents of the latest captured order to a magic IBAN: refused when
    /// more than is left, the order not captured or the balance short, each answer definitive.
    Refund(i64, MagicIban),
    /// The `n`-th earlier request again, same key and body (modulo their count).
    Replay(usize),
    /// Money received for the merchant at the partner.
    TopUp(i64, Delivery),
    /// A reconciliation run of today, applied.
    Reconcile,
}

fn step() -> impl Strategy<Value = Step> {
    let delivery = prop_oneof![
        Just(Delivery::Once),
        Just(Delivery::Twice),
        Just(Delivery::Never)
    ];
    prop_oneof![
        (1_i64..5_000).prop_map(Step::Capture),
        (1_i64..5_000).prop_map(Step::Cancel),
        outgoing_to(proptest::sample::select(&MAGIC_IBANS[..])),
        any::<usize>().prop_map(Step::Replay),
        (1_i64..5_000, delivery).prop_map(|(amount, delivery)| Step::TopUp(amount, delivery)),
        Just(Step::Reconcile),
    ]
}

/// A payout or a refund (either, at random) to an IBAN `iban` draws.
fn outgoing_to(iban: impl Strategy<Value = MagicIban>) -> impl Strategy<Value = Step> {
    (1_i64..3_000, iban, any::<bool>()).prop_map(|(amount, iban, refund)| {
        if refund {
            Step::Refund(amount, iban)
        } else {
            Step::PayOut(amount, iban)
        }
    })
}

/// A sequence: a capture that funds it, then random steps with one payout or refund to each
/// magic IBAN among them (so that every sequence sees every IBAN's outcome), in random order.
fn sequence() -> impl Strategy<Value = Vec<Step>> {
    let every_iban: Vec<_> = MAGIC_IBANS
        .iter()
        .map(|magic| outgoing_to(Just(*magic)))
        .collect();
    let funding = (10_000_i64..20_000).prop_map(Step::Capture);
    let rest = (proptest::collection::vec(step(), 2..12), every_iban)
        .prop_map(|(mut steps, outgoing)| {
            steps.extend(outgoing);
            steps
        })
        .prop_shuffle();
    (funding, rest).prop_map(|(funding, rest)| std::iter::once(funding).chain(rest).collect())
}

/// A POST the sequence made: to replay it.
struct Sent {
    path: String,
    key: String,
    body: String,
}

/// A payout or refund the API made: where it is read, and what its IBAN makes of it.
struct Outgoing {
    path: String,
    amount: i64,
    scenario: Scenario,
    refund: bool,
}

impl Outgoing {
    fn id(&self) -> &str {
        self.path.rsplit('/').next().unwrap()
    }

    /// The status it ends in, once any held transfer is released and any returned one is back.
    fn final_status(&self) -> &'static str {
        match (self.scenario, self.refund) {
            (Scenario::Refused, false) => "failed",
            (Scenario::Returned, false) => "reversed",
            (_, false) => "paid",
            (Scenario::Refused | Scenario::Returned, true) => "failed",
            (_, true) => "succeeded",
        }
    }

    /// What it took out of `available` for good.
    fn kept_out(&self) -> i64 {
        match self.final_status() {
            "paid" | "succeeded" => self.amount,
            _ => 0,
        }
    }
}

/// The sequence's effects so far, as the test expects them.
#[derive(Default)]
struct Model {
    sent: Vec<Sent>,
    outgoing: Vec<Outgoing>,
    /// The latest captured order's path.
    captured: Option<String>,
    /// Captured and topped up: all that came in.
    came_in: i64,
    incoming: i64,
}

async fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let (app, partner_url) = spawn_app_and_partner(
        0,
        &[
            "--payout-interval",
            "20ms",
            // The slow IBAN's first answer never comes: the retry is soon.
            "--partner-timeout",
            "1s",
            "--payout-retry-base",
            "200ms",
        ],
    )
    .await;
    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let reference = json(app.get("/v1/funding-account").await).await["reference"].clone();
    let mut model = Model::default();
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
                    model.captured = Some(path);
                    model.came_in += amount;
                }
                model.sent.push(Sent {
                    path: "/v1/orders".into(),
                    key,
                    body,
                });
            }
            Step::PayOut(amount, magic) => {
                let body = payout_body(amount, magic.iban).to_string();
                send_outgoing(&app, &mut model, "/v1/payouts", key, body, amount, magic).await?;
            }
            Step::Refund(amount, magic) => {
                let Some(order) = &model.captured else {
                    continue;
                };
                let path = format!("{order}/refunds");
                let body = json!({"amount": amount,
                    "destination": {"account_holder": "Ada Lovelace", "iban": magic.iban}})
                .to_string();
                send_outgoing(&app, &mut model, &path, key, body, amount, magic).await?;
            }
            Step::Replay(which) if !model.sent.is_empty() => {
                let earlier = &model.sent[which % model.sent.len()];
                let again = app
                    .post(&earlier.path, Some(&earlier.key), &earlier.body)
                    .await;
                let replayed = again.headers().get("idempotent-replayed").is_some();
                prop_assert!(replayed, "a replay of {} was not replayed", earlier.key);
            }
            Step::Replay(_) => {}
            Step::TopUp(amount, delivery) => {
                receive(&app, &partner_url, &reference, n, amount, delivery).await?;
                model.came_in += amount;
                model.incoming += 1;
            }
            Step::Reconcile => {
                let today = Utc::now().date_naive();
                reconciler.run(today, true).await.unwrap();
            }
        }
    }
    everything_settles(&app, &partner_url, &model).await;
    // The last run reverses the duplicates still standing and credits what no webhook did.
    reconciler.run(Utc::now().date_naive(), true).await.unwrap();
    for duplicated in model
        .outgoing
        .iter()
        .filter(|outgoing| outgoing.scenario == Scenario::Duplicated)
    {
        let mut statuses: Vec<String> = partner_transfers_of(&partner_url, duplicated.id())
            .await
            .iter()
            .map(|transfer| transfer["status"].as_str().unwrap().to_owned())
            .collect();
        statuses.sort();
        prop_assert_eq!(statuses, ["paid", "reversed"], "{}", duplicated.path);
    }
    eventually(Duration::from_secs(15), "every top-up credited", || async {
        app.count("top_ups").await == model.incoming
    })
    .await;
    assert_ledger_whole(&app.db_url);
    let available = statement_adds_up(&app).await?;
    let kept_out: i64 = model.outgoing.iter().map(Outgoing::kept_out).sum();
    prop_assert_eq!(available, model.came_in - kept_out);
    Ok(())
}

/// POSTs a payout or refund `body` to `path` under `key`: one the API makes (`201`) joins the
/// model; one it refuses (`402`, `409`) is a definitive answer.
async fn send_outgoing(
    app: &TestApp,
    model: &mut Model,
    path: &str,
    key: String,
    body: String,
    amount: i64,
    magic: MagicIban,
) -> Result<(), TestCaseError> {
    let answer = app.post(path, Some(&key), &body).await;
    let status = answer.status().as_u16();
    prop_assert!(
        matches!(status, 201 | 402 | 409),
        "{} answered {}",
        path,
        status
    );
    if status == 201 {
        let made = json(answer).await;
        let refund = made["object"] == "refund";
        let collection = if refund { "refunds" } else { "payouts" };
        model.outgoing.push(Outgoing {
            path: format!("/v1/{collection}/{}", made["id"].as_str().unwrap()),
            amount,
            scenario: magic.scenario,
            refund,
        });
    }
    model.sent.push(Sent {
        path: path.to_owned(),
        key,
        body,
    });
    Ok(())
}

/// Money arrives for the merchant at the partner (`POST /_sim/incoming`), its webhook delivered
/// as `delivery` says.
async fn receive(
    app: &TestApp,
    partner_url: &str,
    reference: &Value,
    n: usize,
    amount: i64,
    delivery: Delivery,
) -> Result<(), TestCaseError> {
    let silent = matches!(delivery, Delivery::Never);
    if silent {
        configure_partner(partner_url, json!({"drop_incoming_webhooks": true})).await;
    }
    let incoming: Value = app
        .client
        .post(format!("{partner_url}/_sim/incoming"))
        .json(&json!({"amount": amount, "currency": "EUR", "reference": reference}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    if silent {
        configure_partner(partner_url, json!({"drop_incoming_webhooks": false})).await;
    }
    if matches!(delivery, Delivery::Twice) {
        let event = json!({"event_id": format!("evt_again_{n}"),
            "type": "transfer.received", "data": incoming});
        let body = serde_json::to_vec(&event).unwrap();
        let now = Utc::now().timestamp();
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
    Ok(())
}

/// Releases the held transfers, then waits until every payout and refund is in its final
/// status and no transfer at the partner is still only accepted (a duplicate's second one
/// included).
async fn everything_settles(app: &TestApp, partner_url: &str, model: &Model) {
    let within = Duration::from_secs(20);
    for held in model
        .outgoing
        .iter()
        .filter(|outgoing| outgoing.scenario == Scenario::Held)
    {
        eventually(within, "the held transfer made", || async {
            !partner_transfers_of(partner_url, held.id())
                .await
                .is_empty()
        })
        .await;
        let transfer = &partner_transfers_of(partner_url, held.id()).await[0];
        let release = format!(
            "{partner_url}/_sim/transfers/{}/release",
            transfer["id"].as_str().unwrap()
        );
        let released = app.client.post(release).send().await.unwrap();
        assert_eq!(released.status(), 200);
    }
    for outgoing in &model.outgoing {
        let wanted = outgoing.final_status();
        eventually(within, &format!("{} {wanted}", outgoing.path), || async {
            json(app.get(&outgoing.path).await).await["status"] == wanted
        })
        .await;
    }
    eventually(within, "every transfer settled", || async {
        partner_transfers(partner_url)
            .await
            .iter()
            .all(|transfer| transfer["status"] != "accepted")
    })
    .await;
}

/// The statement, oldest first, runs to the balance: each item's `balance_after` is the sum so
/// far, and the last is what `available` is; answers `available`.
async fn statement_adds_up(app: &TestApp) -> Result<i64, TestCaseError> {
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
    Ok(available)
}

#[test]
fn random_sequences_keep_every_journal_at_zero_and_the_statement_equal_to_the_balance() {
    let mut runner = TestRunner::new(Config {
        cases: 6,
        failure_persistence: None,
        ..Config::default()
    });
    // A runtime per case: its end stops the case's server and closes its connections, so that
    // shrinking a failure does not run PostgreSQL out of them.
    let outcome = runner.run(&sequence(), |steps| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(run(steps))
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
