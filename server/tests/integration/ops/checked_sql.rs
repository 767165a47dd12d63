//! The checked SQL's offline cache (`server/.sqlx/`, README "Checked SQL") still says what the
//! migrations make of its statements: the build compiles the `sqlx::query!` macros from the
//! cache alone, so a renamed column or a changed type would hide behind a stale file. Each
//! cached statement is described again by a freshly migrated database, and its parameter
//! types, column names, column types and nullability must be the ones the file records; each
//! file must also still be named after its statement's SHA-256, as the macros look it up.

use crate::common;

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::{Connection, Executor, PgConnection};

use common::fresh_database;

/// The cached statements: file name and contents, in name order.
fn cached_statements() -> Vec<(String, Value)> {
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join(".sqlx");
    let mut files: Vec<(String, Value)> = std::fs::read_dir(&cache)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", cache.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let data = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{name} is not JSON: {err}"));
            (name, data)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// How `described` differs from what `recorded` says, one line per difference.
fn differences(recorded: &Value, described: &Value) -> Vec<String> {
    let column = |columns: &Value, aspect: &str| -> Vec<Value> {
        columns
            .as_array()
            .map(|columns| columns.iter().map(|c| c[aspect].clone()).collect())
            .unwrap_or_default()
    };
    let aspects = [
        (
            "parameter types",
            recorded["parameters"].clone(),
            described["parameters"].clone(),
        ),
        (
            "column names",
            Value::from(column(&recorded["columns"], "name")),
            Value::from(column(&described["columns"], "name")),
        ),
        (
            "column types",
            Value::from(column(&recorded["columns"], "type_info")),
            Value::from(column(&described["columns"], "type_info")),
        ),
        (
            "nullability",
            recorded["nullable"].clone(),
            described["nullable"].clone(),
        ),
    ];
    aspects
        .into_iter()
        .filter(|(_, recorded, described)| recorded != described)
        .map(|(aspect, recorded, described)| {
            format!("{aspect}: the cache says {recorded}, the database {described}")
        })
        .collect()
}

#[tokio::test]
async fn the_checked_sql_cache_matches_the_migrations() {
    let statements = cached_statements();
    assert!(
        !statements.is_empty(),
        "server/.sqlx holds no cached statements: run server/sqlx-prepare"
    );
    let database = fresh_database().await;
    let mut conn = PgConnection::connect(&database).await.unwrap();
    let mut stale = Vec::new();
    for (name, data) in &statements {
        let query = data["query"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has no query"));
        let hash = hex::encode(Sha256::digest(query.as_bytes()));
        if *name != format!("query-{hash}.json") || data["hash"] != hash.as_str() {
            stale.push(format!("{name}: its statement's SHA-256 is {hash}"));
            continue;
        }
        let described = match conn.describe(query).await {
            Ok(described) => serde_json::to_value(&described).unwrap(),
            Err(err) => {
                stale.push(format!("{name}: the database refuses it: {err}"));
                continue;
            }
        };
        for difference in differences(&data["describe"], &described) {
            stale.push(format!("{name}: {difference}"));
        }
    }
    conn.close().await.unwrap();
    assert!(
        stale.is_empty(),
        "server/.sqlx is stale (regenerate it with server/sqlx-prepare):\n{}",
        stale.join("\n")
    );
}
