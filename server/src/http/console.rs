//! The console's wiring: the Leptos app rendered on the server for its routes, and its
//! stylesheet, embedded in the binary.

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use leptos::config::LeptosOptions;
use leptos_axum::{generate_route_list, LeptosRoutes};

use app::{shell, App};

const STYLESHEET: &str = include_str!("../../../style/main.css");

fn options() -> LeptosOptions {
    LeptosOptions::builder().output_name("kaadxpay").build()
}

pub fn router() -> Router {
    let options = options();
    let routes = generate_route_list(App);
    Router::new()
        .route(
            "/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css")], STYLESHEET) }),
        )
        .leptos_routes(&options, routes, {
            let options = options.clone();
            move || shell(options.clone())
        })
        .with_state(options)
}

/// The console's "page not found", for paths no route matches.
pub async fn not_found(request: Request) -> Response {
    let options = options();
    let render = leptos_axum::render_app_to_stream(move || shell(options.clone()));
    let mut response = render(request).await;
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
