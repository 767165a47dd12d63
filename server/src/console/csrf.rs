//! The session's CSRF token: made on first use, renewed at every sign-in (`session`), checked
//! on every form, and the name the session's notes are filed under (`notes`).

use subtle::ConstantTimeEq;
use tower_sessions::Session;

use kaadxpay_types::ids::random_token;

/// The token's name in the session.
pub const CSRF: &str = "csrf";

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
