//! The forms of `/settings/security`: confirm an enrolment in two-step sign-in with a code
//! (the ten recovery codes are then kept for the next page only, which shows them once), and,
//! for members who manage the team, require it of every member (a change that needs a recent
//! second factor). Each answers a `303` like every form.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{CurrentUser, Done, KeptForm, Permission};

use super::forms::{by_user, failure, forbidden, stepped_up_merchant};
use super::session::{self, SECURITY};
use crate::accounts::two_factor;
use crate::service::state::AppState;

#[derive(Deserialize)]
pub struct ConfirmForm {
    csrf: String,
    code: String,
}

/// Turns two-step sign-in on with a code of the secret shown; the recovery codes are shown
/// on the next page, once. A session that confirms has just given a second factor.
pub async fn confirm(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Form(form): Form<ConfirmForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return forbidden();
    }
    let confirmed = two_factor::confirm(
        &state.pool,
        &state.sealer,
        &user.id,
        user.merchant_id.as_ref(),
        &by_user(&user),
        &form.code,
    )
    .await;
    match confirmed {
        Ok(Some(codes)) => {
            let kept = async {
                session::second_factor_given(&session).await?;
                session::flash(&state.sealer, &session, &codes.join(" ")).await
            };
            match kept.await {
                Ok(()) => Redirect::to(SECURITY).into_response(),
                Err(error) => failure(error),
            }
        }
        Ok(None) => Redirect::to(&format!("{SECURITY}?error=code")).into_response(),
        Err(error) => failure(error),
    }
}

#[derive(Deserialize)]
pub struct RequiredForm {
    csrf: String,
    /// A checkbox: `on` when ticked, absent when not.
    #[serde(default)]
    required: String,
}

/// Requires two-step sign-in of every member, or stops requiring it (owners and admins).
pub async fn set_required(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Form(form): Form<RequiredForm>,
) -> Response {
    let permission = Permission::ManageTeam;
    let resume = KeptForm::at(SECURITY);
    let merchant_id =
        match stepped_up_merchant(&state, &session, &user, &form.csrf, permission, &resume).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let required = form.required == "on";
    if let Err(error) =
        two_factor::set_required(&state.pool, &merchant_id, &by_user(&user), required).await
    {
        return failure(error);
    }
    let what = match required {
        true => Done::TwoFactorRequired,
        false => Done::TwoFactorNotRequired,
    };
    match super::confirm::done(&session, what).await {
        Ok(()) => Redirect::to(SECURITY).into_response(),
        Err(answer) => answer,
    }
}
