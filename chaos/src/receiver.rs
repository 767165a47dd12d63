//! The webhook receiver of the cluster: answers `200` to every `POST`, and records each one
//! (its `webhook-id`, event type, delivery id and arrival time) as a JSON line in its log file
//! and in memory. `GET /received` lists what it recorded; `GET /healthz` says it is up.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;

/// One webhook as received.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Received {
    /// `webhook-id`: the event id.
    pub webhook_id: String,
    pub event_type: String,
    /// `kaadxpay-delivery-id`: new on every attempt.
    pub delivery_id: String,
    /// Unix time in milliseconds.
    pub received_at_ms: u128,
}

#[derive(Clone)]
struct Receiver {
    log: Arc<tokio::sync::Mutex<tokio::fs::File>>,
    received: Arc<Mutex<Vec<Received>>>,
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap) -> &'static str {
    let received = Received {
        webhook_id: header(&headers, "webhook-id"),
        event_type: header(&headers, "kaadxpay-event-type"),
        delivery_id: header(&headers, "kaadxpay-delivery-id"),
        received_at_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_millis(),
    };
    let mut line = serde_json::to_vec(&received).expect("a record serialises");
    line.push(b'\n');
    // Recorded before the 200 goes out: what the sender saw acknowledged is on disk.
    let mut log = receiver.log.lock().await;
    if let Err(err) = log.write_all(&line).await {
        eprintln!("webhook-receiver: cannot write the log: {err}");
    }
    receiver.received.lock().expect("lock").push(received);
    "ok"
}

async fn list(State(receiver): State<Receiver>) -> Json<Vec<Received>> {
    Json(receiver.received.lock().expect("lock").clone())
}

/// Serves the receiver on `addr`, appending to `log` (created if missing).
pub async fn serve(addr: SocketAddr, log: PathBuf) -> anyhow::Result<()> {
    let file = tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .await?;
    let receiver = Receiver {
        log: Arc::new(tokio::sync::Mutex::new(file)),
        received: Arc::default(),
    };
    let app = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/received", get(list))
        .fallback(post(receive))
        .with_state(receiver);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
