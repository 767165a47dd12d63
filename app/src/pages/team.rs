//! `/settings/team` (owners and admins: members, their roles, invitations; invite, change a
//! role, remove) and `/invitations/{token}` (a visitor holding an invitation link sets a
//! password and joins). The server checks every change; this page only offers what the
//! member's role may do.

use leptos::prelude::*;
use leptos_fluent::tr;
use leptos_router::hooks::use_params_map;

use crate::components::{
    console, csrf_token, current_user, failure_view, flash, form_key, merchant_id_or_notice,
    query_param, Empty, Field,
};
use crate::console::{Permission, Role};
use crate::i18n::when;
use crate::notice::refused_page;
use crate::vocabulary::role_word;

/// A fixed sentence for a refused team form, never text from the address.
fn refusal() -> Option<String> {
    Some(match query_param("error").as_str() {
        "" => return None,
        "role_not_allowed" => tr!("team-refusal-role"),
        "last_owner" => tr!("team-refusal-last-owner"),
        "unknown_member" => tr!("team-refusal-unknown-member"),
        "taken" => tr!("team-refusal-taken"),
        "invalid_email" => tr!("team-refusal-email"),
        "invitation_gone" => tr!("team-invitation-gone"),
        "short_password" => tr!("team-refusal-password"),
        _ => tr!("refusal-other"),
    })
}

fn role_options(roles: Vec<Role>, selected: Role) -> impl IntoView {
    roles
        .into_iter()
        .map(|role| {
            view! { <option value=role.as_str() selected=role == selected>{role_word(role)}</option> }
        })
        .collect_view()
}

#[component]
pub fn Team() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let Some(user) = current_user().filter(|user| user.may(Permission::ManageTeam)) else {
        return refused_page(tr!("nav-team"), Permission::ManageTeam);
    };
    let role = user.role.unwrap_or(Role::Viewer);
    let managed: Vec<Role> = Role::ALL
        .into_iter()
        .filter(|other| role.manages(*other))
        .collect();
    let invite_roles = managed.clone();
    let csrf = csrf_token();
    let console = console();
    view! {
        <h1>{tr!("nav-team")}</h1>
        {refusal().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        {match query_param("invitation").as_str() {
            "unsent" => Some(view! { <p class="alert" role="alert">{tr!("team-invitation-unsent")}</p> }.into_any()),
            _ => None,
        }}
        {flash().map(|link| view! {
            <p class="notice" role="status">{tr!("team-invitation-made")}" "
                <a class="invitation-link" href=link.clone()><code>{link.clone()}</code></a></p>
        })}
        <form method="post" action="/settings/team/invitations" class="form card">
            <input type="hidden" name="csrf" value=csrf.clone()/>
            <input type="hidden" name="idempotency_key" value=form_key("/settings/team/invitations")/>
            <label for="invite-email">{tr!("field-email")}</label>
            <input id="invite-email" name="email" type="email" required value=Field::kept("email").value/>
            <label for="invite-role">{tr!("team-role")}</label>
            <select id="invite-role" name="role">{role_options(invite_roles, Role::Viewer)}</select>
            <button type="submit">{tr!("team-invite")}</button>
        </form>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.team(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok((members, pending)) => view! {
                        <h2>{tr!("team-members")}</h2>
                        <table>
                            <thead><tr><th>{tr!("field-email")}</th><th>{tr!("team-role")}</th><th>{tr!("team-joined")}</th><th>{tr!("team-change")}</th></tr></thead>
                            <tbody>
                                {members.into_iter().map(|member| {
                                    let changeable = role.manages(member.role);
                                    let change = changeable.then(|| {
                                        let role_action = format!("/settings/team/members/{}/role", member.id);
                                        let remove_action = format!("/settings/team/members/{}/remove", member.id);
                                        let label = tr!("team-role-of", {"email" => member.email.clone()});
                                        view! {
                                            <form method="post" action=role_action class="inline">
                                                <input type="hidden" name="csrf" value=csrf.clone()/>
                                                <select name="role" aria-label=label>{role_options(managed.clone(), member.role)}</select>
                                                <button type="submit">{tr!("team-change-role")}</button>
                                            </form>
                                            <form method="post" action=remove_action class="inline">
                                                <input type="hidden" name="csrf" value=csrf.clone()/>
                                                <button type="submit" class="danger">{tr!("team-remove")}</button>
                                            </form>
                                        }
                                    });
                                    view! {
                                        <tr>
                                            <td>{member.email.clone()}</td>
                                            <td>{role_word(member.role)}</td>
                                            <td>{when(&member.joined_at)}</td>
                                            <td>{change}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                        <h2>{tr!("team-invitations")}</h2>
                        {if pending.is_empty() {
                            view! { <Empty message=tr!("team-no-invitations")/> }.into_any()
                        } else {
                            view! {
                                <table>
                                    <thead><tr><th>{tr!("field-email")}</th><th>{tr!("team-role")}</th><th>{tr!("field-expires")}</th><th>{tr!("webhooks-actions")}</th></tr></thead>
                                    <tbody>
                                        {pending.into_iter().map(|invitation| {
                                            let revoke = role.manages(invitation.role).then(|| view! {
                                                <form method="post" action=format!("/settings/team/invitations/{}/revoke", invitation.id) class="inline">
                                                    <input type="hidden" name="csrf" value=csrf.clone()/>
                                                    <button type="submit" class="danger">{tr!("team-revoke-invitation")}</button>
                                                </form>
                                            });
                                            view! {
                                                <tr><td>{invitation.email}</td><td>{role_word(invitation.role)}</td><td>{when(&invitation.expires_at)}</td><td>{revoke}</td></tr>
                                            }
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }}
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

#[component]
pub fn AcceptInvitation() -> impl IntoView {
    let token = use_params_map()
        .read_untracked()
        .get("token")
        .unwrap_or_default();
    let console = console();
    view! {
        <section class="narrow card">
            <h1>{tr!("team-join-title")}</h1>
            {refusal().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
            <Suspense fallback=|| ()>
                {Suspend::new(async move {
                    match console.invitation(&token).await {
                        Err(error) => failure_view(error),
                        Ok(None) => {
                            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                                response.set_status(http::StatusCode::GONE);
                            }
                            view! { <p class="alert" role="alert">{tr!("team-invitation-gone")}</p> }.into_any()
                        }
                        Ok(Some((email, role))) => {
                            let action = format!("/invitations/{token}");
                            view! {
                                <p>{tr!("team-invited-as")}<strong>{role_word(role)}</strong>{tr!("team-invited-with")}<strong>{email}</strong>{tr!("team-invited-end")}</p>
                                <form method="post" action=action class="form">
                                    <input type="hidden" name="csrf" value=csrf_token()/>
                                    <label for="password">{tr!("field-password")}</label>
                                    <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required/>
                                    <button type="submit">{tr!("team-join")}</button>
                                </form>
                            }.into_any()
                        }
                    }
                })}
            </Suspense>
        </section>
    }
}
