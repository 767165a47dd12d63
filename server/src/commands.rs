//! Commands: the operations that take an `Idempotency-Key` (create an order, a payout, a webhook
//! endpoint; redeliver an event). Each is a typed value whose effect runs at most once per
//! `(merchant, key)`; [`run`] is the one path every adapter takes to execute one, so the API
//! and the console get the same answers from the same engine.

use std::future::Future;

use serde::Serialize;
use sqlx::PgConnection;

use crate::error::Error;
use crate::idempotency::{IdempotencyKey, IdempotentRequest, Outcome, StoredResponse};
use crate::state::AppState;

/// Who asks, and under which key.
pub struct Caller<'a> {
    pub merchant_id: &'a str,
    pub key: &'a IdempotencyKey,
    /// The request's id, for the engine's log events.
    pub request_id: &'a str,
}

/// An operation with an effect, run at most once per key. Its serialised form is what makes two
/// requests with one key the same request.
pub trait Command: Serialize + Send + Sync {
    /// The method and route template that names it, e.g. `POST /v1/orders`.
    const ENDPOINT: &'static str;

    /// Checks that refuse before the key is claimed (so a refusal here leaves no record): those
    /// that need the database or the network, beyond the checks of the command's own types.
    fn check(
        &self,
        _state: &AppState,
        _merchant_id: &str,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        async { Ok(()) }
    }

    /// The effect, inside the transaction that also completes the key's record; the answer it
    /// returns is stored and replayed. An `Err` that is definitive (a refusal such as
    /// `402 insufficient_funds`) is stored too; any other leaves the key free for a retry.
    fn apply(
        &self,
        conn: &mut PgConnection,
        caller: &Caller<'_>,
    ) -> impl Future<Output = Result<StoredResponse, Error>> + Send;
}

/// Runs `command` for `caller` through the idempotency engine.
pub async fn run<C: Command>(
    state: &AppState,
    caller: &Caller<'_>,
    command: &C,
) -> Result<Outcome, Error> {
    command.check(state, caller.merchant_id).await?;
    let fingerprinted = serde_json::to_value(command)
        .map_err(|err| anyhow::anyhow!("a command did not serialise: {err}"))?;
    let request = IdempotentRequest {
        merchant_id: caller.merchant_id,
        key: caller.key,
        endpoint: C::ENDPOINT,
        body: &fingerprinted,
        request_id: caller.request_id,
    };
    let outcome = state
        .idempotency
        .execute(&request, || async {
            let mut tx = state.pool.begin().await?;
            let response = command.apply(&mut tx, caller).await?;
            Ok((tx, response))
        })
        .await?;
    Ok(outcome)
}
