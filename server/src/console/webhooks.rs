//! The webhook endpoints' forms: add an endpoint, rotate its secret, send it a test event,
//! recover its failed deliveries
//! (each under the form's idempotency key, minted when the page was rendered, through the
//! API's commands), and disable, enable or delete it (states: asking twice changes nothing). Owners, admins and developers only. A new
//! secret is shown once, on the next page.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{
    Console, CurrentUser, Destructive, Done, EndpointChange, EndpointId, EndpointState, KeptForm,
    Permission,
};
use app::notice::Notice;

use super::confirm;
use super::forms::{back_to, made_with_secret, stepped_up_merchant};
use super::kept::{self, Submitted};
use super::notices::answer;
use super::repeats::{self, Guarded};
use super::views::form_key;
use crate::service::state::AppState;

const WEBHOOKS: &str = "/webhooks";

/// Makes `change` for the member's merchant and goes back to the page, with the new secret
/// kept for it to show once, or the form as typed and the refusal. A rotation is held back as
/// a repeat when another form rotated the same endpoint's secret minutes ago.
async fn change(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    console: &Arc<dyn Console>,
    submitted: &Submitted,
    change: EndpointChange,
) -> Response {
    let (csrf, idempotency_key) = (submitted.field("csrf"), submitted.field("idempotency_key"));
    let resume = submitted.kept(WEBHOOKS, true);
    let permission = Permission::ManageIntegrations;
    let merchant_id =
        match stepped_up_merchant(state, session, user, csrf, permission, &resume).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let key = match form_key(idempotency_key) {
        Ok(key) => key,
        Err(refusal) => return kept::refused(session, WEBHOOKS, submitted, refusal).await,
    };
    let guard = match &change {
        EndpointChange::RotateSecret { id, .. } => Some(Guarded {
            form: "secret_rotation",
            merchant_id: &merchant_id,
            key: key.as_str(),
            same: vec![id.to_string()],
            action: submitted.action(),
        }),
        _ => None,
    };
    let destructive = guard.as_ref().map(|_| Destructive::RotateSecret);
    if let Some(ask) = confirm::first(session, submitted, destructive, WEBHOOKS).await {
        return ask;
    }
    let what = match &change {
        EndpointChange::Add { .. } => Done::EndpointAdded,
        EndpointChange::RotateSecret { .. } => Done::Confirmed(Destructive::RotateSecret),
        EndpointChange::SendTestEvent { .. } => Done::TestEventSent,
        EndpointChange::RecoverFailed { .. } => Done::DeliveriesRecovered,
    };
    let submit = async {
        let done = console
            .change_endpoint(user, &merchant_id, change, &key)
            .await;
        made_with_secret(state, session, submitted, (WEBHOOKS, what), done).await
    };
    repeats::guarded(&state.pool, session, submitted, guard, submit).await
}

#[derive(Deserialize)]
pub struct AddForm {
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
    submitted: Submitted,
) -> Response {
    let form: AddForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
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
    change(&state, &session, &user, &console, &submitted, add).await
}

/// A form about one endpoint: a keyed action's fields, or none for a state.
#[derive(Deserialize)]
pub struct EndpointForm {
    csrf: String,
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
    Path((id, action)): Path<(EndpointId, String)>,
    submitted: Submitted,
) -> Response {
    let form: EndpointForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
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
            let resume = KeptForm::at(WEBHOOKS);
            let stepped_up =
                stepped_up_merchant(&state, &session, &user, &form.csrf, permission, &resume);
            let merchant_id = match stepped_up.await {
                Ok(merchant_id) => merchant_id,
                Err(refused) => return refused,
            };
            let deleted = (asked == EndpointState::Deleted).then_some(Destructive::DeleteEndpoint);
            if let Some(ask) = confirm::first(&session, &submitted, deleted, WEBHOOKS).await {
                return ask;
            }
            let changed = console
                .set_endpoint_state(&user, &merchant_id, &id, asked)
                .await;
            let what = match asked {
                EndpointState::Disabled => Done::EndpointDisabled,
                EndpointState::Enabled => Done::EndpointEnabled,
                EndpointState::Deleted => Done::Confirmed(Destructive::DeleteEndpoint),
            };
            return back_to(&session, WEBHOOKS, what, changed).await;
        }
    };
    change(&state, &session, &user, &console, &submitted, keyed).await
}
