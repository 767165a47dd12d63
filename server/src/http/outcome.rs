//! Commands over HTTP: [`execute`] runs one through the engine and renders what became of it,
//! with `Idempotency-Key-Status` on every answer that passed through the engine and
//! `Idempotent-Replayed: true` (and the stored `Location`) on a replay.

use axum::http::{header, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};

use super::author::{by_key, ClientAddress};
use super::error::{say_whether_to_retry, status_code};
use crate::accounts::auth::Merchant;
use crate::contract::error::{should_retry, stored_refusal, Error};
use crate::idempotency::{IdempotencyKey, Outcome, StoredResponse};
use crate::service::commands::{self, Caller, Command};
use crate::service::state::AppState;

pub const KEY_STATUS: HeaderName = HeaderName::from_static("idempotency-key-status");
pub const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// The one path of every `POST` that takes an `Idempotency-Key`.
pub async fn execute<C: Command>(
    state: &AppState,
    merchant: &Merchant,
    client: ClientAddress,
    key: &IdempotencyKey,
    request_id: &str,
    command: C,
) -> Response {
    let by = by_key(merchant, client);
    let caller = Caller {
        merchant_id: &merchant.id,
        key,
        request_id,
        by: &by,
        maker: merchant.maker.as_ref(),
        sealer: &state.sealer,
    };
    // Boxed: the engine's future is large, and every layer above moves this one by value.
    match Box::pin(commands::run(state, &caller, &command)).await {
        Ok(outcome) => render(outcome),
        Err(refused) => refused.into_response(),
    }
}

fn render(outcome: Outcome) -> Response {
    let verdict = outcome.verdict().as_str();
    let response = match outcome {
        Outcome::Executed(stored) => stored_response(stored),
        Outcome::Replayed(stored) => {
            let mut response = stored_response(stored);
            response
                .headers_mut()
                .insert(REPLAYED, HeaderValue::from_static("true"));
            response
        }
        Outcome::InProgress => {
            crate::contract::error::Error::IdempotencyRequestInProgress.into_response()
        }
        Outcome::KeyReused(reuse) => Error::from(reuse).into_response(),
        Outcome::Interrupted(error) => error.into_response(),
    };
    with_key_status(response, verdict)
}

/// A stored answer, byte for byte, with its `Location` (and, for a stored refusal,
/// `Kaadxpay-Should-Retry` as its code says).
fn stored_response(stored: StoredResponse) -> Response {
    let refusal = stored_refusal(&stored);
    let mut response = (
        status_code(stored.status),
        [(header::CONTENT_TYPE, "application/json")],
        stored.body,
    )
        .into_response();
    if let Some(location) = stored
        .location
        .and_then(|location| HeaderValue::from_str(&location).ok())
    {
        response.headers_mut().insert(header::LOCATION, location);
    }
    if let Some((code, _)) = refusal {
        say_whether_to_retry(&mut response, should_retry(stored.status, &code));
    }
    response
}

fn with_key_status(mut response: Response, key_status: &'static str) -> Response {
    response
        .headers_mut()
        .insert(KEY_STATUS, HeaderValue::from_static(key_status));
    response
}
