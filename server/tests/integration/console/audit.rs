//! The audit log (API.md §11, issue 19 item 4), through the real API and console over HTTP:
//! every recorded action appears once, with its author, the client's address and the object
//! before and after; a replayed key writes nothing new and a change rolled back leaves no
//! entry; `/settings/audit` and its CSV are for owners and admins only, and show only their
//! merchant's entries; the database refuses to rewrite history, and the purge deletes only
//! what is past the retention.

use crate::common;

use app::console::Role;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use common::browser::{
    get, invite, join_by_link, page, shown_invitation_link, signed_in_as, submit, Browser,
};
use common::{count, create_merchant, payout_body, TestApp, TestMerchant, IBAN};

/// One entry as the table keeps it.
#[derive(Debug, sqlx::FromRow)]
struct Row {
    actor_kind: String,
    actor: String,
    object_id: String,
    client_address: Option<String>,
    before: Option<Value>,
    after: Option<Value>,
}

/// The app's merchant's entries of `action`, oldest first.
async fn entries(app: &TestApp, action: &str) -> Vec<Row> {
    sqlx::query_as(
        "SELECT actor_kind, actor, object_id, host(client_address) AS client_address, before, after \
         FROM audit_log WHERE merchant_id = $1 AND action = $2 ORDER BY created_at, id",
    )
    .bind(&app.merchant.id)
    .bind(action)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// The one entry of `action`.
async fn the_entry(app: &TestApp, action: &str) -> Row {
    let mut found = entries(app, action).await;
    assert_eq!(found.len(), 1, "{action} is recorded once: {found:?}");
    found.remove(0)
}

async fn key_id(pool: &PgPool, merchant: &TestMerchant) -> String {
    sqlx::query_scalar("SELECT id FROM api_keys WHERE merchant_id = $1 ORDER BY created_at LIMIT 1")
        .bind(&merchant.id)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// A call to the API as the app's merchant: its status and body.
async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    key: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut request = app
        .client
        .request(method, format!("{}{path}", app.base_url))
        .bearer_auth(&app.merchant.api_key)
        .json(&body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

const LOCAL: Option<&str> = Some("127.0.0.1");

/// A keyed `POST` and its replay: the first answer (the replay answers the same status).
async fn twice(app: &TestApp, path: &str, key: &str, body: Value) -> (u16, Value) {
    let first = call(app, Method::POST, path, Some(key), body.clone()).await;
    let again = call(app, Method::POST, path, Some(key), body).await;
    assert_eq!(again.0, first.0, "the replay of {path}");
    first
}

#[tokio::test]
async fn every_change_by_a_key_is_recorded_once_with_its_author_address_and_before_and_after() {
    let app = common::spawn_app().await;
    let key = key_id(&app.pool, &app.merchant).await;
    app.fund(10_000).await;

    // api_key.created, twice over one key: one entry.
    let body = json!({"name": "reporting", "access": "read_only"});
    let (status, created) = twice(&app, "/v1/api-keys", "key-1", body).await;
    assert_eq!(status, 201);
    let entry = the_entry(&app, "api_key.created").await;
    let new_key = created["id"].as_str().unwrap();
    let author = (entry.actor_kind.as_str(), entry.actor.as_str());
    assert_eq!(author, ("api_key", key.as_str()));
    assert_eq!(entry.object_id, new_key);
    assert_eq!(entry.client_address.as_deref(), LOCAL);
    let after = entry.after.unwrap();
    assert_eq!(after["name"], "reporting");
    assert!(after["secret"].is_null(), "never a secret: {after}");

    // api_key.rolled: before, and after with its successor.
    let roll = format!("/v1/api-keys/{new_key}/roll");
    let (status, successor) = twice(&app, &roll, "roll-1", json!({"overlap": "1h"})).await;
    assert_eq!(status, 201);
    let entry = the_entry(&app, "api_key.rolled").await;
    assert!(entry.before.unwrap()["expires_at"].is_null());
    let after = entry.after.unwrap();
    assert!(after["key"]["expires_at"].is_string());
    assert_eq!(after["successor"]["id"], successor["id"]);

    // api_key.revoked.
    let revoke = format!("/v1/api-keys/{}", successor["id"].as_str().unwrap());
    let (status, _) = call(&app, Method::DELETE, &revoke, None, Value::Null).await;
    assert_eq!(status, 200);
    let entry = the_entry(&app, "api_key.revoked").await;
    assert!(entry.before.unwrap()["expires_at"].is_null());
    assert!(entry.after.unwrap()["expires_at"].is_string());

    // webhook_endpoint.created (one statement with its CTE), replayed: one entry.
    let body = json!({"url": "http://127.0.0.1:9/hooks", "events": ["payout.paid"]});
    let (status, endpoint) = twice(&app, "/v1/webhook-endpoints", "hook-1", body).await;
    assert_eq!(status, 201);
    let endpoint_id = endpoint["id"].as_str().unwrap();
    let entry = the_entry(&app, "webhook_endpoint.created").await;
    assert_eq!(entry.object_id, endpoint_id);
    let after = entry.after.unwrap();
    assert_eq!(after["url"], "http://127.0.0.1:9/hooks");
    assert!(after.get("secret").is_none(), "never a secret: {after}");

    // webhook_endpoint.updated: before and after.
    let path = format!("/v1/webhook-endpoints/{endpoint_id}");
    let events = json!({"events": ["payout.failed"]});
    assert_eq!(call(&app, Method::PATCH, &path, None, events).await.0, 200);
    let entry = the_entry(&app, "webhook_endpoint.updated").await;
    assert_eq!(entry.before.unwrap()["events"], json!(["payout.paid"]));
    assert_eq!(entry.after.unwrap()["events"], json!(["payout.failed"]));

    // webhook_endpoint.secret_rotated, replayed: one entry, no secret.
    let rotate = format!("/v1/webhook-endpoints/{endpoint_id}/rotate-secret");
    let (status, _) = twice(&app, &rotate, "rotate-1", json!({"overlap": "1h"})).await;
    assert_eq!(status, 200);
    let entry = the_entry(&app, "webhook_endpoint.secret_rotated").await;
    let after = entry.after.unwrap();
    assert!(after["previous_secret_expires_at"].is_string());
    assert!(after.get("secret").is_none(), "never a secret: {after}");

    // webhook_endpoint.deleted: the endpoint before; a second delete changes nothing.
    assert_eq!(
        call(&app, Method::DELETE, &path, None, Value::Null).await.0,
        200
    );
    assert_eq!(
        call(&app, Method::DELETE, &path, None, Value::Null).await.0,
        404
    );
    let entry = the_entry(&app, "webhook_endpoint.deleted").await;
    assert_eq!(entry.before.unwrap()["id"], endpoint_id);

    // payout.created, replayed: one entry; refused for want of funds (rolled back): none.
    let payout = |amount| payout_body(amount, IBAN);
    let (status, made) = twice(&app, "/v1/payouts", "payout-1", payout(1000)).await;
    assert_eq!(status, 201);
    let (status, _) = twice(&app, "/v1/payouts", "payout-2", payout(1_000_000)).await;
    assert_eq!(status, 402);
    let entry = the_entry(&app, "payout.created").await;
    assert_eq!(entry.object_id, made["id"].as_str().unwrap());
    assert_eq!(
        entry.after.unwrap(),
        json!({"amount": 1000, "currency": "EUR", "status": "pending"})
    );
}

#[tokio::test]
async fn sign_ins_team_changes_console_payouts_and_support_look_ups_are_recorded() {
    let app = common::spawn_app().await;
    app.fund(10_000).await;
    let owner = signed_in_as(&app, "owner@audit.test", Some(Role::Owner)).await;
    let entry = the_entry(&app, "user.signed_in").await;
    assert_eq!(
        (entry.actor_kind.as_str(), entry.actor.as_str()),
        ("user", "owner@audit.test")
    );
    assert_eq!(entry.client_address.as_deref(), LOCAL);

    // A wrong password of a member: user.sign_in_failed; of an unknown email: nothing.
    let visitor = common::Visitor::arrive(&app.base_url).await;
    visitor.submit("owner@audit.test", "wrong-password").await;
    visitor.submit("nobody@audit.test", "wrong-password").await;
    let entry = the_entry(&app, "user.sign_in_failed").await;
    assert_eq!(entry.actor, "owner@audit.test");
    assert_eq!(
        count(&app.pool, "audit_log WHERE actor = 'nobody@audit.test'").await,
        0
    );

    // member.invited, member.joined, member.role_changed, member.removed.
    let (_, location) = invite(&app, &owner, "new@audit.test", "viewer").await;
    assert_eq!(location, "/settings/team");
    let entry = the_entry(&app, "member.invited").await;
    assert_eq!(entry.actor, "owner@audit.test");
    assert_eq!(
        entry.after.unwrap(),
        json!({"email": "new@audit.test", "role": "viewer"})
    );
    let member = signed_in_as(&app, "member@audit.test", Some(Role::Viewer)).await;
    drop(member);
    let member_id: String =
        sqlx::query_scalar("SELECT id FROM users WHERE email = 'member@audit.test'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let (status, _) = submit(
        &app,
        &owner,
        &format!("/settings/team/members/{member_id}/role"),
        &[("role", "finance")],
    )
    .await;
    assert_eq!(status, 303);
    let entry = the_entry(&app, "member.role_changed").await;
    assert_eq!(entry.object_id, member_id);
    assert_eq!(entry.before.unwrap(), json!({"role": "viewer"}));
    assert_eq!(entry.after.unwrap(), json!({"role": "finance"}));
    submit(
        &app,
        &owner,
        &format!("/settings/team/members/{member_id}/remove"),
        &[],
    )
    .await;
    let entry = the_entry(&app, "member.removed").await;
    assert_eq!(
        entry.before.unwrap(),
        json!({"email": "member@audit.test", "role": "finance"})
    );

    // A refused change (the last owner) leaves no entry.
    let owner_id: String =
        sqlx::query_scalar("SELECT id FROM users WHERE email = 'owner@audit.test'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    submit(
        &app,
        &owner,
        &format!("/settings/team/members/{owner_id}/role"),
        &[("role", "viewer")],
    )
    .await;
    assert_eq!(entries(&app, "member.role_changed").await.len(), 1);

    // A console payout, submitted twice: one payout.created, by the member.
    let form = [
        ("idempotency_key", "console-payout"),
        ("amount", "1.00"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", "DE89370400440532013000"),
    ];
    submit(&app, &owner, "/payouts", &form).await;
    submit(&app, &owner, "/payouts", &form).await;
    let entry = the_entry(&app, "payout.created").await;
    assert_eq!(
        (entry.actor_kind.as_str(), entry.actor.as_str()),
        ("user", "owner@audit.test")
    );

    // Support staff opening the payout's timeline: support.viewed.
    let support = signed_in_as(&app, "support@audit.test", None).await;
    let path = format!(
        "/support/timeline?merchant={}&payout={}",
        app.merchant.id, entry.object_id
    );
    assert_eq!(get(&app, &support, &path).await.status(), 200);
    let viewed = the_entry(&app, "support.viewed").await;
    assert_eq!(
        (viewed.actor_kind.as_str(), viewed.actor.as_str()),
        ("support", "support@audit.test")
    );
    assert_eq!(viewed.object_id, entry.object_id);
}

/// The page's and the CSV's status for `browser`, and the CSV.
async fn page_and_csv(app: &TestApp, browser: &Browser, filters: &str) -> (u16, u16, String) {
    let page = get(app, browser, &format!("/settings/audit{filters}"))
        .await
        .status()
        .as_u16();
    let csv = get(app, browser, &format!("/exports/audit.csv{filters}")).await;
    (page, csv.status().as_u16(), csv.text().await.unwrap())
}

#[tokio::test]
async fn owners_and_admins_see_their_merchants_log_and_its_csv_and_no_other_role_does() {
    let app = common::spawn_app().await;
    let other = create_merchant(&app.pool, "Other Merchant").await;
    common::create_user(
        &app.pool,
        "other@audit.test",
        Some((other.id.as_str(), Role::Owner)),
    )
    .await;
    common::Visitor::arrive(&app.base_url)
        .await
        .sign_in("other@audit.test", "right-password")
        .await;

    for role in Role::ALL {
        let email = format!("{}@audit.test", role.as_str());
        let browser = signed_in_as(&app, &email, Some(role)).await;
        let (page_status, csv_status, csv) = page_and_csv(&app, &browser, "").await;
        let may = matches!(role, Role::Owner | Role::Admin);
        let expected = if may { 200 } else { 403 };
        assert_eq!((page_status, csv_status), (expected, expected), "{role:?}");
        if may {
            assert!(
                csv.starts_with("\u{feff}id,created_at,actor_kind,actor,action,"),
                "{csv}"
            );
            assert!(
                csv.lines()
                    .next()
                    .unwrap()
                    .ends_with(",before,after,seq,hash"),
                "each entry's place and hash in its chain: {csv}"
            );
            assert!(
                csv.contains(&format!("user,{email},user.signed_in")),
                "{csv}"
            );
            assert!(
                !csv.contains("other@audit.test"),
                "another merchant's entries: {csv}"
            );
            let html = page(&app, &browser, "/settings/audit?action=user.signed_in").await;
            assert!(
                html.contains(&email) && html.contains("Audit log"),
                "{html}"
            );
            assert!(!html.contains("other@audit.test"), "{html}");
            assert!(
                html.contains("href=\"/settings/audit\""),
                "the nav links it"
            );
        } else {
            let html = page(&app, &browser, "/settings/audit").await;
            assert!(html.contains("may not see the audit log"), "{html}");
            assert!(
                !html.contains("href=\"/settings/audit\""),
                "the nav hides it"
            );
        }
    }

    // Filters travel in the address: an action, days; one it does not know is refused.
    let owner = signed_in_as(&app, "owner2@audit.test", Some(Role::Owner)).await;
    let (_, _, csv) = page_and_csv(&app, &owner, "?action=member.removed").await;
    assert_eq!(csv.lines().count(), 1, "the header only: {csv}");
    let (_, _, csv) = page_and_csv(&app, &owner, "?from=2001-01-01&to=2001-01-02").await;
    assert_eq!(csv.lines().count(), 1, "{csv}");
    let (page_status, csv_status, _) = page_and_csv(&app, &owner, "?action=payout.deleted").await;
    assert_eq!((page_status, csv_status), (200, 400));
    let html = page(&app, &owner, "/settings/audit?action=payout.deleted").await;
    assert!(html.contains("Choose an action from the list."), "{html}");
    let html = page(&app, &owner, "/settings/audit").await;
    assert!(html.contains("owner2@audit.test"), "{html}");
}

#[tokio::test]
async fn the_database_refuses_to_rewrite_history_and_the_purge_deletes_only_what_is_past_retention()
{
    // The database alone: no application whose purge worker would race this test's purge.
    let (_db, pool, merchant) = common::database_with_merchant("Audit").await;
    let insert = |age_days: i64| {
        sqlx::query(
            "INSERT INTO audit_log (id, merchant_id, created_at, actor_kind, actor, action, \
               object_type, object_id) \
             VALUES (gen_random_uuid()::text, $1, now() - make_interval(days => $2::int), \
               'user', 'a@audit.test', 'user.signed_in', 'user', 'usr_1') RETURNING id",
        )
        .bind(&merchant.id)
        .bind(age_days as i32)
    };
    // In the order they were made: the chain's order.
    insert(800).execute(&pool).await.unwrap();
    insert(400).execute(&pool).await.unwrap();
    insert(200).execute(&pool).await.unwrap();
    let young: String = sqlx::query_scalar::<_, String>(
        "INSERT INTO audit_log (id, merchant_id, actor_kind, actor, action, object_type, object_id) \
         VALUES ('aud_young', $1, 'user', 'a@audit.test', 'user.signed_in', 'user', 'usr_1') RETURNING id",
    )
    .bind(&merchant.id)
    .fetch_one(&pool)
    .await
    .unwrap();

    let refused = sqlx::query("UPDATE audit_log SET actor = 'someone@else' WHERE id = $1")
        .bind(&young)
        .execute(&pool)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("append-only"), "{refused}");
    let refused = sqlx::query(
        "UPDATE audit_log SET after = '{}' WHERE created_at < now() - interval '2 years'",
    )
    .execute(&pool)
    .await
    .unwrap_err();
    assert!(
        refused.to_string().contains("append-only"),
        "even an old entry: {refused}"
    );
    let refused = sqlx::query("DELETE FROM audit_log WHERE id = $1")
        .bind(&young)
        .execute(&pool)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("append-only"), "{refused}");
    let refused = sqlx::query("TRUNCATE audit_log")
        .execute(&pool)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("append-only"), "{refused}");

    // The default retention (365 days): the 400- and 800-day-old entries go.
    let retention = server::service::components::retention(&common::settings(&[]));
    let purged = retention.purge(&pool).await.unwrap();
    assert_eq!(purged.audit, 2);
    let left: Vec<i32> = sqlx::query_scalar(
        "SELECT (extract(epoch FROM now() - created_at) / 86400)::int FROM audit_log \
         WHERE actor = 'a@audit.test' ORDER BY created_at",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(left, vec![200, 0]);

    // A longer retention keeps more; a shorter one is refused at start.
    insert(500).execute(&pool).await.unwrap();
    let longer =
        server::service::components::retention(&common::settings(&["--audit-retention", "600d"]));
    assert_eq!(longer.purge(&pool).await.unwrap().audit, 0);
    let short = common::settings(&["--audit-retention", "30d"]);
    let problems = server::service::components::problems(&short);
    assert!(
        problems
            .iter()
            .any(|problem| problem.contains("KAADXPAY_AUDIT_RETENTION must be at least 365d")),
        "{problems:?}"
    );
}

#[tokio::test]
async fn a_member_joining_by_invitation_is_recorded_as_the_new_member() {
    let app = common::spawn_app().await;
    let owner = signed_in_as(&app, "owner@join.test", Some(Role::Owner)).await;
    invite(&app, &owner, "joiner@join.test", "developer").await;
    let link = shown_invitation_link(&app, &owner).await;
    let (_, (status, _)) = join_by_link(&app, &link).await;
    assert_eq!(status, 303);
    let entry = the_entry(&app, "member.joined").await;
    assert_eq!(
        (entry.actor_kind.as_str(), entry.actor.as_str()),
        ("user", "joiner@join.test")
    );
    assert_eq!(entry.client_address.as_deref(), LOCAL);
    assert_eq!(
        entry.after.unwrap(),
        json!({"email": "joiner@join.test", "role": "developer"})
    );
}
