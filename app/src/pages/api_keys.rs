//! `/settings/keys`: the merchant's API keys (name, visible prefix, access, whom each acts for,
//! when made, last used and when they stop working) for every member; owners, admins and
//! developers create, roll (with an overlap for the old key) and revoke them. A key acts for the
//! member who makes it; an owner may make one for the merchant instead. Each form's key is minted when the page is
//! rendered, so a double click makes one key; a new secret is shown once, on the next page.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, current_user, failure_view, flash, form_key, form_refusal, may,
    merchant_id_or_notice, mint_key, refusal_notice, Empty, Field, OneTimeSecret, OverlapOptions,
};
use crate::console::{Access, ApiKeyRow, Permission, Role};
use crate::i18n::when;

const ACTION: &str = "/settings/keys";

fn access_word(access: Access) -> String {
    match access {
        Access::ReadOnly => tr!("api-keys-read-only"),
        Access::ReadWrite => tr!("api-keys-read-write"),
    }
}

#[component]
fn KeyActions(key: ApiKeyRow, csrf: String) -> impl IntoView {
    let base = format!("{ACTION}/{}", key.id);
    let overlap_label = tr!("api-keys-overlap-for", {"name" => key.name.clone()});
    view! {
        <form method="post" action=format!("{base}/roll") class="inline">
            <input type="hidden" name="csrf" value=csrf.clone()/>
            <input type="hidden" name="idempotency_key" value=mint_key()/>
            <select name="overlap" aria-label=overlap_label>
                <OverlapOptions/>
            </select>
            <button type="submit" class="secondary">{tr!("api-keys-roll")}</button>
        </form>
        <form method="post" action=format!("{base}/revoke") class="inline">
            <input type="hidden" name="csrf" value=csrf/>
            <input type="hidden" name="idempotency_key" value=mint_key()/>
            <button type="submit" class="danger">{tr!("api-keys-revoke")}</button>
        </form>
    }
}

#[component]
fn KeyTable(keys: Vec<ApiKeyRow>, csrf: String) -> impl IntoView {
    if keys.is_empty() {
        return view! { <Empty message=tr!("api-keys-none")/> }.into_any();
    }
    let manage = may(Permission::ManageIntegrations);
    let now = chrono::Utc::now();
    view! {
        <table class="api-keys">
            <thead><tr>
                <th>{tr!("api-keys-name")}</th><th>{tr!("api-keys-prefix")}</th><th>{tr!("api-keys-access")}</th>
                <th>{tr!("api-keys-acts-for")}</th><th>{tr!("api-keys-created")}</th><th>{tr!("api-keys-last-used")}</th><th>{tr!("api-keys-expires")}</th>
                {manage.then(|| view! { <th>{tr!("webhooks-actions")}</th> })}
            </tr></thead>
            <tbody>
                {keys.into_iter().map(|key| {
                    let working = key.expires_at.is_none_or(|expires| expires > now);
                    let actions = (manage && working).then(|| view! { <KeyActions key=key.clone() csrf=csrf.clone()/> });
                    view! {
                        <tr>
                            <td translate="no">{key.name.clone()}</td>
                            <td><code>{key.prefix.clone()}"…"</code></td>
                            <td>{access_word(key.access)}</td>
                            <td>{key.created_by.clone().unwrap_or_else(|| tr!("api-keys-for-merchant"))}</td>
                            <td>{when(&key.created_at)}</td>
                            <td>{key.last_used_at.map(|at| when(&at)).unwrap_or_else(|| tr!("api-keys-never"))}</td>
                            <td>{key.expires_at.map(|at| when(&at)).unwrap_or_default()}</td>
                            {manage.then(|| view! { <td>{actions}</td> })}
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
pub fn ApiKeys() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let csrf = csrf_token();
    let console = console();
    let owner = current_user().is_some_and(|user| user.role == Some(Role::Owner));
    let name = Field::kept("name");
    let create = may(Permission::ManageIntegrations).then(|| {
        view! {
            <form method="post" action=ACTION class="form card">
                <input type="hidden" name="csrf" value=csrf.clone()/>
                <input type="hidden" name="idempotency_key" value=form_key(ACTION)/>
                <label for="name">{tr!("api-keys-name")}</label>
                <input id="name" name="name" required maxlength="100" value=name.value.clone() aria-invalid=name.invalid() aria-describedby=name.described_by()/>
                {name.reason()}
                <label for="access">{tr!("api-keys-access")}</label>
                <select id="access" name="access">
                    <option value="read_write">{tr!("api-keys-read-write")}</option>
                    <option value="read_only">{tr!("api-keys-read-only")}</option>
                </select>
                {owner.then(|| view! {
                    <label for="acts_for">{tr!("api-keys-acts-for")}</label>
                    <select id="acts_for" name="acts_for">
                        <option value="maker">{tr!("api-keys-for-me")}</option>
                        <option value="merchant">{tr!("api-keys-for-merchant")}</option>
                    </select>
                })}
                <button type="submit">{tr!("api-keys-create")}</button>
            </form>
        }
    });
    view! {
        <h1>{tr!("nav-api-keys")}</h1>
        {refusal_notice().or_else(|| form_refusal(&["name"])).map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        {flash().map(|secret| view! {
            <p class="notice" role="status">{tr!("api-keys-secret-shown")}" "<OneTimeSecret secret=secret/></p>
        })}
        {create}
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.api_keys(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok(keys) => view! { <KeyTable keys=keys csrf=csrf.clone()/> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
