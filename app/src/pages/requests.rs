//! `/requests` and `/requests/{id}`: the merchant's request log, filtered by key, status,
//! route, verdict, door (API or console), day range or request id (the form's values travel in the address, so a
//! link shows the same list), and one request with its redacted bodies and a link to its key's
//! timeline.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    address_filter, console, cursor, failure_view, key_href, merchant_id_or_notice, named_filter,
    not_found_view, path_id, query_param, readable_body, refused_filter, AnyOf, DayRange, Empty,
    ExportLink, Pager,
};
use crate::console::{
    ConsoleError, Door, Refusal, RequestFilters, RequestId, RequestView, Verdict,
};

use crate::i18n::when_exactly;
use crate::vocabulary::{code_word, error_code_word};

/// The filters in the page's address, or the refusal of the first that cannot be read.
fn filters_from_address() -> Result<RequestFilters, Refusal> {
    Ok(RequestFilters {
        idempotency_key: query_param("idempotency_key"),
        status: address_filter("status", |text| {
            text.parse()
                .ok()
                .filter(|status| (100..=599).contains(status))
        })?,
        route: query_param("route"),
        verdict: named_filter("verdict")?,
        from: query_param("from"),
        to: query_param("to"),
        search: query_param("q"),
        door: named_filter("door")?,
    })
}

#[component]
fn RequestsTable(rows: Vec<RequestView>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <Empty message=tr!("requests-empty")/> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>{tr!("request-time")}</th><th>{tr!("request-route")}</th><th>{tr!("field-status")}</th><th>{tr!("request-verdict")}</th><th>{tr!("field-idempotency-key")}</th><th>{tr!("request-latency")}</th><th>{tr!("request-request")}</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let href = format!("/requests/{}", row.id);
                    let key = row.idempotency_key.map(|key| {
                        let href = key_href(&key);
                        view! { <a href=href><code>{key}</code></a> }
                    });
                    view! {
                        <tr>
                            <td>{when_exactly(&row.at)}</td>
                            <td><code>{row.route}</code></td>
                            <td>{row.status}{row.error_code.map(|code| format!(" {}", error_code_word(code)))}</td>
                            <td>{row.verdict.map(|verdict| code_word(verdict.as_str())).unwrap_or_default()}</td>
                            <td>{key}</td>
                            <td>{tr!("latency-ms", {"ms" => format!("{:.1}", row.latency_ms)})}</td>
                            <td><a href=href><code>{row.id.to_string()}</code></a></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
pub fn Requests() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let filters = filters_from_address();
    let cursor = cursor();
    let console = console();
    view! {
        <div class="heading-row"><h1>{tr!("nav-requests")}</h1><ExportLink base="/exports/requests.csv".to_owned()/></div>
        <form method="get" action="/requests" class="form card search">
            <label for="q">{tr!("request-id")}</label>
            <input id="q" name="q" value=query_param("q")/>
            <label for="idempotency_key">{tr!("field-idempotency-key")}</label>
            <input id="idempotency_key" name="idempotency_key" value=query_param("idempotency_key")/>
            <label for="route">{tr!("request-route")}</label>
            <input id="route" name="route" placeholder="POST /v1/payouts" value=query_param("route")/>
            <label for="status">{tr!("field-status")}</label>
            <input id="status" name="status" inputmode="numeric" placeholder="422" value=query_param("status")/>
            <label for="verdict">{tr!("request-verdict")}</label>
            <AnyOf name="verdict" options=&Verdict::NAMES selected=query_param("verdict")/>
            <label for="door">{tr!("request-door")}</label>
            <AnyOf name="door" options=&Door::NAMES selected=query_param("door")/>
            <DayRange from=query_param("from") to=query_param("to")/>
            <button type="submit">{tr!("filter-submit")}</button>
        </form>
        <p class="hint">{tr!("requests-hint")}</p>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let (filters, cursor) = match (filters, cursor) {
                    (Ok(filters), Ok(cursor)) => (filters, cursor),
                    (Err(refusal), _) | (_, Err(refusal)) => return refused_filter(&refusal),
                };
                match console.requests(&merchant_id, &filters, cursor).await {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok(page) => view! { <RequestsTable rows=page.rows/><Pager base="/requests" next=page.next.map(|id| id.to_string())/> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

#[component]
pub fn RequestDetail() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let id: RequestId = path_id();
    let console = console();
    view! {
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.request(&merchant_id, &id).await {
                    Err(error) => failure_view(error),
                    Ok(None) => not_found_view(),
                    Ok(Some(request)) => {
                        let key = request.idempotency_key.clone().map(|key| {
                            let href = key_href(&key);
                            view! { <a href=href><code>{key}</code></a>" "{tr!("request-its-timeline")} }
                        });
                        let none = || tr!("none");
                        view! {
                            <h1>{tr!("request-request")}" "<code>{request.id.to_string()}</code></h1>
                            <dl class="card facts">
                                <dt>{tr!("request-time")}</dt><dd>{when_exactly(&request.at)}</dd>
                                <dt>{tr!("request-route")}</dt><dd><code>{request.route}</code></dd>
                                <dt>{tr!("request-path")}</dt><dd><code>{request.path}</code></dd>
                                <dt>{tr!("field-status")}</dt><dd>{request.status}</dd>
                                <dt>{tr!("field-error")}</dt><dd>{request.error_code.map(error_code_word).unwrap_or_else(none)}</dd>
                                <dt>{tr!("request-verdict")}</dt><dd>{request.verdict.map(|verdict| code_word(verdict.as_str())).unwrap_or_else(none)}</dd>
                                <dt>{tr!("field-idempotency-key")}</dt><dd>{key}</dd>
                                <dt>{tr!("request-latency")}</dt><dd>{tr!("latency-ms", {"ms" => format!("{:.1}", request.latency_ms)})}</dd>
                                <dt>{tr!("request-api-key")}</dt><dd>{request.api_key_id.map(String::from).or(request.user).unwrap_or_else(none)}</dd>
                                <dt>{tr!("request-client-address")}</dt><dd>{request.client_address.unwrap_or_else(none)}</dd>
                                <dt>{tr!("request-client-id")}</dt><dd>{request.client_request_id.unwrap_or_else(none)}</dd>
                                <dt>{tr!("request-request-body")}</dt><dd><pre class="response">{request.request_body.as_deref().map(readable_body).unwrap_or_else(none)}</pre></dd>
                                <dt>{tr!("request-response-body")}</dt><dd><pre class="response">{request.response_body.unwrap_or_else(none)}</pre></dd>
                            </dl>
                            <p><a href="/requests">{tr!("request-all")}</a></p>
                        }.into_any()
                    }
                }
            })}
        </Suspense>
    }
    .into_any()
}
