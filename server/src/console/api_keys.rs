//! The API keys' forms (`/settings/keys`): create a key, roll one with an overlap for the old
//! secret (each under the form's idempotency key, minted when the page was rendered, through the
//! API's commands, so a double click makes one key), and revoke one (a state: asking twice
//! changes nothing). Owners, admins and developers only, with a recent second factor. A new secret is shown once, on the
//! next page, and only to the submit that made it: the API stores no secret, so a replay has
//! none to show, and the first submit's page shows it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{
    Access, ApiKeyChange, ApiKeyId, Console, CurrentUser, Destructive, Done, Permission,
};

use super::confirm;
use super::forms::{made_with_secret, stepped_up_merchant};
use super::kept::{self, Submitted};
use super::notices::answer;
use super::repeats::{self, Guarded};
use super::views::form_key;
use crate::service::state::AppState;
use app::notice::Notice;

const API_KEYS: &str = "/settings/keys";

#[derive(Deserialize)]
pub struct KeyForm {
    csrf: String,
    #[serde(default)]
    idempotency_key: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    access: Access,
    #[serde(default)]
    overlap: String,
    /// `merchant` for a key made for the merchant (owners only); else it acts for its maker.
    #[serde(default)]
    acts_for: String,
}

/// `POST /settings/keys`: a new key (held back as a repeat when another form made a key of
/// the same name minutes ago).
pub async fn create(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    submitted: Submitted,
) -> Response {
    let form: KeyForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let change = ApiKeyChange::Create {
        name: form.name.clone(),
        access: form.access,
        for_merchant: form.acts_for == "merchant",
    };
    change_key(&state, &session, &user, &console, &submitted, &form, change).await
}

/// `POST /settings/keys/{id}/roll` and `/revoke`.
pub async fn act(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Path((id, action)): Path<(ApiKeyId, String)>,
    submitted: Submitted,
) -> Response {
    let form: KeyForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let change = match action.as_str() {
        "roll" => ApiKeyChange::Roll {
            id,
            overlap: form.overlap.clone(),
        },
        "revoke" => ApiKeyChange::Revoke { id },
        _ => return answer(axum::http::StatusCode::NOT_FOUND, Notice::NotFound),
    };
    change_key(&state, &session, &user, &console, &submitted, &form, change).await
}

async fn change_key(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    console: &Arc<dyn Console>,
    submitted: &Submitted,
    form: &KeyForm,
    change: ApiKeyChange,
) -> Response {
    let permission = Permission::ManageIntegrations;
    let resume = submitted.kept(API_KEYS, true);
    let merchant_id =
        match stepped_up_merchant(state, session, user, &form.csrf, permission, &resume).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let key = match form_key(&form.idempotency_key) {
        Ok(key) => key,
        Err(refusal) => return kept::refused(session, API_KEYS, submitted, refusal).await,
    };
    let guard = match &change {
        ApiKeyChange::Create { name, .. } => Some(Guarded {
            form: "api_key",
            merchant_id: &merchant_id,
            key: key.as_str(),
            same: vec![name.trim().to_owned()],
            action: API_KEYS,
        }),
        _ => None,
    };
    let destructive =
        matches!(change, ApiKeyChange::Revoke { .. }).then_some(Destructive::RevokeApiKey);
    if let Some(ask) = confirm::first(session, submitted, destructive, API_KEYS).await {
        return ask;
    }
    let what = match &change {
        ApiKeyChange::Create { .. } => Done::ApiKeyCreated,
        ApiKeyChange::Roll { .. } => Done::ApiKeyRolled,
        ApiKeyChange::Revoke { .. } => Done::Confirmed(Destructive::RevokeApiKey),
    };
    let submit = async {
        let done = console
            .change_api_key(user, &merchant_id, change, &key)
            .await;
        made_with_secret(state, session, submitted, (API_KEYS, what), done).await
    };
    repeats::guarded(&state.pool, session, submitted, guard, submit).await
}
