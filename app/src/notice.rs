//! The console's answers that are not pages of the app: a refused or failed form, a refused
//! export, a path the console does not have. The server gives each its HTTP status; this writes
//! it as a plain document in the request's language, with no navigation and no data.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::console::Permission;
use crate::i18n::{in_language, Lang};
use crate::pages::NotFound;

/// What the answer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// A form whose CSRF token does not match: expired, or not from this site.
    FormExpired,
    /// The member's role does not allow what the form asks.
    NotForRole(Permission),
    /// The member created the payout it asked to approve or reject.
    OwnPayout,
    /// A form or an export failed on the server's side.
    Failure,
    /// An export's `from` or `to` is not a day.
    ExportDay,
    /// The request log's export was given a status that is not an HTTP status.
    ExportStatus,
    /// The audit log's export was given an action it does not know.
    ExportAction,
    /// A list's export asked by someone who is not a merchant's user.
    ExportForMerchantUsers,
    /// An export asked without signing in.
    ExportSignIn,
    /// No such page (or nothing of it for this user).
    NotFound,
}

/// A page refused to the member's role: `403`, under the page's `title`, with the sentence
/// that says who may (the server's check, whatever the navigation showed).
pub fn refused_page(title: String, permission: Permission) -> AnyView {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::FORBIDDEN);
    }
    view! {
        <h1>{title}</h1>
        <p class="alert" role="alert">{not_for_role(permission)}</p>
    }
    .into_any()
}

/// The sentence that says who may do what `permission` allows (the pages that offer such an
/// action say it too).
pub fn not_for_role(permission: Permission) -> String {
    match permission {
        Permission::ManageOrders => tr!("forbidden-manage-orders"),
        Permission::CreatePayouts => tr!("forbidden-create-payouts"),
        Permission::ManageIntegrations => tr!("forbidden-manage-integrations"),
        Permission::ManageTeam => tr!("forbidden-manage-team"),
        Permission::SeeAuditLog => tr!("forbidden-see-audit-log"),
        Permission::ManageThresholds => tr!("forbidden-manage-thresholds"),
    }
}

impl Notice {
    fn title(self) -> String {
        match self {
            Notice::Failure => tr!("failure-title"),
            Notice::NotFound => tr!("not-found-title"),
            _ => tr!("notice-refused-title"),
        }
    }

    /// The 404 page is the app's own; the others say why under their title.
    fn body(self) -> AnyView {
        let sentence = match self {
            Notice::NotFound => return view! { <NotFound/> }.into_any(),
            Notice::FormExpired => tr!("notice-form-expired"),
            Notice::NotForRole(permission) => not_for_role(permission),
            Notice::OwnPayout => tr!("notice-own-payout"),
            Notice::Failure => tr!("notice-failure"),
            Notice::ExportDay => tr!("filter-refused-day"),
            Notice::ExportStatus => tr!("filter-refused-status"),
            Notice::ExportAction => tr!("filter-refused-action"),
            Notice::ExportForMerchantUsers => tr!("notice-export-for-merchant-users"),
            Notice::ExportSignIn => tr!("notice-export-sign-in"),
        };
        view! {
            <h1>{self.title()}</h1>
            <p>{sentence}</p>
            <p><a href="/">{tr!("not-found-link")}</a></p>
        }
        .into_any()
    }

    /// The whole HTML document, in `lang`.
    pub fn document(self, lang: Lang) -> String {
        in_language(lang, || {
            view! {
                <!DOCTYPE html>
                <html lang=lang.tag()>
                    <head>
                        <meta charset="utf-8"/>
                        <meta name="viewport" content="width=device-width, initial-scale=1"/>
                        <link rel="stylesheet" href="/style.css"/>
                        <title>{self.title()}</title>
                    </head>
                    <body>
                        <main class="page">
                            {self.body()}
                        </main>
                    </body>
                </html>
            }
            .to_html()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_not_found_page_is_plain_in_both_languages() {
        let english = Notice::NotFound.document(Lang::En);
        assert!(english.contains(r#"<html lang="en">"#), "{english}");
        assert!(english.contains("<h1>Page not found</h1>"), "{english}");
        assert!(english.contains("There is nothing here."), "{english}");
        let chinese = Notice::NotForRole(Permission::CreatePayouts).document(Lang::Zh);
        assert!(chinese.contains(r#"<html lang="zh-CN">"#), "{chinese}");
        assert!(chinese.contains("您的角色无权创建提现"), "{chinese}");
    }
}
