//! The audit log is tamper-evident (API.md §11, issue 27 item 6): `kaadxpay audit verify` finds
//! the entry a superuser changed or deleted behind the triggers' back, accepts a chain whose
//! start the purge moved, and the role deploy/roles.sql makes for `serve` can append and read
//! entries but never change, delete or truncate them, not even with
//! `session_replication_role = replica`.

use crate::common;

use std::process::{Command, Output};
use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, Executor, PgConnection, PgPool};

use common::{create_merchant, fresh_database};

fn kaadxpay(db_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(args)
        .env("DATABASE_URL", db_url)
        .env_remove("RUST_LOG")
        .output()
        .expect("kaadxpay runs")
}

/// `audit verify`'s exit code and stdout.
fn verify(db_url: &str, merchant: Option<&str>) -> (Option<i32>, String) {
    let mut args = vec!["audit", "verify"];
    args.extend(
        merchant
            .iter()
            .flat_map(|merchant| ["--merchant", *merchant]),
    );
    let output = kaadxpay(db_url, &args);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr),
    )
}

/// Appends an entry `age_days` old to `merchant`'s chain; its id.
async fn append(pool: &PgPool, merchant: &str, id: &str, age_days: i32) {
    sqlx::query(
        "INSERT INTO audit_log (id, merchant_id, created_at, actor_kind, actor, action, \
           object_type, object_id, client_address, after) \
         VALUES ($1, $2, now() - make_interval(days => $3), 'user', 'a@chain.test', \
           'member.role_changed', 'user', 'usr_1', '192.0.2.7', '{\"role\": \"admin\", \"é\": 1}')",
    )
    .bind(id)
    .bind(merchant)
    .bind(age_days)
    .execute(pool)
    .await
    .unwrap();
}

/// Runs `sql` as a superuser with the triggers off, as an intruder with the owner's rights would.
async fn behind_the_triggers(pool: &PgPool, sql: &str) {
    let mut conn = pool.acquire().await.unwrap();
    conn.execute("SET session_replication_role = replica")
        .await
        .unwrap();
    conn.execute(sql).await.unwrap();
    conn.execute("SET session_replication_role = DEFAULT")
        .await
        .unwrap();
}

#[tokio::test]
async fn audit_verify_names_the_entry_changed_removed_or_inserted_and_accepts_a_purged_start() {
    let db_url = fresh_database().await;
    let pool = PgPool::connect(&db_url).await.unwrap();
    let changed = create_merchant(&pool, "Changed").await;
    let removed = create_merchant(&pool, "Removed").await;
    let purged = create_merchant(&pool, "Purged").await;
    for (merchant, prefix) in [(&changed, "c"), (&removed, "r"), (&purged, "p")] {
        for (n, age) in [800, 500, 30, 0].into_iter().enumerate() {
            append(&pool, &merchant.id, &format!("aud_{prefix}{n}"), age).await;
        }
    }
    let (code, out) = verify(&db_url, None);
    assert_eq!(code, Some(0), "a whole log verifies: {out}");

    // The purge deletes the first two of each chain (past 365 days): still whole.
    let retention = server::service::components::retention(&common::settings(&[]));
    assert_eq!(retention.purge(&pool).await.unwrap().audit, 6);
    let (code, out) = verify(&db_url, None);
    assert_eq!(code, Some(0), "a chain from a purged start verifies: {out}");

    behind_the_triggers(
        &pool,
        "UPDATE audit_log SET after = '{\"role\": \"owner\"}' WHERE id = 'aud_c2'",
    )
    .await;
    behind_the_triggers(&pool, "DELETE FROM audit_log WHERE id = 'aud_r2'").await;
    let (code, out) = verify(&db_url, Some(&changed.id));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("{}: entry 3 (aud_c2) was changed", changed.id)),
        "{out}"
    );
    let (code, out) = verify(&db_url, Some(&removed.id));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("{}: entry 3 was removed", removed.id)),
        "{out}"
    );
    assert!(
        out.contains("aud_r3"),
        "names the entry after the gap: {out}"
    );
    let (code, out) = verify(&db_url, Some(&purged.id));
    assert_eq!(code, Some(0), "{out}");

    // An entry slipped in with a made-up place and hash, and the last entry deleted.
    behind_the_triggers(
        &pool,
        &format!(
            "INSERT INTO audit_log (id, merchant_id, actor_kind, actor, action, object_type, \
               object_id, seq, hash) \
             VALUES ('aud_forged', '{}', 'user', 'x', 'payout.approved', 'payout', 'po_1', 5, \
               sha256('forged'))",
            purged.id
        ),
    )
    .await;
    let (code, out) = verify(&db_url, Some(&purged.id));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("entry 5 (aud_forged) was changed or inserted"),
        "{out}"
    );
    behind_the_triggers(
        &pool,
        "DELETE FROM audit_log WHERE id IN ('aud_forged', 'aud_p3')",
    )
    .await;
    let (code, out) = verify(&db_url, Some(&purged.id));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("entries 4 to 4 were removed"), "{out}");
    let (code, out) = verify(&db_url, None);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("2 of 3 audit chains are broken") || out.contains("3 of 3"),
        "{out}"
    );
}

/// deploy/roles.sql, which sets up the role `serve` connects as.
pub(crate) fn roles_script() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/roles.sql"))
        .expect("deploy/roles.sql sets up the server's role")
}

/// `db_url` as the role deploy/roles.sql makes for `serve`.
pub(crate) fn as_server_role(db_url: &str) -> PgConnectOptions {
    PgConnectOptions::from_str(db_url)
        .unwrap()
        .username("kaadxpay_app")
        .password("server-role-password")
}

#[tokio::test]
async fn the_servers_role_appends_and_reads_audit_entries_but_never_changes_or_deletes_them() {
    let db_url = fresh_database().await;
    let pool = PgPool::connect(&db_url).await.unwrap();
    let merchant = create_merchant(&pool, "Roles").await;
    // Twice: it may run after every migration.
    for _ in 0..2 {
        sqlx::raw_sql(&roles_script()).execute(&pool).await.unwrap();
    }
    sqlx::query("ALTER ROLE kaadxpay_app PASSWORD 'server-role-password'")
        .execute(&pool)
        .await
        .unwrap();
    append(&pool, &merchant.id, "aud_old", 800).await;

    let mut server = PgConnection::connect_with(&as_server_role(&db_url))
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO audit_log (id, merchant_id, actor_kind, actor, action, object_type, object_id) \
         VALUES ('aud_new', $1, 'user', 'a@roles.test', 'user.signed_in', 'user', 'usr_1')",
    )
    .bind(&merchant.id)
    .execute(&mut server)
    .await
    .expect("the server appends");
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM audit_log")
        .fetch_one(&mut server)
        .await
        .unwrap();
    assert_eq!(count, 2, "and reads");
    for refused in [
        "UPDATE audit_log SET actor = 'someone@else'",
        "DELETE FROM audit_log WHERE id = 'aud_new'",
        "DELETE FROM audit_log WHERE id = 'aud_old'",
        "TRUNCATE audit_log",
        "UPDATE audit_chains SET start_seq = 2",
        "SET session_replication_role = replica",
    ] {
        let err = sqlx::query(refused).execute(&mut server).await.unwrap_err();
        assert!(
            err.to_string().contains("permission denied"),
            "{refused}: {err}"
        );
    }
    // Even in one transaction, the replica setting first.
    let err = server
        .execute("BEGIN; SET LOCAL session_replication_role = replica; UPDATE audit_log SET actor = 'x'; COMMIT")
        .await
        .unwrap_err();
    assert!(err.to_string().contains("permission denied"), "{err}");
    server.execute("ROLLBACK").await.unwrap();

    // The purge, through its function, deletes the whole days past retention only.
    let purged: i64 = sqlx::query_scalar("SELECT audit_log_purge(interval '365 days')")
        .fetch_one(&mut server)
        .await
        .unwrap();
    assert_eq!(purged, 1);
    let err = sqlx::query("SELECT audit_log_purge(interval '1 day')")
        .execute(&mut server)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("at least 365 days"), "{err}");
    server.close().await.unwrap();
    let (code, out) = verify(&db_url, None);
    assert_eq!(code, Some(0), "{out}");
}

#[tokio::test]
async fn commands_migrate_as_the_owner_role_and_work_as_the_restricted_one() {
    let db_url = fresh_database().await;
    let pool = PgPool::connect(&db_url).await.unwrap();
    sqlx::raw_sql(&roles_script()).execute(&pool).await.unwrap();
    sqlx::query("ALTER ROLE kaadxpay_app PASSWORD 'server-role-password'")
        .execute(&pool)
        .await
        .unwrap();
    let restricted_url =
        db_url.replacen("://postgres@", "://kaadxpay_app:server-role-password@", 1);
    assert_ne!(
        restricted_url, *db_url,
        "the tests' URLs name the postgres user"
    );
    let create = |migrate_url: &str| {
        Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
            .args(["merchants", "create", "--name", "Restricted", "--json"])
            .env("DATABASE_URL", &restricted_url)
            .env("KAADXPAY_MIGRATE_DATABASE_URL", migrate_url)
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    };
    // The migrations go through KAADXPAY_MIGRATE_DATABASE_URL: one that names no database fails.
    let output = create(&common::with_database(&db_url, "kxp_no_such_database"));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("kxp_no_such_database"), "{stderr}");
    let output = create(&db_url);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The embedded mode serves as the role of deploy/roles.sql, as a hardened deployment does: every
/// connection of `serve` is `kaadxpay_app`'s, and its requests (a capture, audited) still work.
#[tokio::test]
async fn the_embedded_mode_serves_as_the_role_that_cannot_rewrite_audit_entries() {
    let data_dir = common::scratch_dir();
    let port = common::free_port();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .env_remove("DATABASE_URL")
        .env("KAADXPAY_DATA_DIR", &data_dir)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("kaadxpay starts");
    let base = format!("http://127.0.0.1:{port}");
    common::wait_until_answering(&format!("{base}/readyz")).await;
    let demo = common::TestMerchant {
        id: "mer_demo".into(),
        api_key: "sk_test_demo_0000000000000000000000000000000".to_owned(),
    };
    let order: serde_json::Value = common::post_order(&base, &demo, "embedded-role")
        .await
        .json()
        .await
        .unwrap();
    let captured = reqwest::Client::new()
        .put(format!(
            "{base}/v1/orders/{}",
            order["id"].as_str().unwrap()
        ))
        .bearer_auth(&demo.api_key)
        .body(r#"{"status": "captured"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(captured.status(), 200);

    let cluster = kaadxpay_embedded_pg::EmbeddedPostgres::start(
        &data_dir.join("postgres"),
        kaadxpay_embedded_pg::Durability::Durable,
    )
    .expect("attaches to the running cluster");
    let pool = PgPool::connect(&cluster.url("postgres")).await.unwrap();
    let roles: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT usename::text FROM pg_stat_activity \
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(roles, ["kaadxpay_app"], "serve's connections");
    // The demo merchant's own funding at its first start is a capture too: count this order's.
    let audited: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action = 'order.captured' AND object_id = $1",
    )
    .bind(order["id"].as_str().unwrap())
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(audited, 1);
    pool.close().await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(serve.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    assert!(serve.wait().unwrap().success());
}
