//! Step-up (API.md §11): creating a payout, changing webhook endpoints, the team or its
//! two-step sign-in requirement needs a second factor given within the last
//! `KAADXPAY_STEP_UP_WINDOW` (10 minutes) in the session, when the member has two-step sign-in.
//! A form without one is kept (`kept`: what was typed and its `idempotency_key`) and sent to
//! `/step-up`, which asks for a code (or a recovery code) and then sends the member back to the
//! page the form was on, where the same form comes back filled, with the same key, and nothing
//! is done until it is submitted (API.md §9).

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{CurrentUser, KeptForm};

use super::kept;
use super::notices::{failure, forbidden};
use super::session::{self, SECURITY};
use crate::accounts::two_factor::{self, Checked, Holder, Purpose};
use crate::edge::client::ClientAddress;
use crate::service::state::AppState;

/// The page that asks for a code.
pub const STEP_UP: &str = "/step-up";

fn ask_for_code(back: &str, error: Option<&str>) -> Response {
    let mut to = format!(
        "{STEP_UP}?back={}",
        utf8_percent_encode(app::i18n::same_site_path(back), NON_ALPHANUMERIC)
    );
    if let Some(error) = error {
        to.push_str(&format!("&error={error}"));
    }
    Redirect::to(&to).into_response()
}

/// `Ok` when `user` may make a change that needs a recent second factor: it gave one in this
/// `session` within the state's step-up window, or it has no two-step sign-in (and its merchant
/// does not require one). Otherwise the answer to give instead: to `/step-up`, which comes back
/// to `back` (the page the form was on), or to `/settings/security` to set it up.
///
/// Call it in a form's handler right after the member's permission check, before the change,
/// with the form to `resume` on its page after the code.
pub async fn recent_second_factor(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    resume: &KeptForm,
) -> Result<(), Response> {
    if !user.two_factor {
        return match user.must_enrol() {
            true => Err(Redirect::to(SECURITY).into_response()),
            false => Ok(()),
        };
    }
    match session::second_factor_age(session).await {
        Ok(Some(age)) if age <= state.step_up_window => Ok(()),
        Ok(_) => match kept::keep(session, resume).await {
            Ok(()) => Err(ask_for_code(&resume.page, None)),
            Err(error) => Err(failure(error)),
        },
        Err(error) => Err(failure(error)),
    }
}

/// A form that gives an authentication code (or a recovery code): the second step of a
/// sign-in, or a step-up, which also says the page to go back to.
#[derive(Deserialize)]
pub struct CodeForm {
    pub(super) csrf: String,
    pub(super) code: String,
    #[serde(default)]
    back: String,
}

/// `POST /step-up`: a code (or a recovery code) of the signed-in user, counted in the sign-in
/// throttle; once accepted (and audited, `two_factor.step_up`), back to the page the change was
/// asked from.
pub async fn give_code(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Form(form): Form<CodeForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return forbidden();
    }
    let holder = Holder {
        id: &user.id,
        email: &user.email,
        merchant_id: user.merchant_id.as_ref(),
    };
    let checked = two_factor::check(
        &state.pool,
        &state.sealer,
        holder,
        &form.code,
        client,
        Purpose::StepUp,
    )
    .await;
    match checked {
        Ok(Checked::Accepted(_)) => match session::second_factor_given(&session).await {
            Ok(()) => Redirect::to(app::i18n::same_site_path(&form.back)).into_response(),
            Err(error) => failure(error),
        },
        Ok(Checked::Refused) => ask_for_code(&form.back, Some("code")),
        Ok(Checked::Throttled) => ask_for_code(&form.back, Some("throttled")),
        Err(error) => failure(error),
    }
}
