//! Timelines: what happened to a key, a payout or an order, in time order, shown on the key's
//! and the payout's pages and on support's `/support/timeline` (any merchant's, read only).

use kaadxpay_types::ids::MerchantId;
use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{console, current_user, failure_view, not_found_view, query_param};
use crate::console::{NoSubject, ParseId, Subject, SubjectKind, TimelineEntry};
use crate::i18n::when_exactly;
use crate::moments::{badge, duplicate_label, sentence, wait};
use crate::pages::keys::{invalid_key_view, KeyRecord};
use crate::pages::payouts::PayoutFacts;

/// The entries, oldest first, each with the time since the one before.
#[component]
pub fn TimelineList(entries: Vec<TimelineEntry>) -> impl IntoView {
    if entries.is_empty() {
        return view! { <p class="empty">{tr!("timeline-empty")}</p> }.into_any();
    }
    view! {
        <ol class="timeline card">
            {entries.into_iter().map(|entry| {
                let class = format!("timeline-{}", entry.moment.kind());
                view! {
                <li class=class>
                    <time>{when_exactly(&entry.at)}</time>
                    " "<span class="after">{entry.after_ms.map(wait)}</span>
                    " "<span class="badge">{badge(&entry.moment)}</span>
                    " "<span class="summary">{sentence(&entry.moment)}</span>
                    {entry.duplicate.map(|duplicate| view! { " "<strong class="duplicate">{duplicate_label(duplicate)}</strong> })}
                    {entry.reference.map(|reference| view! { " "<code>{reference}</code> })}
                </li>
            }}).collect_view()}
        </ol>
    }
    .into_any()
}

/// A subject's timeline, loaded on its own.
#[component]
pub fn Timeline(merchant_id: MerchantId, subject: Subject) -> impl IntoView {
    let console = console();
    view! {
        <h2>{tr!("timeline-title")}</h2>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.timeline(&merchant_id, &subject).await {
                    Err(error) => failure_view(error),
                    Ok(entries) => view! { <TimelineList entries=entries.unwrap_or_default()/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// `/support/timeline?merchant=…&key=…` (or `payout=…`, `order=…`): where support's search
/// lands. Support staff only; read only. Opening one of a merchant's is in its audit log.
#[component]
pub fn SupportTimeline() -> impl IntoView {
    let Some(viewer) = current_user().filter(|user| user.is_support()) else {
        return not_found_view();
    };
    let merchant_id = MerchantId::parse(&query_param("merchant"));
    let subject = SubjectKind::ALL.into_iter().find_map(|kind| {
        Some(query_param(kind.as_str()))
            .filter(|value| !value.is_empty())
            .map(|value| Subject::named(kind, value))
    });
    let (merchant_id, subject) = match (merchant_id, subject) {
        (None, _) | (_, None) | (_, Some(Err(NoSubject::Id(_)))) => return not_found_view(),
        (_, Some(Err(NoSubject::Key(_)))) => return invalid_key_view(),
        (Some(merchant_id), Some(Ok(subject))) => (merchant_id, subject),
    };
    let console = console();
    let title = match &subject {
        Subject::Key(key) => tr!("timeline-of-key", {"key" => key.to_string()}),
        Subject::Payout(id) => tr!("timeline-of-payout", {"id" => id.to_string()}),
        Subject::Order(id) => tr!("timeline-of-order", {"id" => id.to_string()}),
    };
    view! {
        <h1>{title}</h1>
        <p>{tr!("support-merchant")}" "<code>{merchant_id.to_string()}</code>{tr!("timeline-read-only")}<a href="/support">{tr!("timeline-search-again")}</a></p>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let record = match &subject {
                    Subject::Key(key) => match console.key(&merchant_id, key).await {
                        Err(error) => return failure_view(error),
                        Ok(record) => record.map(|record| view! { <KeyRecord record=record/> }.into_any()),
                    },
                    Subject::Payout(id) => match console.payout(&merchant_id, id).await {
                        Err(error) => return failure_view(error),
                        Ok(payout) => payout.map(|payout| {
                            let support_of = merchant_id.clone();
                            view! { <PayoutFacts payout=payout support_of=support_of/> }.into_any()
                        }),
                    },
                    Subject::Order(_) => None,
                };
                let entries = match console.timeline(&merchant_id, &subject).await {
                    Err(error) => return failure_view(error),
                    Ok(None) if record.is_none() => return not_found_view(),
                    Ok(entries) => entries,
                };
                match console.support_viewed(&viewer, &merchant_id, &subject).await {
                    Err(error) => failure_view(error),
                    Ok(()) => view! {
                        {record}
                        <h2>{tr!("timeline-title")}</h2>
                        <TimelineList entries=entries.unwrap_or_default()/>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
