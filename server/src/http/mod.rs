//! The JSON API adapter: one module per resource, each with its `router()`, merged here with
//! the partner's webhooks, and apart from them the operational routes with the generated OpenAPI
//! document. Handlers turn requests into typed commands for the domain and its answers into
//! responses. It knows nothing of the console; `edge` puts the two side by side.

pub mod api_keys;
pub mod author;
pub mod balance;
pub mod body;
pub mod error;
pub mod events;
pub mod extract;
pub mod keys;
pub mod list;
pub mod openapi;
pub mod ops;
pub mod orders;
pub mod outcome;
pub mod partner_webhooks;
pub mod payouts;
pub mod powers;
pub mod reconciliation;
pub mod refunds;
pub mod requests;
pub mod top_ups;
pub mod webhook_endpoints;

use axum::Router;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::contract::error::Error;
use crate::service::state::AppState;

/// The `/v1` API (with the partner's webhooks), and the operational routes apart, so that
/// admission control can shed the first and never the second.
pub fn api_and_ops_routers(figures: ops::Figures) -> (Router<AppState>, Router<AppState>) {
    let (v1, openapi) = OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(orders::router())
        .merge(balance::router())
        .merge(keys::router())
        .merge(api_keys::router())
        .merge(payouts::router())
        .merge(refunds::router())
        .merge(reconciliation::router())
        .merge(webhook_endpoints::router())
        .merge(events::router())
        .merge(requests::router())
        .merge(top_ups::router())
        .split_for_parts();
    (
        v1.merge(partner_webhooks::router())
            .method_not_allowed_fallback(method_not_allowed),
        ops::router(openapi::document(openapi), figures),
    )
}

/// A route that exists, asked with a method it does not take: `405` in the error envelope (the
/// `Allow` header is axum's, set on the way out).
async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Error {
    Error::MethodNotAllowed {
        method: method.to_string(),
        path: uri.path().to_owned(),
    }
}
