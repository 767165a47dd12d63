//! What handlers take from a request's head: the authenticated [`Merchant`] (from
//! `Authorization: Bearer sk_test_...`) and the [`IdempotencyKey`] header. Each refusal is the
//! contract's error, and each value found is recorded on the request's span (and the merchant
//! with its key's id in the request log's [`CallerSlot`]). A key is refused here what its
//! access and its maker's role do not allow ([`powers`]: `403 forbidden`), before any handler
//! (and so any Idempotency-Key claim) runs.

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::{header, request::Parts};

use super::powers;
use crate::accounts::auth::{authenticate, Merchant};
use crate::contract::error::Error;
use crate::edge::request_log::{Caller, CallerSlot};
use crate::idempotency::key::{IdempotencyKey, HEADER};
use crate::service::state::AppState;

impl FromRequestParts<AppState> for Merchant {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let api_key = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .ok_or(Error::Unauthorized)?;
        let merchant = authenticate(
            &state.pool,
            &state.api_keys,
            &state.key_usage,
            api_key,
            state.mode,
        )
        .await?
        .ok_or(Error::Unauthorized)?;
        tracing::Span::current().record("merchant_id", merchant.id.as_str());
        if let Some(slot) = parts.extensions.get::<CallerSlot>() {
            slot.fill(Caller::api_key(&merchant.id, &merchant.key_id));
        }
        let route = parts
            .extensions
            .get::<MatchedPath>()
            .map_or_else(|| parts.uri.path(), MatchedPath::as_str);
        powers::check(&merchant, &parts.method, route)?;
        Ok(merchant)
    }
}

impl FromRequestParts<AppState> for IdempotencyKey {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> Result<Self, Error> {
        let raw = parts
            .headers
            .get(HEADER)
            .ok_or(Error::IdempotencyKeyMissing)?;
        let key = Self::parse(raw.as_bytes())?;
        tracing::Span::current().record("idempotency_key", key.as_str());
        Ok(key)
    }
}
