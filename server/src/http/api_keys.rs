//! `/v1/api-keys`: create and roll (idempotent; the first answer is the only one that shows the
//! new secret), list, read and revoke a merchant's API keys. Writing needs a read-write key
//! (the [`Merchant`] extractor refuses the others).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::author::{by_key, ClientAddress};
use super::body::Body;
use super::error::ApiResult;
use super::list::PageQuery;
use super::outcome::{execute, KEY_STATUS};
use crate::accounts::auth::keys::{self, ApiKey, CreateKey, NewKey, RollKey, RollParameters};
use crate::accounts::auth::{Merchant, Secret};
use crate::contract::error::Error;
use crate::contract::input::MAX_BODY_BYTES;
use crate::contract::pagination::{List, Page};
use crate::edge::middleware::RequestId;
use crate::idempotency::IdempotencyKey;
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_api_key, list_api_keys))
        .routes(routes!(get_api_key, revoke_api_key))
        .routes(routes!(roll_api_key))
}

/// Creates a key (read-write unless `access` says `read_only`), with its secret.
#[utoipa::path(post, path = "/v1/api-keys", tag = "api_keys",
    params(("Idempotency-Key" = String, Header)), request_body = NewKey,
    responses((status = 201, description = "The key, with its secret; a replay answers the same key with `\"secret\": null`.", body = ApiKey)))]
async fn create_api_key(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Body(new_key): Body<NewKey>,
) -> Response {
    let secret = Secret::generate(state.mode);
    let command = CreateKey {
        key: new_key,
        for_merchant: false,
        secret: secret.clone(),
    };
    let answer = execute(&state, &merchant, client, &key, &request_id, command).await;
    // The old key may have stopped now: this process lets it in no more, notification or not.
    state.api_keys.forget_merchant(&merchant.id);
    revealed(answer, &secret).await
}

/// Rolls the key: a successor with the same name and access and a new secret; the key itself
/// keeps working for the `overlap` (`now`, `1h`, `24h`, `7d`), then expires.
#[utoipa::path(post, path = "/v1/api-keys/{id}/roll", tag = "api_keys",
    params(("Idempotency-Key" = String, Header)), request_body = RollParameters,
    responses((status = 201, description = "The successor, with its secret; a replay answers it with `\"secret\": null`.", body = ApiKey),
        (status = 409, description = "The key has expired already.")))]
async fn roll_api_key(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    key: IdempotencyKey,
    RequestId(request_id): RequestId,
    Path(key_id): Path<String>,
    Body(parameters): Body<RollParameters>,
) -> Response {
    let secret = Secret::generate(state.mode);
    let command = RollKey {
        key_id,
        parameters,
        secret: secret.clone(),
    };
    let answer = execute(&state, &merchant, client, &key, &request_id, command).await;
    // The old key may have stopped now: this process lets it in no more, notification or not.
    state.api_keys.forget_merchant(&merchant.id);
    revealed(answer, &secret).await
}

/// The answer of a command that made a key with `secret`, with the secret shown when this
/// request executed it (only then: the stored answer, which replays get, has none).
async fn revealed(response: Response, secret: &Secret) -> Response {
    let executed = response.status() == StatusCode::CREATED
        && response
            .headers()
            .get(KEY_STATUS)
            .is_some_and(|status| status == "new");
    if !executed {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let revealed = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(stored) => ApiKey::reveal(&stored, secret).map_err(anyhow::Error::from),
        Err(err) => Err(anyhow::Error::from(err)),
    };
    match revealed {
        Ok(body) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, axum::body::Body::from(Bytes::from(body)))
        }
        Err(err) => {
            Error::Internal(err.context("the new key's answer could not be read")).into_response()
        }
    }
}

/// The merchant's keys, newest first (expired ones included), without their secrets.
#[utoipa::path(get, path = "/v1/api-keys", tag = "api_keys", params(PageQuery),
    responses((status = 200, body = List<ApiKey>)))]
async fn list_api_keys(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<ApiKey>>> {
    let rows = keys::list(&state.pool, &merchant.id, &page).await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One of the merchant's API keys, without its secret (revoked and expired ones included).
#[utoipa::path(get, path = "/v1/api-keys/{id}", tag = "api_keys",
    responses((status = 200, body = ApiKey), (status = 404)))]
async fn get_api_key(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<ApiKey>> {
    keys::find(&state.pool, &merchant.id, &id)
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("API key"))
}

/// Revokes the key: it expires now, and every process refuses it within seconds.
#[utoipa::path(delete, path = "/v1/api-keys/{id}", tag = "api_keys",
    responses((status = 200, description = "The key, with `expires_at` now (or when it expired).", body = ApiKey), (status = 404)))]
async fn revoke_api_key(
    State(state): State<AppState>,
    merchant: Merchant,
    client: ClientAddress,
    Path(id): Path<String>,
) -> ApiResult<Json<ApiKey>> {
    let revoked = keys::revoke(&state.pool, &merchant.id, &id, &by_key(&merchant, client)).await?;
    state.api_keys.forget_merchant(&merchant.id);
    revoked.map(Json).ok_or(Error::ResourceMissing("API key"))
}
