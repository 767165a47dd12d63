//! `/settings/security`: the signed-in user's two-step sign-in. Off: the secret to set an
//! authenticator app up with (a QR code drawn by the server, and the secret in base32) and a
//! code to confirm it; then the ten recovery codes, shown once. On: since when, and how many
//! recovery codes are left. Members who manage the team may require it of every member.
//! `/step-up`: the code a change asks for when the last one is not recent.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{console, csrf_token, current_user, failure_view, flash, query_param};
use crate::console::{Enrolment, Permission};
use crate::i18n::when;
use crate::pages::login::CodeForm;

fn refusal() -> Option<String> {
    Some(match query_param("error").as_str() {
        "" => return None,
        "code" => tr!("login-code-invalid"),
        "throttled" => tr!("login-throttled"),
        _ => tr!("refusal-other"),
    })
}

fn enrol(enrolment: Enrolment) -> impl IntoView {
    view! {
        <section class="card">
            <h2>{tr!("security-set-up")}</h2>
            <p>{tr!("security-scan")}</p>
            <figure class="qr" aria-label=tr!("security-qr") inner_html=enrolment.qr_svg></figure>
            <p>{tr!("security-or-type")}" "<code class="totp-secret" data-testid="totp-secret">{enrolment.secret}</code></p>
            <form method="post" action="/settings/security/confirm" class="form">
                <input type="hidden" name="csrf" value=csrf_token()/>
                <label for="code">{tr!("field-authentication-code")}</label>
                <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required/>
                <button type="submit">{tr!("security-turn-on")}</button>
            </form>
        </section>
    }
}

#[component]
pub fn SecurityPage() -> impl IntoView {
    let Some(user) = current_user() else {
        return crate::components::not_found_view();
    };
    let may_require = user.may(Permission::ManageTeam);
    let must_enrol = user.must_enrol();
    let recovery_codes = flash().map(|codes| {
        codes
            .split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    });
    let console = console();
    view! {
        <h1>{tr!("nav-security")}</h1>
        {refusal().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        {must_enrol.then(|| view! { <p class="alert" role="alert">{tr!("security-required-notice")}</p> })}
        {recovery_codes.map(|codes| view! {
            <section class="notice" role="status">
                <p>{tr!("security-recovery-codes")}</p>
                <ul class="recovery-codes" data-testid="recovery-codes">
                    {codes.into_iter().map(|code| view! { <li><code>{code}</code></li> }).collect_view()}
                </ul>
            </section>
        })}
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.security(&user).await {
                    Err(error) => failure_view(error),
                    Ok(security) => {
                        let status = match (security.enrolled_at, security.enrolment) {
                            (Some(at), _) => view! {
                                <p class="card" data-testid="two-factor-on">{tr!("security-on", {"since" => when(&at), "left" => security.recovery_codes_left})}</p>
                            }.into_any(),
                            (None, Some(enrolment)) => enrol(enrolment).into_any(),
                            (None, None) => ().into_any(),
                        };
                        let switch = may_require.then(|| view! {
                            <form method="post" action="/settings/security/required" class="form card">
                                <input type="hidden" name="csrf" value=csrf_token()/>
                                <label class="check">
                                    <input type="checkbox" name="required" value="on" checked=security.required/>
                                    " "{tr!("security-require-all")}
                                </label>
                                <button type="submit">{tr!("security-save")}</button>
                            </form>
                        });
                        view! { {status} {switch} }.into_any()
                    }
                }
            })}
        </Suspense>
    }
    .into_any()
}

#[component]
pub fn StepUp() -> impl IntoView {
    let back = crate::i18n::same_site_path(&query_param("back")).to_owned();
    let confirming = confirming(&back).map(|what| {
        view! {
            <p class="notice" role="status">{tr!("step-up-confirming", {"what" => what})}</p>
        }
    });
    view! {
        <section class="narrow card">
            <h1>{tr!("step-up-title")}</h1>
            {refusal().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
            {confirming}
            <p>{tr!("step-up-body")}</p>
            <CodeForm action="/step-up".to_owned() back=Some(back)/>
        </section>
    }
}

/// What a step-up confirms, by the page its form comes back on: the form's page by name.
fn confirming(back: &str) -> Option<String> {
    Some(match back {
        "/payouts/new" => tr!("payout-new"),
        "/settings/keys" => tr!("nav-api-keys"),
        "/webhooks" => tr!("nav-webhooks"),
        "/settings/team" => tr!("nav-team"),
        "/settings/payouts" => tr!("nav-payout-settings"),
        "/settings/security" => tr!("nav-security"),
        page if page.starts_with("/payouts/") => tr!("nav-payouts"),
        _ => return None,
    })
}
