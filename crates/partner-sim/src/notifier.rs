//! The simulator's webhooks: signed `transfer.*` events (about our transfers, and
//! `transfer.received` about money that came in) posted to the configured URL and retried with
//! back-off until they are acknowledged with a 2xx (the same `event_id` every time).

use std::time::Duration;

use chrono::Utc;

use kaadxpay_partner::signature;
use kaadxpay_partner::wire::{
    IncomingEvent, IncomingTransfer, PartnerEvent, PartnerEventData, Transfer, TRANSFER_RECEIVED,
};
use kaadxpay_types::ids::new_id;
use serde::Serialize;

const MAX_ATTEMPTS: u32 = 12;

#[derive(Clone)]
pub struct Notifier {
    client: reqwest::Client,
    url: Option<String>,
    secret: String,
}

impl Notifier {
    pub fn new(url: Option<String>, secret: String) -> Self {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("a plain HTTP client builds");
        Self {
            client,
            url,
            secret,
        }
    }

    /// Sends `event_type` about `transfer` in the background.
    pub fn send(&self, event_type: &str, transfer: Transfer) {
        let event = PartnerEvent {
            event_id: new_id("evt"),
            event_type: event_type.to_owned(),
            created_at: Utc::now(),
            data: PartnerEventData { transfer },
        };
        self.deliver(event.event_id.clone(), &event);
    }

    /// Sends `transfer.received` about money that came in, in the background.
    pub fn send_incoming(&self, incoming: IncomingTransfer) {
        let event = IncomingEvent {
            event_id: new_id("evt"),
            event_type: TRANSFER_RECEIVED.to_owned(),
            created_at: Some(Utc::now()),
            data: incoming,
        };
        self.deliver(event.event_id.clone(), &event);
    }

    /// Posts `event`, signed, until it is acknowledged or the attempts run out.
    fn deliver(&self, event_id: String, event: &impl Serialize) {
        let Some(url) = self.url.clone() else { return };
        let body = serde_json::to_vec(event).expect("an event serialises");
        let notifier = self.clone();
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(100);
            for _ in 0..MAX_ATTEMPTS {
                let header = signature::sign(&notifier.secret, Utc::now().timestamp(), &body);
                let sent = notifier
                    .client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header(signature::HEADER, header)
                    .body(body.clone())
                    .send()
                    .await;
                if sent.is_ok_and(|response| response.status().is_success()) {
                    return;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(30));
            }
            tracing::warn!(
                event_id,
                "partner webhook given up after {MAX_ATTEMPTS} attempts"
            );
        });
    }
}
