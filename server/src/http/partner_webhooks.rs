//! `POST /webhooks/partner`: the partner bank's webhooks. The signature is verified over the raw
//! body (`401 invalid_signature` when forged or stale, and nothing changes); each event is
//! applied once (see `payments::partner_events`), and a repeat answers `200` too.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::json;

use crate::contract::error::Error;
use crate::payments::partner_events::{self, Applied, EventError};
use crate::service::state::AppState;
use kaadxpay_partner::signature;
use kaadxpay_partner::wire::PartnerEvent;

pub fn router() -> Router<AppState> {
    Router::new().route("/webhooks/partner", post(receive))
}

async fn receive(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let header = headers
        .get(signature::HEADER)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if let Err(refusal) = signature::verify(
        &state.partner_webhook_secret,
        header,
        &body,
        chrono::Utc::now().timestamp(),
    ) {
        tracing::warn!(reason = %refusal, "refused a partner webhook");
        return Error::InvalidSignature(refusal.to_string()).into_response();
    }
    // Money in has an event of its own shape (API.md §13).
    if super::top_ups::is_incoming(&body) {
        return super::top_ups::received(&state, &body).await;
    }
    let event: PartnerEvent = match serde_json::from_slice(&body) {
        Ok(event) => event,
        Err(err) => {
            return Error::invalid_body(format!("The partner event is not understood: {err}."))
                .into_response()
        }
    };
    match partner_events::apply(&state.pool, &state.partner, &event).await {
        Ok(applied) => Json(json!({"received": true, "duplicate": applied == Applied::Duplicate}))
            .into_response(),
        Err(EventError::Database(err)) => Error::from(err).into_response(),
        // The partner sends the event again later, when whose transfer it is can be told.
        Err(unresolved @ EventError::Unresolved(_)) => {
            tracing::warn!(error = %unresolved, event_id = event.event_id, "partner event deferred");
            Error::ServiceUnavailable.into_response()
        }
    }
}
