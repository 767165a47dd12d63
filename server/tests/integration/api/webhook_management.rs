//! Managing webhook endpoints (API.md §5, "Managing endpoints") over real HTTP against a real
//! PostgreSQL, delivered to a real local receiver and checked with the independent
//! `standardwebhooks` crate: `PATCH` disables (no delivery while disabled, none later of the
//! events raised meanwhile) and enables; a rotated secret's overlap (both secrets verify, then
//! only the new one); `recover` queues one new delivery per failed one however often the same
//! request comes; a test event reaches its endpoint only, signed and marked.

use crate::common;

use chrono::{DateTime, Utc};
use futures::future::join_all;
use serde_json::{json, Value};
use standardwebhooks::Webhook;

use app::console::Role;
use common::browser::{page, signed_in_as, submit};
use common::webhooks::{
    create_endpoint, patch, stored_secret, Received, Receiver, IDLE_WORKER, ORDER,
};
use common::{create_merchant, error_code, json, spawn_app_with, TestApp};

async fn post_json(app: &TestApp, path: &str, key: &str, body: Value) -> (u16, Value) {
    let response = app.post(path, Some(key), &body.to_string()).await;
    let status = response.status().as_u16();
    (status, json(response).await)
}

fn id(object: &Value) -> &str {
    object["id"].as_str().unwrap()
}

/// The ids of the objects the received `order.created` events were about.
fn orders_received(receiver: &Receiver) -> Vec<String> {
    receiver
        .received()
        .iter()
        .map(|got| {
            got.json()["data"]["object"]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn disabling_stops_deliveries_and_what_happens_meanwhile_never_arrives() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = create_endpoint(&app, "endpoint", json!({"url": receiver.url})).await;
    let endpoint_id = id(&endpoint);
    app.create_order("before", ORDER).await;
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'pending'")
            .await,
        1
    );

    let (status, disabled) = patch(&app, endpoint_id, json!({"disabled": true})).await;
    assert_eq!(status, 200, "{disabled}");
    assert_eq!(disabled["status"], "disabled");
    assert!(disabled["disabled_at"].is_string());
    assert!(disabled.get("secret").is_none());
    let listed = json(app.get("/v1/webhook-endpoints").await).await;
    assert_eq!(listed["data"][0]["status"], "disabled");
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'disabled'")
            .await,
        1,
        "the pending delivery stops"
    );
    app.create_order("meanwhile", ORDER).await;
    assert_eq!(
        app.count("webhook_deliveries").await,
        1,
        "no delivery of an event raised while disabled"
    );

    // A delivery written by a transaction that raced the disabling is stopped when claimed.
    sqlx::query(
        "INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, status) \
         SELECT gen_random_uuid(), merchant_id, id, $1, 'pending' FROM events \
         ORDER BY created_at DESC LIMIT 1",
    )
    .bind(endpoint_id)
    .execute(&app.pool)
    .await
    .unwrap();
    let dispatcher = app.dispatcher("10ms");
    app.drain(&dispatcher).await;
    assert_eq!(
        receiver.received().len(),
        0,
        "nothing reaches a disabled endpoint"
    );
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'disabled'")
            .await,
        2
    );
    assert_eq!(app.count("webhook_attempts").await, 0);

    let (status, enabled) = patch(&app, endpoint_id, json!({"disabled": false})).await;
    assert_eq!(status, 200, "{enabled}");
    assert_eq!(enabled["status"], "enabled");
    assert_eq!(enabled["disabled_at"], Value::Null);
    let after = app.create_order("after", ORDER).await;
    app.drain(&dispatcher).await;
    assert_eq!(
        orders_received(&receiver),
        vec![id(&after).to_owned()],
        "only the event raised after enabling arrives"
    );
}

#[tokio::test]
async fn patch_changes_url_and_events_under_the_creation_rules() {
    let app = spawn_app_with(&["--webhook-allow-private-networks", "false"]).await;
    let endpoint = create_endpoint(
        &app,
        "endpoint",
        json!({"url": "https://93.184.215.14/hooks"}),
    )
    .await;
    let endpoint_id = id(&endpoint);

    let (status, changed) = patch(
        &app,
        endpoint_id,
        json!({"url": "https://93.184.215.14/other", "events": ["payout.paid", "payout.paid"]}),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["url"], "https://93.184.215.14/other");
    assert_eq!(changed["events"], json!(["payout.paid"]));
    assert_eq!(changed["status"], "enabled");
    let (status, unchanged) = patch(&app, endpoint_id, json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(unchanged, changed);

    for (body, param) in [
        (json!({"url": "http://127.0.0.1:9/hooks"}), "url"),
        (json!({"url": "http://169.254.169.254/"}), "url"),
        (json!({"url": "ftp://example.com/"}), "url"),
        (json!({"events": []}), "events"),
        (json!({"events": ["order.paid"]}), "events[0]"),
        (json!({"disabled": "yes"}), "disabled"),
        (json!({"secret": "whsec_x"}), "secret"),
    ] {
        let (status, refused) = patch(&app, endpoint_id, body.clone()).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert_eq!(refused["error"]["param"], param, "{body}");
    }
    let stored = json(
        app.get(&format!("/v1/webhook-endpoints/{endpoint_id}"))
            .await,
    )
    .await;
    assert_eq!(stored, changed, "a refused PATCH changes nothing");

    let other = create_merchant(&app.pool, "Other").await;
    let response = app
        .client
        .patch(format!(
            "{}/v1/webhook-endpoints/{endpoint_id}",
            app.base_url
        ))
        .bearer_auth(&other.api_key)
        .body(r#"{"disabled": true}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(error_code(&json(response).await), "resource_missing");
}

/// Whether `secret` verifies what the receiver got.
fn verifies(secret: &str, got: &Received) -> bool {
    Webhook::new(secret)
        .unwrap()
        .verify(&got.body, &got.headers)
        .is_ok()
}

async fn rotate(app: &TestApp, endpoint_id: &str, key: &str, overlap: &str) -> Value {
    let (status, rotated) = post_json(
        app,
        &format!("/v1/webhook-endpoints/{endpoint_id}/rotate-secret"),
        key,
        json!({"overlap": overlap}),
    )
    .await;
    assert_eq!(status, 200, "{rotated}");
    rotated
}

fn instant(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn during_a_rotation_overlap_both_secrets_verify_and_after_it_only_the_new_one() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = create_endpoint(&app, "endpoint", json!({"url": receiver.url})).await;
    let endpoint_id = id(&endpoint);
    let old = endpoint["secret"].as_str().unwrap();
    let dispatcher = app.dispatcher("10ms");

    let rotated = rotate(&app, endpoint_id, "rotate-1", "5s").await;
    let new = rotated["secret"].as_str().unwrap();
    assert!(new.starts_with("whsec_") && new != old);
    assert_eq!(rotated["object"], "webhook_endpoint");
    assert_eq!(rotated["id"], endpoint_id);
    let expires = instant(&rotated["previous_secret_expires_at"]);
    let left = (expires - Utc::now()).num_milliseconds();
    assert!(
        (3000..=5000).contains(&left),
        "the overlap ends in {left} ms"
    );
    let shown = json(
        app.get(&format!("/v1/webhook-endpoints/{endpoint_id}"))
            .await,
    )
    .await;
    assert!(
        shown.get("secret").is_none(),
        "the secret is shown only once"
    );
    assert_eq!(
        shown["previous_secret_expires_at"],
        rotated["previous_secret_expires_at"]
    );

    app.create_order("during", ORDER).await;
    app.drain(&dispatcher).await;
    let during = &receiver.received()[0];
    assert!(
        Utc::now() < expires,
        "the delivery was made within the overlap"
    );
    let signatures: Vec<&str> = during
        .header("webhook-signature")
        .unwrap()
        .split(' ')
        .collect();
    assert_eq!(signatures.len(), 2, "{signatures:?}");
    assert!(
        verifies(new, during),
        "the new secret verifies during the overlap"
    );
    assert!(
        verifies(old, during),
        "the old secret verifies during the overlap"
    );
    let mut new_first = during.clone();
    new_first
        .headers
        .insert("webhook-signature", signatures[0].parse().unwrap());
    assert!(
        verifies(new, &new_first),
        "the new secret's signature comes first"
    );

    tokio::time::sleep((expires - Utc::now()).to_std().unwrap_or_default()).await;
    app.create_order("after", ORDER).await;
    app.drain(&dispatcher).await;
    let after = &receiver.received()[1];
    assert!(
        verifies(new, after),
        "the new secret verifies after the overlap"
    );
    assert!(!verifies(old, after), "the old secret no longer verifies");
    assert_eq!(
        after
            .header("webhook-signature")
            .unwrap()
            .split(' ')
            .count(),
        1
    );

    // A replay answers the same secret, byte for byte, and rotates nothing.
    let replay = app
        .post(
            &format!("/v1/webhook-endpoints/{endpoint_id}/rotate-secret"),
            Some("rotate-1"),
            r#"{"overlap": "5s"}"#,
        )
        .await;
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(json(replay).await, rotated);
    assert_eq!(stored_secret(&app, Some(endpoint_id)).await, new);

    // `now`: the previous secret expires at once.
    let before = Utc::now();
    let now_rotated = rotate(&app, endpoint_id, "rotate-2", "now").await;
    let newest = now_rotated["secret"].as_str().unwrap();
    let expired = instant(&now_rotated["previous_secret_expires_at"]);
    assert!(before - chrono::Duration::seconds(1) <= expired && expired <= Utc::now());
    app.create_order("after-now", ORDER).await;
    app.drain(&dispatcher).await;
    let last = &receiver.received()[2];
    assert!(verifies(newest, last));
    assert!(
        !verifies(new, last),
        "with `now` the replaced secret stops at once"
    );
}

#[tokio::test]
async fn rotation_refuses_an_overlap_beyond_a_week_and_unknown_endpoints() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let endpoint = create_endpoint(&app, "endpoint", json!({"url": "https://example.com/h"})).await;
    let path = format!("/v1/webhook-endpoints/{}/rotate-secret", id(&endpoint));
    for overlap in [
        json!("8d"),
        json!("soon"),
        json!("-1h"),
        json!(3600),
        json!(null),
    ] {
        let (status, refused) = post_json(&app, &path, "rotate", json!({"overlap": overlap})).await;
        assert_eq!(status, 400, "{overlap}: {refused}");
        assert_eq!(refused["error"]["param"], "overlap");
    }
    let (status, week) = post_json(&app, &path, "rotate", json!({"overlap": "7d"})).await;
    assert_eq!(status, 200, "{week}");
    let (status, missing) = post_json(
        &app,
        "/v1/webhook-endpoints/whe_nothing/rotate-secret",
        "rotate-missing",
        json!({"overlap": "now"}),
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(error_code(&missing), "resource_missing");
    assert_eq!(
        app.count("idempotency_keys WHERE key = 'rotate-missing'")
            .await,
        0,
        "a 404 leaves the key free"
    );
}

/// Runs deliveries into the ground: each attempt answered `500` until the one-retry schedule
/// runs out.
async fn fail_everything(app: &TestApp, receiver: &Receiver) {
    receiver.answer(500);
    app.drain(&app.dispatcher("10ms")).await;
    receiver.answer(200);
}

#[tokio::test]
async fn recover_queues_one_new_delivery_per_failed_one_however_often_the_request_comes() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = create_endpoint(&app, "endpoint", json!({"url": receiver.url})).await;
    let endpoint_id = id(&endpoint);
    let start = Utc::now() - chrono::Duration::seconds(1);
    let first = app.create_order("first", ORDER).await;
    let second = app.create_order("second", ORDER).await;
    fail_everything(&app, &receiver).await;
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'failed'")
            .await,
        2
    );
    assert_eq!(receiver.received().len(), 4, "two attempts each");

    let path = format!("/v1/webhook-endpoints/{endpoint_id}/recover");
    let body = json!({"since": start.to_rfc3339()}).to_string();
    let answers = join_all((0..2).map(|_| app.post(&path, Some("recover-1"), &body))).await;
    let mut statuses = Vec::new();
    for answer in answers {
        statuses.push(answer.status().as_u16());
    }
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(
        statuses.iter().all(|s| [200, 409].contains(s)),
        "{statuses:?}"
    );
    let replay = app.post(&path, Some("recover-1"), &body).await;
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(
        json(replay).await,
        json!({"object": "recovery", "queued": 2})
    );
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'pending'")
            .await,
        2,
        "one new delivery per failed one"
    );

    app.drain(&app.dispatcher("10ms")).await;
    let mut redelivered = orders_received(&receiver)[4..].to_vec();
    redelivered.sort();
    let mut expected = vec![id(&first).to_owned(), id(&second).to_owned()];
    expected.sort();
    assert_eq!(redelivered, expected, "the same events, with their bodies");
    assert_eq!(
        receiver.received()[4].body,
        receiver.received()[0..4]
            .iter()
            .find(|got| got.header("webhook-id") == receiver.received()[4].header("webhook-id"))
            .unwrap()
            .body,
        "the same body"
    );

    // The events are delivered now: another recovery has nothing to queue.
    let (status, again) = post_json(&app, &path, "recover-2", json!({"since": start})).await;
    assert_eq!(status, 200);
    assert_eq!(again["queued"], 0);
}

#[tokio::test]
async fn recover_takes_what_a_410_stopped_and_honours_since() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = create_endpoint(&app, "endpoint", json!({"url": receiver.url})).await;
    let endpoint_id = id(&endpoint);
    let gone = app.create_order("gone", ORDER).await;
    receiver.answer(410);
    app.drain(&app.dispatcher("10ms")).await;
    receiver.answer(200);
    let path = format!("/v1/webhook-endpoints/{endpoint_id}/recover");
    let since = json!({"since": (Utc::now() - chrono::Duration::hours(1)).to_rfc3339()});

    let (status, refused) = post_json(&app, &path, "recover-disabled", since.clone()).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(error_code(&refused), "invalid_state_transition");

    // Stopped while pending by a PATCH: not a failure to recover.
    let (status, _) = patch(&app, endpoint_id, json!({"disabled": false})).await;
    assert_eq!(status, 200);
    app.create_order("stopped", ORDER).await;
    patch(&app, endpoint_id, json!({"disabled": true})).await;
    patch(&app, endpoint_id, json!({"disabled": false})).await;

    let (status, future) = post_json(
        &app,
        &path,
        "recover-future",
        json!({"since": (Utc::now() + chrono::Duration::minutes(1)).to_rfc3339()}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        future["queued"], 0,
        "nothing was last attempted after `since`"
    );
    let (status, recovered) = post_json(&app, &path, "recover", since).await;
    assert_eq!(status, 200, "{recovered}");
    assert_eq!(recovered, json!({"object": "recovery", "queued": 1}));
    app.drain(&app.dispatcher("10ms")).await;
    let received = orders_received(&receiver);
    assert_eq!(received, vec![id(&gone).to_owned(), id(&gone).to_owned()]);

    let (status, bad) = post_json(&app, &path, "recover-bad", json!({"since": "yesterday"})).await;
    assert_eq!(status, 400);
    assert_eq!(bad["error"]["param"], "since");
}

#[tokio::test]
async fn a_test_event_reaches_its_endpoint_only_signed_and_marked() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let bystander = Receiver::start(&[]).await;
    let endpoint = create_endpoint(
        &app,
        "endpoint",
        json!({"url": receiver.url, "events": ["order.created"]}),
    )
    .await;
    create_endpoint(&app, "bystander", json!({"url": bystander.url})).await;
    let path = format!("/v1/webhook-endpoints/{}/test", id(&endpoint));

    let (status, event) =
        post_json(&app, &path, "test-1", json!({"event_type": "payout.paid"})).await;
    assert_eq!(status, 200, "{event}");
    assert_eq!(event["object"], "event");
    assert_eq!(event["event_type"], "payout.paid");
    assert_eq!(event["test"], true);
    let payout = &event["data"]["object"];
    assert_eq!(payout["object"], "payout");
    assert_eq!(payout["status"], "paid");
    assert!(payout["id"].as_str().unwrap().starts_with("po_"));
    let deliveries = event["deliveries"].as_array().unwrap();
    assert_eq!(deliveries.len(), 1, "to that endpoint only: {deliveries:?}");
    assert_eq!(deliveries[0]["endpoint_id"], endpoint["id"]);
    let shown = json(app.get(&format!("/v1/events/{}", id(&event))).await).await;
    assert_eq!(shown, event, "the answer is the event as GET shows it");

    app.drain(&app.dispatcher("10ms")).await;
    let got = receiver.received();
    assert_eq!(got.len(), 1);
    assert!(verifies(endpoint["secret"].as_str().unwrap(), &got[0]));
    assert_eq!(got[0].header("kaadxpay-test"), Some("true"));
    assert_eq!(got[0].header("kaadxpay-event-type"), Some("payout.paid"));
    assert_eq!(got[0].header("webhook-id"), event["id"].as_str());
    let sent = got[0].json();
    assert_eq!(sent["test"], true);
    assert_eq!(sent["event_id"], event["id"]);
    assert_eq!(sent["data"], event["data"]);
    assert!(
        bystander.received().is_empty(),
        "no other endpoint gets a test event"
    );

    let listed = json(app.get("/v1/events").await).await;
    assert_eq!(listed["data"][0]["id"], event["id"]);
    assert_eq!(listed["data"][0]["test"], true);

    // A real event is not marked, in its body or its headers.
    app.create_order("real", ORDER).await;
    app.drain(&app.dispatcher("10ms")).await;
    let real = &receiver.received()[1];
    assert_eq!(real.header("kaadxpay-test"), None);
    assert!(real.json().get("test").is_none());
    let listed = json(app.get("/v1/events").await).await;
    assert_eq!(listed["data"][0]["test"], false);

    let replay = app
        .post(&path, Some("test-1"), r#"{"event_type": "payout.paid"}"#)
        .await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(json(replay).await["id"], event["id"]);
    assert_eq!(
        app.count("events WHERE payload ? 'test'").await,
        1,
        "a replay sends nothing"
    );

    for kind in ["order.paid", "*", ""] {
        let (status, refused) =
            post_json(&app, &path, "test-bad", json!({"event_type": kind})).await;
        assert_eq!(status, 400, "{kind}: {refused}");
        assert_eq!(refused["error"]["param"], "event_type");
    }
}

#[tokio::test]
async fn every_event_type_makes_a_test_event_about_an_object_in_that_state() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let endpoint = create_endpoint(&app, "endpoint", json!({"url": "https://example.com/h"})).await;
    let path = format!("/v1/webhook-endpoints/{}/test", id(&endpoint));
    for (kind, object, status) in [
        ("order.created", "order", "pending"),
        ("order.captured", "order", "captured"),
        ("order.cancelled", "order", "cancelled"),
        ("payout.created", "payout", "pending"),
        ("payout.in_transit", "payout", "in_transit"),
        ("payout.paid", "payout", "paid"),
        ("payout.failed", "payout", "failed"),
        ("payout.reversed", "payout", "reversed"),
    ] {
        let (code, event) = post_json(&app, &path, kind, json!({"event_type": kind})).await;
        assert_eq!(code, 200, "{event}");
        assert_eq!(event["data"]["object"]["object"], object, "{kind}");
        assert_eq!(event["data"]["object"]["status"], status, "{kind}");
    }
    patch(&app, id(&endpoint), json!({"disabled": true})).await;
    let (code, refused) = post_json(
        &app,
        &path,
        "disabled",
        json!({"event_type": "order.created"}),
    )
    .await;
    assert_eq!(code, 409, "{refused}");
}

#[tokio::test]
async fn the_openapi_document_has_the_management_routes() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let doc = app.openapi().await;
    let update = &doc["paths"]["/v1/webhook-endpoints/{id}"]["patch"];
    assert!(update["responses"]["404"].is_object(), "{update}");
    assert!(update["responses"]["400"].is_object(), "{update}");
    for action in ["rotate-secret", "recover", "test"] {
        let operation = &doc["paths"][format!("/v1/webhook-endpoints/{{id}}/{action}")]["post"];
        assert!(
            operation["responses"]["200"].is_object(),
            "{action}: {operation}"
        );
        assert!(
            operation["responses"]["422"].is_object(),
            "{action} takes a key"
        );
    }
}

/// The signing secret the console's webhooks page shows once, if it shows one.
fn shown_secret(page: &str) -> Option<String> {
    page.split("class=\"secret\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .map(str::to_owned)
}

#[tokio::test]
async fn the_console_manages_endpoints_once_per_form_and_only_for_roles_that_may() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let developer = signed_in_as(&app, "dev@hooks.test", Some(Role::Developer)).await;
    let viewer = signed_in_as(&app, "viewer@hooks.test", Some(Role::Viewer)).await;
    let add = [
        ("idempotency_key", "console-add-1"),
        ("url", receiver.url.as_str()),
        ("events", "payout.paid, order.created"),
    ];
    assert_eq!(
        submit(&app, &viewer, "/webhooks/endpoints", &add).await.0,
        403
    );
    assert_eq!(app.count("webhook_endpoints").await, 0);

    // A double submit of one form: one endpoint, its secret shown once.
    for _ in 0..2 {
        let answer = submit(&app, &developer, "/webhooks/endpoints", &add).await;
        assert_eq!(answer, (303, "/webhooks".to_owned()));
    }
    assert_eq!(app.count("webhook_endpoints").await, 1);
    let secret = shown_secret(&page(&app, &developer, "/webhooks").await).expect("the secret");
    assert_eq!(secret, stored_secret(&app, None).await);
    assert!(secret.starts_with("whsec_"));
    let shown_again = page(&app, &developer, "/webhooks").await;
    assert_eq!(shown_secret(&shown_again), None, "shown once");
    assert!(!shown_again.contains(&secret));
    let id: String = sqlx::query_scalar("SELECT id FROM webhook_endpoints")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let base = format!("/webhooks/endpoints/{id}");

    // A test event, asked twice by one form, reaches the receiver once, signed.
    let test = [
        ("idempotency_key", "console-test-1"),
        ("event_type", "payout.paid"),
    ];
    assert_eq!(
        submit(&app, &viewer, &format!("{base}/test"), &test)
            .await
            .0,
        403
    );
    for _ in 0..2 {
        assert_eq!(
            submit(&app, &developer, &format!("{base}/test"), &test)
                .await
                .0,
            303
        );
    }
    app.drain(&app.dispatcher("1s")).await;
    let got = receiver.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].json()["event_type"], "payout.paid");
    assert_eq!(got[0].json()["test"], true);
    assert!(verifies(&secret, &got[0]));

    // A rotation shows the new secret once.
    let rotate = [("idempotency_key", "console-rotate-1"), ("overlap", "now")];
    assert_eq!(
        submit(&app, &viewer, &format!("{base}/rotate"), &rotate)
            .await
            .0,
        403
    );
    assert_eq!(
        submit(&app, &developer, &format!("{base}/rotate"), &rotate)
            .await
            .0,
        303
    );
    let rotated = shown_secret(&page(&app, &developer, "/webhooks").await).expect("new secret");
    assert_ne!(rotated, secret);
    assert_eq!(rotated, stored_secret(&app, None).await);

    // States: asking twice changes nothing more; a viewer changes nothing.
    let disabled = "webhook_endpoints WHERE disabled_at IS NOT NULL";
    assert_eq!(
        submit(&app, &viewer, &format!("{base}/disable"), &[])
            .await
            .0,
        403
    );
    assert_eq!(app.count(disabled).await, 0);
    for _ in 0..2 {
        assert_eq!(
            submit(&app, &developer, &format!("{base}/disable"), &[])
                .await
                .0,
            303
        );
    }
    assert_eq!(app.count(disabled).await, 1);
    assert_eq!(
        submit(&app, &developer, &format!("{base}/enable"), &[])
            .await
            .0,
        303
    );
    assert_eq!(app.count(disabled).await, 0);
    assert_eq!(
        submit(&app, &viewer, &format!("{base}/delete"), &[])
            .await
            .0,
        403
    );
    assert_eq!(
        submit(&app, &developer, &format!("{base}/delete"), &[])
            .await
            .0,
        303
    );
    assert_eq!(
        app.count("webhook_endpoints WHERE deleted_at IS NOT NULL")
            .await,
        1
    );
    let again = submit(&app, &developer, &format!("{base}/delete"), &[]).await;
    assert_eq!(
        again,
        (303, "/webhooks?error=resource%5Fmissing".to_owned())
    );
}

#[tokio::test]
async fn the_console_recovers_an_endpoints_failed_deliveries_once_per_form() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = create_endpoint(&app, "recover-endpoint", json!({"url": receiver.url})).await;
    let id = id(&endpoint).to_owned();
    receiver.answer(500);
    app.create_order("recover-order", ORDER).await;
    // Its retries run out at once: the delivery fails.
    app.drain(&app.dispatcher("0s")).await;
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'failed'")
            .await,
        1
    );
    receiver.answer(200);
    let failed_attempts = orders_received(&receiver).len();
    let developer = signed_in_as(&app, "dev@hooks.test", Some(Role::Developer)).await;
    let viewer = signed_in_as(&app, "viewer@hooks.test", Some(Role::Viewer)).await;
    let today = Utc::now().date_naive().to_string();
    let recover = [
        ("idempotency_key", "console-recover-1"),
        ("since", today.as_str()),
    ];
    let path = format!("/webhooks/endpoints/{id}/recover");
    assert_eq!(submit(&app, &viewer, &path, &recover).await.0, 403);
    for _ in 0..2 {
        assert_eq!(
            submit(&app, &developer, &path, &recover).await,
            (303, "/webhooks".to_owned())
        );
    }
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'pending'")
            .await,
        1,
        "one form, one recovery"
    );
    app.drain(&app.dispatcher("0s")).await;
    assert_eq!(
        orders_received(&receiver).len(),
        failed_attempts + 1,
        "the failed attempts, then the one recovery"
    );
    let bad_day = [
        ("idempotency_key", "console-recover-2"),
        ("since", "last week"),
    ];
    assert_eq!(
        submit(&app, &developer, &path, &bad_day).await.1,
        "/webhooks"
    );
    let refused = page(&app, &developer, "/webhooks").await;
    assert!(
        refused.contains("Enter the day to recover failed deliveries from."),
        "the reason comes back with the page: {refused}"
    );
}
