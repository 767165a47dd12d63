//! The merchant console: server-rendered Leptos (no WebAssembly, no hydration), so every page
//! is plain HTML that works with JavaScript off. `shell` is the document, `App` the routes.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

mod pages;

/// The HTML document every page is rendered into; the stylesheet is served by the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let _ = options; // only used by hydration scripts, which a server-rendered console has none of
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="stylesheet" href="/style.css"/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Title text="Kaadxpay console"/>
        <Router>
            <header class="topbar">
                <a class="brand" href="/">"Kaadxpay"</a>
            </header>
            <main class="page">
                <Routes fallback=pages::NotFound>
                    <Route path=path!("/") view=pages::Home/>
                </Routes>
            </main>
        </Router>
    }
}
