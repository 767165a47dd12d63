//! Money in, reconciled (API.md §13): a run for day D also lists what the partner received on D.
//! Applying credits each incoming transfer that no webhook credited, through the very path the
//! webhook takes ([`top_ups::credit_once`]), whose unique constraint makes it once whatever
//! races it; a run that does not apply credits nothing. Money whose reference is no merchant's
//! is an item `unknown_incoming` (no merchant's: only support staff see it) and credits nobody.

use std::collections::HashSet;

use anyhow::Context;
use chrono::NaiveDate;
use sqlx::PgPool;

use super::Item;
use crate::payments::top_ups::{self, Credit, Via};
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner::wire::IncomingTransfer;

/// What the partner received on `date` (each once, and only that day's, whatever its date filter
/// returns).
pub(super) async fn received_on(
    partner: &PartnerClient,
    date: NaiveDate,
) -> anyhow::Result<Vec<IncomingTransfer>> {
    let mut seen = HashSet::new();
    let listed = partner
        .incoming_on(date)
        .await
        .with_context(|| format!("cannot list the money the partner received on {date}"))?;
    Ok(listed
        .into_iter()
        .filter(|incoming| {
            incoming.received_at.date_naive() == date && seen.insert(incoming.id.clone())
        })
        .collect())
}

/// Credits what no webhook did (when `apply`), and answers the items: one `unknown_incoming` per
/// incoming transfer whose reference is no merchant's.
pub(super) async fn settle(
    pool: &PgPool,
    received: &[IncomingTransfer],
    apply: bool,
) -> anyhow::Result<Vec<Item>> {
    let mut unknown = Vec::new();
    let mut credited = 0;
    for incoming in received {
        if let Err(unusable) = top_ups::check(incoming) {
            tracing::warn!(error = %unusable, "reconciliation passes over an unusable incoming transfer");
            continue;
        }
        let known = if apply {
            match top_ups::credit_once(pool, incoming, Via::Reconciliation).await? {
                Credit::Credited(merchant_id, top_up) => {
                    credited += 1;
                    tracing::info!(event = "top_up.credited", %merchant_id, top_up_id = %top_up.id,
                        incoming_id = incoming.id, "reconciliation credited money no webhook did");
                    true
                }
                Credit::AlreadyCredited => true,
                Credit::UnknownReference => false,
            }
        } else {
            top_ups::merchant_of(pool, &incoming.reference)
                .await?
                .is_some()
        };
        if !known {
            unknown.push(Item {
                merchant_id: None,
                kind: "unknown_incoming".into(),
                transfer_of: None,
                transfer_id: Some(incoming.id.clone()),
                amount: Some(incoming.amount),
                currency: Some(incoming.currency.clone()),
                action: None,
                detail: Some(incoming.reference.clone()),
            });
        }
    }
    tracing::info!(
        received = received.len(),
        credited,
        unknown = unknown.len(),
        apply,
        "reconciled the money received"
    );
    Ok(unknown)
}
