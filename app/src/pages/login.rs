//! `/login`: email and password; a failure never says which of the two was wrong. A user with
//! two-step sign-in is then asked for its authentication code (or a recovery code) before it is
//! signed in.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{csrf_token, query_param};
use crate::console::SecondStep;

fn second_step() -> bool {
    use_context::<http::request::Parts>()
        .is_some_and(|parts| parts.extensions.get::<SecondStep>().is_some())
}

#[component]
pub fn Login() -> impl IntoView {
    let error = match query_param("error").as_str() {
        "invalid" => Some(tr!("login-invalid")),
        "throttled" => Some(tr!("login-throttled")),
        "expired" => Some(tr!("login-expired")),
        "code" => Some(tr!("login-code-invalid")),
        _ => None,
    };
    let form = if second_step() {
        view! {
            <p>{tr!("login-code-hint")}</p>
            <CodeForm action="/login/code".to_owned() back=None/>
        }
        .into_any()
    } else {
        view! {
            <form method="post" action="/login" class="form">
                <input type="hidden" name="csrf" value=csrf_token()/>
                <label for="email">{tr!("field-email")}</label>
                <input id="email" name="email" type="email" autocomplete="username" required/>
                <label for="password">{tr!("field-password")}</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required/>
                <button type="submit">{tr!("login-submit")}</button>
            </form>
        }
        .into_any()
    };
    view! {
        <section class="narrow card">
            <h1>{tr!("login-submit")}</h1>
            {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
            {form}
        </section>
    }
}

/// A form that sends an authentication code (or a recovery code) to `action`, and the page to
/// go back to once it is accepted.
#[component]
pub fn CodeForm(action: String, back: Option<String>) -> impl IntoView {
    view! {
        <form method="post" action=action class="form">
            <input type="hidden" name="csrf" value=csrf_token()/>
            {back.map(|back| view! { <input type="hidden" name="back" value=back/> })}
            <label for="code">{tr!("field-authentication-code")}</label>
            <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" autofocus required/>
            <button type="submit">{tr!("login-verify")}</button>
        </form>
    }
}
