//! What an API key needs for each route that changes something (API.md §11, "Who may move
//! money"): a key acts for its maker, so beyond being read-write it needs the right its maker's
//! role gives for that route, judged at each use. The table is closed: a route that changes
//! something and is not named here is refused to every key, so a new route cannot be left open
//! by forgetting it.

use axum::http::Method;
use kaadxpay_types::Permission;

use crate::accounts::auth::{Access, Merchant};
use crate::contract::error::Error;
use crate::payments::approvals::NOT_FOR_API_KEYS;

/// What a key is told of a change no key may make.
const NOT_IN_THE_TABLE: &str = "No API key may do this: a member does it in the console.";

/// What a key must have to use a route that changes something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Being a key that may write (read-write, and not a viewer's).
    Write,
    /// That, and its maker's role having this right (or being made for the merchant).
    Right(Permission),
    /// Nothing a key can have: a member does it, in the console (the refusal says so).
    Member(&'static str),
}

/// What `method` on `route` (the route's template, as the router matched it) needs of a key;
/// `None` for a read, which every key may make.
pub fn needs(method: &Method, route: &str) -> Option<Needs> {
    use Needs::*;
    use Permission::*;
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return None;
    }
    Some(match (method.as_str(), route) {
        ("POST", "/v1/orders") => Write,
        // Refunding needs the right to capture (API.md §13).
        ("PUT", "/v1/orders/{id}") | ("POST", "/v1/orders/{id}/refunds") => Right(ManageOrders),
        // Whose payout may be cancelled, its command decides.
        ("POST", "/v1/payouts" | "/v1/payouts/{id}/cancel") => Right(CreatePayouts),
        ("POST", "/v1/payouts/{id}/approve" | "/v1/payouts/{id}/reject") => {
            Member(NOT_FOR_API_KEYS)
        }
        ("POST", "/v1/webhook-endpoints")
        | ("PATCH" | "DELETE", "/v1/webhook-endpoints/{id}")
        | (
            "POST",
            "/v1/webhook-endpoints/{id}/rotate-secret"
            | "/v1/webhook-endpoints/{id}/recover"
            | "/v1/webhook-endpoints/{id}/test"
            | "/v1/events/{event_id}/redeliver"
            | "/v1/api-keys"
            | "/v1/api-keys/{id}/roll",
        )
        | ("DELETE", "/v1/api-keys/{id}") => Right(ManageIntegrations),
        _ => Member(NOT_IN_THE_TABLE),
    })
}

/// Refuses `merchant`'s key what `method` on `route` needs and it does not have (`403
/// forbidden`, saying why).
pub fn check(merchant: &Merchant, method: &Method, route: &str) -> Result<(), Error> {
    let Some(needs) = needs(method, route) else {
        return Ok(());
    };
    if merchant.access == Access::ReadOnly {
        return Err(Error::Forbidden(
            "This API key is read-only: it may read, not change anything. Use a read-write key.",
        ));
    }
    if !merchant.writes() {
        return Err(Error::Forbidden(
            "This API key acts for a viewer, who may only read: ask a member whose role may make this change.",
        ));
    }
    match needs {
        Needs::Write => Ok(()),
        Needs::Right(permission) if merchant.may(permission) => Ok(()),
        Needs::Right(_) => Err(Error::Forbidden(
            "This API key acts for its maker, whose role may not do this: use a key made by a member whose role may.",
        )),
        Needs::Member(refusal) => Err(Error::Forbidden(refusal)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_need_nothing_and_unknown_changes_are_closed() {
        assert_eq!(needs(&Method::GET, "/v1/payouts"), None);
        assert_eq!(needs(&Method::POST, "/v1/orders"), Some(Needs::Write));
        assert_eq!(
            needs(&Method::PUT, "/v1/orders/{id}"),
            Some(Needs::Right(Permission::ManageOrders))
        );
        assert_eq!(
            needs(&Method::POST, "/v1/orders/{id}/refunds"),
            Some(Needs::Right(Permission::ManageOrders))
        );
        let closed = Some(Needs::Member(NOT_IN_THE_TABLE));
        assert_eq!(needs(&Method::POST, "/v1/new-thing"), closed);
        assert_eq!(needs(&Method::DELETE, "/v1/payouts/{id}"), closed);
    }
}
