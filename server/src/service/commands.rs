//! Commands: the operations that take an `Idempotency-Key` (create an order, a payout, a webhook
//! endpoint; redeliver an event). Each is a typed value whose effect runs at most once per
//! `(merchant, key)`; [`run`] is the one path every adapter takes to execute one, so the API
//! and the console get the same answers from the same engine. Every command's effect is local
//! SQL, so every one takes the engine's one-commit path (`idempotency::once`).

use kaadxpay_types::ids::MerchantId;
use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::contract::error::Error;
use crate::idempotency::fingerprint;
use crate::idempotency::sealed;
use crate::idempotency::{
    IdempotencyKey, IdempotentRequest, Once, Outcome, Ran, Resource, Scope, StoredResponse,
};
use crate::platform::sealing::Sealer;
use crate::service::author::By;
use crate::service::author::Maker;
use crate::service::kernel::Kernel;

/// Who asks, and under which key.
pub struct Caller<'a> {
    pub merchant_id: &'a MerchantId,
    pub key: &'a IdempotencyKey,
    /// The request's id, for the engine's log events.
    pub request_id: &'a str,
    /// Who acts (the API key, or the console's user) and from where, for the audit log.
    pub by: &'a By,
    /// The member the request answers to: the console's user, or the API key's maker (`None`
    /// for a key made by `merchants create`).
    pub maker: Option<&'a Maker>,
    /// Seals what the command keeps of a secret (an answer that shows one, see
    /// [`sealed`]).
    pub sealer: &'a Sealer,
}

/// An operation with an effect, run at most once per key. Its serialised form is what makes two
/// requests with one key the same request.
pub trait Command: Serialize + Send + Sync {
    /// The method and route template that names it, e.g. `POST /v1/orders`.
    const ENDPOINT: &'static str;

    /// Checks that refuse a request about to execute (so a refusal here leaves no record):
    /// those that need the database or the network, beyond the checks of the command's own
    /// types. A key that already has an answer gives it instead, whatever the check says now.
    fn check(
        &self,
        _kernel: &Kernel,
        _merchant_id: &MerchantId,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        async { Ok(()) }
    }

    /// The effect, with the key's record made completed in its transaction ([`Once`]: one
    /// statement, or a transaction of several). An `Err` that is definitive (a refusal such as
    /// `402 insufficient_funds`) is recorded and replayed; any other leaves the key free.
    fn apply(
        &self,
        once: Once,
        caller: &Caller<'_>,
    ) -> impl Future<Output = Result<Ran, Error>> + Send;

    /// The `201` answer that created `resource`, rendered again byte for byte from it (the key's
    /// record keeps only the reference). A command whose answers are not `201`s has its answers'
    /// bytes recorded, and is never asked.
    fn render(
        state: &Kernel,
        merchant_id: &MerchantId,
        resource: Resource,
    ) -> impl Future<Output = Result<StoredResponse, Error>> + Send {
        let _ = (state, merchant_id);
        async move {
            Err(anyhow::anyhow!(
                "{} recorded its answer's bytes, not a reference to {} {}",
                Self::ENDPOINT,
                resource.kind,
                resource.id
            )
            .into())
        }
    }
}

/// The row `resource`'s `201` is rendered again from: the one read with the key's record
/// ([`Once::renders_from`]), or else `find`'s.
pub async fn created_row<T: DeserializeOwned>(
    resource: &Resource,
    find: impl Future<Output = sqlx::Result<Option<T>>>,
) -> Result<T, Error> {
    let (kind, id) = (&resource.kind, &resource.id);
    let row = match &resource.row {
        Some(row) => T::deserialize(row)
            .map_err(|err| anyhow::anyhow!("the {kind} {id} of a record did not read: {err}"))?,
        None => find
            .await?
            .ok_or_else(|| anyhow::anyhow!("the {kind} {id} of a record is gone"))?,
    };
    Ok(row)
}

/// Runs `command` for `caller` through the idempotency engine; the answer opened if it was
/// sealed in the key's record.
pub async fn run<C: Command>(
    state: &Kernel,
    caller: &Caller<'_>,
    command: &C,
) -> Result<Outcome, Error> {
    let outcome = run_sealed(state, caller, command).await?;
    sealed::open_outcome(caller.sealer, caller.merchant_id, caller.key, outcome)
}

/// [`run`], the answer as recorded.
async fn run_sealed<C: Command>(
    state: &Kernel,
    caller: &Caller<'_>,
    command: &C,
) -> Result<Outcome, Error> {
    let request_hash = fingerprint(C::ENDPOINT, command);
    let request = IdempotentRequest {
        scope: Scope::Merchant(caller.merchant_id),
        key: caller.key,
        endpoint: C::ENDPOINT,
        request_hash: &request_hash,
        request_id: caller.request_id,
    };
    if let Some(remembered) = state.idempotency.remembered(&request) {
        return Ok(remembered);
    }
    if let Err(refusal) = command.check(state, caller.merchant_id).await {
        let render = |resource| C::render(state, caller.merchant_id, resource);
        return match state.idempotency.answered(&request, render).await? {
            Some(answered) => Ok(answered),
            None => Err(refusal),
        };
    }
    let outcome = state
        .idempotency
        .execute_once(
            &request,
            |once| command.apply(once, caller),
            |resource| C::render(state, caller.merchant_id, resource),
        )
        .await?;
    Ok(outcome)
}
