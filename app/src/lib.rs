//! The merchant console: server-rendered Leptos (no WebAssembly, no hydration), so every page
//! is plain HTML that works with JavaScript off. `shell` is the document, `App` the routes;
//! pages reach the backend only through the [`console::Console`] trait in their context.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

use i18n::Lang;

mod components;
pub mod console;
pub mod i18n;
pub mod moments;
pub mod money_in;
pub mod notice;
mod pages;
mod titles;
pub mod vocabulary;

/// The HTML document every page is rendered into; the stylesheet is served by the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let _ = options; // only used by hydration scripts, which a server-rendered console has none of
    view! {
        <!DOCTYPE html>
        <html lang=Lang::current().tag()>
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
    i18n::provide(Lang::current());
    view! {
        <Title text=titles::page_title(&components::request_path())/>
        <Router>
            <components::Nav/>
            <main class="page">
                <components::DoneNotice/>
                <Routes fallback=pages::NotFound>
                    <Route path=path!("/") view=pages::Home ssr=SsrMode::Async/>
                    <Route path=path!("/login") view=pages::Login ssr=SsrMode::Async/>
                    <Route path=path!("/payouts") view=pages::Payouts ssr=SsrMode::Async/>
                    <Route path=path!("/payouts/new") view=pages::NewPayout ssr=SsrMode::Async/>
                    <Route path=path!("/payouts/approvals") view=pages::Approvals ssr=SsrMode::Async/>
                    <Route path=path!("/payouts/:id") view=pages::PayoutDetail ssr=SsrMode::Async/>
                    <Route path=path!("/balance") view=pages::BalancePage ssr=SsrMode::Async/>
                    <Route path=path!("/balance/add-funds") view=pages::AddFundsPage ssr=SsrMode::Async/>
                    <Route path=path!("/orders") view=pages::Orders ssr=SsrMode::Async/>
                    <Route path=path!("/orders/:id") view=pages::OrderDetail ssr=SsrMode::Async/>
                    <Route path=path!("/keys") view=pages::Keys ssr=SsrMode::Async/>
                    <Route path=path!("/keys/:key") view=pages::Keys ssr=SsrMode::Async/>
                    <Route path=path!("/requests") view=pages::Requests ssr=SsrMode::Async/>
                    <Route path=path!("/requests/:id") view=pages::RequestDetail ssr=SsrMode::Async/>
                    <Route path=path!("/support") view=pages::Support ssr=SsrMode::Async/>
                    <Route path=path!("/settings/team") view=pages::Team ssr=SsrMode::Async/>
                    <Route path=path!("/settings/keys") view=pages::ApiKeys ssr=SsrMode::Async/>
                    <Route path=path!("/settings/audit") view=pages::Audit ssr=SsrMode::Async/>
                    <Route path=path!("/settings/payouts") view=pages::PayoutSettings ssr=SsrMode::Async/>
                    <Route path=path!("/settings/security") view=pages::SecurityPage ssr=SsrMode::Async/>
                    <Route path=path!("/settings/profile") view=pages::Profile ssr=SsrMode::Async/>
                    <Route path=path!("/confirm") view=pages::ConfirmPage ssr=SsrMode::Async/>
                    <Route path=path!("/repeat") view=pages::RepeatPage ssr=SsrMode::Async/>
                    <Route path=path!("/step-up") view=pages::StepUp ssr=SsrMode::Async/>
                    <Route path=path!("/invitations/:token") view=pages::AcceptInvitation ssr=SsrMode::Async/>
                    <Route path=path!("/support/timeline") view=pages::SupportTimeline ssr=SsrMode::Async/>
                    <Route path=path!("/webhooks") view=pages::Webhooks ssr=SsrMode::Async/>
                    <Route path=path!("/reconciliation") view=pages::Runs ssr=SsrMode::Async/>
                    <Route path=path!("/reconciliation/:id") view=pages::RunDetail ssr=SsrMode::Async/>
                </Routes>
            </main>
        </Router>
    }
}
