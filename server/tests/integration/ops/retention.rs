//! History is kept for its retention and then purged: old events go with their deliveries and
//! attempts unless a delivery is still pending, old attempts, partner events and outcome counts
//! and failed sign-ins go on their own, and everything younger stays.

use crate::common;

use common::{count, create_merchant, fresh_database, settings};
use server::service::components;

async fn insert_event(pool: &sqlx::PgPool, merchant_id: &str, age_days: i32, delivery: &str) {
    sqlx::query(
        "WITH event AS ( \
           INSERT INTO events (id, merchant_id, event_type, payload, created_at) \
           VALUES (gen_random_uuid(), $1, 'order.created', '{}', now() - make_interval(days => $2)) \
           RETURNING id), \
         delivery AS ( \
           INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, status) \
           SELECT gen_random_uuid(), $1, id, 'whe_retention', $3 FROM event RETURNING id) \
         INSERT INTO webhook_attempts (id, merchant_id, delivery_id, status_code, latency_ms, at) \
         SELECT gen_random_uuid(), $1, id, 500, 3, now() - make_interval(days => $2) FROM delivery",
    )
    .bind(merchant_id)
    .bind(age_days)
    .bind(delivery)
    .execute(pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn history_past_its_retention_is_purged_and_the_rest_kept() {
    let db_url = fresh_database().await;
    let pool = server::platform::db::connect(&db_url, 2, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let merchant = create_merchant(&pool, "Retention").await;
    sqlx::query(
        "INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret) \
         VALUES ('whe_retention', $1, 'https://example.com/hook', '{*}', 'whsec_x')",
    )
    .bind(&merchant.id)
    .execute(&pool)
    .await
    .unwrap();
    insert_event(&pool, &merchant.id, 40, "delivered").await; // purged, with its delivery
    insert_event(&pool, &merchant.id, 40, "pending").await; // kept: still being delivered
    insert_event(&pool, &merchant.id, 2, "delivered").await; // kept: young
    sqlx::query(
        "INSERT INTO partner_events (event_id, event_type, transfer_id, received_at) VALUES \
           ('evt_old', 'transfer.paid', 'tr_1', now() - interval '100 days'), \
           ('evt_new', 'transfer.paid', 'tr_2', now() - interval '10 days')",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO idempotency_outcomes (merchant_id, hour, outcome, count) VALUES \
           ($1, date_trunc('hour', now() - interval '8 days'), 'new', 3), \
           ($1, date_trunc('hour', now()), 'new', 1)",
    )
    .bind(&merchant.id)
    .execute(&pool)
    .await
    .unwrap();

    sqlx::query(
        "INSERT INTO login_failures (email, client_addr, failed_at) VALUES \
           ('old@example.com', '10.0.0.1', now() - interval '2 days'), \
           ('new@example.com', '10.0.0.1', now() - interval '1 minute')",
    )
    .execute(&pool)
    .await
    .unwrap();

    let purged = components::retention(&settings(&[]))
        .purge(&pool)
        .await
        .unwrap();

    assert_eq!(purged.events, 1, "{purged:?}");
    assert_eq!(count(&pool, "events").await, 2);
    assert_eq!(count(&pool, "webhook_deliveries").await, 2);
    assert_eq!(
        count(&pool, "webhook_attempts").await,
        1,
        "old attempts go even when their event stays"
    );
    assert_eq!(
        count(&pool, "webhook_deliveries WHERE status = 'pending'").await,
        1,
        "a pending delivery is never lost"
    );
    assert_eq!(count(&pool, "partner_events").await, 1);
    assert_eq!(count(&pool, "idempotency_outcomes").await, 1);
    assert_eq!(
        count(&pool, "login_failures").await,
        1,
        "a failure inside the throttle window stays"
    );

    let again = components::retention(&settings(&[]))
        .purge(&pool)
        .await
        .unwrap();
    assert_eq!(again, Default::default(), "nothing more to purge");
}
