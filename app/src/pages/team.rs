//! `/settings/team` (owners and admins: members, their roles, invitations; invite, change a
//! role, remove) and `/invitations/{token}` (a visitor holding an invitation link sets a
//! password and joins). The server checks every change; this page only offers what the
//! member's role may do.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::components::{
    console, csrf_token, current_user, failure_view, merchant_id_or_notice, query_param, Empty,
};
use crate::console::{Flash, Permission, Role};

/// A fixed sentence for a refused team form, never text from the address.
fn refusal() -> Option<&'static str> {
    Some(match query_param("error").as_str() {
        "" => return None,
        "role_not_allowed" => "Your role may not give that role, or change that member.",
        "last_owner" => "A team keeps at least one owner: make another member owner first.",
        "unknown_member" => "That member is no longer in the team.",
        "taken" => "That email already has an account.",
        "invalid_email" => "Enter an email address.",
        "invitation_gone" => "This invitation has expired or has been used. Ask for a new one.",
        "short_password" => "Choose a password of at least 8 characters.",
        _ => "That did not work; reload the page and try again.",
    })
}

fn flash() -> Option<String> {
    use_context::<http::request::Parts>()?
        .extensions
        .get::<Flash>()
        .map(|flash| flash.0.clone())
}

fn role_options(roles: Vec<Role>, selected: Role) -> impl IntoView {
    roles
        .into_iter()
        .map(|role| {
            view! { <option value=role.as_str() selected=role == selected>{role.as_str()}</option> }
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
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(http::StatusCode::FORBIDDEN);
        }
        return view! {
            <h1>"Team"</h1>
            <p class="alert" role="alert">"Your role may not manage the team (owners and admins may). Ask an owner or an admin of your team."</p>
        }
        .into_any();
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
        <h1>"Team"</h1>
        {refusal().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        {flash().map(|link| view! {
            <p class="notice" role="status">"Invitation made. Send this link to the new member; it works once, for 7 days, and is shown only now: "
                <a class="invitation-link" href=link.clone()><code>{link.clone()}</code></a></p>
        })}
        <form method="post" action="/settings/team/invitations" class="form card">
            <input type="hidden" name="csrf" value=csrf.clone()/>
            <label for="invite-email">"Email"</label>
            <input id="invite-email" name="email" type="email" required/>
            <label for="invite-role">"Role"</label>
            <select id="invite-role" name="role">{role_options(invite_roles, Role::Viewer)}</select>
            <button type="submit">"Invite"</button>
        </form>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.team(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok((members, pending)) => view! {
                        <h2>"Members"</h2>
                        <table>
                            <thead><tr><th>"Email"</th><th>"Role"</th><th>"Joined"</th><th>"Change"</th></tr></thead>
                            <tbody>
                                {members.into_iter().map(|member| {
                                    let changeable = role.manages(member.role);
                                    let change = changeable.then(|| {
                                        let role_action = format!("/settings/team/members/{}/role", member.id);
                                        let remove_action = format!("/settings/team/members/{}/remove", member.id);
                                        let label = format!("Role of {}", member.email);
                                        view! {
                                            <form method="post" action=role_action class="inline">
                                                <input type="hidden" name="csrf" value=csrf.clone()/>
                                                <select name="role" aria-label=label>{role_options(managed.clone(), member.role)}</select>
                                                <button type="submit">"Change role"</button>
                                            </form>
                                            <form method="post" action=remove_action class="inline">
                                                <input type="hidden" name="csrf" value=csrf.clone()/>
                                                <button type="submit" class="danger">"Remove"</button>
                                            </form>
                                        }
                                    });
                                    view! {
                                        <tr>
                                            <td>{member.email.clone()}</td>
                                            <td>{member.role.as_str()}</td>
                                            <td>{member.joined_at}</td>
                                            <td>{change}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                        <h2>"Invitations"</h2>
                        {if pending.is_empty() {
                            view! { <Empty message="No invitation is waiting."/> }.into_any()
                        } else {
                            view! {
                                <table>
                                    <thead><tr><th>"Email"</th><th>"Role"</th><th>"Expires"</th></tr></thead>
                                    <tbody>
                                        {pending.into_iter().map(|invitation| view! {
                                            <tr><td>{invitation.email}</td><td>{invitation.role.as_str()}</td><td>{invitation.expires_at}</td></tr>
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
            <h1>"Join the team"</h1>
            {refusal().map(|message| view! { <p class="alert" role="alert">{message}</p> })}
            <Suspense fallback=|| ()>
                {Suspend::new(async move {
                    match console.invitation(&token).await {
                        Err(error) => failure_view(error),
                        Ok(None) => {
                            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                                response.set_status(http::StatusCode::GONE);
                            }
                            view! { <p class="alert" role="alert">"This invitation has expired or has been used. Ask for a new one."</p> }.into_any()
                        }
                        Ok(Some((email, role))) => {
                            let action = format!("/invitations/{token}");
                            view! {
                                <p>"You are invited as " <strong>{role.as_str()}</strong> " with " <strong>{email}</strong> ". Choose a password to join."</p>
                                <form method="post" action=action class="form">
                                    <input type="hidden" name="csrf" value=csrf_token()/>
                                    <label for="password">"Password"</label>
                                    <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required/>
                                    <button type="submit">"Join"</button>
                                </form>
                            }.into_any()
                        }
                    }
                })}
            </Suspense>
        </section>
    }
}
