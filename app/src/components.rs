//! Pieces every page uses: the signed-in user and the backend from the request's context, the
//! navigation, status badges, empty states, pagers and the 404 answer.

use kaadxpay_types::ids::MerchantId;
use std::sync::Arc;

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::console::{
    Console, ConsoleError, CsrfToken, CurrentUser, Done, ErrorCode, Flash, KeptForm, MagicIban,
    Permission, Scenario, Scope,
};
use crate::i18n::Lang;
use crate::vocabulary::code_word;

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

/// The notice the session kept for this page only (a new invitation's link, a new secret, new
/// recovery codes), if any: shown once.
pub fn flash() -> Option<String> {
    use_context::<http::request::Parts>()?
        .extensions
        .get::<Flash>()
        .map(|flash| flash.0.clone())
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

/// The filter `name` in the page's address, read by `parse`: `None` when it is empty, the
/// refusal of `name` when `parse` reads nothing from it.
pub fn address_filter<T>(
    name: &str,
    parse: impl FnOnce(String) -> Option<T>,
) -> Result<Option<T>, crate::console::Refusal> {
    Some(query_param(name))
        .filter(|text| !text.is_empty())
        .map(|text| parse(text).ok_or_else(|| crate::console::Refusal::invalid(name)))
        .transpose()
}

/// The filter `name` in the page's address as one of the names of `T`'s values (see
/// [`address_filter`]).
pub fn named_filter<T: TryFrom<String>>(name: &str) -> Result<Option<T>, crate::console::Refusal> {
    address_filter(name, |text| T::try_from(text).ok())
}

/// The page's `{id}` in its path (`/payouts/{id}`), or empty, as the id of the page's kind.
pub fn path_id<Id: From<String>>() -> Id {
    Id::from(
        leptos_router::hooks::use_params_map()
            .read_untracked()
            .get("id")
            .unwrap_or_default(),
    )
}

/// Whether the signed-in member's role allows `permission` (pages offer only what it allows;
/// the server checks every form all the same).
pub fn may(permission: crate::console::Permission) -> bool {
    current_user().is_some_and(|user| user.may(permission))
}

/// The list filters in the page's address, its status one of `S`'s; the refusal of `status`
/// when it is none of them.
pub fn list_filter<S: TryFrom<String>>(
) -> Result<crate::console::ListFilter<S>, crate::console::Refusal> {
    Ok(crate::console::ListFilter {
        status: named_filter("status")?,
        from: query_param("from"),
        to: query_param("to"),
    })
}

/// A `<select>` named `name` (its id too) offering "any" (empty) and `options` (codes, shown
/// as the language's words), with `selected` chosen.
#[component]
pub fn AnyOf(
    name: &'static str,
    options: &'static [&'static str],
    selected: String,
) -> impl IntoView {
    view! {
        <select id=name name=name>
            <option value="" selected=selected.is_empty()>{tr!("filter-any")}</option>
            {options.iter().map(|option| {
                let chosen = *option == selected;
                view! { <option value=*option selected=chosen>{code_word(option)}</option> }
            }).collect_view()}
        </select>
    }
}

/// A filter's range of days, "From (date)" and "To (date)", both inclusive.
#[component]
pub fn DayRange(from: String, to: String) -> impl IntoView {
    view! {
        <label for="from">{tr!("filter-from")}</label>
        <input id="from" name="from" type="date" value=from/>
        <label for="to">{tr!("filter-to")}</label>
        <input id="to" name="to" type="date" value=to/>
    }
}

/// A list page's filter form (a status among `statuses`, and a range of days), sent by `GET`
/// so the address carries it and a link shows the same list.
#[component]
pub fn ListFilterForm(action: &'static str, statuses: &'static [&'static str]) -> impl IntoView {
    view! {
        <form method="get" action=action class="form card search filters">
            <label for="status">{tr!("field-status")}</label>
            <AnyOf name="status" options=statuses selected=query_param("status")/>
            <DayRange from=query_param("from") to=query_param("to")/>
            <button type="submit">{tr!("filter-submit")}</button>
        </form>
    }
}

/// What a list says when a filter in its address cannot be read: a fixed sentence.
pub fn refused_filter(refusal: &crate::console::Refusal) -> AnyView {
    let message = match refusal.param.as_deref() {
        Some("from") | Some("to") => tr!("filter-refused-day"),
        Some("status") => tr!("filter-refused-status"),
        Some("action") => tr!("filter-refused-action"),
        Some("verdict") => tr!("filter-refused-verdict"),
        Some("starting_after") => tr!("filter-refused-page"),
        _ => tr!("filter-refused"),
    };
    view! { <p class="alert" role="alert">{message}</p> }.into_any()
}

/// A list page's cursor (`starting_after`), if it is not the first page: the id of one of the
/// list's own objects, or the refusal of `starting_after` when it is of another kind (as the
/// server refuses one that names none of the list's objects).
pub fn cursor<Id: crate::console::ParseId>() -> Result<Option<Id>, crate::console::Refusal> {
    address_filter("starting_after", |text| Id::parse(&text))
}

#[component]
pub fn Nav() -> impl IntoView {
    let links: Vec<(&str, String)> = match current_user() {
        None => vec![],
        Some(user) if user.must_enrol() => vec![("/settings/security", tr!("nav-security"))],
        Some(user) if user.is_support() => vec![
            ("/support", tr!("nav-support")),
            ("/reconciliation", tr!("nav-reconciliation")),
            ("/settings/profile", tr!("nav-profile")),
            ("/settings/security", tr!("nav-security")),
        ],
        Some(user) => {
            let mut links = vec![
                ("/", tr!("nav-overview")),
                ("/balance", tr!("nav-balance")),
                ("/payouts", tr!("nav-payouts")),
                ("/orders", tr!("nav-orders")),
                ("/keys", tr!("nav-keys")),
                ("/requests", tr!("nav-requests")),
                ("/webhooks", tr!("nav-webhooks")),
                ("/reconciliation", tr!("nav-reconciliation")),
            ];
            links.push(("/settings/keys", tr!("nav-api-keys")));
            if user.may(Permission::ManageTeam) {
                links.push(("/settings/team", tr!("nav-team")));
            }
            if user.may(Permission::ManageThresholds) {
                links.push(("/settings/payouts", tr!("nav-payout-settings")));
            }
            if user.may(Permission::SeeAuditLog) {
                links.push(("/settings/audit", tr!("nav-audit")));
            }
            links.push(("/settings/profile", tr!("nav-profile")));
            links.push(("/settings/security", tr!("nav-security")));
            links
        }
    };
    // The approvals link is drawn after the others, but is a candidate like them: on its page,
    // it is the one marked, not "Payouts".
    let candidates = links.iter().map(|(href, _)| *href).chain([APPROVALS]);
    let current = current_link(&request_path(), candidates);
    let approvals_here = current == Some(APPROVALS);
    // The menu's switch (a checkbox and its label, so it works without JavaScript), only where
    // there is a menu; the stylesheet shows it on narrow screens alone.
    let toggle = (!links.is_empty()).then(|| {
        view! {
            <input type="checkbox" id="menu-toggle" class="menu-toggle"/>
            <label for="menu-toggle" class="menu-button">{tr!("nav-menu")}</label>
        }
    });
    let signed_in = current_user().map(|user| {
        view! {
            <form class="signout" method="post" action="/logout">
                <input type="hidden" name="csrf" value=user.csrf_token/>
                <span class="who">{user.email}</span>
                <button type="submit" class="link">{tr!("nav-sign-out")}</button>
            </form>
        }
    });
    view! {
        <header class="topbar">
            <a class="brand" href="/">"Kaadxpay"</a>
            {toggle}
            <nav aria-label=tr!("nav-main")>
                {links.into_iter().map(|(href, label)| {
                    let here = (Some(href) == current).then_some("page");
                    view! { <a href=href aria-current=here>{label}</a> }
                }).collect_view()}
                <ApprovalsLink here=approvals_here/>
            </nav>
            <LanguageSwitch/>
            {signed_in}
        </header>
    }
}

/// The path of the page being rendered (`/` outside a request).
pub fn request_path() -> String {
    use_context::<http::request::Parts>()
        .map(|parts| parts.uri.path().to_owned())
        .unwrap_or_else(|| "/".to_owned())
}

/// The menu link of the page at `path`: its own, else the section it belongs to (the longest
/// link that is a folder of it: `/payouts` for `/payouts/po_1`); `/` only for `/` itself.
fn current_link<'a>(path: &str, links: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    links
        .filter(|href| {
            *href == path
                || (*href != "/"
                    && path
                        .strip_prefix(href)
                        .is_some_and(|rest| rest.starts_with('/')))
        })
        .max_by_key(|href| href.len())
}

/// Where the menu's approvals link goes.
const APPROVALS: &str = "/payouts/approvals";

/// The menu's link to `/payouts/approvals`, with how many payouts wait for this member's
/// decision; only for members who may approve; marked `here` on its own page.
#[component]
fn ApprovalsLink(here: bool) -> impl IntoView {
    let user =
        current_user().filter(|user| user.may(Permission::CreatePayouts) && !user.must_enrol());
    user.and_then(|user| Some((user.merchant_id.clone()?, user))).map(|(merchant_id, user)| {
        let console = console();
        view! {
            <Suspense fallback=|| ()>
                {Suspend::new(async move {
                    let count = console
                        .awaiting_decision(&user, &merchant_id)
                        .await
                        .map_or(0, |rows| rows.len());
                    view! {
                        <a href=APPROVALS aria-current=here.then_some("page") data-testid="nav-approvals">{tr!("nav-approvals", {"count" => count})}</a>
                    }
                })}
            </Suspense>
        }
    })
}

#[component]
pub fn StatusBadge(status: &'static str) -> impl IntoView {
    let class = format!("badge badge-{status}");
    view! { <span class=class>{code_word(status)}</span> }
}

/// The language switch: a link per language the page is not in, to the server's `/language`,
/// which remembers the choice in a cookie and sends the browser back to this page (works with
/// JavaScript off; a link, not a form, since it changes nothing but how pages read). The way
/// back keeps the page's filters but not a refusal's code, which is the form's own notice and
/// text from the address that no page repeats.
#[component]
fn LanguageSwitch() -> impl IntoView {
    let current = Lang::current();
    let path = request_path();
    let back = match query_but(&["error", "param"]).strip_prefix('&') {
        Some(query) => format!("{path}?{query}"),
        None => path,
    };
    view! {
        <div class="language" role="group" aria-label=tr!("nav-language")>
            {Lang::ALL.into_iter().filter(|lang| *lang != current).map(|lang| {
                let href = format!("/language?lang={}&back={}", lang.tag(), encode(&back));
                view! {
                    <a href=href lang=lang.tag() hreflang=lang.tag() data-testid=format!("language-{}", lang.tag())>{lang.name()}</a>
                }
            }).collect_view()}
        </div>
    }
}

#[component]
pub fn Empty(message: String) -> impl IntoView {
    view! { <p class="empty">{message}</p> }
}

/// What a query-string value keeps unencoded: letters, digits and RFC 3986's `-._~`.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, QUERY_VALUE).to_string()
}

/// The page's query parameters but those named in `left_out` (and empty ones), each as
/// `&name=value`, encoded.
fn query_but(left_out: &[&str]) -> String {
    leptos_router::hooks::use_query_map()
        .get_untracked()
        .into_iter()
        .filter(|(name, value)| !left_out.iter().any(|left| name == left) && !value.is_empty())
        .map(|(name, value)| format!("&{}={}", encode(&name), encode(&value)))
        .collect()
}

/// A link to the next page of a list, when there is one, keeping the list's filters.
#[component]
pub fn Pager(base: &'static str, next: Option<String>) -> impl IntoView {
    let filters = query_but(&["starting_after"]);
    next.map(|cursor| {
        let href = format!("{base}?starting_after={}{filters}", encode(&cursor));
        view! { <p class="pager"><a href=href>{tr!("pager-next")}</a></p> }
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
    let error = match error {
        ConsoleError::Refused(refusal) => return refused_filter(&refusal),
        ConsoleError::Failed(error) => error,
    };
    leptos::logging::error!("console backend failed: {error}");
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::INTERNAL_SERVER_ERROR);
    }
    view! {
        <h1>{tr!("failure-title")}</h1>
        <p>{tr!("failure-body")}</p>
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
pub fn merchant_id_or_notice() -> Result<MerchantId, AnyView> {
    match current_user().and_then(|user| user.merchant_id) {
        Some(merchant_id) => Ok(merchant_id),
        None => Err(view! {
            <h1>{tr!("merchant-page-title")}</h1>
            <p>{tr!("merchant-page-before")}<a href="/support">{tr!("nav-support")}</a>{tr!("merchant-page-after")}</p>
        }
        .into_any()),
    }
}

/// The link to an idempotency key's page, `/keys/{key}`: the key percent-encoded, since keys
/// may hold `?`, `#`, `&`, `/` or `%`.
pub fn key_href(key: &str) -> String {
    let key = percent_encoding::utf8_percent_encode(key, percent_encoding::NON_ALPHANUMERIC);
    format!("/keys/{key}")
}

/// What a page says when a form came back refused with its code in the address: a fixed
/// sentence per code (and field), never text taken from the address; a code that is none of
/// ours (an address typed by hand) says only that it was refused.
pub fn refusal_notice() -> Option<String> {
    let code = query_param("error");
    if code.is_empty() {
        return None;
    }
    Some(match ErrorCode::try_from(code) {
        Ok(code) => refusal_sentence(code, &query_param("param")),
        Err(_) => tr!("refusal-other"),
    })
}

/// The fixed sentence for a refusal's code and the field (`param`) it names.
pub fn refusal_sentence(code: ErrorCode, param: &str) -> String {
    use ErrorCode::*;
    match (code, param) {
        (InsufficientFunds, _) => tr!("refusal-insufficient-funds"),
        (AmountExceedsRefundable, _) => tr!("refusal-exceeds-refundable"),
        (InvalidRequest, "amount") => tr!("refusal-amount"),
        (InvalidRequest, "currency") => tr!("refusal-currency"),
        (InvalidRequest, "destination[account_holder]") => tr!("refusal-account-holder"),
        (InvalidRequest, "destination[iban]") => tr!("refusal-iban"),
        (InvalidRequest, "date") => tr!("refusal-date"),
        (InvalidRequest, "url") => tr!("refusal-url"),
        (InvalidRequest, param) if param.starts_with("events") => tr!("refusal-events"),
        (InvalidRequest, "overlap") => tr!("refusal-overlap"),
        (InvalidRequest, "event_type") => tr!("refusal-event-type"),
        (InvalidRequest, "since") => tr!("refusal-since"),
        (InvalidRequest, "name") => tr!("refusal-name"),
        (InvalidRequest, _) => tr!("refusal-invalid-request"),
        (IdempotencyKeyInvalid | IdempotencyKeyReused, _) => tr!("refusal-form-expired"),
        (InvalidStateTransition, _) => tr!("refusal-moved-on"),
        (ResourceMissing, _) => tr!("refusal-missing"),
        (NotAllowed, _) => tr!("refusal-not-allowed"),
        (
            IdempotencyKeyMissing
            | Unauthorized
            | InvalidSignature
            | Forbidden
            | MethodNotAllowed
            | RequestTimeout
            | IdempotencyRequestInProgress
            | RequestTooLarge
            | InternalError
            | ServiceUnavailable,
            _,
        ) => tr!("refusal-other"),
    }
}

/// A secret shown once, with "Copy" beside it: the button is in the page but hidden until the
/// page's script (under the request's nonce) can copy; without JavaScript the secret is there
/// to select.
#[component]
pub fn OneTimeSecret(secret: String) -> impl IntoView {
    let copied = tr!("copy-done");
    view! {
        <code class="secret">{secret}</code>
        <button type="button" class="secondary copy" id="copy-secret" data-copied=copied hidden>{tr!("copy")}</button>
        <script nonce=leptos::nonce::use_nonce()>"(function(){var b=document.getElementById('copy-secret');if(!navigator.clipboard)return;b.hidden=false;b.addEventListener('click',function(){navigator.clipboard.writeText(document.querySelector('code.secret').textContent).then(function(){b.textContent=b.dataset.copied;});});})();"</script>
    }
}

/// A kept form's fields as hidden inputs, with the session's token: the form sent again as it
/// was typed (`/repeat`, `/confirm`).
#[component]
pub fn KeptFields(fields: Vec<(String, String)>) -> impl IntoView {
    view! {
        <input type="hidden" name="csrf" value=csrf_token()/>
        {fields.into_iter().map(|(name, value)| view! {
            <input type="hidden" name=name value=value/>
        }).collect_view()}
    }
}

/// A page of a kept form (`/repeat`, `/confirm`) reached without one (a reload): `title` says
/// there is nothing to do, with the way to the start page.
pub fn nothing_kept(title: String) -> AnyView {
    view! {
        <h1>{title}</h1>
        <p><a href="/">{tr!("not-found-link")}</a></p>
    }
    .into_any()
}

/// What the last action did, said once on the page it led to (`role="status"`).
#[component]
pub fn DoneNotice() -> impl IntoView {
    let done = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Done>().copied());
    let time_zone = current_user().map_or(chrono_tz::Tz::UTC, |user| user.time_zone);
    done.map(|done| {
        let sentence = crate::pages::confirm::done_sentence(done, time_zone);
        view! { <p class="notice done" role="status">{sentence}</p> }
    })
}

/// The form the server kept for this page (a refused submit, one interrupted by a step-up, or
/// one held back as a repeat), if any: shown once.
pub fn kept_form() -> Option<KeptForm> {
    use_context::<http::request::Parts>()?
        .extensions
        .get::<KeptForm>()
        .cloned()
}

/// The key of the page's form that posts to `action`: the kept form's when it is that form and
/// the same intent still (a step-up came in between), else a new one.
pub fn form_key(action: &str) -> String {
    kept_form()
        .filter(|kept| kept.action == action)
        .map(|kept| kept.typed("idempotency_key"))
        .filter(|key| !key.is_empty())
        .unwrap_or_else(mint_key)
}

/// A kept form's refusal that no field of the page shows beside it (the page's `beside`): one
/// about the form as a whole, or a field of a form in a table's row, as a sentence for the top
/// of the page.
pub fn form_refusal(beside: &[&str]) -> Option<String> {
    kept_form()
        .and_then(|kept| kept.refusal)
        .filter(|refused| !beside.contains(&refused.field.as_str()))
        .map(|refused| {
            refusal_sentence(
                refused.refusal.code,
                refused.refusal.param.as_deref().unwrap_or_default(),
            )
        })
}

/// One field of a form as the kept form has it: what was typed, and why it was refused when the
/// refusal is about it. Its input takes [`Field::invalid`] as `aria-invalid` and
/// [`Field::described_by`] as `aria-describedby`, naming the [`Field::reason`] beside it.
#[derive(Debug, Clone)]
pub struct Field {
    name: &'static str,
    pub value: String,
    code: Option<ErrorCode>,
    reason: Option<String>,
}

impl Field {
    pub fn kept(name: &'static str) -> Self {
        let kept = kept_form().unwrap_or_default();
        let refusal = kept
            .refusal
            .clone()
            .filter(|refused| refused.field == name)
            .map(|refused| refused.refusal);
        let reason = refusal.as_ref().map(|refusal| {
            refusal_sentence(refusal.code, refusal.param.as_deref().unwrap_or_default())
        });
        Self {
            name,
            value: kept.typed(name),
            code: refusal.map(|refusal| refusal.code),
            reason,
        }
    }

    /// The reason of a refusal with `code`, said otherwise (the payout form says how much is
    /// available).
    pub fn said(mut self, code: ErrorCode, reason: Option<String>) -> Self {
        if self.code == Some(code) && reason.is_some() {
            self.reason = reason;
        }
        self
    }

    pub fn invalid(&self) -> Option<&'static str> {
        self.reason.as_ref().map(|_| "true")
    }

    pub fn described_by(&self) -> Option<String> {
        self.reason
            .as_ref()
            .map(|_| format!("{}-reason", self.name))
    }

    /// The reason beside the field, when it was refused.
    pub fn reason(&self) -> Option<impl IntoView> {
        let id = format!("{}-reason", self.name);
        self.reason
            .clone()
            .map(|reason| view! { <p class="field-reason" id=id role="alert">{reason}</p> })
    }
}

/// The "Account holder" and "IBAN" fields of a form that sends money to a bank account (a
/// payout, a refund), filled with what was typed when the form comes back refused.
#[component]
pub fn BankAccountFields() -> impl IntoView {
    let holder = Field::kept("account_holder");
    let iban = Field::kept("iban");
    view! {
        <label for="account_holder">{tr!("field-account-holder")}</label>
        <input id="account_holder" name="account_holder" autocomplete="name" required value=holder.value.clone() aria-invalid=holder.invalid() aria-describedby=holder.described_by()/>
        {holder.reason()}
        <label for="iban">{tr!("field-iban")}</label>
        <input id="iban" name="iban" placeholder="DE89 3704 0044 0532 0130 00" required value=iban.value.clone() aria-invalid=iban.invalid() aria-describedby=iban.described_by()/>
        {iban.reason()}
    }
}

/// A new key for one rendered form: one form, one intent (a reloaded form is a new one).
/// How long an old secret keeps working beside its successor, for a rotation or a roll.
#[component]
pub fn OverlapOptions() -> impl IntoView {
    view! {
        <option value="24h">{tr!("webhooks-overlap-24h")}</option>
        <option value="1h">{tr!("webhooks-overlap-1h")}</option>
        <option value="7d">{tr!("webhooks-overlap-7d")}</option>
        <option value="now">{tr!("webhooks-overlap-now")}</option>
    }
}

pub fn mint_key() -> String {
    format!("console-{}", uuid::Uuid::new_v4())
}

/// Says plainly that the console is in test mode, and lists the magic IBANs.
#[component]
pub fn TestModeNotice(ibans: Vec<MagicIban>) -> impl IntoView {
    view! {
        <section class="card" aria-label=tr!("test-mode-region")>
            <p><strong>{tr!("test-mode-title")}</strong>" "{tr!("test-mode-body")}</p>
            <table>
                <thead><tr><th>{tr!("field-iban")}</th><th>{tr!("test-mode-outcome")}</th></tr></thead>
                <tbody>
                    {ibans.into_iter().map(|magic| view! {
                        <tr><td><code>{magic.iban}</code></td><td>{scenario_outcome(magic.scenario)}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// What a payout to a magic IBAN of `scenario` does, in a sentence.
fn scenario_outcome(scenario: Scenario) -> String {
    match scenario {
        Scenario::Paid => tr!("test-mode-paid"),
        Scenario::Refused => tr!("test-mode-refused"),
        Scenario::Returned => tr!("test-mode-returned"),
        Scenario::Slow => tr!("test-mode-slow"),
        Scenario::Duplicated => tr!("test-mode-duplicated"),
        Scenario::Held => tr!("test-mode-held"),
    }
}

/// "Export CSV": a download of what a list page shows, carrying the filters of the page's
/// address (`status`, `from`, `to`); the server decides whose rows it holds.
#[component]
pub fn ExportLink(base: String) -> impl IntoView {
    let filters: Vec<String> = ["status", "action", "from", "to"]
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
    view! { <a class="button secondary" href=href download="">{tr!("export-csv")}</a> }
}

/// A logged body as people read it: a console form's body (`amount=12%2C50&account_holder=%E5%BC%A0`)
/// one field a line, decoded (`amount = 12,50`); JSON and anything else as it was stored.
pub fn readable_body(body: &str) -> String {
    let form_like = !body.is_empty()
        && !body.starts_with(['{', '['])
        && !body.contains(char::is_whitespace)
        && body.split('&').all(|pair| pair.contains('='));
    if !form_like {
        return body.to_owned();
    }
    let decode = |text: &str| {
        percent_encoding::percent_decode_str(&text.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    body.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| format!("{} = {}", decode(name), decode(value)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_body_is_shown_decoded_and_json_as_it_is() {
        assert_eq!(
            readable_body("csrf=[redacted]&amount=12%2C50&account_holder=%E5%BC%A0+%E4%B8%89"),
            "csrf = [redacted]\namount = 12,50\naccount_holder = 张 三"
        );
        for kept in [r#"{"amount":1250}"#, "", "not a form"] {
            assert_eq!(readable_body(kept), kept);
        }
    }

    #[test]
    fn the_menu_marks_the_page_or_its_section() {
        let links = ["/", "/payouts", "/payouts/approvals", "/settings/keys"];
        let current = |path| current_link(path, links.into_iter());
        assert_eq!(current("/"), Some("/"));
        assert_eq!(current("/payouts"), Some("/payouts"));
        assert_eq!(current("/payouts/po_1"), Some("/payouts"));
        assert_eq!(current("/payouts/approvals"), Some("/payouts/approvals"));
        assert_eq!(current("/payoutsx"), None);
        assert_eq!(current("/keys"), None);
    }
}
