//! `/keys` and `/keys/{key}` (the key percent-encoded in the path): look up one of the
//! merchant's idempotency keys and see its live record, its linked resource, its stored response
//! and its timeline. The look-up form sends `/keys?key=…`, which redirects to the key's own
//! address. While the record is `in_progress` the page refreshes itself every second (a meta
//! refresh, so it works with JavaScript off too).

use leptos::prelude::*;
use leptos_fluent::tr;
use leptos_meta::Meta;

use crate::components::{
    console, current_user, failure_view, key_href, merchant_id_or_notice, query_param,
    request_path, StatusBadge,
};
use crate::console::{IdempotencyKey, KeyStatus, KeyView, ObjectRef, Subject};
use crate::i18n::when;
use crate::pages::timeline::Timeline;
use crate::vocabulary::{object_word, recovery_point_word};

/// The record's facts, shared with support's view of it.
#[component]
pub fn KeyRecord(record: KeyView) -> impl IntoView {
    let support = current_user().is_some_and(|user| user.is_support());
    let resource = record.resource.clone().map(|object| {
        let subject = match &object {
            ObjectRef::Payout(id) => Some(Subject::Payout(id.clone())),
            ObjectRef::Order(id) => Some(Subject::Order(id.clone())),
            _ => None,
        };
        let href = subject.map(|subject| match (support, subject) {
            (true, subject) => subject.support_href(&record.merchant_id),
            (false, Subject::Payout(id)) => format!("/payouts/{id}"),
            (false, _) => format!("/orders/{object}"),
        });
        let label = format!("{} {object}", object_word(object.kind()));
        match href {
            Some(href) => view! { <a href=href>{label}</a> }.into_any(),
            None => view! { <span>{label}</span> }.into_any(),
        }
    });
    view! {
        <dl class="card facts key-record">
            <dt>{tr!("field-status")}</dt><dd><StatusBadge status=record.status.as_str()/></dd>
            <dt>{tr!("key-key")}</dt><dd><code>{record.key.to_string()}</code></dd>
            <dt>{tr!("key-endpoint")}</dt><dd><code>{record.endpoint.map(|endpoint| endpoint.0)}</code></dd>
            <dt>{tr!("key-request-hash")}</dt><dd><code class="hash">{record.request_hash.clone()}</code></dd>
            <dt>{tr!("key-resource")}</dt><dd>{resource.unwrap_or_else(|| view! { <span>{tr!("none-yet")}</span> }.into_any())}</dd>
            <dt>{tr!("key-recovery-point")}</dt><dd>{recovery_point_word(record.recovery_point)}</dd>
            <dt>{tr!("key-attempts")}</dt><dd>{record.attempts}</dd>
            <dt>{tr!("field-error")}</dt><dd>{record.error.clone().unwrap_or_else(|| tr!("none"))}</dd>
            <dt>{tr!("field-created")}</dt><dd>{when(&record.created_at)}</dd>
            <dt>{tr!("key-last-change")}</dt><dd>{when(&record.updated_at)}</dd>
            <dt>{tr!("field-expires")}</dt><dd>{when(&record.expires_at)}</dd>
            <dt>{tr!("key-stored-response")}</dt>
            <dd>{match (record.response_status, record.response_body.clone()) {
                (Some(status), Some(body)) => view! { <p>{tr!("http-status", {"status" => status.to_string()})}</p><pre class="response">{body}</pre> }.into_any(),
                _ => view! { <span>{tr!("none-yet")}</span> }.into_any(),
            }}</dd>
        </dl>
    }
}

/// What a key page says of a key that is none (the API's `idempotency_key_invalid`, a `400`):
/// it is looked up nowhere.
pub fn invalid_key_view() -> AnyView {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::BAD_REQUEST);
    }
    view! { <p class="alert" role="alert">{tr!("key-invalid")}</p> }.into_any()
}

#[component]
pub fn Keys() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let asked = query_param("key");
    if !asked.is_empty() {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            let location = http::HeaderValue::from_str(&key_href(&asked))
                .expect("an encoded key is a header value");
            response.set_status(http::StatusCode::SEE_OTHER);
            response.insert_header(http::header::LOCATION, location);
        }
        return ().into_any();
    }
    let key = request_path()
        .strip_prefix("/keys/")
        .map(|key| {
            percent_encoding::percent_decode_str(key)
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    let console = console();
    let lookup = (!key.is_empty()).then(|| {
        let Ok(key) = IdempotencyKey::parse(key.as_bytes()) else {
            return invalid_key_view();
        };
        view! {
            <Suspense fallback=|| ()>
                {Suspend::new(async move {
                    match console.key(&merchant_id, &key).await {
                        Err(error) => failure_view(error),
                        Ok(None) => {
                            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                                response.set_status(http::StatusCode::NOT_FOUND);
                            }
                            view! { <p class="empty">{tr!("key-no-record")}</p> }.into_any()
                        }
                        Ok(Some(record)) => {
                            let live = record.status == KeyStatus::InProgress;
                            let subject = Subject::Key(record.key.clone());
                            view! {
                                {live.then(|| view! { <Meta http_equiv="refresh" content="1"/> })}
                                {live.then(|| view! { <p class="live">{tr!("key-live", {"since" => when(&record.created_at)})}</p> })}
                                <KeyRecord record=record/>
                                <Timeline merchant_id=merchant_id subject=subject/>
                            }.into_any()
                        }
                    }
                })}
            </Suspense>
        }
        .into_any()
    });
    view! {
        <h1>{tr!("key-title")}</h1>
        <form method="get" action="/keys" class="form inline card">
            <label for="key">{tr!("field-idempotency-key")}</label>
            <input id="key" name="key" value=key required/>
            <button type="submit">{tr!("key-look-up")}</button>
        </form>
        {lookup}
    }
    .into_any()
}
