//! Console sessions: stored in Postgres by tower-sessions (cookies `HttpOnly`, `SameSite=Lax`),
//! each holding its signed-in user and a token against cross-site request forgery that every
//! form must send back. Pages other than `/login` and an invitation's need a signed-in user;
//! a notice kept for the next page (a one-time secret: a new API key's or webhook secret,
//! recovery codes, an invitation's link) is handed to that page once, which is then sent
//! `no-store`; so is a form kept for its page to show again (`kept`). Those are kept beside the
//! session, not in it (`notes`), so that two requests of one session do not drop each other's. A member's forms are
//! recorded in their merchant's request log.
//!
//! Two-step sign-in: after a right password, a user with a second factor is only *pending*
//! (for [`PENDING_FOR_SECS`]), not signed in, until its code is given; the session then
//! remembers when a second factor was last given, for step-ups (`step_up`). A member whose
//! merchant requires two-step sign-in and who has none may reach only `/settings/security`.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use chrono_tz::Tz;
use tower_sessions::Session;

use app::console::{CsrfToken, CurrentUser, Flash, SecondStep};

use super::csrf::CSRF;
pub use super::csrf::{csrf_matches, csrf_token};
use super::headers::ShowsSecret;
use super::notes::{self, Slot};
use crate::accounts::users;
use crate::edge::client::ClientAddress;
use crate::edge::request_log::{Caller, CallerSlot};
use crate::platform::sealing::Sealer;
use crate::service::state::AppState;
use kaadxpay_types::ids::random_token;

const USER_ID: &str = "user_id";
/// The user whose password was right, awaiting its second factor, and since when (unix seconds).
const PENDING_USER_ID: &str = "pending_user_id";
const PENDING_SINCE: &str = "pending_since";
/// When the session's user last gave a second factor (unix milliseconds).
const SECOND_FACTOR_AT: &str = "second_factor_at";

/// How long a right password waits for its second factor.
pub const PENDING_FOR_SECS: i64 = 5 * 60;

/// Where a member sets up two-step sign-in, the only page a member who must do so may reach.
pub const SECURITY: &str = "/settings/security";

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The signed-in user's id, if any.
pub async fn user_id(session: &Session) -> anyhow::Result<Option<String>> {
    Ok(session.get::<String>(USER_ID).await?)
}

/// What a flash is sealed for, so that a sealed value from elsewhere does not open as one.
const FLASH_OWNER: &str = "console flash";

/// Keeps `notice` for the session's next page only (shown once, never put in an address),
/// sealed with the secrets key: it may be a secret (an API key's) that the database must never
/// hold in the clear, and the notes live in the database (`notes`).
pub async fn flash(sealer: &Sealer, session: &Session, notice: &str) -> anyhow::Result<()> {
    let sealed = sealer.seal(notice.as_bytes(), FLASH_OWNER);
    notes::put(session, Slot::Flash, &hex::encode(sealed)).await
}

/// The session's flash, opened; `None` when there is none or it does not open (sealed under
/// another key, before a key change).
async fn take_flash(sealer: &Sealer, session: &Session) -> anyhow::Result<Option<String>> {
    let Some((sealed, _)) = notes::take::<String>(session, Slot::Flash).await? else {
        return Ok(None);
    };
    let opened = hex::decode(sealed)
        .ok()
        .and_then(|sealed| sealer.open(&sealed, FLASH_OWNER).ok())
        .and_then(|notice| String::from_utf8(notice).ok());
    Ok(opened)
}

/// Pages a visitor may see before signing in: the sign-in form (both steps), and an
/// invitation's (whose path holds its secret: [`super::headers::secret_page`]).
fn open_to_visitors(path: &str) -> bool {
    path == "/login" || path == "/login/code" || path.starts_with("/invitations/")
}

/// What a member who must set up two-step sign-in may still reach.
fn open_while_enrolling(path: &str) -> bool {
    path == SECURITY || path == "/settings/security/confirm" || path == "/logout"
}

/// Signs `user_id` in under a new session id (so a session fixed before sign-in is worthless),
/// with no second factor given yet (whatever an earlier user of the session gave).
pub async fn sign_in(session: &Session, user_id: &str) -> anyhow::Result<()> {
    session.cycle_id().await?;
    for key in [PENDING_USER_ID, PENDING_SINCE, SECOND_FACTOR_AT] {
        session.remove_value(key).await?;
    }
    session.insert(USER_ID, user_id).await?;
    session.insert(CSRF, random_token(32)).await?;
    Ok(())
}

/// Keeps `user_id`, whose password was right, waiting for its second factor, under a new
/// session id; nobody is signed in meanwhile.
pub async fn await_second_factor(session: &Session, user_id: &str) -> anyhow::Result<()> {
    session.cycle_id().await?;
    for key in [USER_ID, SECOND_FACTOR_AT] {
        session.remove_value(key).await?;
    }
    session.insert(PENDING_USER_ID, user_id).await?;
    session.insert(PENDING_SINCE, now()).await?;
    session.insert(CSRF, random_token(32)).await?;
    Ok(())
}

/// The user awaiting its second factor in this session, if it has not waited too long.
pub async fn pending_user_id(session: &Session) -> anyhow::Result<Option<String>> {
    let since = session.get::<i64>(PENDING_SINCE).await?;
    if !since.is_some_and(|since| (0..=PENDING_FOR_SECS).contains(&(now() - since))) {
        return Ok(None);
    }
    Ok(session.get::<String>(PENDING_USER_ID).await?)
}

/// Notes that the session's user gave a second factor now.
pub async fn second_factor_given(session: &Session) -> anyhow::Result<()> {
    session
        .insert(SECOND_FACTOR_AT, chrono::Utc::now().timestamp_millis())
        .await?;
    Ok(())
}

/// How long ago the session's user last gave a second factor, if it did (`None` too for a
/// time in the future: a clock set back).
pub async fn second_factor_age(session: &Session) -> anyhow::Result<Option<Duration>> {
    let at = session.get::<i64>(SECOND_FACTOR_AT).await?;
    let age = at.map(|at| chrono::Utc::now().timestamp_millis() - at);
    Ok(age.and_then(|ms| u64::try_from(ms).ok().map(Duration::from_millis)))
}

/// The signed-in user, acting from `address`.
pub async fn current_user(
    state: &AppState,
    session: &Session,
    address: Option<IpAddr>,
) -> anyhow::Result<Option<CurrentUser>> {
    let Some(user_id) = user_id(session).await? else {
        return Ok(None);
    };
    let Some(user) = users::find(&state.pool, &user_id).await? else {
        return Ok(None);
    };
    let time_zone = stored_time_zone(&user);
    Ok(Some(CurrentUser {
        role: user.member_role(),
        id: user.id.into(),
        email: user.email,
        merchant_id: user.merchant_id,
        csrf_token: csrf_token(session).await?,
        address,
        two_factor: user.two_factor,
        two_factor_required: user.two_factor_required,
        time_zone,
    }))
}

/// The time zone `user` chose; a stored name that is none of the IANA database's (written
/// before the form checked it, or by hand) is UTC, as the profile page then shows it, so the
/// user can still sign in and choose again; said in the log on every request it is read.
fn stored_time_zone(user: &users::User) -> Tz {
    user.time_zone.parse().unwrap_or_else(|_| {
        tracing::warn!(
            user_id = %user.id,
            time_zone = %user.time_zone,
            "a stored time zone is not an IANA name; the user's times are shown in UTC"
        );
        Tz::UTC
    })
}

/// Puts the signed-in user (or the visitor's CSRF token) into the request; sends visitors who
/// are not signed in to `/login`.
pub async fn authenticate(
    State(state): State<AppState>,
    session: Session,
    mut request: Request,
    next: Next,
) -> Response {
    let address = request
        .extensions()
        .get::<ClientAddress>()
        .and_then(|client| client.0);
    let user = match current_user(&state, &session, address).await {
        Ok(user) => user,
        Err(err) => return crate::contract::error::Error::Internal(err).into_response(),
    };
    let mut shows_secret = false;
    match user {
        Some(user) if user.must_enrol() && !open_while_enrolling(request.uri().path()) => {
            return Redirect::to(SECURITY).into_response();
        }
        Some(user) => {
            // A member's change is recorded in the merchant's request log, by the member; not a
            // visitor's form (signing in, joining another merchant by invitation), which changes
            // no merchant of theirs and whose path may hold a secret.
            if let (true, false, Some(merchant_id), Some(slot)) = (
                request.method() == Method::POST,
                open_to_visitors(request.uri().path()),
                &user.merchant_id,
                request.extensions().get::<CallerSlot>(),
            ) {
                slot.fill(Caller::console_user(merchant_id, &user.email));
            }
            request.extensions_mut().insert(user);
            // Kept for the next page shown: a form's submit (the second of a double click
            // included) must not take it from the page the first one leads to.
            if request.method() == Method::GET {
                let path = request.uri().path().to_owned();
                let taken = async {
                    let kept = super::kept::take(&session, &path).await?;
                    anyhow::Ok((kept, notes::take_done(&session).await?))
                };
                match taken.await {
                    Ok((kept, done)) => {
                        if let Some(kept) = kept {
                            request.extensions_mut().insert(kept);
                        }
                        if let Some(done) = done {
                            request.extensions_mut().insert(done);
                        }
                    }
                    Err(err) => {
                        return crate::contract::error::Error::Internal(err).into_response()
                    }
                }
                match take_flash(&state.sealer, &session).await {
                    Ok(Some(notice)) => {
                        request.extensions_mut().insert(Flash(notice));
                        shows_secret = true;
                    }
                    Ok(None) => {}
                    Err(err) => {
                        return crate::contract::error::Error::Internal(err).into_response()
                    }
                }
            }
        }
        None if open_to_visitors(request.uri().path()) => {
            let visitor = async {
                let token = csrf_token(&session).await?;
                anyhow::Ok((token, pending_user_id(&session).await?.is_some()))
            };
            match visitor.await {
                Ok((token, pending)) => {
                    request.extensions_mut().insert(CsrfToken(token));
                    if pending {
                        request.extensions_mut().insert(SecondStep);
                    }
                }
                Err(err) => return crate::contract::error::Error::Internal(err).into_response(),
            }
        }
        None => return Redirect::to("/login").into_response(),
    }
    let mut response = next.run(request).await;
    if shows_secret {
        response.extensions_mut().insert(ShowsSecret);
    }
    response
}
