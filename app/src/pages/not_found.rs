//! The page for any path the console does not have.

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <h1>"Page not found"</h1>
        <p>"There is nothing here. " <a href="/">"Go to the console's start page"</a> "."</p>
    }
}
