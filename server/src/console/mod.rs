//! The console's room: the Leptos app (`app`) rendered on the server for its routes, with the
//! `Console` implementation over the domain ([`backend`]) in each request's context; its forms,
//! its CSV exports, its sessions, and its stylesheet, embedded in the binary. It knows nothing
//! of the JSON API (`http`); both are put side by side by `edge`.

mod api_keys;
mod approvals;
mod backend;
mod confirm;
mod csrf;
mod exports;
mod filters;
mod finish;
mod forms;
mod headers;
mod kept;
mod money_in;
mod notes;
mod notices;
mod profile;
mod refunds;
mod repeats;
mod security;
mod session;
pub mod step_up;
mod team;
mod views;
mod webhooks;

pub use notices::not_found;

use std::sync::Arc;

use axum::http::{header, HeaderValue};
use axum::routing::{get, post};
use axum::{Extension, Router};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_sessions::cookie::time::Duration as CookieDuration;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};
use tower_sessions_sqlx_store::PostgresStore;

use app::console::Console;
use app::{shell, App};

use crate::service::state::AppState;
use backend::PgConsole;

const STYLESHEET: &str = include_str!("../../../style/main.css");

fn options() -> LeptosOptions {
    LeptosOptions::builder().output_name("kaadxpay").build()
}

/// Creates the session table if needed; run once at start.
pub async fn session_store(state: &AppState) -> sqlx::Result<PostgresStore> {
    let store = PostgresStore::new(state.pool.clone());
    store.migrate().await?;
    Ok(store)
}

/// The console's routes; `secure_cookies` marks the session cookie `Secure` (when people reach
/// the service over `https://`).
pub fn router(state: AppState, store: PostgresStore, secure_cookies: bool) -> Router {
    let options = options();
    let console: Arc<dyn Console> = Arc::new(PgConsole {
        state: state.clone(),
    });

    let sessions = SessionManagerLayer::new(store)
        .with_name("kaadxpay_session")
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_secure(secure_cookies)
        .with_expiry(Expiry::OnInactivity(CookieDuration::hours(12)));
    let pages = Router::<LeptosOptions>::new()
        .leptos_routes_with_context(
            &options,
            generate_route_list(App),
            {
                let console = console.clone();
                move || {
                    provide_context(console.clone());
                    headers::provide_nonce();
                }
            },
            {
                let options = options.clone();
                move || shell(options.clone())
            },
        )
        .with_state(options)
        // Back and forward reuse the page as rendered (so a form keeps the key it was given);
        // every other visit asks the server again (so a new visit mints a new key).
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-cache"),
        ));
    let forms = Router::new()
        .route("/login", post(forms::login))
        .route("/login/code", post(forms::login_code))
        .route(step_up::STEP_UP, post(step_up::give_code))
        .route("/settings/security/confirm", post(security::confirm))
        .route("/settings/security/required", post(security::set_required))
        .route(profile::PROFILE, post(profile::save))
        .route("/logout", post(forms::logout))
        // Not /payouts/new: a POST invalidates the browser's cached form page, which Back reuses.
        .route("/payouts", post(forms::new_payout))
        .route("/payouts/{id}/{decision}", post(approvals::decide))
        .route("/settings/payouts", post(approvals::set_threshold))
        .route(app::console::ADD_FUNDS, post(money_in::simulate))
        .route("/orders/{id}/capture", post(forms::capture_order))
        .route("/orders/{id}/cancel", post(forms::cancel_order))
        .route("/orders/{id}/refunds", post(refunds::refund_order))
        .route(
            "/webhooks/events/{id}/redeliver",
            post(forms::redeliver_event),
        )
        .route("/reconciliation/run", post(forms::run_reconciliation))
        .route("/webhooks/endpoints", post(webhooks::add))
        .route("/webhooks/endpoints/{id}/{action}", post(webhooks::act))
        .route("/settings/keys", post(api_keys::create))
        .route("/settings/keys/{id}/{action}", post(api_keys::act))
        .route("/settings/team/invitations", post(team::invite))
        .route(
            "/settings/team/invitations/{id}/revoke",
            post(team::revoke_invitation),
        )
        .route("/settings/team/members/{id}/role", post(team::change_role))
        .route("/settings/team/members/{id}/remove", post(team::remove))
        .route("/invitations/{token}", post(team::accept))
        .with_state(state.clone());
    pages
        .merge(forms)
        .merge(exports::router(state.clone()))
        .layer(axum::middleware::from_fn(notices::write))
        .layer(Extension(console))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            session::authenticate,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.pool.clone(),
            notes::scope,
        ))
        // Outside the session layer's user lookup, which fills its slot for members' changes.
        .layer(axum::middleware::from_fn_with_state(
            state.request_log.clone(),
            crate::edge::request_log::record,
        ))
        .layer(sessions)
        .route(
            "/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css")], STYLESHEET) }),
        )
        // The language switch: outside the session layers, so visitors (the sign-in page) have it.
        .route(
            "/language",
            get(move |query| forms::language(secure_cookies, query)),
        )
        .layer(axum::middleware::from_fn(headers::protect))
        .layer(axum::middleware::from_fn(finish::whatever_the_browser_does))
}
