//! Every page's `<title>`: what the page is, then the console's name ("Payouts · Kaadxpay
//! console"), so tabs, history and screen readers tell pages apart. One table from the route
//! to its name, beside the routes in `lib.rs`; a detail page names its object. A page may still
//! set a `<Title>` of its own, which is rendered after this one and wins.

use leptos_fluent::tr;

/// The title of the page at `path` (percent-encoded, as requested), in the page's language.
pub fn page_title(path: &str) -> String {
    tr!("page-title", {"page" => page_name(path)})
}

/// What the page at `path` is; "Page not found" for a path the console does not have.
fn page_name(path: &str) -> String {
    let segments: Vec<String> = path
        .trim_matches('/')
        .split('/')
        .map(|segment| {
            percent_encoding::percent_decode_str(segment)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segments.as_slice() {
        [""] => tr!("nav-overview"),
        ["login"] => tr!("login-submit"),
        ["payouts"] => tr!("nav-payouts"),
        ["payouts", "new"] => tr!("payout-new"),
        ["payouts", "approvals"] => tr!("approvals-title"),
        ["payouts", id] => tr!("timeline-of-payout", {"id" => *id}),
        ["balance"] => tr!("nav-balance"),
        ["balance", "add-funds"] => tr!("add-funds"),
        ["orders"] => tr!("nav-orders"),
        ["orders", id] => tr!("timeline-of-order", {"id" => *id}),
        ["keys"] => tr!("key-title"),
        ["keys", key] => tr!("timeline-of-key", {"key" => *key}),
        ["requests"] => tr!("nav-requests"),
        ["requests", id] => tr!("title-request", {"id" => *id}),
        ["support"] => tr!("nav-support"),
        ["support", "timeline"] => tr!("timeline-title"),
        ["webhooks"] => tr!("nav-webhooks"),
        ["reconciliation"] => tr!("nav-reconciliation"),
        ["reconciliation", id] => tr!("title-run", {"id" => *id}),
        ["settings", "team"] => tr!("nav-team"),
        ["settings", "keys"] => tr!("nav-api-keys"),
        ["settings", "audit"] => tr!("nav-audit"),
        ["settings", "payouts"] => tr!("nav-payout-settings"),
        ["settings", "security"] => tr!("nav-security"),
        ["settings", "profile"] => tr!("nav-profile"),
        ["step-up"] => tr!("step-up-title"),
        ["repeat"] => tr!("repeat-title"),
        ["invitations", _] => tr!("team-join-title"),
        _ => tr!("not-found-title"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{in_language, Lang};

    #[test]
    fn each_page_has_a_title_of_its_own_in_each_language() {
        in_language(Lang::En, || {
            assert_eq!(page_title("/"), "Overview · Kaadxpay console");
            assert_eq!(page_title("/payouts/new"), "New payout · Kaadxpay console");
            assert_eq!(
                page_title("/payouts/po_1"),
                "Payout po_1 · Kaadxpay console"
            );
            assert_eq!(
                page_title("/payouts/approvals"),
                "Payouts awaiting your approval · Kaadxpay console"
            );
            assert_eq!(page_title("/balance"), "Balance · Kaadxpay console");
            assert_eq!(
                page_title("/balance/add-funds"),
                "Add funds · Kaadxpay console"
            );
            assert_eq!(
                page_title("/keys/a%2Fb%20c"),
                "Idempotency key a/b c · Kaadxpay console"
            );
            assert_eq!(
                page_title("/nothing/here"),
                "Page not found · Kaadxpay console"
            );
        });
        in_language(Lang::Zh, || {
            assert_eq!(page_title("/settings/audit"), "审计日志 · Kaadxpay 控制台");
            assert_eq!(page_title("/balance/add-funds"), "充值 · Kaadxpay 控制台");
            assert_eq!(
                page_title("/reconciliation/rec_1"),
                "对账批次 rec_1 · Kaadxpay 控制台"
            );
        });
    }
}
