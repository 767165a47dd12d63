//! One session, two tabs (API.md §9, "Forms and people"): what a submit keeps for the page it
//! leads to (the form as typed, the notice of what was done) is not lost to another submit of
//! the same session running at the same moment, though each request saves its session whole.

use crate::common;

use common::browser::{hidden, page, post_form, signed_in, Browser};
use common::{spawn_app, TestApp};

/// Posts `fields` to `action` with the session's `csrf`: the status and where it sends the
/// browser (no page is read meanwhile, which would take what the other submit kept).
async fn post(
    app: &TestApp,
    browser: &Browser,
    csrf: &str,
    action: &str,
    fields: &[(&str, &str)],
) -> (u16, String) {
    let mut form = vec![("csrf", csrf)];
    form.extend_from_slice(fields);
    post_form(app, browser, action, &form).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_submits_from_one_session_keep_what_each_kept() {
    let app = spawn_app().await;
    let owner = signed_in(&app, false).await;
    let csrf = hidden(&page(&app, &owner, "/keys").await, "csrf");
    for round in 0..10 {
        let body = r#"{"amount": 100, "currency": "EUR"}"#;
        let order = app.create_order(&format!("tab-{round}"), body).await;
        let capture = format!("/orders/{}/capture", order["id"].as_str().unwrap());
        // More than the balance: refused, kept for the form's page as typed.
        let (key, amount) = (format!("tab-payout-{round}"), format!("9 999 99{round},50"));
        let payout = [
            ("idempotency_key", key.as_str()),
            ("amount", amount.as_str()),
            ("currency", "EUR"),
            ("account_holder", "Ada Lovelace"),
            ("iban", common::IBAN),
        ];
        let (refused, captured) = tokio::join!(
            post(&app, &owner, &csrf, "/payouts", &payout),
            post(&app, &owner, &csrf, &capture, &[]),
        );
        assert_eq!(refused, (303, "/payouts/new".to_owned()));
        assert_eq!(captured.0, 303);
        let shown = page(&app, &owner, "/payouts/new").await;
        assert!(
            shown.contains(&format!("value=\"{amount}\"")),
            "round {round}: the refused form was lost: {shown}"
        );
        assert!(
            shown.contains("The order was captured."),
            "round {round}: the notice was lost: {shown}"
        );
    }
}
