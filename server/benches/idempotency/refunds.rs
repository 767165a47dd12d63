//! What a refund costs (issue 30), measured as a new order's key is: a one-cent refund of one
//! captured order under each new key, its commits and WAL per key on a quiet database
//! ([`writes`]) and its round trips and statements through the counting proxy
//! ([`crate::costs`]).
//! The payout worker is idle (see [`crate::stack`]), so each refund stays `pending`: these are
//! the request's own costs (the checks, the order's conditional update, the ledger's journal and
//! statement item, the refund, its event and the key's record), not the partner leg's.

use anyhow::{ensure, Context};
use serde_json::Value;

use crate::costs::{PerRequest, Proxied};
use crate::stack::{Keyed, Stack};
use crate::writes::{self, Writes};

/// The captured order's amount: enough cents for every refund of the windows and warm-ups.
const ORDER_AMOUNT: i64 = 1_000_000;

pub struct RefundCosts {
    pub writes: Writes,
    pub trips: PerRequest,
}

pub async fn measure(stack: &Stack) -> anyhow::Result<RefundCosts> {
    let order = captured_order(stack).await?;
    let refund = Keyed::Refund { order: &order };
    let writes = writes::measure(stack, "refund-writes", refund).await?;
    let proxied = Proxied::start(stack, refund).await?;
    let trips = proxied.new_keys(stack, "rt-refund", refund).await?;
    Ok(RefundCosts { writes, trips })
}

/// An order of [`ORDER_AMOUNT`] EUR cents, captured: the money the refunds give back.
async fn captured_order(stack: &Stack) -> anyhow::Result<String> {
    let client = reqwest::Client::new();
    let created: Value = client
        .post(format!("{}/v1/orders", stack.base_url))
        .bearer_auth(&stack.merchant.api_key)
        .header("idempotency-key", "refunded-order")
        .json(&serde_json::json!({"amount": ORDER_AMOUNT, "currency": "EUR"}))
        .send()
        .await?
        .json()
        .await?;
    let id = created["id"]
        .as_str()
        .with_context(|| format!("the order to refund was not made: {created}"))?
        .to_owned();
    let captured = client
        .put(format!("{}/v1/orders/{id}", stack.base_url))
        .bearer_auth(&stack.merchant.api_key)
        .json(&serde_json::json!({"status": "captured"}))
        .send()
        .await?;
    ensure!(
        captured.status().is_success(),
        "the order to refund was not captured: {}",
        captured.status()
    );
    Ok(id)
}
