//! `/login`: email and password; a failure never says which of the two was wrong.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{csrf_token, query_param};

#[component]
pub fn Login() -> impl IntoView {
    let error = match query_param("error").as_str() {
        "invalid" => Some(tr!("login-invalid")),
        "throttled" => Some(tr!("login-throttled")),
        "expired" => Some(tr!("login-expired")),
        _ => None,
    };
    view! {
        <section class="narrow card">
            <h1>{tr!("login-submit")}</h1>
            {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
            <form method="post" action="/login" class="form">
                <input type="hidden" name="csrf" value=csrf_token()/>
                <label for="email">{tr!("field-email")}</label>
                <input id="email" name="email" type="email" autocomplete="username" required/>
                <label for="password">{tr!("field-password")}</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required/>
                <button type="submit">{tr!("login-submit")}</button>
            </form>
        </section>
    }
}
