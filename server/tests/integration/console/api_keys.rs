//! API keys the merchant manages in the console (`/settings/keys`, API.md §11): a key made by a
//! form works against `/v1` at once and its secret is shown once, on the page after the submit
//! that made it, even when the form was sent twice at once; a roll's successor works and the
//! old key stops when its overlap ends; a revoked key stops at once; and a read-only key made
//! here cannot write.

use crate::common;

use futures::future::join_all;

use common::browser::{hidden, page, signed_in, Browser};
use common::{count, spawn_app, TestApp};

/// The secret the keys page shows once, if any.
fn shown_secret(html: &str) -> Option<String> {
    let start = html.find("<code class=\"secret\">")? + "<code class=\"secret\">".len();
    Some(html[start..start + html[start..].find("</code>")?].to_owned())
}

/// A form of the keys page as it was rendered: its CSRF token and minted key.
async fn rendered_form(app: &TestApp, browser: &Browser) -> (String, String) {
    let html = page(app, browser, "/settings/keys").await;
    (hidden(&html, "csrf"), hidden(&html, "idempotency_key"))
}

/// Posts the rendered `form` with `fields` to `action`; answers the status.
async fn post(
    app: &TestApp,
    browser: &Browser,
    action: &str,
    form: &(String, String),
    fields: &[(&str, &str)],
) -> u16 {
    let (client, cookie) = browser;
    let mut body = vec![
        ("csrf", form.0.as_str()),
        ("idempotency_key", form.1.as_str()),
    ];
    body.extend_from_slice(fields);
    client
        .post(format!("{}{action}", app.base_url))
        .header("cookie", cookie)
        .form(&body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Renders the keys page and submits its form once.
async fn submit_rendered(app: &TestApp, browser: &Browser, action: &str, fields: &[(&str, &str)]) {
    let form = rendered_form(app, browser).await;
    assert_eq!(post(app, browser, action, &form, fields).await, 303);
}

async fn status_with(app: &TestApp, secret: &str, method: &str) -> u16 {
    let request = match method {
        "POST" => app
            .client
            .post(format!("{}/v1/orders", app.base_url))
            .header("idempotency-key", format!("with-{}", uuid::Uuid::new_v4()))
            .body(r#"{"amount": 100, "currency": "EUR"}"#),
        _ => app.client.get(format!("{}/v1/orders", app.base_url)),
    };
    request
        .bearer_auth(secret)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn key_id(app: &TestApp, name: &str) -> String {
    sqlx::query_scalar("SELECT id FROM api_keys WHERE name = $1 ORDER BY created_at LIMIT 1")
        .bind(name)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_double_submitted_form_makes_one_key_whose_secret_is_shown_once_and_works() {
    let app = spawn_app().await;
    let owner = signed_in(&app, false).await;
    let before = count(&app.pool, "api_keys").await;

    let fields = [("name", "Checkout"), ("access", "read_write")];
    let form = rendered_form(&app, &owner).await;
    let statuses =
        join_all((0..2).map(|_| post(&app, &owner, "/settings/keys", &form, &fields))).await;
    assert_eq!(statuses, [303, 303]);
    assert_eq!(count(&app.pool, "api_keys").await, before + 1, "one key");
    let sessions: Vec<Vec<u8>> = sqlx::query_scalar("SELECT data FROM tower_sessions.session")
        .fetch_all(&app.pool)
        .await
        .unwrap();

    let html = page(&app, &owner, "/settings/keys").await;
    let secret = shown_secret(&html).expect("the new secret is shown");
    assert!(secret.starts_with("sk_test_"), "{secret}");
    assert!(html.contains("Checkout"));
    assert_eq!(status_with(&app, &secret, "POST").await, 201);
    let again = page(&app, &owner, "/settings/keys").await;
    assert_eq!(shown_secret(&again), None, "shown once");
    // While it waits to be shown, the secret is kept sealed: the database never holds it.
    let random_part = secret.trim_start_matches("sk_test_").as_bytes();
    assert!(
        sessions.iter().all(|data| !data
            .windows(random_part.len())
            .any(|window| window == random_part)),
        "a session holds the secret in the clear"
    );

    // A slow double click: the second submit replays after the first finished, and the page
    // it leads to still shows the first one's secret.
    let form = rendered_form(&app, &owner).await;
    let fields = [("name", "Slow"), ("access", "read_write")];
    for _ in 0..2 {
        assert_eq!(
            post(&app, &owner, "/settings/keys", &form, &fields).await,
            303
        );
    }
    let slow = shown_secret(&page(&app, &owner, "/settings/keys").await).expect("shown");
    assert_eq!(status_with(&app, &slow, "GET").await, 200);
    assert_eq!(count(&app.pool, "api_keys").await, before + 2);
}

#[tokio::test]
async fn a_rolled_key_works_through_its_overlap_a_revoked_one_stops_and_read_only_cannot_write() {
    let app = spawn_app().await;
    let owner = signed_in(&app, false).await;
    submit_rendered(
        &app,
        &owner,
        "/settings/keys",
        &[("name", "Reports"), ("access", "read_only")],
    )
    .await;
    let read_only = shown_secret(&page(&app, &owner, "/settings/keys").await).unwrap();
    assert_eq!(status_with(&app, &read_only, "GET").await, 200);
    assert_eq!(status_with(&app, &read_only, "POST").await, 403);

    let id = key_id(&app, "Reports").await;
    submit_rendered(
        &app,
        &owner,
        &format!("/settings/keys/{id}/roll"),
        &[("overlap", "1h")],
    )
    .await;
    let successor = shown_secret(&page(&app, &owner, "/settings/keys").await).unwrap();
    assert_ne!(successor, read_only);
    assert_eq!(status_with(&app, &successor, "GET").await, 200);
    assert_eq!(
        status_with(&app, &read_only, "GET").await,
        200,
        "the old key works through the overlap"
    );

    let confirmed = [("confirmed", "1")];
    submit_rendered(
        &app,
        &owner,
        &format!("/settings/keys/{id}/revoke"),
        &confirmed,
    )
    .await;
    let html = page(&app, &owner, "/settings/keys").await;
    assert_eq!(shown_secret(&html), None, "a revocation shows no secret");
    let mut stopped = 0;
    for _ in 0..50 {
        stopped = status_with(&app, &read_only, "GET").await;
        if stopped == 401 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(stopped, 401, "a revoked key stops within 5 s");
    assert_eq!(
        status_with(&app, &successor, "GET").await,
        401,
        "revoking a key revokes the key it was rolled into"
    );
}
