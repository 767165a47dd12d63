//! `/reconciliation` and `/reconciliation/{id}`: the runs, and one run's items (a merchant sees
//! its own items and the status they make, support sees all of them). Support staff, and anyone in test mode, also get
//! "Run reconciliation now" for a day (the server checks who may, whatever the page showed);
//! its form carries a key minted when the page is rendered, so a double click makes one run.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, current_user, failure_view, list_filter, mint_key, not_found_view,
    path_id, refusal_notice, refused_filter, scope_or_not_found, Empty, ExportLink, ListFilterForm,
    StatusBadge,
};
use crate::console::{
    ConsoleError, MerchantId, ObjectType, OrderId, ReversalAction, RunId, RunStatus, Subject,
    TransferOf,
};
use crate::i18n::{day, money, when};
use crate::vocabulary::{code_word, object_word, partner_problem_word, reconciliation_action_word};

#[component]
pub fn Runs() -> impl IntoView {
    let scope = match scope_or_not_found() {
        Ok(scope) => scope,
        Err(not_found) => return not_found,
    };
    let console = console();
    let support = current_user().is_some_and(|user| user.is_support());
    let error = refusal_notice();
    let run_now = {
        let console = console.clone();
        Suspend::new(async move {
            let test_mode = console.test_mode().await.is_some();
            (support || test_mode).then(|| view! {
                {test_mode.then(|| view! { <p><strong>{tr!("runs-test-mode")}</strong>" "{tr!("runs-test-mode-body")}</p> })}
                <form method="post" action="/reconciliation/run" class="form card" id="run-now">
                    <input type="hidden" name="csrf" value=csrf_token()/>
                    <input type="hidden" name="idempotency_key" value=mint_key()/>
                    <label for="date">{tr!("runs-day-utc")}</label>
                    <input id="date" name="date" type="date" placeholder="YYYY-MM-DD" required/>
                    <button type="submit">{tr!("runs-run-now")}</button>
                </form>
            })
        })
    };
    view! {
        <h1>{tr!("nav-reconciliation")}</h1>
        {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        <Suspense fallback=|| ()>{run_now}</Suspense>
        <p class="lead">{tr!("runs-lead")}</p>
        <ListFilterForm action="/reconciliation" statuses=&RunStatus::NAMES/>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let listed = match list_filter() {
                    Ok(filter) => console.runs(&scope, &filter).await,
                    // A status that is no run's finds none.
                    Err(_) => Ok(Vec::new()),
                };
                match listed {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok(runs) if runs.is_empty() => view! { <Empty message=tr!("runs-empty")/> }.into_any(),
                    Ok(runs) => view! {
                        <table>
                            <thead><tr><th>{tr!("runs-run")}</th><th>{tr!("runs-day")}</th><th>{tr!("runs-applied")}</th><th>{tr!("field-status")}</th><th>{tr!("runs-run-at")}</th></tr></thead>
                            <tbody>
                                {runs.into_iter().map(|run| {
                                    let href = format!("/reconciliation/{}", run.id);
                                    view! {
                                        <tr>
                                            <td><a href=href>{run.id.to_string()}</a></td>
                                            <td>{day(&run.date)}</td>
                                            <td>{if run.applied { tr!("yes") } else { tr!("no") }}</td>
                                            <td><StatusBadge status=run.status.as_str()/></td>
                                            <td>{when(&run.created_at)}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

#[component]
pub fn RunDetail() -> impl IntoView {
    let id: RunId = path_id();
    let scope = match scope_or_not_found() {
        Ok(scope) => scope,
        Err(not_found) => return not_found,
    };
    let console = console();
    let support = current_user().is_some_and(|user| user.is_support());
    view! {
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.run(&scope, &id).await {
                    Err(error) => failure_view(error),
                    Ok(None) => not_found_view(),
                    Ok(Some((run, items))) => view! {
                        <div class="heading-row">
                            <h1>{tr!("nav-reconciliation")}" "<code>{run.id.to_string()}</code></h1>
                            <ExportLink base=format!("/exports/reconciliation/{}.csv", run.id)/>
                        </div>
                        <p>{tr!("run-summary", {
                            "day" => day(&run.date),
                            "mode" => if run.applied { tr!("run-applied") } else { tr!("run-report-only") },
                            "status" => code_word(run.status.as_str()),
                        })}</p>
                        {if items.is_empty() {
                            view! { <Empty message=tr!("run-no-items")/> }.into_any()
                        } else {
                            view! {
                                <table>
                                    <thead><tr><th>{tr!("run-kind")}</th><th>{tr!("run-transfer-of")}</th><th>{tr!("run-transfer")}</th><th>{tr!("field-amount")}</th><th>{tr!("run-action")}</th></tr></thead>
                                    <tbody>
                                        {items.into_iter().map(|item| view! {
                                            <tr>
                                                <td><StatusBadge status=item.kind.as_str()/></td>
                                                <td>{item.transfer_of.map(|of| transfer_of_view(of, item.refunded_order, item.merchant_id, support))}</td>
                                                <td>{item.transfer_id.unwrap_or_default()}</td>
                                                <td>{item.money.map(|amount| money(&amount)).unwrap_or_default()}</td>
                                                <td>{action_text(item.action, item.detail)}</td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }}
                        <p><a href="/reconciliation">{tr!("run-all")}</a></p>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

/// Whose transfer an item's is, by kind: a payout's id links to its page, a refund's to its
/// order's page, which lists it (support staff: the timeline of the payout or the order).
fn transfer_of_view(
    of: TransferOf,
    refunded_order: Option<OrderId>,
    merchant_id: Option<MerchantId>,
    support: bool,
) -> impl IntoView {
    let kind = match of {
        TransferOf::Payout(_) => ObjectType::Payout,
        TransferOf::Refund(_) => ObjectType::Refund,
    };
    let page = match (&of, refunded_order) {
        (TransferOf::Payout(id), _) => {
            Some((Subject::Payout(id.clone()), format!("/payouts/{id}")))
        }
        (TransferOf::Refund(_), Some(order)) => {
            Some((Subject::Order(order.clone()), format!("/orders/{order}")))
        }
        (TransferOf::Refund(_), None) => None,
    };
    let href = page.map(|(subject, merchants)| match merchant_id {
        Some(merchant_id) if support => subject.support_href(&merchant_id),
        _ => merchants,
    });
    let id = match href {
        Some(href) => view! { <a href=href>{of.to_string()}</a> }.into_any(),
        None => view! { <code>{of.to_string()}</code> }.into_any(),
    };
    view! { {object_word(kind)}" "{id} }
}

/// An item's action, with why a reversal was not made: "refused (not_reversible)", in words.
fn action_text(action: Option<ReversalAction>, detail: Option<String>) -> String {
    let action = action.map(reconciliation_action_word);
    match (action, detail) {
        (Some(action), Some(detail)) => format!("{action} ({})", partner_problem_word(&detail)),
        (action, _) => action.unwrap_or_default(),
    }
}
