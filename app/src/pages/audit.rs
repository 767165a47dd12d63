//! `/settings/audit` (owners and admins): the merchant's audit log, newest first, filtered by
//! action and a range of days carried in the address, with its CSV export. The server refuses
//! every other role with a `403` and a page that says why, whatever the navigation shows.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, current_user, cursor, failure_view, merchant_id_or_notice, named_filter, query_param,
    refused_filter, DayRange, Empty, ExportLink, Pager,
};
use crate::console::{
    ActorKind, AuditAction, AuditEntry, AuditFilter, ConsoleError, Permission, Refusal,
};
use crate::i18n::when_exactly;
use crate::notice::refused_page;
use crate::vocabulary::{audit_action_word, object_word};

/// The filters in the page's address, or the refusal of an action it does not know.
fn filter_from_address() -> Result<AuditFilter, Refusal> {
    Ok(AuditFilter {
        action: named_filter("action")?,
        from: query_param("from"),
        to: query_param("to"),
    })
}

/// What the entry says of its author: an email, an API key's id or a login name, and which.
fn who(entry: &AuditEntry) -> String {
    let kind = match entry.actor.kind() {
        ActorKind::User => tr!("audit-actor-user"),
        ActorKind::ApiKey => tr!("audit-actor-api-key"),
        ActorKind::Support => tr!("audit-actor-support"),
        ActorKind::Operator => tr!("audit-actor-operator"),
    };
    format!("{} ({kind})", entry.actor.name())
}

#[component]
fn AuditTable(rows: Vec<AuditEntry>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <Empty message=tr!("audit-empty")/> }.into_any();
    }
    let none = || tr!("none");
    view! {
        <table class="audit">
            <thead><tr>
                <th>{tr!("audit-when")}</th><th>{tr!("audit-who")}</th><th>{tr!("audit-action")}</th>
                <th>{tr!("audit-object")}</th><th>{tr!("audit-address")}</th><th>{tr!("audit-change")}</th>
            </tr></thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let author = who(&row);
                    view! {
                        <tr>
                            <td>{when_exactly(&row.at)}</td>
                            <td>{author}</td>
                            <td>{audit_action_word(row.action)}</td>
                            <td>{object_word(row.object.kind())}" "<code>{row.object.to_string()}</code></td>
                            <td>{row.address.unwrap_or_else(none)}</td>
                            <td class="change">
                                <code>{row.before.unwrap_or_else(|| "–".to_owned())}</code>
                                " → "
                                <code>{row.after.unwrap_or_else(|| "–".to_owned())}</code>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
pub fn Audit() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    if !current_user().is_some_and(|user| user.may(Permission::SeeAuditLog)) {
        return refused_page(tr!("nav-audit"), Permission::SeeAuditLog);
    }
    let filter = filter_from_address();
    let cursor = cursor();
    let console = console();
    let chosen_action = filter.as_ref().ok().and_then(|filter| filter.action);
    view! {
        <div class="heading-row"><h1>{tr!("nav-audit")}</h1><ExportLink base="/exports/audit.csv".to_owned()/></div>
        <form method="get" action="/settings/audit" class="form card search filters">
            <label for="action">{tr!("audit-action")}</label>
            <select id="action" name="action">
                <option value="" selected=chosen_action.is_none()>{tr!("filter-any")}</option>
                {AuditAction::ALL.into_iter().map(|action| {
                    let chosen = Some(action) == chosen_action;
                    view! { <option value=action.as_str() selected=chosen>{audit_action_word(action)}</option> }
                }).collect_view()}
            </select>
            <DayRange from=query_param("from") to=query_param("to")/>
            <button type="submit">{tr!("filter-submit")}</button>
        </form>
        <p class="hint">{tr!("audit-hint")}</p>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let (filter, cursor) = match (filter, cursor) {
                    (Ok(filter), Ok(cursor)) => (filter, cursor),
                    (Err(refusal), _) | (_, Err(refusal)) => return refused_filter(&refusal),
                };
                match console.audit(&merchant_id, &filter, cursor).await {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok(page) => view! { <AuditTable rows=page.rows/><Pager base="/settings/audit" next=page.next.map(|id| id.to_string())/> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
