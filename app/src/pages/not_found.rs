//! The page for any path the console does not have.

use leptos::prelude::*;
use leptos_fluent::tr;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <h1>{tr!("not-found-title")}</h1>
        <p>{tr!("not-found-before")}<a href="/">{tr!("not-found-link")}</a>{tr!("not-found-after")}</p>
    }
}
