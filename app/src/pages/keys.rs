//! `/keys`: look up one of the merchant's idempotency keys and see its live record, its
//! linked resource, its stored response and its timeline. While the record is `in_progress` the page
//! refreshes itself every second (a meta refresh, so it works with JavaScript off too).

use leptos::prelude::*;
use leptos_meta::Meta;

use crate::components::{
    console, current_user, failure_view, merchant_id_or_notice, query_param, StatusBadge,
};
use crate::console::{KeyView, Subject};
use crate::pages::timeline::Timeline;

/// The record's facts, shared with support's view of it.
#[component]
pub fn KeyRecord(record: KeyView) -> impl IntoView {
    let support = current_user().is_some_and(|user| user.is_support());
    let resource = record.resource.clone().map(|(kind, id)| {
        let subject = match kind.as_str() {
            "payout" => Some(Subject::Payout(id.clone())),
            "order" => Some(Subject::Order(id.clone())),
            _ => None,
        };
        let href = subject.map(|subject| match (support, subject) {
            (true, subject) => subject.support_href(&record.merchant_id),
            (false, Subject::Payout(id)) => format!("/payouts/{id}"),
            (false, _) => format!("/orders/{id}"),
        });
        let label = format!("{kind} {id}");
        match href {
            Some(href) => view! { <a href=href>{label}</a> }.into_any(),
            None => view! { <span>{label}</span> }.into_any(),
        }
    });
    view! {
        <dl class="card facts key-record">
            <dt>"Status"</dt><dd><StatusBadge status=record.status.clone()/></dd>
            <dt>"Key"</dt><dd><code>{record.key.clone()}</code></dd>
            <dt>"Endpoint"</dt><dd><code>{record.endpoint.clone()}</code></dd>
            <dt>"Request hash"</dt><dd><code class="hash">{record.request_hash.clone()}</code></dd>
            <dt>"Resource"</dt><dd>{resource.unwrap_or_else(|| view! { <span>"none yet"</span> }.into_any())}</dd>
            <dt>"Recovery point"</dt><dd>{record.recovery_point.clone()}</dd>
            <dt>"Attempts"</dt><dd>{record.attempts}</dd>
            <dt>"Error"</dt><dd>{record.error.clone().unwrap_or_else(|| "none".into())}</dd>
            <dt>"Created"</dt><dd>{record.created_at.clone()}</dd>
            <dt>"Last change"</dt><dd>{record.updated_at.clone()}</dd>
            <dt>"Expires"</dt><dd>{record.expires_at.clone()}</dd>
            <dt>"Stored response"</dt>
            <dd>{match (record.response_status, record.response_body.clone()) {
                (Some(status), Some(body)) => view! { <p>"HTTP " {status}</p><pre class="response">{body}</pre> }.into_any(),
                _ => view! { <span>"none yet"</span> }.into_any(),
            }}</dd>
        </dl>
    }
}

#[component]
pub fn Keys() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let key = query_param("key");
    let console = console();
    let lookup = (!key.is_empty()).then(|| {
        let key = key.clone();
        view! {
            <Suspense fallback=|| ()>
                {Suspend::new(async move {
                    match console.key(&merchant_id, &key).await {
                        Err(error) => failure_view(error),
                        Ok(None) => {
                            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                                response.set_status(http::StatusCode::NOT_FOUND);
                            }
                            view! { <p class="empty">"No record for this key. Keys are per merchant and are kept for 24 hours."</p> }.into_any()
                        }
                        Ok(Some(record)) => {
                            let live = record.status == "in_progress";
                            let subject = Subject::Key(record.key.clone());
                            view! {
                                {live.then(|| view! { <Meta http_equiv="refresh" content="1"/> })}
                                {live.then(|| view! { <p class="live">"In progress since " {record.created_at.clone()} ": this page refreshes itself."</p> })}
                                <KeyRecord record=record/>
                                <Timeline merchant_id=merchant_id subject=subject/>
                            }.into_any()
                        }
                    }
                })}
            </Suspense>
        }
    });
    view! {
        <h1>"Idempotency keys"</h1>
        <form method="get" action="/keys" class="form inline card">
            <label for="key">"Idempotency key"</label>
            <input id="key" name="key" value=key required/>
            <button type="submit">"Look up"</button>
        </form>
        {lookup}
    }
    .into_any()
}
