//! The idempotency engine's crate documents the tables and functions it needs
//! (`crates/idempotency/schema.sql`, for a database of one's own), and the server's migrations
//! make them: the two must describe the same, or the crate's own tests prove the engine on a
//! schema the server lacks.

use sqlx::{Connection, PgConnection};

use crate::common::fresh_database;

/// Each column of the engine's tables in `schema`: table, name, type, nullability, default.
async fn columns(
    conn: &mut PgConnection,
    schema: &str,
) -> Vec<(String, String, String, String, String)> {
    sqlx::query_as(
        "SELECT table_name::text, column_name::text, udt_name::text, is_nullable::text, \
           coalesce(column_default, '') \
         FROM information_schema.columns \
         WHERE table_schema = $1 AND table_name IN ('idempotency_keys', 'idempotency_outcomes') \
         ORDER BY table_name, column_name",
    )
    .bind(schema)
    .fetch_all(conn)
    .await
    .unwrap()
}

/// The engine's tables' indexes, their primary keys and checks in `schema`, written without
/// the schema's name.
async fn indexes_and_checks(conn: &mut PgConnection, schema: &str) -> Vec<String> {
    let found: Vec<String> = sqlx::query_scalar(
        "SELECT indexdef FROM pg_indexes \
         WHERE schemaname = $1 AND tablename IN ('idempotency_keys', 'idempotency_outcomes') \
         UNION ALL \
         SELECT c.conrelid::regclass::text || ' ' || pg_get_constraintdef(c.oid) \
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace \
         WHERE n.nspname = $1 AND c.contype IN ('p', 'c') \
           AND c.conrelid::regclass::text LIKE '%idempotency_%'",
    )
    .bind(schema)
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let mut found: Vec<String> = found
        .into_iter()
        .map(|definition| definition.replace(&format!("{schema}."), ""))
        .collect();
    found.sort();
    found
}

/// The engine's functions in `schema` (`idempotency_…`): name, arguments, result and body,
/// written without the schema's name.
async fn functions(conn: &mut PgConnection, schema: &str) -> Vec<String> {
    let found: Vec<String> = sqlx::query_scalar(
        "SELECT p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' \
           || pg_get_function_result(p.oid) || ' ' || p.prosrc \
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace \
         WHERE n.nspname = $1 AND p.proname LIKE 'idempotency%' ORDER BY p.proname",
    )
    .bind(schema)
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    found
        .into_iter()
        .map(|definition| definition.replace(&format!("{schema}."), ""))
        .collect()
}

#[tokio::test]
async fn the_engines_schema_and_the_migrations_make_the_same_tables_and_functions() {
    let database = fresh_database().await;
    let mut conn = PgConnection::connect(&database).await.unwrap();
    sqlx::raw_sql(&format!(
        "CREATE SCHEMA engine_only; SET search_path = engine_only; \
         CREATE TYPE idempotency_endpoint AS ENUM ('POST /v1/orders'); {} \
         SET search_path = public",
        include_str!("../../../../crates/idempotency/schema.sql")
    ))
    .execute(&mut conn)
    .await
    .unwrap();

    let (migrated, documented) = (
        columns(&mut conn, "public").await,
        columns(&mut conn, "engine_only").await,
    );
    assert!(!migrated.is_empty());
    let documented: Vec<_> = documented
        .into_iter()
        .map(|(table, column, kind, nullable, default)| {
            (
                table,
                column,
                kind,
                nullable,
                default.replace("engine_only.", "public."),
            )
        })
        .collect();
    assert_eq!(
        migrated, documented,
        "columns: (table, name, type, nullable, default)"
    );
    assert_eq!(
        indexes_and_checks(&mut conn, "public").await,
        indexes_and_checks(&mut conn, "engine_only").await
    );
    let migrated = functions(&mut conn, "public").await;
    assert_eq!(migrated.len(), 2, "{migrated:?}");
    assert_eq!(migrated, functions(&mut conn, "engine_only").await);
    conn.close().await.unwrap();
}
