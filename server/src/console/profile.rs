//! The form of `/settings/profile`: the signed-in user (a member or support staff) chooses the
//! time zone the console shows times in. A name that is not in the IANA database changes
//! nothing and comes back refused; every answer is a `303` back to the page, whose notice says
//! what was saved.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use chrono_tz::Tz;
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{CurrentUser, Done};

use super::notices::{failure, forbidden};
use super::session;
use crate::accounts::users;
use crate::service::state::AppState;

/// Where the page is, and where the form goes.
pub const PROFILE: &str = "/settings/profile";

#[derive(Deserialize)]
pub struct ProfileForm {
    csrf: String,
    time_zone: String,
}

pub async fn save(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Form(form): Form<ProfileForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return forbidden();
    }
    let Ok(zone) = form.time_zone.parse::<Tz>() else {
        return Redirect::to(&format!("{PROFILE}?error=time_zone")).into_response();
    };
    if let Err(error) = users::set_time_zone(&state.pool, &user.id, zone.name()).await {
        return failure(error);
    }
    match super::confirm::done(&session, Done::ProfileSaved).await {
        Ok(()) => Redirect::to(PROFILE).into_response(),
        Err(answer) => answer,
    }
}
