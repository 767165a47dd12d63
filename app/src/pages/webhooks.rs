//! `/webhooks`: the merchant's endpoints, its recent events and every delivery attempt, with a
//! Redeliver button (idempotent like every POST: its key is minted when the page is rendered).

use leptos::prelude::*;

use crate::components::{
    console, csrf_token, failure_view, may, merchant_id_or_notice, refusal_notice, Empty,
    StatusBadge,
};
use crate::console::{EndpointRow, EventRow, Permission};

#[component]
fn Endpoints(endpoints: Vec<EndpointRow>) -> impl IntoView {
    if endpoints.is_empty() {
        return view! { <Empty message="No endpoints yet. Add one with POST /v1/webhook-endpoints and your API key."/> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>"Endpoint"</th><th>"URL"</th><th>"Events"</th><th>"Status"</th></tr></thead>
            <tbody>
                {endpoints.into_iter().map(|endpoint| view! {
                    <tr>
                        <td><code>{endpoint.id}</code></td>
                        <td>{endpoint.url}</td>
                        <td>{endpoint.events.join(", ")}</td>
                        <td><StatusBadge status=endpoint.status/></td>
                    </tr>
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
                <h3><code>{event.event_type}</code> " " <small>{event.id.clone()}</small></h3>
                {may(Permission::ManageIntegrations).then(|| view! {
                    <form method="post" action=action>
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="idempotency_key" value=key/>
                        <button type="submit" class="secondary">"Redeliver"</button>
                    </form>
                })}
            </div>
            <p>"Created " {event.created_at}</p>
            {if event.deliveries.is_empty() {
                view! { <Empty message="No endpoint was subscribed to this event."/> }.into_any()
            } else {
                view! {
                    <table>
                        <thead><tr><th>"Endpoint URL"</th><th>"Delivery"</th><th>"Attempt"</th><th>"Answer"</th><th>"Latency"</th><th>"At"</th></tr></thead>
                        <tbody>
                            {event.deliveries.into_iter().flat_map(|delivery| {
                                let (url, status) = (delivery.url, delivery.status);
                                delivery.attempts.into_iter().map(move |attempt| view! {
                                    <tr>
                                        <td>{url.clone()}</td>
                                        <td><StatusBadge status=status.clone()/></td>
                                        <td><code>{attempt.delivery_id}</code></td>
                                        <td>{attempt.status_code.map(|code| code.to_string()).or(attempt.error).unwrap_or_default()}</td>
                                        <td>{format!("{} ms", attempt.latency_ms)}</td>
                                        <td>{attempt.at}</td>
                                    </tr>
                                }).collect::<Vec<_>>()
                            }).collect_view()}
                        </tbody>
                    </table>
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
    let notice = refusal_notice();
    let csrf = csrf_token();
    let console = console();
    view! {
        <h1>"Webhooks"</h1>
        {notice.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.webhooks(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok((endpoints, events)) => view! {
                        <h2>"Endpoints"</h2>
                        <Endpoints endpoints=endpoints/>
                        <h2>"Recent events"</h2>
                        {if events.is_empty() {
                            view! { <Empty message="No events yet: they are written with every order and payout change."/> }.into_any()
                        } else {
                            events.into_iter().map(|event| view! { <Event event=event csrf=csrf.clone()/> }).collect_view().into_any()
                        }}
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
