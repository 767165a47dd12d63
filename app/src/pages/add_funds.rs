//! `/balance/add-funds` ("Add funds"): where to send a bank transfer to top up the balance (our
//! account at the partner bank, its holder and the merchant's own reference, each with "Copy"),
//! the money received so far, and in test mode a form that makes the partner bank simulator
//! receive money with the merchant's reference, so that a person sees a top-up land. The
//! server checks the form (test mode, the role, the amount).

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, failure_view, form_key, form_refusal, may, merchant_id_or_notice,
    query_param, refusal_notice, Empty, Field,
};
use crate::console::{FundingAccountView, Permission, TopUpRow, ADD_FUNDS};
use crate::i18n::{money, when};
use kaadxpay_types::CURRENCIES;

/// A value to send with the transfer, with "Copy" beside it: the buttons are in the page but
/// hidden until the page's script (under the request's nonce) can copy; without JavaScript the
/// value is there to select.
#[component]
fn Copyable(id: &'static str, value: String) -> impl IntoView {
    view! {
        <code id=id translate="no">{value}</code>
        " "
        <button type="button" class="secondary copy" data-copy=id hidden>{tr!("copy")}</button>
    }
}

#[component]
fn FundingFacts(account: FundingAccountView) -> impl IntoView {
    let copied = tr!("copy-done");
    view! {
        <dl class="card facts" data-copied=copied id="funding-account">
            <dt>{tr!("field-iban")}</dt><dd><Copyable id="funding-iban" value=account.iban/></dd>
            <dt>{tr!("field-account-holder")}</dt><dd><Copyable id="funding-holder" value=account.account_holder/></dd>
            <dt>{tr!("funding-reference")}</dt><dd><Copyable id="funding-reference" value=account.reference/></dd>
        </dl>
        <p class="hint">{tr!("funding-reference-hint")}</p>
        <script nonce=leptos::nonce::use_nonce()>"(function(){if(!navigator.clipboard)return;var done=document.getElementById('funding-account').dataset.copied;document.querySelectorAll('button[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent).then(function(){b.textContent=done;});});});})();"</script>
    }
}

#[component]
fn TopUpsTable(rows: Vec<TopUpRow>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <Empty message=tr!("top-ups-empty")/> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>{tr!("top-up")}</th><th>{tr!("field-amount")}</th><th>{tr!("top-up-incoming")}</th><th>{tr!("field-created")}</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|row| view! {
                    <tr>
                        <td><code>{row.id.to_string()}</code></td>
                        <td>{money(&row.money)}</td>
                        <td><code>{row.partner_incoming_id}</code></td>
                        <td>{when(&row.created_at)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

/// Test mode's "Simulate incoming transfer": an amount as people write it and a currency, under
/// a key minted now, so that a double click sends money once; a refused one comes back as
/// typed, the reason beside its field.
#[component]
fn SimulateForm() -> impl IntoView {
    let amount = Field::kept("amount");
    let currency = Field::kept("currency");
    view! {
        <h2>{tr!("simulate-incoming")}</h2>
        <p class="hint">{tr!("simulate-incoming-hint")}</p>
        <form method="post" action=ADD_FUNDS class="form card" id="simulate-incoming">
            <input type="hidden" name="csrf" value=csrf_token()/>
            <input type="hidden" name="idempotency_key" value=form_key(ADD_FUNDS)/>
            <label for="incoming-amount">{tr!("field-amount")}</label>
            <input id="incoming-amount" name="amount" inputmode="decimal" placeholder="100.00" required value=amount.value.clone() aria-invalid=amount.invalid() aria-describedby=amount.described_by()/>
            {amount.reason()}
            <label for="incoming-currency">{tr!("field-currency")}</label>
            <select id="incoming-currency" name="currency" aria-invalid=currency.invalid() aria-describedby=currency.described_by()>
                {CURRENCIES.iter().map(|code| {
                    let selected = *code == currency.value;
                    view! { <option selected=selected>{*code}</option> }
                }).collect_view()}
            </select>
            {currency.reason()}
            <button type="submit">{tr!("simulate-incoming")}</button>
        </form>
    }
}

#[component]
pub fn AddFundsPage() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let error = refusal_notice().or_else(|| form_refusal(&["amount", "currency"]));
    let sent = query_param("sent");
    let backend = console();
    view! {
        <h1>{tr!("add-funds")}</h1>
        <p class="hint">{tr!("add-funds-lead")}</p>
        {(!sent.is_empty()).then(|| view! { <p class="notice" role="status">{tr!("simulate-incoming-sent", {"amount" => sent.clone()})}</p> })}
        {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let account = match backend.funding_account(&merchant_id).await {
                    Err(error) => return failure_view(error),
                    Ok(account) => account,
                };
                let top_ups = match backend.recent_top_ups(&merchant_id).await {
                    Err(error) => return failure_view(error),
                    Ok(rows) => rows,
                };
                let simulate = backend.can_simulate().await && may(Permission::CreatePayouts);
                view! {
                    <FundingFacts account=account/>
                    {simulate.then(|| view! { <SimulateForm/> })}
                    <h2>{tr!("top-ups")}</h2>
                    <TopUpsTable rows=top_ups/>
                    <p><a href="/balance">{tr!("add-funds-statement")}</a></p>
                }.into_any()
            })}
        </Suspense>
    }
    .into_any()
}
