//! Destructive actions (API.md §9): revoking an API key, deleting an endpoint, rotating its
//! secret, removing a member, revoking an invitation, rejecting or cancelling a payout,
//! cancelling an order. Their buttons post as before; without `confirmed=1` the form is kept
//! and the answer is `/confirm`, a page of its own that names what will happen and posts the
//! same form again with `confirmed=1` under a button "Confirm" (no JavaScript needed). Once
//! done, the next page's notice (`role="status"`) says what was done ([`done`]), as it does
//! after every other action of a form.

use axum::response::Response;
use tower_sessions::Session;

use app::console::{Confirm, Destructive, Done};

use super::kept::{back_with, Submitted};
use super::notes::{self, Slot};
use super::notices::failure;

/// The page that asks.
pub const CONFIRM: &str = "/confirm";

/// The answer to give instead of acting, the confirmation page, when the action is `what`
/// (`None`: nothing destructive) and the form was not confirmed there; `back` is the page it
/// was asked from.
pub async fn first(
    session: &Session,
    submitted: &Submitted,
    what: Option<Destructive>,
    back: &str,
) -> Option<Response> {
    let what = what?;
    if submitted.field("confirmed") == "1" {
        return None;
    }
    let mut kept = submitted.kept(CONFIRM, true);
    kept.confirm = Some(Confirm {
        what,
        back: back.to_owned(),
    });
    Some(back_with(session, &kept).await)
}

/// Notes for the session's next page what was done (`None`: nothing to say); the answer to
/// give when that fails.
pub async fn done(session: &Session, what: impl Into<Option<Done>>) -> Result<(), Response> {
    let Some(what) = what.into() else {
        return Ok(());
    };
    notes::put(session, Slot::Done, &what)
        .await
        .map_err(failure)
}
