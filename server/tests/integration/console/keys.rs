//! The key page (`/keys/{key}`) and support's timeline of a key (`/support/timeline?key=…`)
//! read the key from their address by the contract's rule (API.md §2): one that is no key
//! (empty, longer than 255 characters, or with other than visible ASCII) is refused as the
//! API refuses it, `400` with a sentence that says why, and is looked up nowhere.

use crate::common;

use common::browser::{get, signed_in};
use common::spawn_app;

/// The status of `path` as `browser` reads it, and its page.
async fn shown(
    app: &common::TestApp,
    browser: &common::browser::Browser,
    path: &str,
) -> (u16, String) {
    let answer = get(app, browser, path).await;
    (answer.status().as_u16(), answer.text().await.unwrap())
}

#[tokio::test]
async fn a_key_that_is_no_key_is_refused_by_the_key_page_and_supports_timeline() {
    let app = spawn_app().await;
    let member = signed_in(&app, false).await;
    let support = signed_in(&app, true).await;
    let said = "This is not an idempotency key";

    let too_long = "k".repeat(256);
    for no_key in [too_long.as_str(), "a%20b", "caf%C3%A9"] {
        let (status, page) = shown(&app, &member, &format!("/keys/{no_key}")).await;
        assert_eq!(status, 400, "{no_key}: {page}");
        assert!(page.contains(said) && !page.contains("No record"), "{page}");

        let timeline = format!(
            "/support/timeline?merchant={}&key={no_key}",
            app.merchant.id
        );
        let (status, page) = shown(&app, &support, &timeline).await;
        assert_eq!(status, 400, "{no_key}: {page}");
        assert!(page.contains(said), "{page}");
    }
    // Nothing was looked into: support's views are audited, and there is none.
    assert_eq!(
        app.count("audit_log WHERE action = 'support.viewed'").await,
        0
    );

    // The longest key is a key: merely one the merchant has no record of.
    let longest = "k".repeat(255);
    let (status, page) = shown(&app, &member, &format!("/keys/{longest}")).await;
    assert_eq!(status, 404, "{page}");
    assert!(page.contains("No record") && !page.contains(said), "{page}");
}
