//! Commands: the operations that take an `Idempotency-Key` (create an order, a payout, a webhook
//! endpoint; redeliver an event). Each is a typed value whose effect runs at most once per
//! `(merchant, key)`; [`run`] is the one path every adapter takes to execute one, so the API
//! and the console get the same answers from the same engine.

use std::future::Future;

use serde::Serialize;
use sqlx::PgPool;

use crate::error::Error;
use crate::idempotency::{Effected, IdempotencyKey, IdempotentRequest, Lease, Outcome};
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

    /// The effect, under the claim's `lease`: either its changes in an open transaction, in
    /// which the engine completes the key's record ([`Effected::InTransaction`]), or, for an
    /// effect that is local SQL, one statement that makes the changes and completes the record
    /// itself, committed by the effect ([`Effected::Completed`], with [`Lease::COMPLETING`]).
    /// The answer is stored and replayed. An `Err` that is definitive (a refusal such as `402 insufficient_funds`) is
    /// stored too; any other leaves the key free for a retry.
    fn apply(
        &self,
        pool: &PgPool,
        lease: Lease,
        caller: &Caller<'_>,
    ) -> impl Future<Output = Result<Effected, Error>> + Send;
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
        .execute(&request, |lease| command.apply(&state.pool, lease, caller))
        .await?;
    Ok(outcome)
}
