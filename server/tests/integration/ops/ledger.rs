//! The ledger (API.md §13, issue 30 item 1): every money movement the API makes (a capture, a
//! payout paid, a payout refused and given back, a reservation and its release) is a balanced
//! journal and keeps the balance equal to its entries; `kaadxpay ledger verify` says so, and
//! names each break that SQL behind the API's back makes: an entry added to a journal, a balance
//! changed. Entries are never changed or deleted, by the triggers and by the server's role.

use crate::common;

use std::time::Duration;

use serde_json::{json, Value};
use sqlx::{Connection, PgConnection};

use super::audit_chain::{as_server_role, roles_script};
use common::{
    assert_ledger_whole, eventually, fresh_database, json, ledger_verify, payout_body,
    spawn_app_with, TestApp, IBAN,
};

/// An IBAN the simulator refuses (docs/api.md, "Magic IBANs").
const REFUSED_IBAN: &str = "DE89370400440532013001";

async fn pay_out(app: &TestApp, key: &str, amount: i64, iban: &str) -> Value {
    let body = payout_body(amount, iban).to_string();
    let answer = app.post("/v1/payouts", Some(key), &body).await;
    assert_eq!(answer.status(), 201);
    json(answer).await
}

async fn status_becomes(app: &TestApp, payout: &Value, status: &str) {
    let path = format!("/v1/payouts/{}", payout["id"].as_str().unwrap());
    eventually(Duration::from_secs(10), status, || async {
        json(app.get(&path).await).await["status"] == status
    })
    .await;
}

/// The balance of the test merchant in EUR: (available, reserved).
async fn balance_eur(app: &TestApp) -> (Value, Value) {
    let balance = json(app.get("/v1/balance").await).await;
    assert_eq!(balance["object"], "balance");
    (
        balance["available"][0].clone(),
        balance["reserved"][0].clone(),
    )
}

#[tokio::test]
async fn every_movement_is_a_balanced_journal_and_verify_names_each_break() {
    let app = spawn_app_with(&["--payout-interval", "50ms"]).await;
    app.fund(1_000).await;
    let paid = pay_out(&app, "paid", 300, IBAN).await;
    let refused = pay_out(&app, "refused", 100, REFUSED_IBAN).await;
    sqlx::query(
        "INSERT INTO approval_thresholds (merchant_id, currency, amount) VALUES ($1, 'EUR', 200)",
    )
    .bind(&app.merchant.id)
    .execute(&app.pool)
    .await
    .unwrap();
    let cancelled = pay_out(&app, "cancelled", 250, IBAN).await;
    let waiting = pay_out(&app, "waiting", 200, IBAN).await;
    assert_eq!(waiting["status"], "pending_approval");
    let cancel = format!("/v1/payouts/{}/cancel", cancelled["id"].as_str().unwrap());
    assert_eq!(app.post(&cancel, Some("cancel"), "{}").await.status(), 200);
    status_becomes(&app, &paid, "paid").await;
    status_becomes(&app, &refused, "failed").await;

    // 1000 captured, 300 paid out, 100 refused and back, 250 reserved and released, 200 held.
    let (available, reserved) = balance_eur(&app).await;
    assert_eq!(available, json!({"currency": "EUR", "amount": 500}));
    assert_eq!(reserved, json!({"currency": "EUR", "amount": 200}));
    let journals: Vec<(String, i64)> = sqlx::query_as(
        "SELECT kind, sum(e.amount) FILTER (WHERE e.account = 'available')::int8 \
         FROM ledger_journals j JOIN ledger_entries e ON e.journal_id = j.id \
         GROUP BY j.id, kind ORDER BY j.id",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let kinds: Vec<&str> = journals.iter().map(|(kind, _)| kind.as_str()).collect();
    for kind in [
        "order_captured",
        "payout",
        "payout_returned",
        "reservation",
        "reservation_released",
    ] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    assert_ledger_whole(&app.db_url);
    statement_shows_each_change_once(&app, &paid).await;

    // Entries are never changed or deleted, not even by the tables' owner.
    for refused in [
        "UPDATE ledger_entries SET amount = amount + 1",
        "DELETE FROM ledger_journals",
        "TRUNCATE balance_transactions",
    ] {
        let err = sqlx::query(refused).execute(&app.pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{refused}: {err}");
    }

    // An entry added to the capture's journal, behind the API's back (so the harness's check
    // at the test's end is told to expect a broken ledger).
    app.db_url.ledger_broken_on_purpose();
    let capture: i64 = sqlx::query_scalar(
        "SELECT id FROM ledger_journals WHERE kind = 'order_captured' AND merchant_id = $1",
    )
    .bind(&app.merchant.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO ledger_entries (journal_id, merchant_id, currency, account, amount) \
         VALUES ($1, $2, 'EUR', 'customers', -7)",
    )
    .bind(capture)
    .bind(&app.merchant.id)
    .execute(&app.pool)
    .await
    .unwrap();
    let out = breaks(&app);
    let line = format!(
        "merchant {} currency EUR: journal {capture} does not balance: its entries sum to -7",
        app.merchant.id
    );
    assert_eq!(out.lines().collect::<Vec<_>>(), [line.as_str()], "{out}");

    // A balance changed without a journal.
    sqlx::query("UPDATE balances SET available = available + 5 WHERE merchant_id = $1")
        .bind(&app.merchant.id)
        .execute(&app.pool)
        .await
        .unwrap();
    let out = breaks(&app);
    assert!(
        out.contains(&format!(
            "merchant {} currency EUR: account available is 505 but its entries sum to 500",
            app.merchant.id
        )),
        "{out}"
    );
}

/// What `kaadxpay ledger verify` prints of a broken ledger (it must exit 1).
fn breaks(app: &TestApp) -> String {
    let (code, out) = ledger_verify(&app.db_url);
    assert_eq!(code, Some(1), "{out}");
    out
}

/// The statement of the movements above: one item per change of `available`, newest first,
/// each with the balance after it; a replayed payout adds none; filters narrow it.
async fn statement_shows_each_change_once(app: &TestApp, paid: &Value) {
    let statement = || async {
        let page = json(app.get("/v1/balance-transactions?limit=100").await).await;
        assert_eq!(page["has_more"], false);
        page["data"].as_array().unwrap().clone()
    };
    let items = statement().await;
    let mut running = 0;
    let mut changes: Vec<(String, i64)> = Vec::new();
    for item in items.iter().rev() {
        assert_eq!(item["object"], "balance_transaction");
        assert!(item["id"].as_str().unwrap().starts_with("btx_"), "{item}");
        running += item["amount"].as_i64().unwrap();
        assert_eq!(item["balance_after"], running, "{item}");
        changes.push((
            item["type"].as_str().unwrap().to_owned(),
            item["amount"].as_i64().unwrap(),
        ));
    }
    assert_eq!(running, 500);
    changes.sort();
    let expected = [
        ("order_captured", 1_000),
        ("payout", -300),
        ("payout", -100),
        ("payout_returned", 100),
        ("reservation", -250),
        ("reservation", -200),
        ("reservation_released", 250),
    ];
    let mut expected: Vec<(String, i64)> = expected
        .iter()
        .map(|(kind, amount)| (kind.to_string(), *amount))
        .collect();
    expected.sort();
    assert_eq!(changes, expected);
    let payout_item = items.iter().find(|item| item["amount"] == -300).unwrap();
    assert_eq!(
        payout_item["source"],
        json!({"type": "payout", "id": paid["id"]})
    );

    let replay = app
        .post(
            "/v1/payouts",
            Some("paid"),
            &payout_body(300, IBAN).to_string(),
        )
        .await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(
        statement().await.len(),
        items.len(),
        "a replay adds no item"
    );

    let reservations = json(app.get("/v1/balance-transactions?type=reservation").await).await;
    assert_eq!(reservations["data"].as_array().unwrap().len(), 2);
    let none_in_gbp = json(app.get("/v1/balance-transactions?currency=GBP").await).await;
    assert_eq!(none_in_gbp["data"], json!([]));
    for (query, param) in [
        ("type=capture", "type"),
        ("currency=eur", "currency"),
        ("created[gte]=yesterday", "created[gte]"),
    ] {
        let refused = app.get(&format!("/v1/balance-transactions?{query}")).await;
        assert_eq!(refused.status(), 400, "{query}");
        assert_eq!(json(refused).await["error"]["param"], param, "{query}");
    }
}

#[tokio::test]
async fn a_movement_is_posted_once_per_cause() {
    let app = spawn_app_with(&[]).await;
    app.fund(1_000).await;
    let (merchant, order): (String, String) = sqlx::query_as(
        "SELECT merchant_id, source_id FROM ledger_journals WHERE kind = 'order_captured'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let again = sqlx::query(
        "INSERT INTO ledger_journals (merchant_id, currency, kind, source_type, source_id) \
         VALUES ($1, 'EUR', 'order_captured', 'order', $2)",
    )
    .bind(&merchant)
    .bind(&order)
    .execute(&app.pool)
    .await
    .unwrap_err();
    assert!(
        again.to_string().contains("ledger_journals_once_per_cause"),
        "{again}"
    );
}

#[tokio::test]
async fn the_servers_role_appends_and_reads_the_ledger_but_never_changes_it() {
    let db_url = fresh_database().await;
    let mut owner = PgConnection::connect(&db_url).await.unwrap();
    sqlx::raw_sql(&roles_script())
        .execute(&mut owner)
        .await
        .unwrap();
    sqlx::query("ALTER ROLE kaadxpay_app PASSWORD 'server-role-password'")
        .execute(&mut owner)
        .await
        .unwrap();
    let mut server = PgConnection::connect_with(&as_server_role(&db_url))
        .await
        .unwrap();
    for table in ["ledger_journals", "ledger_entries", "balance_transactions"] {
        let read: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
            .fetch_one(&mut server)
            .await
            .unwrap();
        assert_eq!(read, 0, "{table} is read");
        for refused in [
            format!("UPDATE {table} SET merchant_id = merchant_id"),
            format!("DELETE FROM {table}"),
            format!("TRUNCATE {table}"),
        ] {
            let err = sqlx::query(&refused)
                .execute(&mut server)
                .await
                .unwrap_err();
            assert!(
                err.to_string().contains("permission denied"),
                "{refused}: {err}"
            );
        }
    }
}
