//! `/login`: email and password; a failure never says which of the two was wrong.

use leptos::prelude::*;

use crate::components::{csrf_token, query_param};

#[component]
pub fn Login() -> impl IntoView {
    let error = match query_param("error").as_str() {
        "invalid" => Some("Those credentials are not right. Check them and try again."),
        "throttled" => Some("Too many failed sign-ins. Wait 15 minutes, then try again."),
        "expired" => Some("The form had expired. Please sign in again."),
        _ => None,
    };
    view! {
        <section class="narrow card">
            <h1>"Sign in"</h1>
            {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
            <form method="post" action="/login" class="form">
                <input type="hidden" name="csrf" value=csrf_token()/>
                <label for="email">"Email"</label>
                <input id="email" name="email" type="email" autocomplete="username" required/>
                <label for="password">"Password"</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required/>
                <button type="submit">"Sign in"</button>
            </form>
        </section>
    }
}
