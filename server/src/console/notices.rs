//! The console's answers that are not pages (a refused or failed form, a refused export, an
//! unknown path): a status and an [`app::notice::Notice`], which the app writes as a plain
//! document in the request's language (cookie, else `Accept-Language`, else English).

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;

use app::i18n::Lang;
use app::notice::Notice;

/// An answer of `status` that says `notice`, written by [`write`] on its way out.
pub(super) fn answer(status: StatusCode, notice: Notice) -> Response {
    (status, Extension(notice)).into_response()
}

/// A form whose CSRF token does not match: `403`.
pub(super) fn forbidden() -> Response {
    answer(StatusCode::FORBIDDEN, Notice::FormExpired)
}

/// A form that failed on our side: `500`, the cause in the logs.
pub(super) fn failure(error: impl std::fmt::Display) -> Response {
    tracing::error!(error = %error, "console form failed");
    answer(StatusCode::INTERNAL_SERVER_ERROR, Notice::Failure)
}

/// The layer over the console's routes that writes an [`answer`]'s notice in the language of
/// the request it answers.
pub(super) async fn write(request: Request, next: Next) -> Response {
    let lang = Lang::of_request(request.headers());
    let mut response = next.run(request).await;
    match response.extensions_mut().remove::<Notice>() {
        Some(notice) => document(response.status(), notice, lang),
        None => response,
    }
}

/// The plain 404 page for a path no route matches, in the request's language: the app's own
/// "Page not found", without a session, a user or anything else of the console.
pub fn not_found(headers: &HeaderMap) -> Response {
    let mut response = document(
        StatusCode::NOT_FOUND,
        Notice::NotFound,
        Lang::of_request(headers),
    );
    super::headers::guard(&mut response, None, false);
    response
}

fn document(status: StatusCode, notice: Notice, lang: Lang) -> Response {
    (status, Html(notice.document(lang))).into_response()
}
