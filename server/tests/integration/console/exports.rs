//! The console's CSV exports (API.md §9, §12), downloaded as a signed-in browser would and read
//! back with Python's `csv` module: each row is what the JSON API shows (amounts also as a
//! decimal, IBANs masked, formula-like text quoted), only the signed-in merchant's rows, the
//! page's filters applied, nothing without a session, and 100 000 rows stream out of a real
//! `kaadxpay` process whose peak memory stays bounded.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::{
    create_merchant, database_with_merchant, eventually, json as body_json, post_order, signed_in,
    signed_in_at, spawn_app_with, ServerProcess, TestApp,
};

const IBAN: &str = "DE89370400440532013000";

/// The rows of a CSV file, each a JSON object by header, as Python's `csv.DictReader` reads it,
/// after checking that the file starts with UTF-8's byte-order mark (which spreadsheet programs
/// need to read it as UTF-8).
fn python_rows(file: &[u8]) -> Vec<Value> {
    let csv = file
        .strip_prefix(b"\xEF\xBB\xBF")
        .expect("the file starts with a byte-order mark");
    let mut python = Command::new("python3")
        .args([
            "-c",
            "import csv,io,sys,json; \
             text = io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline=''); \
             print(json.dumps(list(csv.DictReader(text))))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    python.stdin.take().unwrap().write_all(csv).unwrap();
    let output = python.wait_with_output().unwrap();
    assert!(output.status.success(), "Python's csv module reads it");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// `GET path` with the session `cookie`, not following redirects.
async fn download(base_url: &str, cookie: &str, path: &str) -> reqwest::Response {
    common::browser_client()
        .get(format!("{base_url}{path}"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
}

/// A CSV export's rows, after checking that it is one.
async fn export(app: &TestApp, cookie: &str, path: &str) -> Vec<Value> {
    let response = download(&app.base_url, cookie, path).await;
    assert_eq!(response.status(), 200, "{path}");
    let headers = response.headers();
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"") && disposition.ends_with(".csv\""),
        "{disposition}"
    );
    let bytes = response.bytes().await.unwrap();
    assert!(bytes.ends_with(b"\r\n"), "records end in CRLF");
    python_rows(&bytes)
}

/// The API's list (everything: at most 100 here).
async fn api_list(app: &TestApp, path: &str) -> Vec<Value> {
    let list = body_json(app.get(&format!("{path}?limit=100")).await).await;
    list["data"].as_array().unwrap().clone()
}

/// The app with a console user of its merchant, signed in. Its payout worker waits an hour,
/// so that payouts hold still between the API's answer and the export compared with it.
async fn app_with_session(email: &str) -> (TestApp, String) {
    let app = spawn_app_with(&["--payout-interval", "1h"]).await;
    common::create_user(
        &app.pool,
        email,
        Some((app.merchant.id.as_str(), app::console::Role::Owner)),
    )
    .await;
    let cookie = signed_in(&app, email).await;
    (app, cookie)
}

/// A JSON field as its CSV cell: null is empty, numbers as written.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

async fn post(app: &TestApp, path: &str, key: &str, body: Value) -> Value {
    let response = app.post(path, Some(key), &body.to_string()).await;
    assert!(response.status().is_success(), "{path} {body}");
    body_json(response).await
}

#[tokio::test]
async fn payouts_and_orders_export_as_the_api_shows_them() {
    let (app, cookie) = app_with_session("ada@example.com").await;
    for (key, body) in [
        (
            "o1",
            json!({"amount": 1250, "currency": "EUR", "description": "Tea, \"green\"\nand cake"}),
        ),
        (
            "o2",
            json!({"amount": 1200, "currency": "JPY", "description": "抹茶 🍵"}),
        ),
        (
            "o3",
            json!({"amount": 5, "currency": "USD", "description": "=HYPERLINK(\"http://evil\")"}),
        ),
        ("o4", json!({"amount": 99, "currency": "GBP"})),
    ] {
        post(&app, "/v1/orders", key, body).await;
    }
    app.fund(100_000).await;
    for (key, holder) in [("p1", "Zoë \"Ltd\", Berlin"), ("p2", "@Ada")] {
        let body = json!({"amount": 2001, "currency": "EUR",
            "destination": {"account_holder": holder, "iban": IBAN}});
        post(&app, "/v1/payouts", key, body).await;
    }

    let orders = api_list(&app, "/v1/orders").await;
    let rows = export(&app, &cookie, "/exports/orders.csv").await;
    assert_eq!(rows.len(), orders.len());
    assert_eq!(rows.len(), 5, "four orders and the funding one");
    for (row, order) in rows.iter().zip(&orders) {
        for field in [
            "id",
            "status",
            "amount",
            "currency",
            "created_at",
            "updated_at",
        ] {
            assert_eq!(row[field].as_str().unwrap(), cell(&order[field]), "{field}");
        }
        let description = cell(&order["description"]);
        let shown = if description.starts_with('=') {
            format!("'{description}")
        } else {
            description
        };
        assert_eq!(row["description"].as_str().unwrap(), shown);
    }
    let decimal = |amount: &str| {
        rows.iter()
            .find(|row| row["amount"] == amount)
            .map(|row| row["amount_decimal"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(decimal("1250"), "12.50");
    assert_eq!(decimal("1200"), "1200", "JPY has no minor unit");
    assert_eq!(decimal("5"), "0.05");
    assert_eq!(decimal("99"), "0.99");
    assert!(rows
        .iter()
        .any(|row| row["description"] == "Tea, \"green\"\nand cake"));
    assert!(rows.iter().any(|row| row["description"] == "抹茶 🍵"));
    assert!(rows
        .iter()
        .any(|row| row["description"] == "'=HYPERLINK(\"http://evil\")"));

    let payouts = api_list(&app, "/v1/payouts").await;
    let rows = export(&app, &cookie, "/exports/payouts.csv").await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows.len(), payouts.len());
    for (row, payout) in rows.iter().zip(&payouts) {
        for field in [
            "id",
            "idempotency_key",
            "status",
            "amount",
            "currency",
            "partner_transfer_id",
            "failure_code",
            "created_at",
            "updated_at",
        ] {
            assert_eq!(
                row[field].as_str().unwrap(),
                cell(&payout[field]),
                "{field}"
            );
        }
        assert_eq!(row["amount_decimal"], "20.01");
        assert_eq!(row["iban"], "****3000", "the IBAN is masked but its last 4");
        let holder = payout["destination"]["account_holder"].as_str().unwrap();
        let shown = if holder.starts_with('@') {
            format!("'{holder}")
        } else {
            holder.to_owned()
        };
        assert_eq!(row["account_holder"].as_str().unwrap(), shown);
    }
    assert!(rows.iter().any(|row| row["account_holder"] == "'@Ada"));
}

#[tokio::test]
async fn the_balance_page_shows_the_statement_and_exports_it_as_the_api_shows_it() {
    let (app, cookie) = app_with_session("ledger@example.com").await;
    app.fund(100_000).await;
    let body = json!({"amount": 2001, "currency": "EUR",
        "destination": {"account_holder": "Ada", "iban": IBAN}});
    post(&app, "/v1/payouts", "p1", body).await;

    let page = download(&app.base_url, &cookie, "/balance").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    for shown in [
        "Available",
        "Reserved",
        "Statement",
        "order_captured",
        "979.99",
    ] {
        assert!(html.contains(shown), "{shown} in the page");
    }

    let items = api_list(&app, "/v1/balance-transactions").await;
    let rows = export(&app, &cookie, "/exports/balance.csv").await;
    assert_eq!(rows.len(), 2, "the capture and the payout");
    assert_eq!(rows.len(), items.len());
    for (row, item) in rows.iter().zip(&items) {
        for field in [
            "id",
            "type",
            "amount",
            "currency",
            "balance_after",
            "created_at",
        ] {
            assert_eq!(row[field].as_str().unwrap(), cell(&item[field]), "{field}");
        }
        assert_eq!(
            row["source_type"].as_str().unwrap(),
            cell(&item["source"]["type"])
        );
        assert_eq!(
            row["source_id"].as_str().unwrap(),
            cell(&item["source"]["id"])
        );
    }
    assert_eq!(rows[0]["amount_decimal"], "-20.01");
    assert_eq!(rows[0]["balance_after_decimal"], "979.99");
    let payouts = export(&app, &cookie, "/exports/balance.csv?status=payout").await;
    assert_eq!(payouts.len(), 1);
    let refused = download(
        &app.base_url,
        &cookie,
        "/exports/balance.csv?status=capture",
    )
    .await;
    assert_eq!(refused.status(), 400);
}

#[tokio::test]
async fn the_request_log_exports_as_get_v1_requests_shows_it() {
    let (app, cookie) = app_with_session("grace@example.com").await;
    app.fund(10_000).await;
    let body = json!({"amount": 300, "currency": "EUR",
        "destination": {"account_holder": "Grace", "iban": IBAN}});
    post(&app, "/v1/payouts", "log-1", body).await;
    let logged = || async { api_list(&app, "/v1/requests").await.len() >= 3 };
    eventually(Duration::from_secs(10), "the requests are logged", logged).await;
    let requests = api_list(&app, "/v1/requests").await;
    let rows = export(&app, &cookie, "/exports/requests.csv").await;
    // The API's own listing calls may be logged between the two reads: compare the common rows.
    let exported: Vec<&Value> = rows
        .iter()
        .filter(|row| requests.iter().any(|request| request["id"] == row["id"]))
        .collect();
    assert_eq!(exported.len(), requests.len());
    for (row, request) in exported.iter().zip(&requests) {
        let columns = row.as_object().unwrap();
        assert_eq!(columns.len(), 16, "every field of an entry but `object`");
        for (field, value) in columns.iter().filter(|(field, _)| *field != "latency_ms") {
            assert_eq!(value.as_str().unwrap(), cell(&request[field]), "{field}");
        }
        let latency: f64 = row["latency_ms"].as_str().unwrap().parse().unwrap();
        assert_eq!(latency, request["latency_ms"].as_f64().unwrap());
    }
    let payout_request = exported
        .iter()
        .find(|row| row["route"] == "POST /v1/payouts")
        .expect("the payout's request is exported");
    let body = payout_request["request_body"].as_str().unwrap();
    assert!(body.contains("****3000") && !body.contains(IBAN), "{body}");

    let created = export(&app, &cookie, "/exports/requests.csv?status=201").await;
    assert!(!created.is_empty());
    assert!(created.iter().all(|row| row["status"] == "201"));
    let refused = download(&app.base_url, &cookie, "/exports/requests.csv?status=abc").await;
    assert_eq!(refused.status(), 400);
}

#[tokio::test]
async fn another_merchants_rows_never_appear() {
    let (app, cookie) = app_with_session("alan@example.com").await;
    post(
        &app,
        "/v1/orders",
        "mine",
        json!({"amount": 100, "currency": "EUR"}),
    )
    .await;
    let other = create_merchant(&app.pool, "Other Ltd").await;
    let theirs = app
        .post_as(
            &other,
            "/v1/orders",
            Some("theirs"),
            r#"{"amount": 777, "currency": "EUR"}"#,
        )
        .await;
    let theirs = body_json(theirs).await["id"].as_str().unwrap().to_owned();
    for path in [
        "/exports/orders.csv".to_owned(),
        format!("/exports/orders.csv?merchant_id={}", other.id),
    ] {
        let rows = export(&app, &cookie, &path).await;
        assert_eq!(rows.len(), 1, "{path}");
        assert!(
            rows.iter().all(|row| row["id"] != theirs.as_str()),
            "{path}"
        );
    }

    // A run's items: a merchant sees its own, support staff see every merchant's.
    sqlx::query("INSERT INTO reconciliation_runs (id, run_date, applied) VALUES ('rec_export', current_date, false)")
        .execute(&app.pool)
        .await
        .unwrap();
    for (position, merchant, payout) in [
        (0, &app.merchant.id, "po_mine"),
        (1, &other.id, "po_theirs"),
    ] {
        sqlx::query(
            "INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, transfer_of, transfer_id, amount, currency, action) \
             VALUES ('rec_export', $1, $2, 'duplicate', $3, 'tr_' || $3, 1999, 'EUR', 'reversed')",
        )
        .bind(position)
        .bind(merchant)
        .bind(payout)
        .execute(&app.pool)
        .await
        .unwrap();
    }
    let mine = export(&app, &cookie, "/exports/reconciliation/rec_export.csv").await;
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0]["payout_id"], "po_mine");
    assert_eq!(mine[0]["merchant_id"], app.merchant.id.as_str());
    assert_eq!(mine[0]["amount"], "1999");
    assert_eq!(mine[0]["amount_decimal"], "19.99");
    assert_eq!(mine[0]["action"], "reversed");

    server::accounts::users::create(&app.pool, "support@example.com", "right-password", None)
        .await
        .unwrap();
    let support = signed_in(&app, "support@example.com").await;
    let all = export(&app, &support, "/exports/reconciliation/rec_export.csv").await;
    let payouts: Vec<&str> = all
        .iter()
        .map(|row| row["payout_id"].as_str().unwrap())
        .collect();
    assert_eq!(payouts, ["po_mine", "po_theirs"]);
    for path in [
        "/exports/payouts.csv",
        "/exports/orders.csv",
        "/exports/requests.csv",
    ] {
        let answer = download(&app.base_url, &support, path).await;
        assert_eq!(
            answer.status(),
            403,
            "support staff export no merchant list: {path}"
        );
    }
    for path in [
        "/exports/reconciliation/rec_nope.csv",
        "/exports/reconciliation/rec_export",
    ] {
        let answer = download(&app.base_url, &cookie, path).await;
        assert_eq!(answer.status(), 404, "{path}");
    }
}

#[tokio::test]
async fn the_pages_filters_apply() {
    let (app, cookie) = app_with_session("barbara@example.com").await;
    let mut ids = Vec::new();
    for n in 0..4 {
        let order = post(
            &app,
            "/v1/orders",
            &format!("f{n}"),
            json!({"amount": 100 + n, "currency": "EUR"}),
        )
        .await;
        ids.push(order["id"].as_str().unwrap().to_owned());
    }
    let captured = app
        .put(
            &format!("/v1/orders/{}", ids[0]),
            r#"{"status": "captured"}"#,
        )
        .await;
    assert_eq!(captured.status(), 200);
    for (id, at) in ids.iter().zip([
        "2026-01-09 23:59:59.999+00",
        "2026-01-10 00:00:00+00",
        "2026-01-11 23:59:59.999+00",
        "2026-01-12 00:00:00+00",
    ]) {
        sqlx::query("UPDATE orders SET created_at = $2::timestamptz WHERE id = $1")
            .bind(id)
            .bind(at)
            .execute(&app.pool)
            .await
            .unwrap();
    }
    let exported = |path: &'static str| {
        let (app, cookie) = (&app, &cookie);
        async move {
            export(app, cookie, path)
                .await
                .iter()
                .map(|row| row["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        exported("/exports/orders.csv?from=2026-01-10&to=2026-01-11").await,
        [ids[2].clone(), ids[1].clone()],
        "both days whole, newest first"
    );
    assert_eq!(
        exported("/exports/orders.csv?status=captured").await,
        [ids[0].clone()]
    );
    assert_eq!(
        exported("/exports/orders.csv?status=pending&from=2026-01-11").await,
        [ids[3].clone(), ids[2].clone()]
    );
    let named = download(
        &app.base_url,
        &cookie,
        "/exports/orders.csv?status=pending&from=2026-01-11",
    )
    .await;
    let disposition = named.headers()["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"orders-status-pending-from-2026-01-11-"),
        "the file is named by its filters: {disposition}"
    );
    let odd = download(
        &app.base_url,
        &cookie,
        "/exports/orders.csv?status=%22%3B%20x",
    )
    .await;
    let disposition = odd.headers()["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"orders-status-___x-"),
        "{disposition}"
    );
    assert_eq!(
        exported("/exports/orders.csv?status=&from=&to=")
            .await
            .len(),
        4
    );
    assert!(exported("/exports/payouts.csv?status=paid")
        .await
        .is_empty());
    for bad in ["from=10.01.2026", "to=2026-02-30", "status=a%00b"] {
        let path = format!("/exports/orders.csv?{bad}");
        let answer = download(&app.base_url, &cookie, &path).await;
        assert_eq!(answer.status(), 400, "{bad}");
    }
}

#[tokio::test]
async fn without_a_session_there_is_no_data() {
    let (app, _cookie) = app_with_session("ken@example.com").await;
    post(
        &app,
        "/v1/orders",
        "secret",
        json!({"amount": 4242, "currency": "EUR"}),
    )
    .await;
    for path in [
        "/exports/orders.csv",
        "/exports/payouts.csv",
        "/exports/requests.csv",
        "/exports/reconciliation/rec_any.csv",
    ] {
        for cookie in ["", "kaadxpay_session=forged"] {
            let response = download(&app.base_url, cookie, path).await;
            assert_eq!(response.status(), 303, "{path}");
            assert_eq!(response.headers()["location"], "/login");
            let body = response.text().await.unwrap();
            assert!(!body.contains("4242"), "{path}: {body}");
        }
    }
}

/// The process's peak resident memory so far (`VmHWM`), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/<pid>/status")
}

const ROWS: i64 = 100_000;

/// [`ROWS`] paid payouts of `merchant_id`, a minute apart from 2026-09-01, with long fields.
async fn bulk_payouts(pool: &sqlx::PgPool, merchant_id: &str) {
    sqlx::query(
        "INSERT INTO payouts (id, merchant_id, amount, currency, status, destination, description, \
           idempotency_key, partner_key, created_at, updated_at) \
         SELECT 'po_bulk_' || lpad(n::text, 6, '0'), $1, n, 'EUR', 'paid', \
           jsonb_build_object('account_holder', 'Holder number ' || n || repeat(' of a long name', 6), \
                              'iban', 'DE89370400440532013000'), \
           repeat('a description to hold in memory ', 10), 'bulk-' || n, \
           'kxp-po_bulk_' || n, timestamptz '2026-09-01' + n * interval '1 minute', now() \
         FROM generate_series(1, $2) AS n",
    )
    .bind(merchant_id)
    .bind(ROWS)
    .execute(pool)
    .await
    .unwrap();
}

/// An owner of `merchant_id` who signs in as `email` with `right-password`.
async fn owner(pool: &sqlx::PgPool, merchant_id: &str, email: &str) {
    server::accounts::users::create(
        pool,
        email,
        "right-password",
        Some((merchant_id, app::console::Role::Owner)),
    )
    .await
    .unwrap();
}
/// How much a 100 000-row export may raise the server's peak memory. Holding the rows (about
/// 600 bytes each as `Payout`s) or the whole file (about 29 MB) would take far more.
const GROWTH_LIMIT_KIB: u64 = 24 * 1024;

#[tokio::test]
async fn a_hundred_thousand_payouts_stream_out_in_bounded_memory() {
    let (db_url, pool, merchant) = database_with_merchant("Bulk GmbH").await;
    owner(&pool, &merchant.id, "bulk@example.com").await;
    bulk_payouts(&pool, &merchant.id).await;
    let server = ServerProcess::start(&db_url, &[]).await;
    let cookie = signed_in_at(&server.base_url, "bulk@example.com").await;
    // Warm up every path of an export (a small one) before the baseline.
    let small = download(
        &server.base_url,
        &cookie,
        "/exports/payouts.csv?from=2026-09-02&to=2026-09-02",
    )
    .await;
    assert_eq!(small.status(), 200);
    assert_eq!(
        python_rows(&small.bytes().await.unwrap()).len(),
        1440,
        "one day"
    );
    let baseline = peak_rss_kib(server.pid());

    let started = Instant::now();
    let response = download(&server.base_url, &cookie, "/exports/payouts.csv").await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers().get("content-length").is_none(),
        "the body is streamed, not sized in advance"
    );
    let mut body = Vec::new();
    let mut chunks = 0;
    let mut response = response;
    while let Some(chunk) = response.chunk().await.unwrap() {
        body.extend_from_slice(&chunk);
        chunks += 1;
    }
    let took = started.elapsed();
    let peak = peak_rss_kib(server.pid());
    let rows = python_rows(&body);
    eprintln!(
        "exported {} rows ({} bytes, {chunks} chunks) in {took:?}; server peak RSS {baseline} KiB before, {peak} KiB after (+{} KiB)",
        rows.len(),
        body.len(),
        peak.saturating_sub(baseline)
    );
    assert_eq!(rows.len() as i64, ROWS, "every row arrives");
    assert_eq!(rows[0]["id"], format!("po_bulk_{ROWS}"), "newest first");
    assert_eq!(rows[rows.len() - 1]["id"], "po_bulk_000001");
    assert_eq!(rows[0]["iban"], "****3000");
    assert!(
        peak.saturating_sub(baseline) < GROWTH_LIMIT_KIB,
        "the export raised the server's peak memory by {} KiB (limit {GROWTH_LIMIT_KIB} KiB)",
        peak.saturating_sub(baseline)
    );
}

/// Exports stream on connections of their own (API.md §12: they never block the database for
/// other work): with a pool of two, three exports left unread, each stopped on a full socket
/// while it holds its connection, leave the API its connections.
#[tokio::test]
async fn exports_never_take_the_connections_requests_need() {
    let (db_url, pool, merchant) = database_with_merchant("Busy GmbH").await;
    owner(&pool, &merchant.id, "busy@example.com").await;
    bulk_payouts(&pool, &merchant.id).await;
    let server = ServerProcess::start(&db_url, &[("KAADXPAY_DB_POOL_SIZE", "2")]).await;
    let cookie = signed_in_at(&server.base_url, "busy@example.com").await;
    let mut unread = Vec::new();
    for _ in 0..3 {
        let export = download(&server.base_url, &cookie, "/exports/payouts.csv").await;
        assert_eq!(export.status(), 200);
        unread.push(export);
    }
    // Each export writes until its connection's buffers are full, and then waits, holding its
    // connection to PostgreSQL.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for n in 0..3 {
        let answer = post_order(&server.base_url, &merchant, &format!("during-exports-{n}")).await;
        assert_eq!(answer.status(), 201, "{}", answer.text().await.unwrap());
    }
    drop(unread);
}

#[tokio::test]
async fn the_list_pages_link_their_export_with_their_filters() {
    let (app, cookie) = app_with_session("radia@example.com").await;
    sqlx::query("INSERT INTO reconciliation_runs (id, run_date, applied) VALUES ('rec_linked', current_date, false)")
        .execute(&app.pool)
        .await
        .unwrap();
    for (page, link) in [
        ("/payouts", "href=\"/exports/payouts.csv\""),
        (
            "/payouts?status=paid&from=2026-01-01&to=2026-01-31",
            "href=\"/exports/payouts.csv?status=paid&amp;from=2026%2D01%2D01&amp;to=2026%2D01%2D31\"",
        ),
        ("/orders?status=captured", "href=\"/exports/orders.csv?status=captured\""),
        ("/reconciliation/rec_linked", "href=\"/exports/reconciliation/rec_linked.csv\""),
    ] {
        let html = download(&app.base_url, &cookie, page)
            .await
            .text()
            .await
            .unwrap();
        assert!(html.contains("Export CSV") && html.contains(link), "{page}: {html}");
    }
}
