//! Who may move money (issue 27, API.md §11), through every door: for each role, the member in
//! the console and a key the member made answer each money-moving route as the role table
//! says, judged at each use (a role change narrows a key at once, a removal revokes it); keys
//! make and roll only keys with no more power than their own, and revoking one revokes what it
//! made or was rolled into; four eyes are two people (a key's payout is its maker's, and
//! payouts to one account are summed against the threshold); invitations can be revoked and die
//! with their inviter.

use crate::common;

use std::time::Duration;

use app::console::Role;
use futures::future::join_all;
use serde_json::{json, Value};

use common::browser::{hidden, invite, page, shown_invitation_link, signed_in_as, submit, Browser};
use common::{browser_client, count, eventually, payout_body, spawn_app, TestApp, Visitor, IBAN};

/// A key made by `browser`'s member with the keys page's form (`acts_for`: `maker` or
/// `merchant`): its secret, shown once.
async fn console_key(app: &TestApp, browser: &Browser, name: &str, acts_for: &str) -> String {
    let key = hidden(
        &page(app, browser, "/settings/keys").await,
        "idempotency_key",
    );
    let fields = [
        ("idempotency_key", key.as_str()),
        ("name", name),
        ("access", "read_write"),
        ("acts_for", acts_for),
    ];
    assert_eq!(submit(app, browser, "/settings/keys", &fields).await.0, 303);
    let shown = page(app, browser, "/settings/keys").await;
    let start = shown.find("<code class=\"secret\">").expect("secret shown") + 21;
    shown[start..start + shown[start..].find("</code>").unwrap()].to_owned()
}

/// `method path` with the API key `secret`, a fresh Idempotency-Key and `body` (none for
/// `null`): the status and the answer.
async fn call(app: &TestApp, secret: &str, method: &str, path: &str, body: Value) -> (u16, Value) {
    let url = format!("{}{path}", app.base_url);
    let request = match method {
        "GET" => app.client.get(url),
        "PUT" => app.client.put(url),
        "DELETE" => app.client.delete(url),
        _ => app.client.post(url),
    };
    let body = match body {
        Value::Null => String::new(),
        body => body.to_string(),
    };
    let answer = request
        .bearer_auth(secret)
        .header("idempotency-key", uuid::Uuid::new_v4().to_string())
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

async fn post(app: &TestApp, secret: &str, path: &str, body: Value) -> (u16, Value) {
    call(app, secret, "POST", path, body).await
}

/// A payout of `amount` EUR cents to `iban` made with `secret`.
async fn pay_out(app: &TestApp, secret: &str, amount: i64, iban: &str) -> (u16, Value) {
    post(app, secret, "/v1/payouts", payout_body(amount, iban)).await
}

/// Submits the console's `verb` (approve, reject, cancel) on payout `id` as `browser`: the
/// answer's status.
async fn decide(app: &TestApp, browser: &Browser, id: &str, verb: &str) -> u16 {
    let key = uuid::Uuid::new_v4().to_string();
    let path = format!("/payouts/{id}/{verb}");
    submit(app, browser, &path, &[("idempotency_key", &key)])
        .await
        .0
}

async fn user_id(app: &TestApp, email: &str) -> String {
    sqlx::query_scalar("SELECT id FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// The id of the key whose secret is `secret`.
async fn key_id_of(app: &TestApp, secret: &str) -> String {
    let hash = <sha2::Sha256 as sha2::Digest>::digest(secret.as_bytes()).to_vec();
    sqlx::query_scalar("SELECT id FROM api_keys WHERE key_hash = $1")
        .bind(hash)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn audited(app: &TestApp, action: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = $1")
        .bind(action)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// Removes `email` from the team with the team page's form, as `owner`.
async fn remove(app: &TestApp, owner: &Browser, email: &str) {
    let path = format!(
        "/settings/team/members/{}/remove",
        user_id(app, email).await
    );
    assert_eq!(submit(app, owner, &path, &[]).await.0, 303);
}

/// Waits (5 s at most) until every process has forgotten the key `secret`: a revocation
/// reaches them by the database's notification.
async fn stopped(app: &TestApp, secret: &str) {
    eventually(Duration::from_secs(5), "the key stops", || async {
        call(app, secret, "GET", "/v1/orders", Value::Null).await.0 == 401
    })
    .await;
}

/// Waits (5 s at most) until every process judges the key `secret` by its maker's new `role`,
/// which the role change announces: asked to make an order or a payout with an empty body, the
/// key is refused `403` where the role may not, else `400` for the body (nothing is made).
async fn narrowed(app: &TestApp, secret: &str, role: Role) {
    let expected = match role {
        Role::Viewer => (403, 403),
        Role::Finance => (400, 400),
        _ => (400, 403),
    };
    eventually(
        Duration::from_secs(5),
        "the key follows its maker's role",
        || async {
            let order = post(app, secret, "/v1/orders", json!({})).await.0;
            (order, post(app, secret, "/v1/payouts", json!({})).await.0) == expected
        },
    )
    .await;
}

/// A payout at or above the EUR threshold, made with the merchant's own key: awaiting approval,
/// and no member's own.
async fn awaiting_approval(app: &TestApp) -> String {
    let (status, payout) = pay_out(app, &app.merchant.api_key, 50_000, IBAN).await;
    assert_eq!(
        (status, payout["status"].as_str()),
        (201, Some("pending_approval"))
    );
    payout["id"].as_str().unwrap().to_owned()
}

async fn pending_order(app: &TestApp) -> String {
    let body = r#"{"amount": 1000, "currency": "EUR"}"#;
    app.create_order(&app.merchant.api_key, body).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// An order captured by the merchant's own key, to refund.
async fn captured_order(app: &TestApp) -> String {
    let order = pending_order(app).await;
    let captured = app
        .put(&format!("/v1/orders/{order}"), r#"{"status": "captured"}"#)
        .await;
    assert_eq!(captured.status(), 200);
    order
}

/// Whether an answer let the caller through: a success (or a form's `303`), else `403`.
fn allowed(status: u16) -> bool {
    assert!(matches!(status, 200 | 201 | 303 | 403), "{status}");
    status != 403
}

/// What each money-moving route answered one caller: whether it was let through.
#[derive(Debug, PartialEq, Eq)]
struct Doors {
    create_order: bool,
    capture: bool,
    refund: bool,
    pay_out: bool,
    approve: bool,
    cancel_anothers_payout: bool,
    make_key: bool,
    roll_own_key: bool,
}

impl Doors {
    /// API.md §11's row for `role` (`None`: a key of `merchants create`), by the API (where no
    /// key ever approves) or the console (which makes no orders).
    fn of(role: Option<Role>, console: bool) -> Self {
        use Role::*;
        let role_is = |roles: &[Role]| role.is_none_or(|role| roles.contains(&role));
        Self {
            create_order: !console && role_is(&[Owner, Admin, Developer, Finance]),
            capture: role_is(&[Owner, Admin, Finance]),
            // Refunding needs the right to capture (API.md §13); the console's Refund button
            // is not tried here.
            refund: !console && role_is(&[Owner, Admin, Finance]),
            pay_out: role_is(&[Owner, Admin, Finance]),
            approve: console && role_is(&[Owner, Admin, Finance]),
            cancel_anothers_payout: role_is(&[Owner, Admin]),
            make_key: role_is(&[Owner, Admin, Developer]),
            roll_own_key: role_is(&[Owner, Admin, Developer]),
        }
    }
}

/// Tries every money-moving route of the API with `secret` (each on a fresh order, payout or
/// key, so that one route's effect never decides another's answer).
async fn api_doors(app: &TestApp, secret: &str) -> Doors {
    let through = async |path: String, body: Value| allowed(post(app, secret, &path, body).await.0);
    let order = format!("/v1/orders/{}", pending_order(app).await);
    let capture = json!({"status": "captured"});
    let own_key = key_id_of(app, secret).await;
    Doors {
        create_order: through("/v1/orders".into(), json!({"amount": 1, "currency": "EUR"})).await,
        capture: allowed(call(app, secret, "PUT", &order, capture).await.0),
        refund: through(
            format!("/v1/orders/{}/refunds", captured_order(app).await),
            json!({"amount": 1, "destination": {"account_holder": "Grace Hopper", "iban": IBAN}}),
        )
        .await,
        pay_out: through("/v1/payouts".into(), payout_body(100, IBAN)).await,
        approve: through(
            format!("/v1/payouts/{}/approve", awaiting_approval(app).await),
            Value::Null,
        )
        .await,
        cancel_anothers_payout: through(
            format!("/v1/payouts/{}/cancel", awaiting_approval(app).await),
            Value::Null,
        )
        .await,
        make_key: through("/v1/api-keys".into(), json!({"name": "Made by a key"})).await,
        roll_own_key: through(
            format!("/v1/api-keys/{own_key}/roll"),
            json!({"overlap": "1h"}),
        )
        .await,
    }
}

/// Tries every money-moving form of the console as `browser`'s member, whose key is `secret`.
async fn console_doors(app: &TestApp, browser: &Browser, secret: &str) -> Doors {
    let through = async |path: String, fields: &[(&str, &str)]| {
        let key = uuid::Uuid::new_v4().to_string();
        let mut fields = fields.to_vec();
        fields.push(("idempotency_key", &key));
        allowed(submit(app, browser, &path, &fields).await.0)
    };
    let order = pending_order(app).await;
    // Each member's own payout and key name: the same again would be held back as a repeat.
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (amount, key_name) = (format!("1.{n:02}"), format!("Console key {n}"));
    let payout = [
        ("amount", amount.as_str()),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", IBAN),
    ];
    let own_key = key_id_of(app, secret).await;
    Doors {
        create_order: false,
        capture: through(format!("/orders/{order}/capture"), &[]).await,
        refund: false,
        pay_out: through("/payouts".into(), &payout).await,
        approve: allowed(decide(app, browser, &awaiting_approval(app).await, "approve").await),
        cancel_anothers_payout: allowed(
            decide(app, browser, &awaiting_approval(app).await, "cancel").await,
        ),
        make_key: through(
            "/settings/keys".into(),
            &[("name", key_name.as_str()), ("access", "read_write")],
        )
        .await,
        roll_own_key: through(
            format!("/settings/keys/{own_key}/roll"),
            &[("overlap", "1h")],
        )
        .await,
    }
}

/// An app whose merchant has 1,000,000.00 EUR and an approval threshold of 100.00 EUR, and its
/// owner signed in.
async fn merchant_with_threshold() -> (TestApp, Browser) {
    let app = spawn_app().await;
    app.fund(100_000_000).await;
    let owner = signed_in_as(&app, "owner@shop.test", Some(Role::Owner)).await;
    let threshold = [("amount", "100.00"), ("currency", "EUR")];
    assert_eq!(
        submit(&app, &owner, "/settings/payouts", &threshold)
            .await
            .0,
        303
    );
    (app, owner)
}

#[tokio::test]
async fn every_role_and_every_members_key_answer_the_money_routes_as_the_role_table_says() {
    let (app, owner) = merchant_with_threshold().await;
    let owners_key = console_key(&app, &owner, "Owner's", "maker").await;
    let mut members = vec![(Role::Owner, owner.clone(), owners_key)];
    for role in [Role::Admin, Role::Developer, Role::Finance, Role::Viewer] {
        let email = format!("{}@shop.test", role.as_str());
        // Finance and viewers may not make keys: each made one as a developer, and was then
        // given its role, which narrows (or widens) the key at its next use.
        let maker_role = match role {
            Role::Admin | Role::Developer => role,
            _ => Role::Developer,
        };
        let browser = signed_in_as(&app, &email, Some(maker_role)).await;
        let secret = console_key(&app, &browser, &email, "maker").await;
        let order = json!({"amount": 1, "currency": "EUR"});
        assert_eq!(
            post(&app, &secret, "/v1/orders", order).await.0,
            201,
            "cached"
        );
        if maker_role != role {
            let path = format!(
                "/settings/team/members/{}/role",
                user_id(&app, &email).await
            );
            let (status, _) = submit(&app, &owner, &path, &[("role", role.as_str())]).await;
            assert_eq!(status, 303);
            narrowed(&app, &secret, role).await;
        }
        members.push((role, browser, secret));
    }
    for (role, browser, secret) in &members {
        let (by_key, in_console) = (Doors::of(Some(*role), false), Doors::of(Some(*role), true));
        assert_eq!(api_doors(&app, secret).await, by_key, "{role:?}'s key");
        assert_eq!(
            console_doors(&app, browser, secret).await,
            in_console,
            "{role:?}"
        );
    }
    // A key made by a developer's key acts for the developer too.
    let developer_key = &members[2].2;
    let (status, made) = post(&app, developer_key, "/v1/api-keys", json!({"name": "Made"})).await;
    assert_eq!(status, 201);
    assert_eq!(made["created_by"], "developer@shop.test");
    assert_eq!(made["created_by_key"], key_id_of(&app, developer_key).await);
    let made_secret = made["secret"].as_str().unwrap();
    let developers = Doors::of(Some(Role::Developer), false);
    assert_eq!(api_doors(&app, made_secret).await, developers);
    // The merchant's own key (of `merchants create`) answers to nobody.
    assert_eq!(
        api_doors(&app, &app.merchant.api_key).await,
        Doors::of(None, false)
    );
}

#[tokio::test]
async fn removing_a_member_revokes_its_keys_at_once_and_keys_for_the_merchant_stay() {
    let (app, owner) = merchant_with_threshold().await;
    let developer = signed_in_as(&app, "dev@shop.test", Some(Role::Developer)).await;
    let key = console_key(&app, &developer, "Dev key", "maker").await;
    let (status, made) = post(&app, &key, "/v1/api-keys", json!({"name": "Key's key"})).await;
    assert_eq!(status, 201);
    let made_secret = made["secret"].as_str().unwrap().to_owned();
    let merchant_key = console_key(&app, &owner, "For the merchant", "merchant").await;
    let order = json!({"amount": 100, "currency": "EUR"});
    for secret in [&key, &made_secret, &merchant_key] {
        assert_eq!(post(&app, secret, "/v1/orders", order.clone()).await.0, 201);
    }

    remove(&app, &owner, "dev@shop.test").await;
    for secret in [&key, &made_secret] {
        stopped(&app, secret).await;
    }
    assert_eq!(post(&app, &merchant_key, "/v1/orders", order).await.0, 201);
    let removal: Value =
        sqlx::query_scalar("SELECT after FROM audit_log WHERE action = 'member.removed'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(removal["revoked_api_keys"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn revoking_a_key_revokes_every_key_it_made_or_was_rolled_into() {
    let app = spawn_app().await;
    let root = app.merchant.api_key.clone();
    let (_, leaked) = post(&app, &root, "/v1/api-keys", json!({"name": "Leaked"})).await;
    let leaked_secret = leaked["secret"].as_str().unwrap().to_owned();
    let leaked_id = leaked["id"].as_str().unwrap().to_owned();
    // The thief rolls the leaked key with the longest overlap and mints other keys with it.
    let roll = format!("/v1/api-keys/{leaked_id}/roll");
    let (status, successor) = post(&app, &leaked_secret, &roll, json!({"overlap": "7d"})).await;
    assert_eq!(status, 201);
    assert_eq!(successor["created_by_key"], json!(leaked_id));
    let (_, minted) = post(
        &app,
        &leaked_secret,
        "/v1/api-keys",
        json!({"name": "Mine"}),
    )
    .await;
    let minted_secret = minted["secret"].as_str().unwrap();
    let (_, grandchild) = post(&app, minted_secret, "/v1/api-keys", json!({"name": "Too"})).await;

    let revoke = format!("/v1/api-keys/{leaked_id}");
    assert_eq!(
        call(&app, &root, "DELETE", &revoke, Value::Null).await.0,
        200
    );
    for stolen in [&leaked, &successor, &minted, &grandchild] {
        stopped(&app, stolen["secret"].as_str().unwrap()).await;
    }
    let order = json!({"amount": 100, "currency": "EUR"});
    assert_eq!(
        post(&app, &root, "/v1/orders", order).await.0,
        201,
        "the root key stays"
    );
    assert_eq!(
        audited(&app, "api_key.revoked").await,
        4,
        "one entry per key"
    );
}

#[tokio::test]
async fn a_key_rolls_only_keys_with_no_more_power_than_its_own() {
    let (app, owner) = merchant_with_threshold().await;
    let developer = signed_in_as(&app, "dev@shop.test", Some(Role::Developer)).await;
    let developer_key = console_key(&app, &developer, "Dev", "maker").await;
    let owners_key = console_key(&app, &owner, "Owner's", "maker").await;
    let merchants_key = console_key(&app, &owner, "Merchant's", "merchant").await;
    for stronger in [&owners_key, &merchants_key, &app.merchant.api_key] {
        let id = key_id_of(&app, stronger).await;
        let now = json!({"overlap": "now"});
        let (status, body) = post(
            &app,
            &developer_key,
            &format!("/v1/api-keys/{id}/roll"),
            now,
        )
        .await;
        assert_eq!((status, &body["error"]["code"]), (403, &json!("forbidden")));
        let fields = [("idempotency_key", id.as_str()), ("overlap", "now")];
        let (status, location) = submit(
            &app,
            &developer,
            &format!("/settings/keys/{id}/roll"),
            &fields,
        )
        .await;
        assert_eq!((status, location.as_str()), (303, "/settings/keys"));
        let refused = page(&app, &developer, "/settings/keys").await;
        assert!(
            refused.contains("role=\"alert\"") && refused.contains("That did not work"),
            "the refusal comes back with the form: {refused}"
        );
        let order = json!({"amount": 1, "currency": "EUR"});
        assert_eq!(
            post(&app, stronger, "/v1/orders", order).await.0,
            201,
            "not rolled"
        );
    }
    // Only an owner makes a key for the merchant.
    let admin = signed_in_as(&app, "admin@shop.test", Some(Role::Admin)).await;
    let form = page(&app, &admin, "/settings/keys").await;
    assert!(!form.contains("name=\"acts_for\""), "no choice for admins");
    let fields = [
        ("idempotency_key", "admin-key"),
        ("name", "Sneaky"),
        ("access", "read_write"),
        ("acts_for", "merchant"),
    ];
    let (_, location) = submit(&app, &admin, "/settings/keys", &fields).await;
    assert_eq!(location, "/settings/keys");
    let refused = page(&app, &admin, "/settings/keys").await;
    assert!(
        refused.contains("That did not work") && refused.contains(r#"value="Sneaky""#),
        "refused, the name kept: {refused}"
    );
    assert_eq!(count(&app.pool, "api_keys WHERE name = 'Sneaky'").await, 0);
}

#[tokio::test]
async fn four_eyes_are_two_people_whichever_door_the_payout_came_through() {
    let (app, owner) = merchant_with_threshold().await;
    let admin = signed_in_as(&app, "admin@shop.test", Some(Role::Admin)).await;
    let admins_key = console_key(&app, &admin, "Admin's", "maker").await;
    let for_merchant = console_key(&app, &owner, "For the merchant", "merchant").await;

    // The admin's key makes a large payout: it counts as the admin's, who cannot pass it.
    let (status, payout) = pay_out(&app, &admins_key, 200_000, IBAN).await;
    assert_eq!(
        (status, payout["status"].as_str()),
        (201, Some("pending_approval"))
    );
    let id = payout["id"].as_str().unwrap();
    assert_eq!(
        decide(&app, &admin, id, "approve").await,
        403,
        "its maker's"
    );
    // A key an owner made for the merchant still counts as that owner's.
    let (_, owners) = pay_out(&app, &for_merchant, 20_000, "DE44 5001 0517 5407 3249 31").await;
    let owners = owners["id"].as_str().unwrap();
    assert_eq!(
        decide(&app, &owner, owners, "approve").await,
        403,
        "the owner's"
    );
    assert_eq!(
        decide(&app, &owner, id, "approve").await,
        303,
        "another member's"
    );

    // Its creator cancels a payout awaiting approval (here, with the key); twice is a 409.
    let (_, second) = pay_out(&app, &admins_key, 30_000, IBAN).await;
    let cancel = format!("/v1/payouts/{}/cancel", second["id"].as_str().unwrap());
    let before = app.available_eur().await;
    let (status, cancelled) = post(&app, &admins_key, &cancel, Value::Null).await;
    assert_eq!(
        (status, cancelled["status"].as_str()),
        (200, Some("cancelled"))
    );
    assert_eq!(
        app.available_eur().await,
        before + 30_000,
        "reservation released"
    );
    let (status, again) = post(&app, &admins_key, &cancel, Value::Null).await;
    assert_eq!(
        (status, &again["error"]["code"]),
        (409, &json!("invalid_state_transition"))
    );
    assert_eq!(audited(&app, "payout.cancelled").await, 1);
}

#[tokio::test]
async fn payouts_to_one_account_within_a_day_are_summed_against_the_threshold() {
    let (app, _owner) = merchant_with_threshold().await;
    let key = app.merchant.api_key.clone();
    // 60.00 + 60.00 EUR to one account, written two ways: the second reaches 100.00.
    let (_, first) = pay_out(&app, &key, 6_000, IBAN).await;
    assert_eq!(first["status"], "pending");
    let spaced = "DE89 3704 0044 0532 0130 00";
    assert_eq!(spaced.replace(' ', ""), IBAN);
    let (status, second) = pay_out(&app, &key, 6_000, spaced).await;
    assert_eq!(
        (status, second["status"].as_str()),
        (201, Some("pending_approval"))
    );
    // Another account is counted apart.
    let (_, elsewhere) = pay_out(&app, &key, 6_000, "DE44500105175407324931").await;
    assert_eq!(elsewhere["status"], "pending");

    // Halves sent at once to a fresh account are summed too: one of the two waits.
    let halves = (0..2).map(|_| pay_out(&app, &key, 5_000, "GB82WEST12345698765432"));
    let halves = join_all(halves).await;
    let mut statuses: Vec<&str> = halves
        .iter()
        .map(|(_, payout)| payout["status"].as_str().unwrap())
        .collect();
    statuses.sort();
    assert_eq!(statuses, ["pending", "pending_approval"]);
}

/// The invitation `link` is gone: its page says so (`410`), and joining with it is refused.
async fn assert_refused(app: &TestApp, link: &str) {
    let url = format!("{}{link}", app.base_url);
    let shown = browser_client().get(&url).send().await.unwrap();
    assert_eq!(shown.status(), 410, "{link}");
    let visitor = Visitor::arrive(&app.base_url).await;
    let joined = visitor
        .client
        .post(&url)
        .header("cookie", &visitor.cookie)
        .form(&[
            ("csrf", visitor.csrf.as_str()),
            ("password", "a good password"),
        ])
        .send()
        .await
        .unwrap();
    let location = joined.headers()["location"].to_str().unwrap();
    assert!(location.ends_with("error=invitation_gone"), "{location}");
}

/// Invites `email` as `role` with the team page's form as `browser`: the link shown once.
async fn invitation(app: &TestApp, browser: &Browser, email: &str, role: &str) -> String {
    assert_eq!(invite(app, browser, email, role).await.0, 303);
    shown_invitation_link(app, browser).await
}

#[tokio::test]
async fn invitations_are_revocable_and_die_with_their_inviter() {
    let (app, owner) = merchant_with_threshold().await;
    let admin = signed_in_as(&app, "admin@shop.test", Some(Role::Admin)).await;
    let outsiders = invitation(&app, &admin, "outsider@elsewhere.test", "admin").await;
    let seconds = invitation(&app, &admin, "second@elsewhere.test", "viewer").await;
    let thirds = invitation(&app, &owner, "third@elsewhere.test", "finance").await;

    // Listed with Revoke; revoking one stops its link.
    let third: String =
        sqlx::query_scalar("SELECT id FROM invitations WHERE email = 'third@elsewhere.test'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let revoke = format!("/settings/team/invitations/{third}/revoke");
    assert!(page(&app, &owner, "/settings/team").await.contains(&revoke));
    assert_eq!(submit(&app, &owner, &revoke, &[]).await.0, 303);
    assert_refused(&app, &thirds).await;
    let team = page(&app, &owner, "/settings/team").await;
    assert!(!team.contains("third@elsewhere.test"), "no longer listed");

    // The inviter is removed: both of its links stop.
    remove(&app, &owner, "admin@shop.test").await;
    for link in [&outsiders, &seconds] {
        assert_refused(&app, link).await;
    }
    let joined: i64 =
        sqlx::query_scalar("SELECT count(*) FROM users WHERE email LIKE '%@elsewhere.test'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(joined, 0);
    assert_eq!(audited(&app, "member.invitation_revoked").await, 1);
}
