//! Console sessions: stored in Postgres by tower-sessions (cookies `HttpOnly`, `SameSite=Lax`),
//! each holding its signed-in user and a token against cross-site request forgery that every
//! form must send back. Pages other than `/login` and an invitation's need a signed-in user;
//! a notice kept for the next page (a new invitation's link) is handed to that page once.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use subtle::ConstantTimeEq;
use tower_sessions::Session;

use app::console::{CsrfToken, CurrentUser, Flash};

use crate::accounts::users;
use crate::edge::request_log::{Caller, CallerSlot};
use crate::service::state::AppState;
use kaadxpay_types::ids::random_token;

const USER_ID: &str = "user_id";
const CSRF: &str = "csrf";
const FLASH: &str = "flash";

/// The signed-in user's id, if any.
pub async fn user_id(session: &Session) -> anyhow::Result<Option<String>> {
    Ok(session.get::<String>(USER_ID).await?)
}

/// Keeps `notice` for the session's next page only (shown once, never put in an address).
pub async fn flash(session: &Session, notice: &str) -> anyhow::Result<()> {
    session.insert(FLASH, notice).await?;
    Ok(())
}

/// Pages a visitor may see before signing in: the sign-in form, and an invitation's.
fn open_to_visitors(path: &str) -> bool {
    path == "/login" || path.starts_with("/invitations/")
}

/// The session's CSRF token, made on first use.
pub async fn csrf_token(session: &Session) -> anyhow::Result<String> {
    if let Some(token) = session.get::<String>(CSRF).await? {
        return Ok(token);
    }
    let token = random_token(32);
    session.insert(CSRF, &token).await?;
    Ok(token)
}

/// Whether a submitted form carries this session's token, compared in constant time so that
/// timing tells nothing about how much of a guess was right.
pub async fn csrf_matches(session: &Session, submitted: &str) -> bool {
    matches!(session.get::<String>(CSRF).await, Ok(Some(token))
        if !submitted.is_empty() && bool::from(token.as_bytes().ct_eq(submitted.as_bytes())))
}

/// Signs `user_id` in under a new session id (so a session fixed before sign-in is worthless).
pub async fn sign_in(session: &Session, user_id: &str) -> anyhow::Result<()> {
    session.cycle_id().await?;
    session.insert(USER_ID, user_id).await?;
    session.insert(CSRF, random_token(32)).await?;
    Ok(())
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
    Ok(Some(CurrentUser {
        role: user.member_role(),
        email: user.email,
        merchant_id: user.merchant_id,
        csrf_token: csrf_token(session).await?,
        address,
    }))
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
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let user = match current_user(&state, &session, address).await {
        Ok(user) => user,
        Err(err) => return crate::contract::error::Error::Internal(err).into_response(),
    };
    match user {
        Some(user) => {
            // A member's change is recorded in the merchant's request log, by the member.
            if let (true, Some(merchant_id), Some(slot)) = (
                request.method() == Method::POST,
                &user.merchant_id,
                request.extensions().get::<CallerSlot>(),
            ) {
                slot.fill(Caller::console_user(merchant_id, &user.email));
            }
            request.extensions_mut().insert(user);
            // Kept for the next page shown: a form's submit (the second of a double click
            // included) must not take it from the page the first one leads to.
            if request.method() == Method::GET {
                match session.remove::<String>(FLASH).await {
                    Ok(Some(notice)) => {
                        request.extensions_mut().insert(Flash(notice));
                    }
                    Ok(None) => {}
                    Err(err) => {
                        return crate::contract::error::Error::Internal(err.into()).into_response()
                    }
                }
            }
        }
        None if open_to_visitors(request.uri().path()) => match csrf_token(&session).await {
            Ok(token) => {
                request.extensions_mut().insert(CsrfToken(token));
            }
            Err(err) => return crate::contract::error::Error::Internal(err).into_response(),
        },
        None => return Redirect::to("/login").into_response(),
    }
    next.run(request).await
}
