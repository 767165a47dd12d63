//! The API keys' forms (`/settings/keys`): create a key, roll one with an overlap for the old
//! secret (each under the form's idempotency key, minted when the page was rendered, through the
//! API's commands, so a double click makes one key), and revoke one (a state: asking twice
//! changes nothing). Owners, admins and developers only, with a recent second factor. A new secret is shown once, on the
//! next page, and only to the submit that made it: the API stores no secret, so a replay has
//! none to show, and the first submit's page shows it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{ApiKeyChange, Console, CurrentUser, Permission};

use super::forms::{back_with_secret, stepped_up_merchant};
use super::notices::answer;
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
    access: String,
    #[serde(default)]
    overlap: String,
    /// `merchant` for a key made for the merchant (owners only); else it acts for its maker.
    #[serde(default)]
    acts_for: String,
}

/// `POST /settings/keys`: a new key.
pub async fn create(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Form(form): Form<KeyForm>,
) -> Response {
    let change = ApiKeyChange::Create {
        name: form.name.clone(),
        access: form.access.clone(),
        for_merchant: form.acts_for == "merchant",
    };
    change_key(&state, &session, &user, &console, &form, change).await
}

/// `POST /settings/keys/{id}/roll` and `/revoke`.
pub async fn act(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Path((id, action)): Path<(String, String)>,
    Form(form): Form<KeyForm>,
) -> Response {
    let change = match action.as_str() {
        "roll" => ApiKeyChange::Roll {
            id,
            overlap: form.overlap.clone(),
        },
        "revoke" => ApiKeyChange::Revoke { id },
        _ => return answer(axum::http::StatusCode::NOT_FOUND, Notice::NotFound),
    };
    change_key(&state, &session, &user, &console, &form, change).await
}

async fn change_key(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    console: &Arc<dyn Console>,
    form: &KeyForm,
    change: ApiKeyChange,
) -> Response {
    let permission = Permission::ManageIntegrations;
    let merchant_id =
        match stepped_up_merchant(state, session, user, &form.csrf, permission, API_KEYS).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let done = console
        .change_api_key(user, &merchant_id, change, &form.idempotency_key)
        .await;
    back_with_secret(state, session, API_KEYS, done).await
}
