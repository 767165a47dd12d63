//! `/`: for now the console's landing page, pointing developers at the API.

use leptos::prelude::*;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <h1>"Kaadxpay console"</h1>
        <p class="lead">
            "Payments whose every POST takes effect at most once. The payments API is served under "
            <code>"/v1"</code>" and described in "<a href="/openapi.json">"the OpenAPI document"</a>"."
        </p>
        <section class="card">
            <h2>"Get started"</h2>
            <ol>
                <li>"Create a merchant: " <code>"kaadxpay merchants create --name Shop --json"</code></li>
                <li>"Send " <code>"POST /v1/orders"</code> " with " <code>"Authorization: Bearer sk_test_…"</code>
                    " and an " <code>"Idempotency-Key"</code> " header."</li>
                <li>"Look any key up at " <code>"GET /v1/idempotency-keys/{key}"</code> "."</li>
            </ol>
        </section>
    }
}
