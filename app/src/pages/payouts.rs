//! `/payouts`, `/payouts/new` and `/payouts/{id}`. In test mode the new-payout page says so and
//! lists the magic IBANs. The new-payout form carries a hidden
//! `idempotency_key` minted when the page is rendered, so any number of submits of one
//! rendered form make exactly one payout; a reloaded form is a new intent with a new key. A
//! payout awaiting approval shows "Approve" and "Reject" to the members who may decide it,
//! each a form with a key of its own minted the same way.

use leptos::nonce::use_nonce;
use leptos::prelude::*;
use leptos_fluent::tr;
use leptos_meta::Title;

use crate::components::{
    console, csrf_token, current_user, cursor, failure_view, form_key, form_refusal, key_href,
    list_filter, may, merchant_id_or_notice, mint_key, not_found_view, path_id, refusal_notice,
    refused_filter, BankAccountFields, Empty, ExportLink, Field, ListFilterForm, Pager,
    StatusBadge, TestModeNotice,
};
use crate::console::{
    ConsoleError, Decision, ErrorCode, MerchantId, Money, Page, PayoutId, PayoutRow, PayoutStatus,
    PayoutView, Permission, Subject,
};
use crate::i18n::{money, when};
use crate::notice::refused_page;
use crate::pages::timeline::Timeline;
use crate::vocabulary::partner_problem_word;
use kaadxpay_types::CURRENCIES;

#[component]
pub fn PayoutsTable(rows: Vec<PayoutRow>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <Empty message=tr!("payouts-empty")/> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>{tr!("payout-payout")}</th><th>{tr!("field-amount")}</th><th>{tr!("field-status")}</th><th>{tr!("field-idempotency-key")}</th><th>{tr!("field-created")}</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let href = format!("/payouts/{}", row.id);
                    view! {
                        <tr>
                            <td><a href=href>{row.id.to_string()}</a></td>
                            <td>{money(&row.money)}</td>
                            <td><StatusBadge status=row.status.as_str()/></td>
                            <td><code>{row.idempotency_key.to_string()}</code></td>
                            <td>{when(&row.created_at)}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
pub fn Payouts() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let console = console();
    let cursor = cursor();
    view! {
        <div class="heading-row"><h1>{tr!("nav-payouts")}</h1><span><ExportLink base="/exports/payouts.csv".to_owned()/>" "{may(Permission::CreatePayouts).then(|| view! { <a class="button" href="/payouts/new">{tr!("payout-new")}</a> })}</span></div>
        <ListFilterForm action="/payouts" statuses=&PayoutStatus::NAMES/>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let listed = match (list_filter(), cursor) {
                    (Ok(filter), Ok(cursor)) => console.payouts(&merchant_id, &filter, cursor).await,
                    // A status that is no payout's finds none.
                    (Err(_), _) => Ok(Page::empty()),
                    (_, Err(refusal)) => Err(refusal.into()),
                };
                match listed {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok(page) => view! { <PayoutsTable rows=page.rows/><Pager base="/payouts" next=page.next.map(|id| id.to_string())/> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

/// `/payouts/approvals`: the payouts waiting for this member's decision (awaiting approval, not
/// its own), oldest first, each linking to its page with "Approve" and "Reject".
#[component]
pub fn Approvals() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let Some(user) = current_user() else {
        return not_found_view();
    };
    let console = console();
    view! {
        <Title text=tr!("approvals-title")/>
        <h1>{tr!("approvals-title")}</h1>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.awaiting_decision(&user, &merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok(rows) if rows.is_empty() => view! { <Empty message=tr!("approvals-none")/> }.into_any(),
                    Ok(rows) => view! { <PayoutsTable rows=rows/> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

#[component]
pub fn NewPayout() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    if !may(Permission::CreatePayouts) {
        return refused_page(tr!("payout-new"), Permission::CreatePayouts);
    }
    let console = console();
    let test_mode = console.clone();
    view! {
        <h1>{tr!("payout-new")}</h1>
        {refusal_notice().or_else(|| form_refusal(&["amount", "currency", "account_holder", "iban"])).map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                test_mode.test_mode().await.map(|ibans| view! { <TestModeNotice ibans/> })
            })}
        </Suspense>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.available(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok(available) => payout_form(available).into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

/// The new-payout form, filled with what was typed when it comes back: the currencies the
/// merchant holds a balance in (every one we settle while it holds none), what is available in
/// each, and, beside a refused amount, how much is available.
fn payout_form(available: Vec<Money>) -> impl IntoView {
    let amount = Field::kept("amount");
    let currency = Field::kept("currency");
    let chosen = available
        .iter()
        .find(|money| money.currency == currency.value)
        .cloned()
        .unwrap_or_else(|| Money {
            amount: 0,
            currency: currency.value.clone(),
        });
    let available_now = Some(tr!("refusal-available", { "available" => self::money(&chosen) }));
    let amount = amount.said(ErrorCode::InsufficientFunds, available_now);
    let codes: Vec<String> = match available.is_empty() {
        true => CURRENCIES.iter().map(|code| (*code).to_owned()).collect(),
        false => available
            .iter()
            .map(|money| money.currency.clone())
            .collect(),
    };
    let paying_out = tr!("payout-paying-out");
    view! {
        {(!available.is_empty()).then(|| view! {
            <section class="card" aria-labelledby="available-title">
                <h2 id="available-title">{tr!("payout-available")}</h2>
                <ul class="available">
                    {available.iter().map(|money| view! { <li>{self::money(money)}</li> }).collect_view()}
                </ul>
            </section>
        })}
        <form method="post" action="/payouts" class="form card" id="new-payout">
            <input type="hidden" name="csrf" value=csrf_token()/>
            <input type="hidden" name="idempotency_key" value=form_key("/payouts")/>
            <label for="amount">{tr!("field-amount")}</label>
            <input id="amount" name="amount" inputmode="decimal" placeholder="12.50" required value=amount.value.clone() aria-invalid=amount.invalid() aria-describedby=amount.described_by()/>
            {amount.reason()}
            <label for="currency">{tr!("field-currency")}</label>
            <select id="currency" name="currency" aria-invalid=currency.invalid() aria-describedby=currency.described_by()>
                {codes.into_iter().map(|code| {
                    let (selected, label) = (code == currency.value, code.clone());
                    view! { <option value=code selected=selected>{label}</option> }
                }).collect_view()}
            </select>
            {currency.reason()}
            <BankAccountFields/>
            <button type="submit" data-paying-out=paying_out>{tr!("payout-submit")}</button>
        </form>
        // With JavaScript on, the button also disables itself after the first submit.
        <script nonce=use_nonce()>"document.getElementById('new-payout').addEventListener('submit',function(e){var b=e.target.querySelector('button');setTimeout(function(){b.disabled=true;b.textContent=b.dataset.payingOut;},0);});"</script>
    }
}

#[component]
pub fn PayoutDetail() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let id: PayoutId = path_id();
    let console = console();
    let error = refusal_notice();
    view! {
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.payout(&merchant_id, &id).await {
                    Err(error) => failure_view(error),
                    Ok(None) => not_found_view(),
                    Ok(Some(payout)) => {
                        let subject = Subject::Payout(payout.row.id.clone());
                        let approval = approval_view(&payout);
                        view! {
                            <h1>{tr!("payout-payout")}" "<code>{payout.row.id.to_string()}</code></h1>
                            {error.clone().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
                            {approval}
                            <PayoutFacts payout=payout/>
                            <Timeline merchant_id=merchant_id subject=subject/>
                            <p><a href="/payouts">{tr!("payout-all")}</a></p>
                        }.into_any()
                    }
                }
            })}
        </Suspense>
    }
    .into_any()
}

/// A payout's facts: its status, amount, key, destination, transfer at the partner, failure,
/// times, who created it and who decided it. The merchant's members see the IBAN and the key's
/// page; support staff (`support_of`: the merchant they look into) see the merchant, the IBAN
/// masked but its last 4, and the key's timeline in support's pages.
#[component]
pub fn PayoutFacts(
    payout: PayoutView,
    #[prop(optional)] support_of: Option<MerchantId>,
) -> impl IntoView {
    let key = payout.row.idempotency_key.clone();
    let (key_href, iban) = match &support_of {
        None => (key_href(key.as_str()), payout.iban.clone()),
        Some(merchant_id) => (
            Subject::Key(key.clone()).support_href(merchant_id),
            masked_iban(&payout.iban),
        ),
    };
    let merchant = support_of.map(|merchant_id| {
        view! {
            <dt>{tr!("support-merchant")}</dt><dd><code>{merchant_id.to_string()}</code></dd>
        }
    });
    let created_by = payout.created_by.as_ref().map(|actor| {
        let name = actor.name().to_owned();
        view! {
            <dt>{tr!("payout-created-by")}</dt><dd>{name}</dd>
        }
    });
    let decided = payout.decided.clone().map(|(by, at)| {
        view! {
            <dt>{tr!("payout-decided-by")}</dt><dd>{by}" · "{when(&at)}</dd>
        }
    });
    view! {
        <dl class="card facts">
            {merchant}
            <dt>{tr!("field-status")}</dt><dd><StatusBadge status=payout.row.status.as_str()/></dd>
            <dt>{tr!("field-amount")}</dt><dd>{money(&payout.row.money)}</dd>
            <dt>{tr!("field-idempotency-key")}</dt><dd><a href=key_href><code>{key.to_string()}</code></a></dd>
            <dt>{tr!("field-account-holder")}</dt><dd translate="no">{payout.account_holder}</dd>
            <dt>{tr!("field-iban")}</dt><dd><code>{iban}</code></dd>
            <dt>{tr!("payout-partner-transfer")}</dt><dd>{payout.partner_transfer_id.unwrap_or_else(|| tr!("not-yet"))}</dd>
            <dt>{tr!("payout-failure")}</dt><dd>{payout.failure_code.as_deref().map(partner_problem_word).unwrap_or_else(|| tr!("none"))}</dd>
            <dt>{tr!("field-created")}</dt><dd>{when(&payout.row.created_at)}</dd>
            <dt>{tr!("payout-updated")}</dt><dd>{when(&payout.updated_at)}</dd>
            {created_by}
            {decided}
        </dl>
    }
}

/// An IBAN as support staff see it: `****` and its last 4 letters or digits, as the request log
/// and the CSV exports keep it.
fn masked_iban(iban: &str) -> String {
    let kept: Vec<char> = iban.chars().filter(char::is_ascii_alphanumeric).collect();
    let last4: String = kept[kept.len().saturating_sub(4)..].iter().collect();
    format!("****{last4}")
}

/// On a payout awaiting approval: "Approve" and "Reject" for a member who may decide it (each
/// form with a key minted now, so double clicks make one outcome), or a sentence saying that
/// another member must. Nothing on any other payout.
fn approval_view(payout: &PayoutView) -> Option<AnyView> {
    if payout.row.status != PayoutStatus::PendingApproval {
        return None;
    }
    let decisions = current_user()
        .map(|user| console().decisions(&user, payout))
        .unwrap_or_default();
    let decides = decisions.contains(&Decision::Approve);
    let forms = decisions
        .into_iter()
        .map(|decision| decision_form(&payout.row.id, decision))
        .collect_view();
    let explanation = match decides {
        true => view! { <p>{tr!("approval-awaiting")}</p> }.into_any(),
        false => view! { <p class="notice" role="status">{tr!("approval-awaiting-other")}</p> }
            .into_any(),
    };
    Some(view! { <section class="card approval">{explanation}{forms}</section> }.into_any())
}

/// The form of one decision, with a key minted now, so double clicks make one outcome.
fn decision_form(payout_id: &str, decision: Decision) -> impl IntoView {
    let (verb, label, class) = match decision {
        Decision::Approve => ("approve", tr!("approval-approve"), ""),
        Decision::Reject => ("reject", tr!("approval-reject"), "danger"),
        Decision::Cancel => ("cancel", tr!("approval-cancel"), "danger"),
    };
    view! {
        <form method="post" action=format!("/payouts/{payout_id}/{verb}") class="inline">
            <input type="hidden" name="csrf" value=csrf_token()/>
            <input type="hidden" name="idempotency_key" value=mint_key()/>
            <button type="submit" class=class>{label}</button>
        </form>
        " "
    }
}
