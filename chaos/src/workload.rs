//! The workload: client tasks, each a merchant of its own, that fund themselves and then create
//! orders, capture them and make payouts through the retrying client until told to stop. Every
//! call is recorded with its attempts and its definitive answer (or that it gave up).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kaadxpay_client::{Answer, Attempt, Client, GaveUp, RetryPolicy};
use rand::Rng;
use serde_json::{json, Value};

use crate::cluster::Cluster;

/// A merchant the workload acts for.
#[derive(Debug, Clone)]
pub struct Merchant {
    pub id: String,
    pub api_key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    RegisterEndpoint,
    CreateOrder,
    Capture,
    Payout,
}

/// One call and what came of it.
#[derive(Debug, Clone)]
pub struct Call {
    pub merchant: String,
    pub op: Op,
    /// The Idempotency-Key (POSTs), or the order id (captures).
    pub key: String,
    pub amount: i64,
    /// The definitive status, `None` when the client gave up.
    pub status: Option<u16>,
    /// The answer's body.
    pub body: Value,
    pub attempts: Vec<Attempt>,
}

impl Call {
    fn new(
        merchant: &Merchant,
        op: Op,
        key: String,
        amount: i64,
        result: Result<Answer, GaveUp>,
    ) -> Self {
        let (status, body, attempts) = match result {
            Ok(answer) => (Some(answer.status.as_u16()), answer.body, answer.attempts),
            Err(gave_up) => (None, Value::Null, gave_up.attempts),
        };
        Self {
            merchant: merchant.id.clone(),
            op,
            key,
            amount,
            status,
            body,
            attempts,
        }
    }

    /// The id of the resource a successful answer carries.
    pub fn resource_id(&self) -> Option<&str> {
        self.body["id"].as_str()
    }
}

/// The destination every payout goes to (a valid IBAN: the partner accepts it).
const DESTINATION: &str = "GB82WEST12345698765432";
/// What each merchant's balance starts with, so that payouts are not refused.
const FUNDING: i64 = 5_000_000;

/// Creates a merchant with `kaadxpay merchants create`.
pub async fn create_merchant(cluster: &Cluster, name: &str) -> anyhow::Result<Merchant> {
    let out = cluster
        .kaadxpay(&["merchants", "create", "--name", name, "--json"])
        .await?;
    let created: Value = serde_json::from_str(out.trim()).context("merchants create --json")?;
    Ok(Merchant {
        id: created["merchant_id"]
            .as_str()
            .context("merchant_id")?
            .to_owned(),
        api_key: created["api_key"].as_str().context("api_key")?.to_owned(),
    })
}

/// One client task: registers a webhook endpoint on the receiver, funds its merchant, then
/// orders, captures and pays out until `stop`; returns every call it made.
pub async fn run_client(
    index: usize,
    api_url: String,
    receiver_url: String,
    merchant: Merchant,
    stop: Arc<AtomicBool>,
) -> Vec<Call> {
    let policy = RetryPolicy {
        attempt_timeout: Duration::from_secs(15),
        give_up_after: Duration::from_secs(180),
        ..RetryPolicy::default()
    };
    let client = Client::new(&api_url, &merchant.api_key, policy);
    let mut calls = Vec::new();
    let key = format!("c{index}-endpoint");
    let body = json!({"url": format!("{receiver_url}/hooks/{}", merchant.id)});
    let answer = client.post("/v1/webhook-endpoints", &key, &body).await;
    calls.push(Call::new(&merchant, Op::RegisterEndpoint, key, 0, answer));

    let mut funded = false;
    let mut round = 0u64;
    while !funded || !stop.load(Ordering::SeqCst) {
        let amount = if funded {
            rand::thread_rng().gen_range(100..5_000)
        } else {
            FUNDING
        };
        let key = format!("c{index}-order-{round}");
        let body = json!({"amount": amount, "currency": "EUR", "description": "chaos"});
        let answer = client.post("/v1/orders", &key, &body).await;
        let order = Call::new(&merchant, Op::CreateOrder, key, amount, answer);
        let order_id = order.resource_id().map(str::to_owned);
        calls.push(order);
        if let Some(order_id) = order_id {
            let answer = client
                .put(
                    &format!("/v1/orders/{order_id}"),
                    &json!({"status": "captured"}),
                )
                .await;
            calls.push(Call::new(&merchant, Op::Capture, order_id, amount, answer));
        }
        if funded && round.is_multiple_of(2) {
            let amount = rand::thread_rng().gen_range(50..1_000);
            let key = format!("c{index}-payout-{round}");
            let body = json!({
                "amount": amount,
                "currency": "EUR",
                "destination": {"account_holder": "Chaos Monkey", "iban": DESTINATION},
            });
            let answer = client.post("/v1/payouts", &key, &body).await;
            calls.push(Call::new(&merchant, Op::Payout, key, amount, answer));
        }
        funded = true;
        round += 1;
    }
    calls
}
