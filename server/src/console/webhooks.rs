//! The webhook endpoints' forms: add an endpoint, rotate its secret, send it a test event,
//! recover its failed deliveries
//! (each under the form's idempotency key, minted when the page was rendered, through the
//! API's commands), and disable, enable or delete it (states: asking twice changes nothing). Owners, admins and developers only. A new
//! secret is shown once, on the next page.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{Console, CurrentUser, EndpointChange, EndpointState, Permission};
use app::notice::Notice;

use super::forms::{back_to, back_with_secret, stepped_up_merchant};
use super::notices::answer;
use crate::service::state::AppState;

const WEBHOOKS: &str = "/webhooks";

/// Makes `change` for the member's merchant and goes back to the page, with the new secret
/// kept for it to show once, or the refusal.
async fn change(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    console: &Arc<dyn Console>,
    csrf: &str,
    idempotency_key: &str,
    change: EndpointChange,
) -> Response {
    let merchant_id = match stepped_up_merchant(
        state,
        session,
        user,
        csrf,
        Permission::ManageIntegrations,
        WEBHOOKS,
    )
    .await
    {
        Ok(merchant_id) => merchant_id,
        Err(refused) => return refused,
    };
    let done = console
        .change_endpoint(user, &merchant_id, change, idempotency_key)
        .await;
    back_with_secret(state, session, WEBHOOKS, done).await
}

#[derive(Deserialize)]
pub struct AddForm {
    csrf: String,
    idempotency_key: String,
    url: String,
    /// Event types separated by commas or spaces; none for every event.
    #[serde(default)]
    events: String,
}

pub async fn add(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Form(form): Form<AddForm>,
) -> Response {
    let events = form
        .events
        .split([',', ' '])
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect();
    let add = EndpointChange::Add {
        url: form.url,
        events,
    };
    change(
        &state,
        &session,
        &user,
        &console,
        &form.csrf,
        &form.idempotency_key,
        add,
    )
    .await
}

/// A form about one endpoint: a keyed action's fields, or none for a state.
#[derive(Deserialize)]
pub struct EndpointForm {
    csrf: String,
    #[serde(default)]
    idempotency_key: String,
    #[serde(default)]
    overlap: String,
    #[serde(default)]
    event_type: String,
    #[serde(default)]
    since: String,
}

/// `rotate`, `test` and `recover` act under the form's key; `disable`, `enable` and `delete` ask for a
/// state, so asking twice changes nothing more and needs no key.
pub async fn act(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Path((id, action)): Path<(String, String)>,
    Form(form): Form<EndpointForm>,
) -> Response {
    let keyed = match action.as_str() {
        "rotate" => EndpointChange::RotateSecret {
            id,
            overlap: form.overlap,
        },
        "test" => EndpointChange::SendTestEvent {
            id,
            event_type: form.event_type,
        },
        "recover" => EndpointChange::RecoverFailed {
            id,
            since: form.since,
        },
        asked => {
            let asked = match asked {
                "disable" => EndpointState::Disabled,
                "enable" => EndpointState::Enabled,
                "delete" => EndpointState::Deleted,
                _ => return answer(StatusCode::NOT_FOUND, Notice::NotFound),
            };
            let permission = Permission::ManageIntegrations;
            let stepped_up =
                stepped_up_merchant(&state, &session, &user, &form.csrf, permission, WEBHOOKS);
            let merchant_id = match stepped_up.await {
                Ok(merchant_id) => merchant_id,
                Err(refused) => return refused,
            };
            let done = console
                .set_endpoint_state(&user, &merchant_id, &id, asked)
                .await;
            return back_to(WEBHOOKS, done);
        }
    };
    change(
        &state,
        &session,
        &user,
        &console,
        &form.csrf,
        &form.idempotency_key,
        keyed,
    )
    .await
}
