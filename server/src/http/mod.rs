//! The HTTP adapter: one module per resource, each with its `router()`, merged here with the
//! operational routes, the console and the generated OpenAPI document, under the middleware.
//! Handlers turn requests into typed commands for the domain and its answers into responses.

pub mod balance;
pub mod body;
pub mod console;
pub mod error;
pub mod events;
pub mod extract;
pub mod keys;
pub mod list;
pub mod middleware;
pub mod nul;
pub mod openapi;
pub mod ops;
pub mod orders;
pub mod outcome;
pub mod partner_webhooks;
pub mod payouts;
pub mod reconciliation;
pub mod request_log;
pub mod requests;
pub mod webhook_endpoints;

use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;
use middleware::{admit, Admission};

/// The `/v1` API (with the partner's webhooks), and the operational routes apart, so that
/// admission control can shed the first and never the second.
pub fn api_and_ops_routers() -> (Router<AppState>, Router<AppState>) {
    let (v1, openapi) = OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(orders::router())
        .merge(balance::router())
        .merge(keys::router())
        .merge(payouts::router())
        .merge(reconciliation::router())
        .merge(webhook_endpoints::router())
        .merge(events::router())
        .merge(requests::router())
        .split_for_parts();
    (
        v1.merge(partner_webhooks::router()),
        ops::router(openapi::document(openapi)),
    )
}

/// What no route matches: a JSON error under `/v1`, the console's 404 page elsewhere.
pub async fn unknown_route(request: axum::extract::Request) -> axum::response::Response {
    use axum::response::IntoResponse;
    let path = request.uri().path();
    if path == "/v1" || path.starts_with("/v1/") {
        return crate::error::Error::UnknownRoute(path.to_owned()).into_response();
    }
    console::not_found(request).await
}

/// The whole application: the API (behind admission control, its requests recorded in the
/// request log), the console, and the operational routes (never shed), with panics caught and
/// every request observed.
pub fn router(
    state: AppState,
    sessions: tower_sessions_sqlx_store::PostgresStore,
    admission: Admission,
    secure_cookies: bool,
) -> Router {
    let (api, operations) = api_and_ops_routers();
    let api = api.layer(axum::middleware::from_fn_with_state(
        state.request_log.clone(),
        request_log::record,
    ));
    api.with_state(state.clone())
        .merge(console::router(state.clone(), sessions, secure_cookies))
        .layer(axum::middleware::from_fn_with_state(admission, admit))
        .merge(operations.with_state(state))
        .fallback(unknown_route)
        .layer(axum::middleware::from_fn(nul::refuse_nul))
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(axum::middleware::from_fn(middleware::observe))
}
