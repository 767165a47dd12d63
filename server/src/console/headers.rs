//! What every console answer carries for the browser (API.md §11): a `Content-Security-Policy`
//! that runs only the scripts given this answer's nonce (the page's own, `leptos::nonce`) and
//! lets no other site frame the console, `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: same-origin`; and `Cache-Control: no-store` on a page that shows a secret
//! (one that holds a secret in its path, or shows the session's one-time secret), so that no
//! cache, and no Back after signing out, keeps it.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use kaadxpay_types::ids::random_token;
use leptos::nonce::Nonce;
use leptos::prelude::{provide_context, use_context};

/// The nonce of the scripts of the page a request is answered with, minted for that answer.
#[derive(Debug, Clone)]
struct ScriptNonce(Arc<str>);

/// Gives the page being rendered its answer's [`ScriptNonce`], which `leptos::nonce::use_nonce`
/// then reads (in place of the one leptos_axum mints, which no header would name).
pub fn provide_nonce() {
    let nonce =
        use_context::<Parts>().and_then(|parts| parts.extensions.get::<ScriptNonce>().cloned());
    if let Some(ScriptNonce(nonce)) = nonce {
        provide_context(Nonce::from_value(nonce));
    }
}

/// Marks an answer as showing a secret: [`protect`] sends it with `Cache-Control: no-store`.
#[derive(Debug, Clone, Copy)]
pub struct ShowsSecret;

/// Whether the page at `path` holds a secret in the path itself (an invitation's link) or may
/// show one whenever it is shown (two-step sign-in's set-up shows its secret).
pub fn secret_page(path: &str) -> bool {
    path.starts_with("/invitations/") || path == "/settings/security"
}

pub async fn protect(mut request: Request, next: Next) -> Response {
    let nonce: Arc<str> = random_token(24).into();
    let secret_path = secret_page(request.uri().path());
    request.extensions_mut().insert(ScriptNonce(nonce.clone()));
    let mut response = next.run(request).await;
    let shows_secret = secret_path || response.extensions().get::<ShowsSecret>().is_some();
    guard(&mut response, Some(&nonce), shows_secret);
    response
}

/// Sets the headers of a console answer whose scripts carry `nonce` (none may run without
/// one), `no-store` when it `shows_secret`.
pub fn guard(response: &mut Response, nonce: Option<&str>, shows_secret: bool) {
    let scripts = nonce.map_or_else(|| "'none'".to_owned(), |nonce| format!("'nonce-{nonce}'"));
    let policy = format!(
        "default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; \
         img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    );
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if shows_secret {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}
