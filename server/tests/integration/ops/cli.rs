//! One-shot commands answer on stdout and log on stderr, so that `kaadxpay merchants create
//! --json | jq` works; and PostgreSQL's notices (a migration's "already exists, skipping") stay
//! out of the logs. A person can mark an unfinished reversal resolved, and the runs that showed
//! it follow. `users create` makes members with their roles (API.md §10, §11).

use crate::common;

use std::process::{Command, Output};

use common::{count, database_with_merchant, fresh_database};

fn kaadxpay(db_url: &str, args: &[&str], log_filter: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaadxpay"));
    command.args(args).env("DATABASE_URL", db_url);
    match log_filter {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    let output = command.output().expect("kaadxpay runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[tokio::test]
async fn merchants_create_json_prints_exactly_one_json_object_on_stdout() {
    let db_url = fresh_database().await;
    // Everything logged, to be sure the logs are somewhere else.
    let output = kaadxpay(
        &db_url,
        &["merchants", "create", "--name", "Piped", "--json"],
        Some("trace"),
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let answer: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|err| panic!("stdout is not one JSON object ({err}): {stdout}"));
    assert!(answer["merchant_id"].as_str().unwrap().starts_with("mer_"));
    let api_key = answer["api_key"].as_str().unwrap();
    assert!(api_key.starts_with("sk_test_"));
    assert_eq!(answer.as_object().unwrap().len(), 2, "{answer}");
    assert!(!output.stderr.is_empty(), "the logs went to stderr");

    // Its key is the merchant's one read-write key, stored hashed with its visible prefix.
    let pool = sqlx::PgPool::connect(&db_url).await.unwrap();
    let keys: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT merchant_id, prefix, access FROM api_keys WHERE key_hash = sha256($1)",
    )
    .bind(api_key.as_bytes())
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        keys,
        [(
            answer["merchant_id"].as_str().unwrap().to_owned(),
            api_key[..12].to_owned(),
            "read_write".to_owned()
        )]
    );
}

#[tokio::test]
async fn users_create_makes_a_member_with_its_role_an_owner_by_default_or_support_staff() {
    let (db_url, pool, merchant) = database_with_merchant("Team").await;
    for (email, extra) in [
        ("first@team.test", &[][..]),
        ("books@team.test", &["--role", "finance"][..]),
    ] {
        let mut args = vec![
            "users",
            "create",
            "--email",
            email,
            "--password",
            "a good password",
        ];
        args.extend(["--merchant", merchant.id.as_str()]);
        args.extend_from_slice(extra);
        kaadxpay(&db_url, &args, None);
    }
    kaadxpay(
        &db_url,
        &[
            "users",
            "create",
            "--email",
            "help@team.test",
            "--password",
            "a good password",
            "--support",
        ],
        None,
    );
    let users: Vec<(String, String, Option<String>)> =
        sqlx::query_as("SELECT email, role, merchant_id FROM users ORDER BY email")
            .fetch_all(&pool)
            .await
            .unwrap();
    let merchant_id = Some(merchant.id.to_string());
    assert_eq!(
        users,
        [
            (
                "books@team.test".to_owned(),
                "finance".to_owned(),
                merchant_id.clone()
            ),
            (
                "first@team.test".to_owned(),
                "owner".to_owned(),
                merchant_id
            ),
            ("help@team.test".to_owned(), "support".to_owned(), None),
        ]
    );
    // An unknown role is refused by name, and makes no one.
    let refused = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args([
            "users",
            "create",
            "--email",
            "x@team.test",
            "--password",
            "a good password",
        ])
        .args(["--merchant", &merchant.id, "--role", "boss"])
        .env("DATABASE_URL", &db_url)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("boss is not a role"));
    assert_eq!(count(&pool, "users WHERE email = 'x@team.test'").await, 0);
}

#[tokio::test]
async fn migrating_an_up_to_date_database_logs_no_notices() {
    let db_url = fresh_database().await;
    let output = kaadxpay(&db_url, &["migrate"], None);
    let all = [output.stdout, output.stderr].concat();
    let all = String::from_utf8_lossy(&all);
    assert!(!all.contains("already exists"), "{all}");
    assert_eq!(all.trim(), "migrations applied");
}

#[tokio::test]
async fn reversals_resolve_marks_an_unfinished_reversal_and_its_run_follows() {
    let (db_url, pool, merchant) = database_with_merchant("Resolved").await;
    sqlx::query(
        "INSERT INTO payouts (id, merchant_id, amount, currency, status, destination, \
           idempotency_key, partner_key, partner_transfer_id) \
         VALUES ('po_x', $1, 500, 'EUR', 'paid', '{}', 'key', 'kxp-po_x-key', 'tr_own')",
    )
    .bind(&merchant.id)
    .execute(&pool)
    .await
    .unwrap();
    for statement in [
        "INSERT INTO reconciliation_runs (id, run_date, applied, status) \
         VALUES ('rec_x', '2026-11-27', true, 'partial')",
        "INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, transfer_of, \
           transfer_id, amount, currency, action, detail) \
         VALUES ('rec_x', 0, $1, 'duplicate', 'po_x', 'tr_dup', 500, 'EUR', 'refused', 'not_reversible')",
        "INSERT INTO partner_reversals (transfer_id, merchant_id, transfer_of, run_id, state, next_attempt_at) \
         VALUES ('tr_dup', $1, 'po_x', 'rec_x', 'refused', now())",
    ] {
        sqlx::query(statement)
            .bind(&merchant.id)
            .execute(&pool)
            .await
            .unwrap();
    }

    let output = kaadxpay(
        &db_url,
        &["reversals", "resolve", "--transfer", "tr_dup"],
        None,
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("marked resolved"));
    assert_eq!(
        count(&pool, "partner_reversals WHERE state = 'resolved'").await,
        1
    );
    assert_eq!(
        count(&pool, "reconciliation_items WHERE action = 'resolved'").await,
        1
    );
    assert_eq!(
        count(&pool, "reconciliation_runs WHERE status = 'completed'").await,
        1
    );
    let again = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(["reversals", "resolve", "--transfer", "tr_dup"])
        .env("DATABASE_URL", &db_url)
        .output()
        .unwrap();
    assert!(!again.status.success(), "nothing left to resolve");
}
