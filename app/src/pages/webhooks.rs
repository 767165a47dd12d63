//! `/webhooks`: the merchant's endpoints (add one, send it a test event, rotate its secret,
//! disable, enable or delete it: owners, admins and developers), its recent events (filtered by
//! a delivery's status and their days, in the address) and every delivery attempt, with a
//! Redeliver button and, for those who manage integrations, each delivery as a `curl` command
//! that sends it again, signed when the page was shown, beside the code that verifies a delivery
//! in Python and Node. Every keyed form's key is minted when the page is
//! rendered, so a double click acts once; a new secret is shown once.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, cursor, failure_view, flash, form_key, form_refusal, list_filter, may,
    merchant_id_or_notice, query_param, refusal_notice, refused_filter, Empty, Field,
    ListFilterForm, OneTimeSecret, OverlapOptions, Pager, StatusBadge,
};
use crate::console::{
    ConsoleError, DeliveryStatus, EndpointRow, EndpointStatus, EventRow, EventType, ListFilter,
    Page, Permission, Subscribed,
};
use crate::i18n::when;

/// How an endpoint checks what it receives, by hand: the code docs/api.md prints, which a test
/// runs on a real delivery.
const VERIFY_IN_PYTHON: &str = include_str!("../../snippets/verify_webhook.py");
const VERIFY_IN_NODE: &str = include_str!("../../snippets/verify_webhook.js");

#[component]
fn Verification() -> impl IntoView {
    view! {
        <details class="card reproduce">
            <summary>{tr!("webhooks-verify-title")}</summary>
            <p>{tr!("webhooks-verify-intro")}</p>
            <h3>"Python"</h3>
            <pre><code>{VERIFY_IN_PYTHON}</code></pre>
            <h3>"Node.js"</h3>
            <pre><code>{VERIFY_IN_NODE}</code></pre>
        </details>
    }
}

/// A form posting to `action` with the session's token, a key minted now (so any number of
/// submits of this rendered form act once; the same key when the form comes back after a
/// step-up) and `fields`.
#[component]
fn KeyedForm(action: String, csrf: String, children: Children) -> impl IntoView {
    view! {
        <form method="post" action=action.clone() class="inline">
            <input type="hidden" name="csrf" value=csrf/>
            <input type="hidden" name="idempotency_key" value=form_key(&action)/>
            {children()}
        </form>
    }
}

/// The event types an endpoint receives as its API names them: `*`, or their names.
fn subscribed_names(events: &Subscribed) -> String {
    match events {
        Subscribed::Every => "*".to_owned(),
        Subscribed::Only(types) => types
            .iter()
            .map(|kind| kind.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[component]
fn Endpoints(endpoints: Vec<EndpointRow>, csrf: String) -> impl IntoView {
    if endpoints.is_empty() {
        return view! { <Empty message=tr!("webhooks-no-endpoints")/> }.into_any();
    }
    let manage = may(Permission::ManageIntegrations);
    view! {
        <table class="endpoints">
            <thead><tr><th>{tr!("webhooks-endpoint")}</th><th>{tr!("field-url")}</th><th>{tr!("webhooks-events")}</th><th>{tr!("field-status")}</th>{manage.then(|| view! { <th>{tr!("webhooks-actions")}</th> })}</tr></thead>
            <tbody>
                {endpoints.into_iter().map(|endpoint| {
                    let actions = manage.then(|| {
                        let base = format!("/webhooks/endpoints/{}", endpoint.id);
                        let test_label = tr!("webhooks-test-event-for", {"id" => endpoint.id.to_string()});
                        let overlap_label = tr!("webhooks-overlap-for", {"id" => endpoint.id.to_string()});
                        let recover_label = tr!("webhooks-failed-since-for", {"id" => endpoint.id.to_string()});
                        let (state, label) = if endpoint.status == EndpointStatus::Disabled { ("enable", tr!("webhooks-enable")) } else { ("disable", tr!("webhooks-disable")) };
                        view! {
                            <KeyedForm action=format!("{base}/test") csrf=csrf.clone()>
                                <select name="event_type" aria-label=test_label>
                                    {EventType::NAMES.map(|name| view! { <option value=name>{name}</option> }).collect_view()}
                                </select>
                                <button type="submit" class="secondary">{tr!("webhooks-send-test")}</button>
                            </KeyedForm>
                            <KeyedForm action=format!("{base}/rotate") csrf=csrf.clone()>
                                <select name="overlap" aria-label=overlap_label>
                                    <OverlapOptions/>
                                </select>
                                <button type="submit" class="danger">{tr!("webhooks-rotate")}</button>
                            </KeyedForm>
                            <KeyedForm action=format!("{base}/recover") csrf=csrf.clone()>
                                <input type="date" name="since" required aria-label=recover_label.clone()/>
                                <button type="submit" class="secondary">{tr!("webhooks-recover")}</button>
                            </KeyedForm>
                            <form method="post" action=format!("{base}/{state}") class="inline">
                                <input type="hidden" name="csrf" value=csrf.clone()/>
                                <button type="submit" class="secondary">{label}</button>
                            </form>
                            <form method="post" action=format!("{base}/delete") class="inline">
                                <input type="hidden" name="csrf" value=csrf.clone()/>
                                <button type="submit" class="danger">{tr!("webhooks-delete")}</button>
                            </form>
                        }
                    });
                    view! {
                        <tr>
                            <td><code>{endpoint.id.to_string()}</code></td>
                            <td>{endpoint.url}</td>
                            <td>{subscribed_names(&endpoint.events)}</td>
                            <td><StatusBadge status=endpoint.status.as_str()/></td>
                            {actions.map(|actions| view! { <td>{actions}</td> })}
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
fn Event(event: EventRow, csrf: String) -> impl IntoView {
    let action = format!("/webhooks/events/{}/redeliver", event.id);
    let key = format!("console-redeliver-{}", uuid::Uuid::new_v4());
    view! {
        <section class="card event">
            <div class="heading-row">
                <h3><code>{event.event_type.as_str()}</code> " " <small>{event.id.to_string()}</small></h3>
                {may(Permission::ManageIntegrations).then(|| view! {
                    <form method="post" action=action>
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="idempotency_key" value=key/>
                        <button type="submit" class="secondary">{tr!("webhooks-redeliver")}</button>
                    </form>
                })}
            </div>
            <p>{tr!("webhooks-event-created", {"at" => when(&event.created_at)})}</p>
            {if event.deliveries.is_empty() {
                view! { <Empty message=tr!("webhooks-no-deliveries")/> }.into_any()
            } else {
                let reproductions = may(Permission::ManageIntegrations).then(|| {
                    event.deliveries.iter().filter_map(|delivery| {
                        let curl = delivery.curl.clone()?;
                        Some(view! {
                            <details class="reproduce">
                                <summary>{tr!("webhooks-reproduce", {"url" => delivery.url.clone()})}</summary>
                                <pre><code>{curl}</code></pre>
                            </details>
                        })
                    }).collect_view()
                });
                view! {
                    <table>
                        <thead><tr><th>{tr!("webhooks-endpoint-url")}</th><th>{tr!("webhooks-delivery")}</th><th>{tr!("webhooks-attempt")}</th><th>{tr!("webhooks-answer")}</th><th>{tr!("request-latency")}</th><th>{tr!("webhooks-at")}</th></tr></thead>
                        <tbody>
                            {event.deliveries.into_iter().flat_map(|delivery| {
                                let (url, status) = (delivery.url, delivery.status);
                                delivery.attempts.into_iter().map(move |attempt| view! {
                                    <tr>
                                        <td>{url.clone()}</td>
                                        <td><StatusBadge status=status.as_str()/></td>
                                        <td><code>{attempt.delivery_id.to_string()}</code></td>
                                        <td>{match (attempt.status_code, attempt.error) {
                                            (Some(code), _) => view! { <span>{code.to_string()}</span> }.into_any(),
                                            // The network's own words, in English.
                                            (None, Some(error)) => view! { <span lang="en">{error}</span> }.into_any(),
                                            (None, None) => ().into_any(),
                                        }}</td>
                                        <td>{tr!("latency-ms", {"ms" => attempt.latency_ms.to_string()})}</td>
                                        <td>{when(&attempt.at)}</td>
                                    </tr>
                                }).collect::<Vec<_>>()
                            }).collect_view()}
                        </tbody>
                    </table>
                    {reproductions}
                }.into_any()
            }}
        </section>
    }
}

#[component]
pub fn Webhooks() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let notice = refusal_notice().or_else(|| form_refusal(&["url", "events"]));
    let cursor = cursor();
    let csrf = csrf_token();
    let console = console();
    let (url, events) = (Field::kept("url"), Field::kept("events"));
    let add = may(Permission::ManageIntegrations).then(|| {
        view! {
            <form method="post" action="/webhooks/endpoints" class="form card">
                <input type="hidden" name="csrf" value=csrf.clone()/>
                <input type="hidden" name="idempotency_key" value=form_key("/webhooks/endpoints")/>
                <label for="url">{tr!("webhooks-endpoint-url")}</label>
                <input id="url" name="url" type="url" placeholder="https://shop.example/hooks" required value=url.value.clone() aria-invalid=url.invalid() aria-describedby=url.described_by()/>
                {url.reason()}
                <label for="events">{tr!("webhooks-events")}</label>
                <input id="events" name="events" placeholder=tr!("webhooks-events-placeholder") value=events.value.clone() aria-invalid=events.invalid() aria-describedby=events.described_by()/>
                {events.reason()}
                <button type="submit">{tr!("webhooks-add")}</button>
            </form>
        }
    });
    view! {
        <h1>{tr!("nav-webhooks")}</h1>
        {notice.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        {flash().map(|secret| view! {
            <p class="notice" role="status">{tr!("webhooks-secret-shown")}" "<OneTimeSecret secret=secret/></p>
        })}
        {add}
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                // A status that is no delivery's finds no event; the endpoints show all the same.
                let (filter, unknown) = match list_filter::<DeliveryStatus>() {
                    Ok(filter) => (filter, false),
                    Err(_) => (ListFilter { status: None, from: query_param("from"), to: query_param("to") }, true),
                };
                let listed = match cursor {
                    Ok(cursor) => console.webhooks(&merchant_id, &filter, cursor).await,
                    Err(refusal) => Err(refusal.into()),
                };
                match listed.map(|(endpoints, events)| (endpoints, if unknown { Page::empty() } else { events })) {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok((endpoints, events)) => view! {
                        <h2>{tr!("webhooks-endpoints")}</h2>
                        <Endpoints endpoints=endpoints csrf=csrf.clone()/>
                        {may(Permission::ManageIntegrations).then(|| view! { <Verification/> })}
                        <h2>{tr!("webhooks-recent-events")}</h2>
                        <ListFilterForm action="/webhooks" statuses=&DeliveryStatus::NAMES/>
                        {if events.rows.is_empty() {
                            view! { <Empty message=tr!("webhooks-no-events")/> }.into_any()
                        } else {
                            events.rows.into_iter().map(|event| view! { <Event event=event csrf=csrf.clone()/> }).collect_view().into_any()
                        }}
                        <Pager base="/webhooks" next=events.next.map(|id| id.to_string())/>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
