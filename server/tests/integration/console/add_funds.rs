//! "Add funds" (API.md §9, §13): `/balance/add-funds` shows the merchant's funding account
//! (IBAN, holder and its own reference, each with "Copy"), and in test mode a member who may move
//! money makes the partner bank simulator receive money, which lands once as a top-up on the page
//! and in the balance's statement; a viewer is refused and nothing arrives; Chinese says 充值.

use std::time::Duration;

use crate::common;

use app::console::Role;
use common::browser::{get, page, signed_in, signed_in_as, submit_from};
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
        &[("amount", "1 234,50"), ("currency", "EUR")],
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
        &[("amount", "0"), ("currency", "EUR")],
    )
    .await;
    assert_eq!(refused.0, 303);
    assert!(refused.1.ends_with("&param=amount"), "{refused:?}");
    assert_eq!(app.count("top_ups").await, 1, "nothing more arrived");
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
        &[("amount", "10.00"), ("currency", "EUR")],
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
        &[("amount", "10.00"), ("currency", "EUR")],
    )
    .await;
    assert_eq!(refused.0, 403);
    assert_eq!(app.count("top_ups").await, 0);

    let member = signed_in(&app, false).await;
    let (client, cookie) = &member;
    let chinese = client
        .get(format!("{}{PAGE}", app.base_url))
        .header("cookie", cookie)
        .header("accept-language", "zh-CN")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(chinese.contains("<h1>充值</h1>"), "{chinese}");
    assert!(chinese.contains("模拟来账") && chinese.contains("付款附言"));
    assert_eq!(get(&app, &member, PAGE).await.status(), 200);
}
