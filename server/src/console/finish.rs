//! A console submit runs to its end whatever the browser does. A browser drops a submit's
//! connection when its person clicks again (with JavaScript off, a double click's second click
//! starts a new navigation), presses Stop or closes the tab, and the server then drops what was
//! serving it. A submit stopped half-way may have made its effect (money simulated in, which no
//! API key guards) without remembering it for its form's key (the repeat guard's claim,
//! [`super::repeats`]): the next submit of that key would wait for a page that never comes. So
//! every console request that may change something is served in a task of its own, which the
//! end of its connection does not stop; its answer reaches the browser if it still listens.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

/// The layer over the console's routes: a request that may change something (any method but
/// the safe ones: `GET`, `HEAD`, `OPTIONS`, `TRACE`) is served to its end, the browser gone or
/// not; a page is served as usual (nothing is lost when one stops). A panic is raised again
/// here, for the layer that answers panics.
pub async fn whatever_the_browser_does(request: Request, next: Next) -> Response {
    if request.method().is_safe() {
        return next.run(request).await;
    }
    let served = tokio::spawn(next.run(request).in_current_span());
    match served.await {
        Ok(response) => response,
        Err(stopped) => match stopped.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // The runtime is shutting down.
            Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        },
    }
}
