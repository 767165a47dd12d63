//! The checker: after quiescence (payouts settled, the sweeper and reconciliation `--apply`
//! run, webhooks drained), it compares what the clients were told with the database, the
//! partner's ledger and the webhook receiver, counts what is lost, doubled or stuck, and asks `kaadxpay ledger verify` whether every
//! cent is accounted for.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;
use sqlx::PgPool;

use crate::cluster::Cluster;
use crate::receiver::Received;
use crate::workload::{Call, Op};

/// What the checker found: counts for the table, and every violation in a sentence.
#[derive(Debug, Default)]
pub struct Findings {
    pub orders: usize,
    pub captures: usize,
    pub payouts: usize,
    pub transfers: usize,
    pub duplicate_transfers: usize,
    pub reversal_calls: u64,
    pub events: usize,
    pub lost: usize,
    pub duplicates: usize,
    pub stuck: usize,
    pub violations: Vec<String>,
}

impl Findings {
    fn violation(&mut self, text: String) {
        self.violations.push(text);
    }
}

async fn count(pool: &PgPool, sql: &str, merchants: &[String]) -> anyhow::Result<i64> {
    Ok(sqlx::query_scalar(sql)
        .bind(merchants)
        .fetch_one(pool)
        .await?)
}

/// Polls `check` every 500 ms for at most `within`; whether it came true.
async fn settle<F, Fut>(within: Duration, check: F) -> anyhow::Result<bool>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<bool>>,
{
    let deadline = Instant::now() + within;
    loop {
        if check().await? {
            return Ok(true);
        }
        if Instant::now() > deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

const UNSETTLED_PAYOUTS: &str =
    "SELECT count(*) FROM payouts WHERE merchant_id = ANY($1) AND status IN ('pending', 'in_transit')";
const IN_PROGRESS_KEYS: &str =
    "SELECT count(*) FROM idempotency_keys WHERE merchant_id = ANY($1) AND status = 'in_progress'";
const PENDING_DELIVERIES: &str =
    "SELECT count(*) FROM webhook_deliveries WHERE merchant_id = ANY($1) AND status = 'pending'";

async fn get_json(url: &str) -> anyhow::Result<Value> {
    Ok(reqwest::Client::new()
        .get(url)
        .timeout(Duration::from_secs(10))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// Lets the cluster finish its work: payouts settle, the sweeper fails abandoned keys,
/// reconciliation reverses duplicates (for every day the partner has transfers of), and
/// webhooks are delivered. Returns the reconciliation summaries.
pub async fn quiesce(
    cluster: &Cluster,
    pool: &PgPool,
    merchants: &[String],
) -> anyhow::Result<Vec<String>> {
    settle(Duration::from_secs(180), || async {
        Ok(count(pool, UNSETTLED_PAYOUTS, merchants).await? == 0)
    })
    .await?;
    settle(Duration::from_secs(60), || async {
        cluster.kaadxpay(&["sweep"]).await?;
        Ok(count(pool, IN_PROGRESS_KEYS, merchants).await? == 0)
    })
    .await?;
    let transfers = get_json(&format!(
        "{}/v1/transfers",
        cluster.url("KAADXPAY_PARTNER_URL")
    ))
    .await?;
    let mut dates: Vec<String> = transfers["data"]
        .as_array()
        .context("the partner's transfer list")?
        .iter()
        .filter_map(|transfer| {
            transfer["created_at"]
                .as_str()
                .map(|at| at[..10].to_owned())
        })
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    dates.sort();
    let mut summaries = Vec::new();
    for date in dates {
        let out = cluster
            .kaadxpay(&["reconcile", "--date", &date, "--apply"])
            .await?;
        summaries.push(format!("{date}: {}", out.trim()));
    }
    // The reversals' webhooks reach the payouts; every delivery is made.
    settle(Duration::from_secs(180), || async {
        Ok(count(pool, PENDING_DELIVERIES, merchants).await? == 0
            && count(pool, UNSETTLED_PAYOUTS, merchants).await? == 0)
    })
    .await?;
    Ok(summaries)
}

#[derive(sqlx::FromRow)]
struct PayoutRow {
    id: String,
    idempotency_key: String,
    status: String,
    partner_transfer_id: Option<String>,
    duplicates_reversed: i32,
}

/// Verifies everything against the calls the clients made.
pub async fn check(
    cluster: &Cluster,
    pool: &PgPool,
    merchants: &[String],
    calls: &[Call],
) -> anyhow::Result<Findings> {
    let mut findings = Findings::default();
    let acked = |op: Op, status: u16| {
        calls
            .iter()
            .filter(move |call| call.op == op && call.status == Some(status))
    };
    let unacknowledged: HashSet<(&str, &str)> = calls
        .iter()
        .filter(|call| call.status.is_none())
        .map(|call| (call.merchant.as_str(), call.key.as_str()))
        .collect();
    if !unacknowledged.is_empty() {
        findings.violation(format!(
            "{} calls never got a definitive answer",
            unacknowledged.len()
        ));
    }

    // Orders: one per acknowledged key, none lost, none extra; captures held.
    let orders: HashMap<String, String> = sqlx::query_as::<_, (String, String)>(
        "SELECT id, status FROM orders WHERE merchant_id = ANY($1)",
    )
    .bind(merchants)
    .fetch_all(pool)
    .await?
    .into_iter()
    .collect();
    let keys: HashMap<(String, String), (String, Option<String>)> =
        sqlx::query_as::<_, (String, String, String, Option<String>)>(
            "SELECT merchant_id, key, status::text, resource_id FROM idempotency_keys WHERE merchant_id = ANY($1)",
        )
        .bind(merchants)
        .fetch_all(pool)
        .await?
        .into_iter()
        .map(|(merchant, key, status, resource)| ((merchant, key), (status, resource)))
        .collect();
    let mut acked_orders = HashSet::new();
    for call in acked(Op::CreateOrder, 201) {
        let id = call.resource_id().unwrap_or_default().to_owned();
        findings.orders += 1;
        if !orders.contains_key(&id) {
            findings.lost += 1;
            findings.violation(format!(
                "order {id} (key {}) acknowledged but not stored",
                call.key
            ));
        }
        let record = keys.get(&(call.merchant.clone(), call.key.clone()));
        if record.and_then(|(_, resource)| resource.as_deref()) != Some(id.as_str()) {
            findings.violation(format!(
                "key {} answered {id} but its record says {record:?}",
                call.key
            ));
        }
        acked_orders.insert(id);
    }
    let unacknowledged_resources: HashSet<&str> = keys
        .iter()
        .filter(|((merchant, key), _)| unacknowledged.contains(&(merchant.as_str(), key.as_str())))
        .filter_map(|(_, (_, resource))| resource.as_deref())
        .collect();
    for id in orders.keys() {
        if !acked_orders.contains(id) && !unacknowledged_resources.contains(id.as_str()) {
            findings.duplicates += 1;
            findings.violation(format!(
                "order {id} exists but no client was answered with it"
            ));
        }
    }
    for call in acked(Op::Capture, 200) {
        findings.captures += 1;
        if orders.get(&call.key).map(String::as_str) != Some("captured") {
            findings.lost += 1;
            findings.violation(format!(
                "capture of {} acknowledged but the order is not captured",
                call.key
            ));
        }
    }

    // Payouts: the same, plus a refusal (402) left no payout.
    let payouts: Vec<PayoutRow> = sqlx::query_as(
        "SELECT id, idempotency_key, status, partner_transfer_id, duplicates_reversed \
         FROM payouts WHERE merchant_id = ANY($1)",
    )
    .bind(merchants)
    .fetch_all(pool)
    .await?;
    let payout_ids: HashSet<&str> = payouts.iter().map(|payout| payout.id.as_str()).collect();
    let mut acked_payouts = HashSet::new();
    for call in acked(Op::Payout, 201) {
        let id = call.resource_id().unwrap_or_default().to_owned();
        findings.payouts += 1;
        if !payout_ids.contains(id.as_str()) {
            findings.lost += 1;
            findings.violation(format!(
                "payout {id} (key {}) acknowledged but not stored",
                call.key
            ));
        }
        acked_payouts.insert(id);
    }
    for payout in &payouts {
        if !acked_payouts.contains(&payout.id)
            && !unacknowledged_resources.contains(payout.id.as_str())
        {
            findings.duplicates += 1;
            findings.violation(format!(
                "payout {} (key {}) exists but no client was answered with it",
                payout.id, payout.idempotency_key
            ));
        }
    }

    // Balances: captured orders minus payouts that are not failed or reversed.
    let balances: Vec<(String, i64, i64, i64)> = sqlx::query_as(
        "SELECT m.id, \
           coalesce((SELECT available FROM balances b WHERE b.merchant_id = m.id AND b.currency = 'EUR'), 0), \
           coalesce((SELECT sum(amount) FROM orders o WHERE o.merchant_id = m.id AND o.status = 'captured'), 0)::bigint, \
           coalesce((SELECT sum(amount) FROM payouts p WHERE p.merchant_id = m.id AND p.status NOT IN ('failed', 'reversed')), 0)::bigint \
         FROM merchants m WHERE m.id = ANY($1)",
    )
    .bind(merchants)
    .fetch_all(pool)
    .await?;
    for (merchant, available, captured, paid_out) in balances {
        if available != captured - paid_out {
            findings.violation(format!(
                "{merchant}: balance {available} != captured {captured} - payouts {paid_out}"
            ));
        }
    }

    check_partner(cluster, &payouts, &mut findings).await?;
    check_events(cluster, pool, merchants, &orders, &payouts, &mut findings).await?;

    // Nothing left half-done.
    for (what, sql) in [
        ("idempotency keys in_progress", IN_PROGRESS_KEYS),
        ("payouts pending or in_transit", UNSETTLED_PAYOUTS),
        ("webhook deliveries pending", PENDING_DELIVERIES),
        (
            "webhook deliveries failed",
            "SELECT count(*) FROM webhook_deliveries WHERE merchant_id = ANY($1) AND status = 'failed'",
        ),
        (
            "duplicate reversals claimed but not done",
            "SELECT count(*) FROM partner_reversals WHERE merchant_id = ANY($1) AND state <> 'reversed'",
        ),
    ] {
        let stuck = count(pool, sql, merchants).await?;
        if stuck > 0 {
            findings.stuck += usize::try_from(stuck).unwrap_or_default();
            findings.violation(format!("{stuck} {what}"));
        }
    }

    // Every cent accounted for: `kaadxpay ledger verify` exits 0 (each break is a violation).
    if let Err(broken) = cluster.kaadxpay(&["ledger", "verify"]).await {
        findings.violation(format!("the ledger does not balance: {broken:#}"));
    }
    Ok(findings)
}

/// Each payout has exactly one live transfer at the partner (none when failed), every other
/// transfer for it is reversed, once, and counted on the payout.
async fn check_partner(
    cluster: &Cluster,
    payouts: &[PayoutRow],
    findings: &mut Findings,
) -> anyhow::Result<()> {
    let partner = cluster.url("KAADXPAY_PARTNER_URL");
    let list = get_json(&format!("{partner}/v1/transfers")).await?;
    let stats = get_json(&format!("{partner}/_sim/stats")).await?;
    findings.reversal_calls = stats["reversal_calls"].as_u64().unwrap_or_default();
    let mut by_payout: HashMap<&str, Vec<&Value>> = HashMap::new();
    for transfer in list["data"].as_array().context("transfers")? {
        findings.transfers += 1;
        by_payout
            .entry(transfer["reference"].as_str().unwrap_or_default())
            .or_default()
            .push(transfer);
    }
    for payout in payouts {
        let transfers = by_payout.remove(payout.id.as_str()).unwrap_or_default();
        let live: Vec<&str> = transfers
            .iter()
            .filter(|transfer| transfer["status"] != "reversed")
            .filter_map(|transfer| transfer["id"].as_str())
            .collect();
        let reversed = transfers.len() - live.len();
        findings.duplicate_transfers += transfers.len().saturating_sub(1);
        let expected_live = usize::from(payout.status != "failed");
        if live.len() != expected_live {
            findings.violation(format!(
                "payout {} ({}) has {} live transfers at the partner: {live:?}",
                payout.id,
                payout.status,
                live.len()
            ));
        } else if payout.status == "paid"
            && live.first().copied() != payout.partner_transfer_id.as_deref()
        {
            findings.violation(format!(
                "payout {}'s live transfer {live:?} is not its own {:?}",
                payout.id, payout.partner_transfer_id
            ));
        }
        if i32::try_from(reversed).unwrap_or(i32::MAX) != payout.duplicates_reversed {
            findings.violation(format!(
                "payout {}: {reversed} duplicates reversed at the partner, {} recorded",
                payout.id, payout.duplicates_reversed
            ));
        }
    }
    if !by_payout.is_empty() {
        findings.violation(format!(
            "transfers for references no payout has: {:?}",
            by_payout.keys().collect::<Vec<_>>()
        ));
    }
    let duplicates = u64::try_from(findings.duplicate_transfers).unwrap_or_default();
    if findings.reversal_calls != duplicates {
        findings.violation(format!(
            "{} reversal calls for {duplicates} duplicate transfers (each must be reversed once)",
            findings.reversal_calls
        ));
    }
    Ok(())
}

/// One event per committed change, and each at the receiver at least once.
async fn check_events(
    cluster: &Cluster,
    pool: &PgPool,
    merchants: &[String],
    orders: &HashMap<String, String>,
    payouts: &[PayoutRow],
    findings: &mut Findings,
) -> anyhow::Result<()> {
    let events: Vec<(String, String, Option<String>)> = sqlx::query_as(
        "SELECT id::text, event_type, payload->'data'->'object'->>'id' FROM events WHERE merchant_id = ANY($1)",
    )
    .bind(merchants)
    .fetch_all(pool)
    .await?;
    findings.events = events.len();
    let mut per_object: HashMap<(&str, &str), usize> = HashMap::new();
    for (_, event_type, object) in &events {
        *per_object
            .entry((object.as_deref().unwrap_or_default(), event_type.as_str()))
            .or_default() += 1;
    }
    let mut expected: HashMap<(&str, &str), usize> = HashMap::new();
    for (id, status) in orders {
        expected.insert((id, "order.created"), 1);
        if status == "captured" {
            expected.insert((id, "order.captured"), 1);
        }
    }
    for payout in payouts {
        expected.insert((&payout.id, "payout.created"), 1);
        match payout.status.as_str() {
            "paid" => {
                expected.insert((&payout.id, "payout.in_transit"), 1);
                expected.insert((&payout.id, "payout.paid"), 1);
            }
            "failed" => {
                expected.insert((&payout.id, "payout.failed"), 1);
            }
            _ => {}
        }
    }
    for ((object, event_type), seen) in &per_object {
        // A payout may skip `in_transit` when the partner's `paid` arrives first.
        let wanted = expected
            .get(&(object, event_type))
            .copied()
            .unwrap_or_default();
        let optional = *event_type == "payout.in_transit" && *seen <= 1;
        if *seen != wanted && !optional {
            findings.violation(format!(
                "{seen} {event_type} events for {object} (expected {wanted})"
            ));
        }
    }
    for ((object, event_type), wanted) in &expected {
        if !per_object.contains_key(&(object, event_type)) && *event_type != "payout.in_transit" {
            findings.violation(format!(
                "no {event_type} event for {object} (expected {wanted})"
            ));
        }
    }
    let received: Vec<Received> = serde_json::from_value(
        get_json(&format!(
            "{}/received",
            cluster.url("KAADXPAY_RECEIVER_URL")
        ))
        .await?,
    )?;
    let received: HashSet<&str> = received
        .iter()
        .map(|hook| hook.webhook_id.as_str())
        .collect();
    let missing = events
        .iter()
        .filter(|(id, _, _)| !received.contains(id.as_str()))
        .count();
    if missing > 0 {
        findings.violation(format!(
            "{missing} of {} events never reached the receiver",
            events.len()
        ));
    }
    Ok(())
}
