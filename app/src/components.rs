//! Pieces every page uses: the signed-in user and the backend from the request's context, the
//! navigation, status badges, empty states, pagers and the 404 answer.

use std::sync::Arc;

use leptos::prelude::*;

use crate::console::{Console, ConsoleError, CsrfToken, CurrentUser, MagicIban, Permission, Scope};

/// The user the server's session layer put into this request, if any.
pub fn current_user() -> Option<CurrentUser> {
    use_context::<http::request::Parts>()?
        .extensions
        .get::<CurrentUser>()
        .cloned()
}

/// The CSRF token for a form: the user's, or the anonymous visitor's before sign-in.
pub fn csrf_token() -> String {
    if let Some(user) = current_user() {
        return user.csrf_token;
    }
    use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<CsrfToken>().cloned())
        .map(|token| token.0)
        .unwrap_or_default()
}

pub fn console() -> Arc<dyn Console> {
    expect_context::<Arc<dyn Console>>()
}

/// A query-string parameter of the current request, or empty.
pub fn query_param(name: &str) -> String {
    leptos_router::hooks::use_query_map()
        .read_untracked()
        .get(name)
        .unwrap_or_default()
}

/// The page's `{id}` in its path (`/payouts/{id}`), or empty.
pub fn path_id() -> String {
    leptos_router::hooks::use_params_map()
        .read_untracked()
        .get("id")
        .unwrap_or_default()
}

/// Whether the signed-in member's role allows `permission` (pages offer only what it allows;
/// the server checks every form all the same).
pub fn may(permission: crate::console::Permission) -> bool {
    current_user().is_some_and(|user| user.may(permission))
}

/// The list filters in the page's address.
pub fn list_filter() -> crate::console::ListFilter {
    crate::console::ListFilter {
        status: query_param("status"),
        from: query_param("from"),
        to: query_param("to"),
    }
}

/// A `<select>` named `name` (its id too) offering "any" (empty) and `options`, with
/// `selected` chosen.
#[component]
pub fn AnyOf(
    name: &'static str,
    options: &'static [&'static str],
    selected: String,
) -> impl IntoView {
    view! {
        <select id=name name=name>
            <option value="" selected=selected.is_empty()>"any"</option>
            {options.iter().map(|option| {
                let chosen = *option == selected;
                view! { <option value=*option selected=chosen>{*option}</option> }
            }).collect_view()}
        </select>
    }
}

/// A filter's range of days, "From (date)" and "To (date)", both inclusive.
#[component]
pub fn DayRange(from: String, to: String) -> impl IntoView {
    view! {
        <label for="from">"From (date)"</label>
        <input id="from" name="from" type="date" value=from/>
        <label for="to">"To (date)"</label>
        <input id="to" name="to" type="date" value=to/>
    }
}

/// A list page's filter form (a status among `statuses`, and a range of days), sent by `GET`
/// so the address carries it and a link shows the same list.
#[component]
pub fn ListFilterForm(action: &'static str, statuses: &'static [&'static str]) -> impl IntoView {
    let filter = list_filter();
    view! {
        <form method="get" action=action class="form card search filters">
            <label for="status">"Status"</label>
            <AnyOf name="status" options=statuses selected=filter.status/>
            <DayRange from=filter.from to=filter.to/>
            <button type="submit">"Filter"</button>
        </form>
    }
}

/// What a list says when a filter in its address cannot be read: a fixed sentence.
pub fn refused_filter(refusal: &crate::console::Refusal) -> AnyView {
    let message = match refusal.param.as_deref() {
        Some("from") | Some("to") => "Dates are days, such as 2026-12-04.",
        Some("status") => "Status must be an HTTP status code, such as 201 or 422.",
        Some("verdict") => "Choose a verdict from the list.",
        Some("starting_after") => "That page no longer exists; start from the first page.",
        _ => "These filters cannot be read; change them and try again.",
    };
    view! { <p class="alert" role="alert">{message}</p> }.into_any()
}

/// A list page's cursor (`starting_after`), if it is not the first page.
pub fn cursor() -> Option<String> {
    Some(query_param("starting_after")).filter(|cursor| !cursor.is_empty())
}

#[component]
pub fn Nav() -> impl IntoView {
    let links: Vec<(&str, &str)> = match current_user() {
        None => vec![],
        Some(user) if user.is_support() => vec![
            ("/support", "Support"),
            ("/reconciliation", "Reconciliation"),
        ],
        Some(user) => {
            let mut links = vec![
                ("/", "Overview"),
                ("/payouts", "Payouts"),
                ("/orders", "Orders"),
                ("/keys", "Keys"),
                ("/requests", "Requests"),
                ("/webhooks", "Webhooks"),
                ("/reconciliation", "Reconciliation"),
            ];
            if user.may(Permission::ManageTeam) {
                links.push(("/settings/team", "Team"));
            }
            links
        }
    };
    let signed_in = current_user().map(|user| {
        view! {
            <form class="signout" method="post" action="/logout">
                <input type="hidden" name="csrf" value=user.csrf_token/>
                <span class="who">{user.email}</span>
                <button type="submit" class="link">"Sign out"</button>
            </form>
        }
    });
    view! {
        <header class="topbar">
            <a class="brand" href="/">"Kaadxpay"</a>
            <nav aria-label="Main">
                {links.into_iter().map(|(href, label)| view! { <a href=href>{label}</a> }).collect_view()}
            </nav>
            {signed_in}
        </header>
    }
}

#[component]
pub fn StatusBadge(status: String) -> impl IntoView {
    let class = format!("badge badge-{status}");
    view! { <span class=class>{status}</span> }
}

#[component]
pub fn Empty(message: &'static str) -> impl IntoView {
    view! { <p class="empty">{message}</p> }
}

/// What a query-string value keeps unencoded: letters, digits and RFC 3986's `-._~`.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A link to the next page of a list, when there is one, keeping the list's filters.
#[component]
pub fn Pager(base: &'static str, next: Option<String>) -> impl IntoView {
    let encode = |text: &str| percent_encoding::utf8_percent_encode(text, QUERY_VALUE).to_string();
    let filters: String = leptos_router::hooks::use_query_map()
        .get_untracked()
        .into_iter()
        .filter(|(name, value)| name != "starting_after" && !value.is_empty())
        .map(|(name, value)| format!("&{}={}", encode(&name), encode(&value)))
        .collect();
    next.map(|cursor| {
        let href = format!("{base}?starting_after={}{filters}", encode(&cursor));
        view! { <p class="pager"><a href=href>"Next page →"</a></p> }
    })
}

/// The page for something that does not exist (or is not the caller's), with status 404.
pub fn not_found_view() -> AnyView {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! { <crate::pages::NotFound/> }.into_any()
}

pub fn failure_view(error: ConsoleError) -> AnyView {
    leptos::logging::error!("console backend failed: {}", error.0);
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::INTERNAL_SERVER_ERROR);
    }
    view! {
        <h1>"Something went wrong"</h1>
        <p>"The page could not be loaded. Reload it in a moment; nothing you did was lost."</p>
    }
    .into_any()
}

/// Whose data the page may show, or the 404 page when nobody is signed in (fail closed: no
/// user is never taken for support staff).
pub fn scope_or_not_found() -> Result<Scope, AnyView> {
    current_user()
        .map(|user| user.scope())
        .ok_or_else(not_found_view)
}

/// A page only merchant users have; support staff are told where to go instead.
pub fn merchant_id_or_notice() -> Result<String, AnyView> {
    match current_user().and_then(|user| user.merchant_id) {
        Some(merchant_id) => Ok(merchant_id),
        None => Err(view! {
            <h1>"Merchant page"</h1>
            <p>"This page shows one merchant's data. Support staff find any merchant's keys, payouts and orders in "
                <a href="/support">"Support"</a>"."</p>
        }
        .into_any()),
    }
}

/// The link to an idempotency key's page: the key percent-encoded, since keys may hold `?`,
/// `#`, `&`, `/` or `%`.
pub fn key_href(key: &str) -> String {
    let key = percent_encoding::utf8_percent_encode(key, percent_encoding::NON_ALPHANUMERIC);
    format!("/keys?key={key}")
}

/// What a page says when a form came back refused: a fixed sentence per known code (and field),
/// never text taken from the address.
pub fn refusal_notice() -> Option<&'static str> {
    let code = query_param("error");
    if code.is_empty() {
        return None;
    }
    Some(match (code.as_str(), query_param("param").as_str()) {
        ("insufficient_funds", _) => "The available balance is lower than the payout amount.",
        ("invalid_amount", _) | ("invalid_request", "amount") => {
            "Enter the amount in the currency's units, such as 12.50 (whole numbers for JPY)."
        }
        ("invalid_request", "currency") => "Choose one of the currencies offered.",
        ("invalid_request", "destination[account_holder]") => {
            "Enter the account holder's name (up to 140 characters)."
        }
        ("invalid_request", "destination[iban]") => {
            "Enter an IBAN: a country code, two check digits and up to 30 letters or digits."
        }
        ("invalid_request", "date") => "Enter a day as YYYY-MM-DD.",
        ("invalid_request", "url") => {
            "Enter the endpoint's URL: http(s) to a host the service may reach."
        }
        ("invalid_request", param) if param.starts_with("events") => {
            "Name event types from the list, separated by commas, or leave Events empty for all."
        }
        ("invalid_request", "overlap") => "Choose how long the old secret stays valid.",
        ("invalid_request", "event_type") => "Choose an event type from the list.",
        ("invalid_request", "since") => "Enter the day to recover failed deliveries from.",
        ("invalid_request", _) => "A value in the form is missing or not valid.",
        ("idempotency_key_invalid" | "idempotency_key_reused", _) => {
            "This form has expired; reload the page and try again."
        }
        ("invalid_state_transition", _) => {
            "It has already moved on; reload the page to see where it stands."
        }
        ("resource_missing", _) => "That no longer exists.",
        ("not_allowed", _) => "Only support staff may do that outside test mode.",
        _ => "That did not work; reload the page and try again.",
    })
}

/// A new key for one rendered form: one form, one intent (a reloaded form is a new one).
pub fn mint_key() -> String {
    format!("console-{}", uuid::Uuid::new_v4())
}

/// Says plainly that the console is in test mode, and lists the magic IBANs.
#[component]
pub fn TestModeNotice(ibans: Vec<MagicIban>) -> impl IntoView {
    view! {
        <section class="card" aria-label="Test mode">
            <p><strong>"Test mode."</strong>" The partner bank is the simulator: no money moves. A payout to one of these IBANs has a fixed outcome; any other valid IBAN is paid."</p>
            <table>
                <thead><tr><th>"IBAN"</th><th>"Outcome"</th></tr></thead>
                <tbody>
                    {ibans.into_iter().map(|magic| view! {
                        <tr><td><code>{magic.iban}</code></td><td>{magic.outcome}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// "Export CSV": a download of what a list page shows, carrying the filters of the page's
/// address (`status`, `from`, `to`); the server decides whose rows it holds.
#[component]
pub fn ExportLink(base: String) -> impl IntoView {
    let filters: Vec<String> = ["status", "from", "to"]
        .into_iter()
        .filter_map(|name| {
            let value = query_param(name);
            let value =
                percent_encoding::utf8_percent_encode(&value, percent_encoding::NON_ALPHANUMERIC);
            (!value.to_string().is_empty()).then(|| format!("{name}={value}"))
        })
        .collect();
    let href = if filters.is_empty() {
        base
    } else {
        format!("{base}?{}", filters.join("&"))
    };
    view! { <a class="button secondary" href=href download="">"Export CSV"</a> }
}
