//! The API-key cache across processes: a key's lookup is cached (a revocation the database
//! does not announce goes unseen for at most the TTL), and a revocation announced by the
//! trigger stops the key on another `kaadxpay` process at once, well within the TTL.

use crate::common;

use std::time::{Duration, Instant};

use common::{database_with_merchant, post_order, ServerProcess, TestMerchant};
use server::accounts::auth::cache::TTL;
use sqlx::PgPool;

/// Revokes `merchant`'s key (a new hash) or gives it back its own, by SQL as an operator would.
async fn set_key(pool: &PgPool, merchant: &TestMerchant, key: &str) {
    sqlx::query("UPDATE api_keys SET key_hash = sha256($2) WHERE merchant_id = $1")
        .bind(&merchant.id)
        .bind(key.as_bytes())
        .execute(pool)
        .await
        .unwrap();
}

async fn announce_revocations(pool: &PgPool, on: bool) {
    let verb = if on { "ENABLE" } else { "DISABLE" };
    sqlx::query(&format!(
        "ALTER TABLE api_keys {verb} TRIGGER api_keys_revoked"
    ))
    .execute(pool)
    .await
    .unwrap();
}

/// Posts until the answer is not `201`; returns that status and when it came.
async fn until_refused(
    base_url: &str,
    merchant: &TestMerchant,
    within: Duration,
) -> (u16, Instant) {
    let deadline = Instant::now() + within;
    let mut n = 0;
    loop {
        n += 1;
        let status = post_order(base_url, merchant, &format!("poll-{n}"))
            .await
            .status();
        if status != 201 || Instant::now() > deadline {
            return (status.as_u16(), Instant::now());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_revoked_key_stops_working_on_every_process_within_the_bound() {
    let (db_url, pool, quiet) = database_with_merchant("Quietly Revoked").await;
    let announced = common::create_merchant(&pool, "Revoked").await;
    let first = ServerProcess::start(&db_url, &[]).await;
    let second = ServerProcess::start(&db_url, &[]).await;

    // 1. The lookup is cached: a revocation nobody announces goes unseen, but only for the TTL.
    // (Until the second process listens for revocations it caches nothing; try until it does.)
    announce_revocations(&pool, false).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let cached_at = loop {
        let warmed_at = Instant::now();
        assert_eq!(
            post_order(&second.base_url, &quiet, "warm").await.status(),
            201
        );
        set_key(&pool, &quiet, "sk_test_revoked_quietly").await;
        if post_order(&second.base_url, &quiet, "cached")
            .await
            .status()
            == 201
        {
            break warmed_at;
        }
        assert!(
            Instant::now() < deadline,
            "the key was never served from the cache"
        );
        set_key(&pool, &quiet, &quiet.api_key).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let (status, refused_at) = until_refused(&second.base_url, &quiet, TTL * 4).await;
    assert_eq!(status, 401, "the unannounced revocation was never seen");
    assert!(
        refused_at - cached_at <= TTL + Duration::from_secs(3),
        "a revoked key worked {:?} after it was cached, beyond the {TTL:?} bound",
        refused_at - cached_at
    );
    announce_revocations(&pool, true).await;

    // 2. An announced revocation reaches both processes long before the TTL could: the second
    // process listens (it cached above), so this lookup is cached too.
    let warmed_at = Instant::now();
    for process in [&first, &second] {
        assert_eq!(
            post_order(&process.base_url, &announced, "warm")
                .await
                .status(),
            201
        );
    }
    set_key(&pool, &announced, "sk_test_revoked").await;
    for process in [&second, &first] {
        let (status, refused_at) = until_refused(&process.base_url, &announced, TTL * 4).await;
        assert_eq!(status, 401, "the announced revocation was never seen");
        if process.base_url == second.base_url {
            assert!(
                refused_at - warmed_at < TTL,
                "the revocation took {:?} to be seen, as long as the TTL: it was not announced",
                refused_at - warmed_at
            );
        }
    }
}
