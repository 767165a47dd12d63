//! `/settings/profile` (API.md §9 "Forms and people"): a user chooses the time zone the
//! console's times are shown in, UTC by default; a name not in the IANA database is refused and
//! changes nothing; support staff choose theirs too.

use crate::common;

use common::browser::{page, signed_in, submit};
use common::spawn_app;

#[tokio::test]
async fn a_user_reads_times_in_the_time_zone_they_chose() {
    let app = spawn_app().await;
    let member = signed_in(&app, false).await;
    let payout = app.fund_and_pay_out().await;
    let payout_page = format!("/payouts/{payout}");

    let profile = page(&app, &member, "/settings/profile").await;
    assert!(
        profile.contains(r#"<label for="time_zone">Time zone</label>"#),
        "{profile}"
    );
    assert!(
        profile.contains(r#"<option value="UTC" selected"#),
        "UTC by default"
    );
    assert!(profile.contains(r#"<option value="Asia/Shanghai">"#));
    assert!(page(&app, &member, &payout_page)
        .await
        .contains(" UTC</dd>"));

    let refused = submit(
        &app,
        &member,
        "/settings/profile",
        &[("time_zone", "Mars/Olympus")],
    )
    .await;
    assert_eq!(
        refused,
        (303, "/settings/profile?error=time_zone".to_owned())
    );
    let shown = page(&app, &member, &payout_page).await;
    assert!(
        shown.contains(" UTC</dd>") && !shown.contains("Mars"),
        "nothing changed"
    );

    let saved = submit(
        &app,
        &member,
        "/settings/profile",
        &[("time_zone", "Asia/Shanghai")],
    )
    .await;
    assert_eq!(saved, (303, "/settings/profile".to_owned()));
    let notice = page(&app, &member, "/settings/profile").await;
    assert!(notice.contains(r#"role="status""#) && notice.contains("Asia/Shanghai"));
    assert!(notice.contains(r#"<option value="Asia/Shanghai" selected"#));
    let shown = page(&app, &member, &payout_page).await;
    assert!(
        shown.contains(" Asia/Shanghai</dd>") && !shown.contains(" UTC</dd>"),
        "{shown}"
    );

    let support = signed_in(&app, true).await;
    let saved = submit(
        &app,
        &support,
        "/settings/profile",
        &[("time_zone", "Europe/Berlin")],
    )
    .await;
    assert_eq!(saved.0, 303);
    assert!(page(&app, &support, "/settings/profile")
        .await
        .contains(r#"<option value="Europe/Berlin" selected"#));
    assert!(
        page(&app, &member, "/settings/profile")
            .await
            .contains(r#"<option value="Asia/Shanghai" selected"#),
        "each user their own"
    );
}

/// A stored time zone that is none of the IANA database's (written by hand, or before the form
/// checked names) is read as UTC, deliberately: every time says UTC, and the profile page has
/// UTC chosen (saving it stores a real zone), rather than a page that shows no choice.
#[tokio::test]
async fn a_stored_time_zone_that_is_none_reads_as_utc() {
    let app = spawn_app().await;
    let member = signed_in(&app, false).await;
    let payout = app.fund_and_pay_out().await;
    sqlx::query("UPDATE users SET time_zone = 'Mars/Olympus' WHERE email = 'member@test'")
        .execute(&app.pool)
        .await
        .unwrap();

    let profile = page(&app, &member, "/settings/profile").await;
    assert!(
        profile.contains(r#"<option value="UTC" selected"#),
        "{profile}"
    );
    let shown = page(&app, &member, &format!("/payouts/{payout}")).await;
    assert!(
        shown.contains(" UTC</dd>") && !shown.contains("Mars"),
        "{shown}"
    );

    let saved = submit(&app, &member, "/settings/profile", &[("time_zone", "UTC")]).await;
    assert_eq!(saved, (303, "/settings/profile".to_owned()));
    let notice = page(&app, &member, "/settings/profile").await;
    assert!(notice.contains("times are now shown in UTC"), "{notice}");
}
