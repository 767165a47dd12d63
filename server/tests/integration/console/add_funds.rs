//! "Add funds" (API.md §9, §13): `/balance/add-funds` shows the merchant's funding account
//! (IBAN, holder and its own reference, each with "Copy"), and in test mode a member who may move
//! money makes the partner bank simulator receive money, which lands once as a top-up on the page
//! and in the balance's statement, once per rendered form; a viewer is refused and nothing
//! arrives; Chinese says 充值.

use std::time::Duration;

use crate::common;

use app::console::Role;
use common::browser::{
    get, hidden, page, page_in_chinese, post_form, signed_in, signed_in_as, submit_from,
};
use common::{eventually, json, spawn_app};

const PAGE: &str = "/balance/add-funds";

#[tokio::test]
async fn a_member_sees_where_to_send_money_and_sees_a_simulated_transfer_land_once() {
    let app = spawn_app().await;
    let member = signed_in(&app, false).await;
    let account = json(app.get("/v1/funding-account").await).await;
    let shown = page(&app, &member, PAGE).await;
    assert!(shown.contains("<h1>Add funds</h1>"), "{shown}");
    for value in ["iban", "account_holder", "reference"] {
        let value = account[value].as_str().unwrap();
        assert!(shown.contains(value), "{value} is shown");
    }
    assert!(shown.contains(">Copy</button>"), "each value has Copy");
    assert!(shown.contains("Simulate incoming transfer"), "test mode");
    assert!(shown.contains("No money has come in yet."));
    assert!(page(&app, &member, "/balance")
        .await
        .contains(r#"href="/balance/add-funds""#));

    let sent = submit_from(
        &app,
        &member,
        PAGE,
        PAGE,
        &[
            ("idempotency_key", "first-form"),
            ("amount", "1 234,50"),
            ("currency", "EUR"),
        ],
    )
    .await;
    assert_eq!(sent, (303, format!("{PAGE}?sent=1234%2E50%20EUR")));
    eventually(
        Duration::from_secs(10),
        "the simulated transfer landed as a top-up",
        || async { app.count("top_ups WHERE amount = 123450").await == 1 },
    )
    .await;
    let notice = page(&app, &member, &sent.1).await;
    assert!(
        notice.contains(r#"role="status""#) && notice.contains("1234.50 EUR"),
        "{notice}"
    );
    let top_up = json(app.get("/v1/top-ups").await).await["data"][0].clone();
    assert!(notice.contains(top_up["id"].as_str().unwrap()), "listed");
    let balance = page(&app, &member, "/balance").await;
    assert!(
        balance.contains(top_up["id"].as_str().unwrap()),
        "in the statement"
    );

    let refused = submit_from(
        &app,
        &member,
        PAGE,
        PAGE,
        &[
            ("idempotency_key", "zero-form"),
            ("amount", "0"),
            ("currency", "EUR"),
        ],
    )
    .await;
    // Refused: back as typed, the reason beside the amount.
    assert_eq!(refused, (303, PAGE.to_owned()));
    let form = page(&app, &member, PAGE).await;
    let amount = form
        .split("<input id=\"incoming-amount\"")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .unwrap_or_else(|| panic!("no amount field: {form}"));
    assert!(amount.contains(r#"value="0""#), "{amount}");
    assert!(amount.contains(r#"aria-invalid="true""#), "{amount}");
    assert!(
        amount.contains(r#"aria-describedby="amount-reason""#),
        "{amount}"
    );
    assert!(form.contains(r#"id="amount-reason""#), "{form}");
    assert_eq!(app.count("top_ups").await, 1, "nothing more arrived");
}

/// Submits the page's "Simulate incoming transfer" form, minted under `key`, for `amount` EUR
/// (`again`: as "Do it again" sends it).
async fn simulate(
    app: &common::TestApp,
    member: &common::browser::Browser,
    key: &str,
    amount: &str,
    again: bool,
) -> (u16, String) {
    let mut fields = vec![
        ("idempotency_key", key),
        ("amount", amount),
        ("currency", "EUR"),
    ];
    if again {
        fields.push(("again", "1"));
    }
    submit_from(app, member, PAGE, PAGE, &fields).await
}

/// The top-ups that landed once the simulator has told of every transfer it received (it does
/// so within a second of answering).
async fn landed(app: &common::TestApp, at_least: i64) -> i64 {
    eventually(Duration::from_secs(10), "the transfers landed", || async {
        app.count("top_ups").await >= at_least
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    app.count("top_ups").await
}

/// One rendered "Simulate incoming transfer" form sends money once, however many times and
/// however fast it is submitted (the simulator takes no key: the console's claim on the form's
/// key is all that holds it); every submit lands on what the first one sent. The same amount
/// from another form is held back as a repeat, and "Do it again" sends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_submits_of_one_form_sends_money_once() {
    let app = spawn_app().await;
    let member = signed_in(&app, false).await;
    let key = hidden(&page(&app, &member, PAGE).await, "idempotency_key");
    assert!(key.starts_with("console-"), "the form has a key of its own");

    let burst = (0..5).map(|_| simulate(&app, &member, "burst-form", "10.00", false));
    let answers = futures::future::join_all(burst).await;
    let sent = (303, format!("{PAGE}?sent=10%2E00%20EUR"));
    assert!(answers.iter().all(|answer| *answer == sent), "{answers:?}");
    assert_eq!(landed(&app, 1).await, 1, "one incoming transfer");
    // Later, the same form again (Back, then submit): the same page, nothing more sent.
    assert_eq!(
        simulate(&app, &member, "burst-form", "10.00", false).await,
        sent
    );

    let repeat = simulate(&app, &member, "another-form", "10,00", false).await;
    assert_eq!(repeat, (303, "/repeat".to_owned()));
    assert_eq!(landed(&app, 1).await, 1, "held back as a repeat");
    let again = simulate(&app, &member, "another-form", "10.00", true).await;
    assert_eq!(again, sent);
    assert_eq!(landed(&app, 2).await, 2, "done again");
    common::assert_ledger_whole(&app.db_url);
}

/// A submit whose browser goes away while the bank is slow to answer (its person clicked again,
/// or closed the tab) still runs to its end: the money was sent and the form's key remembers it,
/// so the form's next submit lands on it at once, instead of waiting for a page that never
/// comes, and nothing is sent twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_its_browser_left_half_way_still_lands_and_the_next_lands_on_it() {
    let (app, partner_url) = common::spawn_app_and_partner(0, &[]).await;
    let member = signed_in(&app, false).await;
    let csrf = hidden(&page(&app, &member, PAGE).await, "csrf");
    let form = [
        ("csrf", csrf.as_str()),
        ("idempotency_key", "left-form"),
        ("amount", "7.00"),
        ("currency", "EUR"),
    ];
    common::configure_partner(&partner_url, serde_json::json!({ "latency_ms": 1500 })).await;
    let left = tokio::time::timeout(
        Duration::from_millis(500),
        post_form(&app, &member, PAGE, &form),
    )
    .await;
    assert!(left.is_err(), "the browser left before the answer");

    let next = tokio::time::timeout(
        Duration::from_secs(10),
        post_form(&app, &member, PAGE, &form),
    )
    .await
    .expect("the next submit of the form lands within 10 s");
    assert_eq!(next, (303, format!("{PAGE}?sent=7%2E00%20EUR")));
    assert_eq!(landed(&app, 1).await, 1, "sent once");
}

#[tokio::test]
async fn a_viewer_sees_the_account_but_cannot_make_money_arrive() {
    let app = spawn_app().await;
    let viewer = signed_in_as(&app, "viewer@test", Some(Role::Viewer)).await;
    let shown = page(&app, &viewer, PAGE).await;
    let reference = json(app.get("/v1/funding-account").await).await["reference"].clone();
    assert!(shown.contains(reference.as_str().unwrap()));
    assert!(!shown.contains("Simulate incoming transfer"), "not offered");
    let refused = submit_from(
        &app,
        &viewer,
        PAGE,
        PAGE,
        &[
            ("idempotency_key", "refused-form"),
            ("amount", "10.00"),
            ("currency", "EUR"),
        ],
    )
    .await;
    assert_eq!(refused.0, 403, "the server refuses");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(app.count("top_ups").await, 0);
    assert_eq!(app.count("partner_events").await, 0, "nothing was sent");
}

#[tokio::test]
async fn support_staff_change_nothing_and_the_page_speaks_chinese() {
    let app = spawn_app().await;
    let support = signed_in(&app, true).await;
    let refused = submit_from(
        &app,
        &support,
        "/support",
        PAGE,
        &[
            ("idempotency_key", "refused-form"),
            ("amount", "10.00"),
            ("currency", "EUR"),
        ],
    )
    .await;
    assert_eq!(refused.0, 403);
    assert_eq!(app.count("top_ups").await, 0);

    let member = signed_in(&app, false).await;
    let chinese = page_in_chinese(&app, &member, PAGE).await;
    assert!(chinese.contains("<h1>充值</h1>"), "{chinese}");
    assert!(chinese.contains("模拟来账") && chinese.contains("付款附言"));
    assert_eq!(get(&app, &member, PAGE).await.status(), 200);
}
