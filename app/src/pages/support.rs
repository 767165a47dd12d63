//! `/support`: support staff find, across merchants, whatever an identifier leads to (a request
//! id, idempotency key, order, payout, event or delivery id, partner transfer id, end-to-end key
//! or merchant id), filtered by status and time range; one match lands on its timeline. Read
//! only: nothing here changes anything.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, current_user, failure_view, named_filter, not_found_view, query_param, AnyOf,
    DayRange, Empty, StatusBadge,
};
use crate::console::{KeyStatus, SearchQuery};
use crate::i18n::when;
use crate::vocabulary::subject_word;

#[component]
pub fn Support() -> impl IntoView {
    if !current_user().is_some_and(|user| user.is_support()) {
        return not_found_view();
    }
    // A status that is no key's finds nothing.
    let status = named_filter::<KeyStatus>("status");
    let query = SearchQuery {
        text: query_param("q"),
        status: status.clone().ok().flatten(),
        from: query_param("from"),
        to: query_param("to"),
    };
    let searched = !(query.text.is_empty()
        && query_param("status").is_empty()
        && query.from.is_empty()
        && query.to.is_empty());
    let console = console();
    let form_query = query.clone();
    let results = searched.then(|| view! {
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let hits = match status {
                    Ok(_) => console.search(&query).await,
                    Err(_) => Ok(Vec::new()),
                };
                match hits {
                    Err(error) => failure_view(error),
                    Ok(hits) if hits.is_empty() => view! { <Empty message=tr!("support-empty")/> }.into_any(),
                    Ok(hits) => {
                        if let [only] = &hits[..] {
                            if !query.text.trim().is_empty() {
                                leptos_axum::redirect(&only.href());
                            }
                        }
                        view! {
                        <table>
                            <thead><tr><th>{tr!("support-merchant")}</th><th>{tr!("support-found")}</th><th>{tr!("support-detail")}</th><th>{tr!("field-status")}</th><th>{tr!("field-created")}</th></tr></thead>
                            <tbody>
                                {hits.into_iter().map(|hit| {
                                    let href = hit.href();
                                    let (kind, name) = hit.subject.parts();
                                    let name = name.to_owned();
                                    view! {
                                    <tr>
                                        <td><code>{hit.merchant_id.to_string()}</code></td>
                                        <td>{subject_word(kind)} " " <a href=href><code>{name}</code></a></td>
                                        <td><code>{hit.detail}</code></td>
                                        <td><StatusBadge status=hit.status.as_str()/></td>
                                        <td>{when(&hit.created_at)}</td>
                                    </tr>
                                }}).collect_view()}
                            </tbody>
                        </table>
                    }.into_any()},
                }
            })}
        </Suspense>
    });
    view! {
        <h1>{tr!("nav-support")}</h1>
        <form method="get" action="/support" class="form card search">
            <label for="q">{tr!("support-any-id")}</label>
            <input id="q" name="q" value=form_query.text/>
            <label for="status">{tr!("field-status")}</label>
            <AnyOf name="status" options=&KeyStatus::NAMES selected=query_param("status")/>
            <DayRange from=form_query.from to=form_query.to/>
            <button type="submit">{tr!("support-search")}</button>
        </form>
        {results}
    }
    .into_any()
}
