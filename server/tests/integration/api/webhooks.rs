//! Webhooks to merchants (API.md §5) over real HTTP against a real PostgreSQL, delivered to a
//! real local receiver: signatures checked by the independent `standardwebhooks` crate,
//! retries, a `SIGKILL` between commit and send, two dispatchers on one queue, `410 Gone`, and
//! the endpoint and event routes.

use crate::common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::future::join_all;
use serde_json::Value;
use server::payments::events::EventType;
use server::webhooks::publish;
use standardwebhooks::Webhook;

use common::webhooks::{create_endpoint, Receiver, IDLE_WORKER, ORDER};
use common::{
    create_merchant, database_with_merchant, error_code, json, spawn_app_with, ServerProcess,
    TestApp,
};

#[tokio::test]
async fn signatures_verify_with_standardwebhooks_and_fail_after_one_byte_changes() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint =
        create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    let secret = endpoint["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_"));
    let order = app.create_order("order", ORDER).await;

    app.dispatcher("5s").run_once().await.unwrap();
    let got = &receiver.wait_for(1).await[0];
    let webhook = Webhook::new(secret).unwrap();
    webhook
        .verify(&got.body, &got.headers)
        .expect("the signature verifies");
    let mut tampered = got.body.to_vec();
    tampered[5] ^= 0x01;
    assert!(webhook.verify(&tampered, &got.headers).is_err());

    let body: Value = got.json();
    assert_eq!(body["event_type"], "order.created");
    assert_eq!(body["data"]["object"], order);
    assert_eq!(got.header("webhook-id").unwrap(), body["event_id"]);
    assert_eq!(got.header("kaadxpay-event-type").unwrap(), "order.created");
    assert!(
        chrono::DateTime::parse_from_rfc3339(got.header("kaadxpay-delivered-at").unwrap()).is_ok()
    );
    let stored: String = sqlx::query_scalar("SELECT payload::text FROM events")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        got.body,
        stored.as_bytes(),
        "the body is the stored payload"
    );
}

/// The by-hand verifiers that docs/api.md prints and the console shows beside test events
/// (`app/snippets/`), run as an integrator would run them, in Python and in Node, on a real
/// delivery: it verifies, and the same delivery with one byte changed does not.
#[tokio::test]
async fn the_documented_verifiers_accept_a_real_delivery_and_refuse_a_changed_one() {
    let snippets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/snippets");
    let python = std::fs::read_to_string(snippets.join("verify_webhook.py")).unwrap();
    let node = std::fs::read_to_string(snippets.join("verify_webhook.js")).unwrap();
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/api.md"),
    )
    .unwrap();
    assert!(
        docs.contains(&format!("```python\n{python}```")),
        "docs/api.md prints verify_webhook.py"
    );
    assert!(
        docs.contains(&format!("```javascript\n{node}```")),
        "docs/api.md prints verify_webhook.js"
    );

    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint =
        create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    app.create_order("order", ORDER).await;
    app.dispatcher("5s").run_once().await.unwrap();
    let got = &receiver.wait_for(1).await[0];
    let headers: HashMap<&str, &str> = ["webhook-id", "webhook-timestamp", "webhook-signature"]
        .into_iter()
        .map(|name| (name, got.header(name).unwrap()))
        .collect();
    let dir = common::scratch_dir();
    std::fs::write(
        dir.join("headers.json"),
        serde_json::to_vec(&headers).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("body"), &got.body).unwrap();
    let mut tampered = got.body.to_vec();
    tampered[5] ^= 0x01;
    std::fs::write(dir.join("tampered"), tampered).unwrap();
    std::fs::write(dir.join("verify_webhook.py"), python).unwrap();
    std::fs::write(dir.join("verify_webhook.js"), node).unwrap();
    let secret = endpoint["secret"].as_str().unwrap();

    let python_check = "import json, sys\n\
        from verify_webhook import verify\n\
        headers = json.load(open('headers.json'))\n\
        verify(sys.argv[1], headers, open('body', 'rb').read())\n\
        try:\n    verify(sys.argv[1], headers, open('tampered', 'rb').read())\n    sys.exit('a changed body verified')\n\
        except ValueError:\n    pass\n";
    let node_check = "const fs = require('node:fs');\n\
        eval(fs.readFileSync('verify_webhook.js', 'utf8'));\n\
        const headers = JSON.parse(fs.readFileSync('headers.json'));\n\
        verify(process.argv[1], headers, fs.readFileSync('body'));\n\
        let refused = false;\n\
        try { verify(process.argv[1], headers, fs.readFileSync('tampered')); } catch { refused = true; }\n\
        if (!refused) { console.error('a changed body verified'); process.exit(1); }\n";
    for (program, args) in [
        ("python3", ["-c", python_check]),
        ("node", ["-e", node_check]),
    ] {
        let status = std::process::Command::new(program)
            .args(args)
            .arg(secret)
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "{program}'s verifier: {status}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn three_500s_then_200_make_four_attempts_of_one_body() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[500, 500, 500]).await;
    create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    app.create_order("order", ORDER).await;

    app.drain(&app.dispatcher("10ms,10ms,10ms,10ms")).await;
    let got = receiver.received();
    assert_eq!(got.len(), 4);
    let event_id = got[0].header("webhook-id").unwrap();
    let mut delivery_ids: Vec<&str> = got
        .iter()
        .map(|r| r.header("kaadxpay-delivery-id").unwrap())
        .collect();
    for attempt in &got {
        assert_eq!(attempt.header("webhook-id").unwrap(), event_id);
        assert_eq!(attempt.body, got[0].body);
    }
    delivery_ids.sort();
    delivery_ids.dedup();
    assert_eq!(delivery_ids.len(), 4, "a new delivery id per attempt");

    let event = json(app.get(&format!("/v1/events/{event_id}")).await).await;
    let delivery = &event["deliveries"][0];
    assert_eq!(delivery["status"], "delivered");
    assert_eq!(delivery["attempt_count"], 4);
    let codes: Vec<i64> = delivery["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status_code"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [500, 500, 500, 200]);
    assert_eq!(
        delivery["attempts"][3]["delivery_id"],
        got[3].header("kaadxpay-delivery-id").unwrap()
    );
}

#[tokio::test]
async fn a_delivery_that_keeps_failing_stops_when_the_schedule_runs_out() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[503, 503, 503, 503]).await;
    create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    app.create_order("order", ORDER).await;

    app.drain(&app.dispatcher("10ms,10ms")).await;
    assert_eq!(
        receiver.received().len(),
        3,
        "the first attempt and two retries"
    );
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'failed'")
            .await,
        1
    );
}

#[tokio::test]
async fn a_refused_connection_is_recorded_and_retried() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hooks", closed.local_addr().unwrap());
    drop(closed);
    create_endpoint(&app, "endpoint", serde_json::json!({"url": url})).await;
    app.create_order("order", ORDER).await;

    app.drain(&app.dispatcher("10ms")).await;
    let (status_code, error): (Option<i16>, Option<String>) =
        sqlx::query_as("SELECT status_code, error FROM webhook_attempts ORDER BY at LIMIT 1")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(status_code, None);
    assert!(error.unwrap().contains("error sending request"));
    assert_eq!(
        app.count("webhook_attempts").await,
        2,
        "the attempt and its retry"
    );
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'failed'")
            .await,
        1
    );
}

#[tokio::test]
async fn retry_after_postpones_the_next_attempt() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[429]).await;
    create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    app.create_order("order", ORDER).await;

    let dispatcher = app.dispatcher("10ms");
    dispatcher.run_once().await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    dispatcher.run_once().await.unwrap();
    assert_eq!(
        receiver.received().len(),
        1,
        "the retry waits an hour, not 10 ms"
    );
    let wait: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM next_attempt_at - now())::float8 FROM webhook_deliveries",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!((3590.0..=3600.0).contains(&wait), "{wait}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_process_killed_between_commit_and_send_delivers_after_restart() {
    let (db_url, pool, merchant) = database_with_merchant("Crash Test").await;
    let app = TestApp {
        base_url: String::new(),
        db_url: db_url.clone(),
        pool: pool.clone(),
        client: reqwest::Client::new(),
        merchant,
    };
    let receiver = Receiver::start(&[]).await;
    let quick = [
        // The shortest lease the settings accept: it must outlast the 10 s send timeout.
        ("KAADXPAY_WEBHOOK_LEASE", "11s"),
        ("KAADXPAY_WEBHOOK_INTERVAL", "50ms"),
    ];
    let doomed = ServerProcess::start(
        &db_url,
        &[
            quick[0],
            quick[1],
            (
                "FAILPOINTS",
                "order.before_commit=1*return;webhook.before_send=sleep(60000)",
            ),
        ],
    )
    .await;
    let app = TestApp {
        base_url: doomed.base_url.clone(),
        ..app
    };
    create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;

    let failed = app.post("/v1/orders", Some("order"), ORDER).await;
    assert_eq!(failed.status(), 500);
    assert_eq!(
        (app.count("orders").await, app.count("events").await),
        (0, 0),
        "no event without its change"
    );
    let order = app.create_order("order", ORDER).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while app
        .count("webhook_deliveries WHERE locked_until > now()")
        .await
        == 0
    {
        assert!(
            Instant::now() < deadline,
            "the dispatcher never claimed the delivery"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    doomed.kill();
    assert_eq!(app.count("orders").await, 1);
    assert_eq!(app.count("events").await, 1, "no change without its event");
    assert_eq!(app.count("webhook_attempts").await, 0);
    assert!(receiver.received().is_empty(), "killed before sending");

    let restarted = ServerProcess::start(&db_url, &quick).await;
    let got = receiver.wait_for(1).await;
    let body: Value = got[0].json();
    assert_eq!(body["data"]["object"]["id"], order["id"]);
    let app = TestApp {
        base_url: restarted.base_url.clone(),
        ..app
    };
    // The receiver has the request; the dispatcher records its answer a moment later.
    let event_path = format!("/v1/events/{}", body["event_id"].as_str().unwrap());
    common::eventually(
        Duration::from_secs(10),
        "the delivery is recorded delivered",
        || async {
            json(app.get(&event_path).await).await["deliveries"][0]["status"] == "delivered"
        },
    )
    .await;
    assert_eq!(
        app.count(
            "orders o WHERE NOT EXISTS (SELECT 1 FROM events e \
             WHERE e.event_type = 'order.created' AND e.payload->'data'->'object'->>'id' = o.id)"
        )
        .await,
        0
    );
    assert_eq!(receiver.received().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_events_and_two_dispatchers_deliver_each_exactly_once() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    let mut tx = app.pool.begin().await.unwrap();
    for n in 0..1000 {
        publish(
            &mut tx,
            &app.merchant.id,
            EventType::PayoutPaid,
            &serde_json::json!({"n": n}),
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();

    let runs = (0..2).map(|_| {
        let dispatcher = app.dispatcher("10ms");
        let app = &app;
        async move { app.drain(&dispatcher).await }
    });
    join_all(runs).await;

    let got = receiver.received();
    let mut per_event: HashMap<String, usize> = HashMap::new();
    for request in &got {
        *per_event
            .entry(request.header("webhook-id").unwrap().to_owned())
            .or_default() += 1;
    }
    assert_eq!(per_event.len(), 1000);
    assert!(per_event.values().all(|&n| n == 1), "each event once");
    assert_eq!(got.len(), 1000);
    assert_eq!(app.count("webhook_attempts").await, 1000);
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'delivered'")
            .await,
        1000
    );
}

#[tokio::test]
async fn gone_disables_the_endpoint_and_stops_its_deliveries() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[410, 410]).await;
    let endpoint =
        create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    app.create_order("first", ORDER).await;
    app.create_order("second", ORDER).await;

    let dispatcher = app.dispatcher("10ms");
    dispatcher.run_once().await.unwrap();
    let sent = receiver.received().len();
    assert!((1..=2).contains(&sent));
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'disabled'")
            .await,
        2
    );
    app.create_order("third", ORDER).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(dispatcher.run_once().await.unwrap(), 0);
    assert_eq!(receiver.received().len(), sent, "nothing more is sent");
    assert_eq!(
        app.count("webhook_deliveries").await,
        2,
        "nothing more is queued"
    );

    let listed = json(app.get("/v1/webhook-endpoints").await).await;
    assert_eq!(listed["data"][0]["id"], endpoint["id"]);
    assert_eq!(listed["data"][0]["status"], "disabled");
}

#[tokio::test]
async fn endpoints_are_validated_listed_without_secret_private_and_deletable() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    for (body, param) in [
        (r#"{"url": "ftp://example.com/x"}"#, "url"),
        (r#"{"url": "not a url"}"#, "url"),
        (
            r#"{"url": "http://127.0.0.1/x", "events": ["order.shipped"]}"#,
            "events[0]",
        ),
        (r#"{"url": "http://127.0.0.1/x", "events": []}"#, "events"),
    ] {
        let response = app.post("/v1/webhook-endpoints", Some("bad"), body).await;
        assert_eq!(response.status(), 400, "{body}");
        assert_eq!(json(response).await["error"]["param"], param);
    }
    assert_eq!(app.count("idempotency_keys").await, 0);

    let body = r#"{"url": "http://127.0.0.1:9/x", "events": ["order.captured"]}"#;
    let created = app.post("/v1/webhook-endpoints", Some("ok"), body).await;
    let location = created.headers()["location"].to_str().unwrap().to_owned();
    let created = json(created).await;
    assert!(created["id"].as_str().unwrap().starts_with("whe_"));
    assert_eq!(created["events"], serde_json::json!(["order.captured"]));
    let replay = app.post("/v1/webhook-endpoints", Some("ok"), body).await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(app.count("webhook_endpoints").await, 1);

    let listed = json(app.get("/v1/webhook-endpoints").await).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert!(listed["data"][0].get("secret").is_none());
    assert!(json(app.get(&location).await).await.get("secret").is_none());

    let other = create_merchant(&app.pool, "Other").await;
    assert_eq!(app.get_as(&other, &location).await.status(), 404);
    let path = format!("{}{location}", app.base_url);
    let foreign = app
        .client
        .delete(&path)
        .bearer_auth(&other.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 404);
    assert_eq!(error_code(&json(foreign).await), "resource_missing");

    // Subscribed to captures only: a creation queues nothing, a capture one delivery.
    let order = app.create_order("order", ORDER).await;
    assert_eq!(app.count("webhook_deliveries").await, 0);
    let order_path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
    app.put(&order_path, r#"{"status": "captured"}"#).await;
    app.put(&order_path, r#"{"status": "captured"}"#).await;
    assert_eq!(
        app.count("events WHERE event_type = 'order.captured'")
            .await,
        1
    );
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'pending'")
            .await,
        1
    );

    let deleted = app
        .client
        .delete(&path)
        .bearer_auth(&app.merchant.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(json(deleted).await["deleted"], true);
    assert_eq!(
        app.count("webhook_deliveries WHERE status = 'disabled'")
            .await,
        1
    );
    assert_eq!(app.get(&location).await.status(), 404);
    assert!(json(app.get("/v1/webhook-endpoints").await).await["data"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn events_are_listed_private_and_redelivered_once_per_key() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    create_endpoint(&app, "endpoint", serde_json::json!({"url": receiver.url})).await;
    let order = app.create_order("order", ORDER).await;
    let order_path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
    app.put(&order_path, r#"{"status": "cancelled"}"#).await;

    let listed = json(app.get("/v1/events").await).await;
    let types: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["order.cancelled", "order.created"]);
    let first = listed["data"][1]["id"].as_str().unwrap();
    let paged = json(
        app.get(&format!(
            "/v1/events?limit=1&starting_after={}",
            listed["data"][0]["id"].as_str().unwrap()
        ))
        .await,
    )
    .await;
    assert_eq!(paged["data"][0]["id"], first);
    let path = format!("/v1/events/{first}");
    let other = create_merchant(&app.pool, "Other").await;
    assert_eq!(app.get_as(&other, &path).await.status(), 404);
    assert_eq!(app.get("/v1/events/not-a-uuid").await.status(), 404);
    let foreign = app
        .post_as(&other, &format!("{path}/redeliver"), Some("again"), "")
        .await;
    assert_eq!(foreign.status(), 404);

    app.drain(&app.dispatcher("10ms")).await;
    let redelivered = app
        .post(&format!("{path}/redeliver"), Some("again"), "")
        .await;
    assert_eq!(redelivered.status(), 200);
    let replay = app
        .post(&format!("{path}/redeliver"), Some("again"), "")
        .await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    let event = json(redelivered).await;
    assert_eq!(event["deliveries"].as_array().unwrap().len(), 2);
    app.drain(&app.dispatcher("10ms")).await;
    let got = receiver.received();
    assert_eq!(got.len(), 3, "two events, the first one twice");
    let again: Vec<_> = got
        .iter()
        .filter(|r| r.header("webhook-id").unwrap() == first)
        .collect();
    assert_eq!(again.len(), 2);
    assert_eq!(again[0].body, again[1].body, "the same body on redelivery");
}

/// API.md §2: a key that answered replays its answer, even when the request would now be
/// refused before execution (here: its event has since been purged, which makes a new
/// redelivery `404`).
#[tokio::test]
async fn a_replay_is_never_turned_into_a_refusal_by_a_check_that_now_fails() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let order = app.create_order("order", ORDER).await;
    let event: String =
        sqlx::query_scalar("SELECT id::text FROM events WHERE payload #>> '{data,object,id}' = $1")
            .bind(order["id"].as_str().unwrap())
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let path = format!("/v1/events/{event}/redeliver");
    let redelivered = app.post(&path, Some("again"), "").await;
    assert_eq!(redelivered.status(), 200);
    let first = redelivered.bytes().await.unwrap();

    for purge in ["DELETE FROM webhook_deliveries", "DELETE FROM events"] {
        sqlx::query(purge).execute(&app.pool).await.unwrap();
    }
    let replay = app.post(&path, Some("again"), "").await;
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(replay.bytes().await.unwrap(), first, "byte for byte");
    let fresh = app.post(&path, Some("another"), "").await;
    assert_eq!(fresh.status(), 404, "a new key is still checked");
}
