//! The keyed commands are declared once (`server/src/service/keyed.rs`), and the database's
//! `idempotency_endpoint` enum, which every key's record names its endpoint by, must list
//! exactly them: a command missing from the enum fails its first request with a `500`, and a
//! value no command has can never be rendered again.

use std::collections::BTreeSet;

use server::service::keyed::ENDPOINTS;

use crate::common::fresh_database;

#[tokio::test]
async fn the_database_enum_lists_every_keyed_command_and_nothing_else() {
    let database = fresh_database().await;
    let pool = sqlx::PgPool::connect(&database).await.unwrap();
    let in_database: BTreeSet<String> =
        sqlx::query_scalar("SELECT unnest(enum_range(NULL::idempotency_endpoint))::text")
            .fetch_all(&pool)
            .await
            .unwrap()
            .into_iter()
            .collect();
    let declared: BTreeSet<String> = ENDPOINTS
        .iter()
        .map(|endpoint| endpoint.to_string())
        .collect();
    assert_eq!(ENDPOINTS.len(), declared.len(), "each endpoint once");
    assert_eq!(in_database, declared);
}
