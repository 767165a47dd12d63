//! The edge every request passes: the listener (slow clients cut off), the client's address
//! (behind trusted proxies), the middleware (deadlines, admission control, the NUL refusal,
//! observation, caught panics, the request log), and the
//! application's router, which puts the JSON API (`http`), the console (`console`) and the
//! operational routes side by side. The two adapters never import each other; only this module
//! knows both.

pub mod client;
pub mod listener;
pub mod middleware;
pub mod nul;
pub mod request_log;

use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

use crate::console;
use crate::http::{api_and_ops_routers, error, ops};
use crate::service::state::AppState;
use middleware::{admit, within_deadlines, Admission, Deadlines};

/// What no route matches: a JSON error under `/v1`, a plain 404 page elsewhere.
pub async fn unknown_route(
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let path = uri.path();
    if path == "/v1" || path.starts_with("/v1/") {
        return crate::contract::error::Error::UnknownRoute(path.to_owned()).into_response();
    }
    console::not_found(&headers)
}

/// The whole application: the API (behind admission control, its requests recorded in the
/// request log), the console, and the operational routes (never shed), every request within its
/// deadlines (its body read before it is admitted) and refused at the door when it holds text
/// that cannot be stored, with panics caught, every request observed and its client address
/// resolved before anything else (behind `proxies`).
pub fn router(
    state: AppState,
    sessions: tower_sessions_sqlx_store::PostgresStore,
    admission: Admission,
    deadlines: Deadlines,
    figures: ops::Figures,
    secure_cookies: bool,
    proxies: client::TrustedProxies,
) -> Router {
    let (api, operations) = api_and_ops_routers(figures);
    let api = api.layer(axum::middleware::from_fn_with_state(
        state.request_log.clone(),
        request_log::record,
    ));
    api.with_state(state.clone())
        .merge(console::router(state.clone(), sessions, secure_cookies))
        .layer(axum::middleware::from_fn_with_state(admission, admit))
        .merge(operations.with_state(state))
        .fallback(unknown_route)
        .layer(axum::middleware::from_fn_with_state(
            deadlines,
            within_deadlines,
        ))
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(axum::middleware::from_fn_with_state(
            middleware::Entrance {
                proxies,
                observed: middleware::Observed::default(),
            },
            middleware::enter,
        ))
}
