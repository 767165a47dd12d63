//! Two-step sign-in (API.md §9, §11; issue 19 item 2) through the console's real forms over
//! HTTP, codes computed from the secret the page shows as an authenticator app would
//! (`totp-rs`): enrolment and sign-in, a code works once, a recovery code works once, wrong
//! codes are throttled, step-up before a payout (and endpoint and team changes), a merchant's
//! requirement forces enrolment, the secret is sealed at rest, and an operator's reset.

use crate::common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use app::console::Role;
use reqwest::Client;
use serde_json::{json, Value};
use totp_rs::{Algorithm, Secret, TOTP};

use common::browser::{get, hidden, page, signed_in_as, submit_from, Browser};
use common::{count, first_cookie, spawn_app, spawn_app_with, TestApp, Visitor};

/// The code an authenticator app shows for `secret` (base32) `offset` seconds from now.
fn code(secret: &str, offset: i64) -> String {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
    let totp = TOTP::new(Algorithm::SHA1, 6, 1, 30, bytes).unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    totp.generate((now + offset) as u64)
}

/// The next step's code: accepted now (a step's neighbours are) and later than any code given
/// before it in this test.
fn next_code(secret: &str) -> String {
    code(secret, 30)
}

/// The text of the element after `marker` in `html`, up to the next tag.
fn text_after<'a>(html: &'a str, marker: &str) -> Option<&'a str> {
    html.split(marker).nth(1)?.split('<').next()
}

/// Sets two-step sign-in up for the signed-in `browser`: its secret (base32) and the ten
/// recovery codes, as the pages show them.
async fn enrol(app: &TestApp, browser: &Browser) -> (String, Vec<String>) {
    let html = page(app, browser, "/settings/security").await;
    assert!(
        html.contains("<svg"),
        "a QR code drawn on the server: {html}"
    );
    let secret = text_after(&html, r#"class="totp-secret">"#)
        .unwrap_or_else(|| panic!("the secret is shown: {html}"))
        .to_owned();
    assert_eq!(secret.len(), 32, "160 bits in base32: {secret}");
    let (status, location) = submit_from(
        app,
        browser,
        "/settings/security",
        "/settings/security/confirm",
        &[("code", &code(&secret, 0))],
    )
    .await;
    assert_eq!((status, location.as_str()), (303, "/settings/security"));
    let html = page(app, browser, "/settings/security").await;
    let codes: Vec<String> = html
        .split("<li><code>")
        .skip(1)
        .map(|rest| rest.split('<').next().unwrap().to_owned())
        .collect();
    assert_eq!(codes.len(), 10, "ten recovery codes: {html}");
    let again = page(app, browser, "/settings/security").await;
    assert!(!again.contains(&codes[0]), "recovery codes are shown once");
    assert!(!again.contains(&secret), "the secret is never shown again");
    assert!(again.contains(r#"data-testid="two-factor-on""#), "{again}");
    (secret, codes)
}

/// A sign-in whose password was right and which waits for its code: the visitor's client,
/// session cookie and the code form's CSRF token.
async fn password_step(app: &TestApp, email: &str) -> (Client, String, String) {
    let visitor = Visitor::arrive(&app.base_url).await;
    let answer = visitor.submit(email, "right-password").await;
    assert_eq!(answer.status(), 303);
    assert_eq!(answer.headers()["location"], "/login", "asked for a code");
    let cookie = first_cookie(&answer);
    let login = visitor
        .client
        .get(format!("{}/login", app.base_url))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(login.contains("Authentication code"), "{login}");
    assert!(login.contains(">Verify</button>"), "{login}");
    assert!(!login.contains(r#"name="password""#), "{login}");
    let not_yet = visitor
        .client
        .get(format!("{}/", app.base_url))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(
        not_yet.headers()["location"],
        "/login",
        "not signed in before the code"
    );
    (visitor.client, cookie, hidden(&login, "csrf"))
}

/// The second step: where it sends the browser, and the browser when it is signed in.
async fn code_step(
    app: &TestApp,
    (client, cookie, csrf): &(Client, String, String),
    code: &str,
) -> (String, Browser) {
    let answer = client
        .post(format!("{}/login/code", app.base_url))
        .header("cookie", cookie)
        .form(&[("csrf", csrf.as_str()), ("code", code)])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303);
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    let cookie = match answer.headers().get("set-cookie") {
        Some(_) => first_cookie(&answer),
        None => cookie.clone(),
    };
    (location, (client.clone(), cookie))
}

/// The second factor the app's merchant's sign-ins of `email` were recorded with, oldest first.
async fn sign_in_factors(app: &TestApp, email: &str) -> Vec<Value> {
    sqlx::query_scalar(
        "SELECT after->'second_factor' FROM audit_log \
         WHERE merchant_id = $1 AND action = 'user.signed_in' AND actor = $2 \
         ORDER BY created_at, id",
    )
    .bind(&app.merchant.id)
    .bind(email)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

async fn audited(app: &TestApp, action: &str) -> Vec<(String, String, Option<Value>)> {
    sqlx::query_as(
        "SELECT actor_kind, actor, after FROM audit_log \
         WHERE merchant_id = $1 AND action = $2 ORDER BY created_at, id",
    )
    .bind(&app.merchant.id)
    .bind(action)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn an_enrolled_member_signs_in_with_a_code_which_works_once_and_its_secret_is_sealed() {
    let app = spawn_app().await;
    let email = "owner@2fa.test";
    let browser = signed_in_as(&app, email, Some(Role::Owner)).await;
    let (secret, _) = enrol(&app, &browser).await;
    let enrolled = audited(&app, "two_factor.enrolled").await;
    assert_eq!(enrolled.len(), 1, "{enrolled:?}");
    assert_eq!(
        (enrolled[0].0.as_str(), enrolled[0].1.as_str()),
        ("user", email)
    );

    // At rest, the secret is sealed: neither its base32 nor its bytes are in the row.
    let sealed: Vec<u8> = sqlx::query_scalar(
        "SELECT t.secret_sealed FROM two_factor t JOIN users u ON u.id = t.user_id \
         WHERE u.email = $1 AND t.confirmed_at IS NOT NULL",
    )
    .bind(email)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let raw = Secret::Encoded(secret.clone()).to_bytes().unwrap();
    assert!(!sealed.windows(raw.len()).any(|part| part == raw.as_slice()));
    assert!(!sealed
        .windows(secret.len())
        .any(|part| part == secret.as_bytes()));
    assert_eq!(sealed.len(), 24 + raw.len() + 16, "nonce, ciphertext, tag");

    // The password alone signs nobody in; the code does, once.
    let code = next_code(&secret);
    let waiting = password_step(&app, email).await;
    let (location, signed) = code_step(&app, &waiting, &code).await;
    assert_eq!(location, "/");
    assert_eq!(get(&app, &signed, "/").await.status(), 200);
    assert_eq!(
        sign_in_factors(&app, email).await.last(),
        Some(&json!("totp"))
    );

    let again = password_step(&app, email).await;
    let (location, _) = code_step(&app, &again, &code).await;
    assert_eq!(location, "/login?error=code", "a code is accepted once");
    let refused: i64 = count(
        &app.pool,
        "audit_log WHERE action = 'user.sign_in_failed' AND after->>'second_factor' = 'wrong_code'",
    )
    .await;
    assert_eq!(refused, 1);
}

#[tokio::test]
async fn one_code_given_twice_at_once_signs_in_once() {
    let app = spawn_app().await;
    let email = "race@2fa.test";
    let browser = signed_in_as(&app, email, Some(Role::Owner)).await;
    let (secret, _) = enrol(&app, &browser).await;
    let code = next_code(&secret);
    let (first, second) = (
        password_step(&app, email).await,
        password_step(&app, email).await,
    );
    let (first, second) = tokio::join!(
        code_step(&app, &first, &code),
        code_step(&app, &second, &code)
    );
    let mut landings = [first.0, second.0];
    landings.sort();
    assert_eq!(landings, ["/", "/login?error=code"], "accepted once");
}

#[tokio::test]
async fn a_recovery_code_signs_in_once() {
    let app = spawn_app().await;
    let email = "finance@2fa.test";
    let browser = signed_in_as(&app, email, Some(Role::Finance)).await;
    let (_, codes) = enrol(&app, &browser).await;

    let waiting = password_step(&app, email).await;
    let typed = codes[3].to_uppercase();
    let (location, signed) = code_step(&app, &waiting, &typed).await;
    assert_eq!(location, "/", "a recovery code, typed in capitals");
    assert_eq!(get(&app, &signed, "/").await.status(), 200);
    assert_eq!(
        sign_in_factors(&app, email).await.last(),
        Some(&json!("recovery_code"))
    );
    let security = page(&app, &signed, "/settings/security").await;
    assert!(security.contains("9 recovery codes left"), "{security}");
    assert_eq!(
        audited(&app, "two_factor.recovery_code_used").await,
        [("user".into(), email.into(), Some(json!({"for": "sign_in"})))],
        "a recovery code's use is audited"
    );

    let again = password_step(&app, email).await;
    let (location, _) = code_step(&app, &again, &codes[3]).await;
    assert_eq!(location, "/login?error=code", "a recovery code works once");
}

#[tokio::test]
async fn wrong_codes_count_in_the_sign_in_throttle() {
    let app = spawn_app().await;
    let email = "admin@2fa.test";
    let browser = signed_in_as(&app, email, Some(Role::Admin)).await;
    let (secret, _) = enrol(&app, &browser).await;
    let right: Vec<String> = [-30, 0, 30, 60].map(|offset| code(&secret, offset)).into();
    let wrong = (0..10)
        .map(|digit| digit.to_string().repeat(6))
        .find(|guess| !right.contains(guess))
        .unwrap();

    let waiting = password_step(&app, email).await;
    for _ in 0..5 {
        let (location, _) = code_step(&app, &waiting, &wrong).await;
        assert_eq!(location, "/login?error=code");
    }
    let (location, _) = code_step(&app, &waiting, &next_code(&secret)).await;
    assert_eq!(
        location, "/login?error=throttled",
        "after five wrong codes even the right one is not checked"
    );
    let password = Visitor::arrive(&app.base_url)
        .await
        .sign_in(email, "right-password")
        .await;
    assert_eq!(password, "/login?error=throttled", "nor is the password");
}

/// Submits the new-payout form of 1.00 EUR under `key`, each a payout of its own ("Do it again"
/// past the repeat guard, which `console/forms.rs` tests).
async fn pay_out(app: &TestApp, browser: &Browser, key: &str) -> (u16, String) {
    let fields = [
        ("again", "1"),
        ("idempotency_key", key),
        ("amount", "1.00"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", "DE89370400440532013000"),
    ];
    submit_from(app, browser, "/payouts/new", "/payouts", &fields).await
}

#[tokio::test]
async fn a_payout_endpoint_or_team_change_needs_a_recent_code() {
    let app = spawn_app_with(&["--step-up-window", "3s"]).await;
    app.fund(10_000).await;
    let browser = signed_in_as(&app, "owner@2fa.test", Some(Role::Owner)).await;
    let (secret, _) = enrol(&app, &browser).await;
    // The code that confirmed the enrolment is recent: the payout goes through.
    let (status, location) = pay_out(&app, &browser, "step-up-1").await;
    assert_eq!(status, 303);
    assert!(location.starts_with("/payouts/po_"), "{location}");

    tokio::time::sleep(Duration::from_millis(3_500)).await;
    let (status, location) = pay_out(&app, &browser, "step-up-2").await;
    assert_eq!(
        (status, location.as_str()),
        (303, "/step-up?back=%2Fpayouts%2Fnew"),
        "asked for a code"
    );
    assert_eq!(count(&app.pool, "payouts").await, 1, "no payout without it");
    let (_, location) = submit_from(
        &app,
        &browser,
        "/webhooks",
        "/webhooks/endpoints",
        &[
            ("idempotency_key", "step-up-endpoint"),
            ("url", "http://127.0.0.1:9/hooks"),
        ],
    )
    .await;
    assert_eq!(location, "/step-up?back=%2Fwebhooks");
    let (_, location) = submit_from(
        &app,
        &browser,
        "/settings/team",
        "/settings/team/invitations",
        &[("email", "new@2fa.test"), ("role", "viewer")],
    )
    .await;
    assert_eq!(location, "/step-up?back=%2Fsettings%2Fteam");
    assert_eq!(count(&app.pool, "webhook_endpoints").await, 0);
    assert_eq!(count(&app.pool, "invitations").await, 0);

    // The payout form again (the other forms' step-ups kept theirs since): kept for the code.
    let (_, location) = pay_out(&app, &browser, "step-up-2").await;
    assert_eq!(location, "/step-up?back=%2Fpayouts%2Fnew");
    let asked = page(&app, &browser, "/step-up?back=%2Fpayouts%2Fnew").await;
    assert!(asked.contains("Authentication code"), "{asked}");
    assert!(asked.contains(">Verify</button>"), "{asked}");
    assert!(
        asked.contains("You are confirming a change on: New payout."),
        "the page says what is confirmed: {asked}"
    );
    let (_, location) = submit_from(
        &app,
        &browser,
        "/step-up?back=%2Fpayouts%2Fnew",
        "/step-up",
        &[("code", "123"), ("back", "/payouts/new")],
    )
    .await;
    assert_eq!(location, "/step-up?back=%2Fpayouts%2Fnew&error=code");
    assert!(audited(&app, "two_factor.step_up").await.is_empty());
    let (_, location) = submit_from(
        &app,
        &browser,
        "/step-up?back=%2Fpayouts%2Fnew",
        "/step-up",
        &[("code", &next_code(&secret)), ("back", "/payouts/new")],
    )
    .await;
    assert_eq!(location, "/payouts/new", "back to the form");
    // The form comes back as it was submitted, with its key, and nothing is done until it is
    // submitted again.
    let resumed = page(&app, &browser, "/payouts/new").await;
    assert_eq!(
        hidden(&resumed, "idempotency_key"),
        "step-up-2",
        "{resumed}"
    );
    assert!(
        resumed.contains(r#"value="1.00""#) && resumed.contains(r#"value="Ada Lovelace""#),
        "{resumed}"
    );
    assert!(resumed.contains("New payout"), "{resumed}");
    assert_eq!(count(&app.pool, "payouts").await, 1, "nothing done yet");
    assert_eq!(
        audited(&app, "two_factor.step_up").await,
        [(
            "user".into(),
            "owner@2fa.test".into(),
            Some(json!({"second_factor": "totp"}))
        )],
        "the step-up is audited"
    );
    let (status, location) = pay_out(&app, &browser, "step-up-3").await;
    assert_eq!(status, 303);
    assert!(location.starts_with("/payouts/po_"), "{location}");

    // A member without two-step sign-in is not asked (unless the merchant requires it).
    let plain = signed_in_as(&app, "plain@2fa.test", Some(Role::Finance)).await;
    let (_, location) = pay_out(&app, &plain, "no-step-up").await;
    assert!(location.starts_with("/payouts/po_"), "{location}");
}

#[tokio::test]
async fn a_merchant_that_requires_two_step_sign_in_lets_members_only_enrol() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "owner@2fa.test", Some(Role::Owner)).await;
    let viewer = signed_in_as(&app, "viewer@2fa.test", Some(Role::Viewer)).await;
    assert_eq!(get(&app, &viewer, "/").await.status(), 200);

    // A viewer may not require it; an owner may.
    let (status, _) = submit_from(
        &app,
        &viewer,
        "/settings/security",
        "/settings/security/required",
        &[("required", "on")],
    )
    .await;
    assert_eq!(status, 403);
    let (status, location) = submit_from(
        &app,
        &owner,
        "/settings/security",
        "/settings/security/required",
        &[("required", "on")],
    )
    .await;
    assert_eq!((status, location.as_str()), (303, "/settings/security"));
    let changed = audited(&app, "two_factor.requirement_changed").await;
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0].2, Some(json!({"required": true})));

    for path in ["/", "/payouts", "/settings/team", "/webhooks"] {
        let answer = get(&app, &viewer, path).await;
        assert_eq!(answer.status(), 303, "{path}");
        assert_eq!(answer.headers()["location"], "/settings/security", "{path}");
    }
    let required = page(&app, &viewer, "/settings/security").await;
    assert!(
        required.contains("Your team requires two-step sign-in"),
        "{required}"
    );
    enrol(&app, &viewer).await;
    assert_eq!(get(&app, &viewer, "/").await.status(), 200, "enrolled");
    assert_eq!(
        get(&app, &owner, "/payouts").await.headers()["location"],
        "/settings/security",
        "the owner too, until enrolled"
    );
}

/// `kaadxpay users reset-two-factor --email <email>` on the app's database, by the operator
/// `ops-alice`.
fn reset_two_factor(app: &TestApp, email: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(["users", "reset-two-factor", "--email", email])
        .env("DATABASE_URL", &app.db_url)
        .env("USER", "ops-alice")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[tokio::test]
async fn an_operator_resets_a_lost_phone_from_the_command_line() {
    let app = spawn_app().await;
    let email = "lost-phone@2fa.test";
    let browser = signed_in_as(&app, email, Some(Role::Owner)).await;
    enrol(&app, &browser).await;
    password_step(&app, email).await;

    let output = reset_two_factor(&app, "Lost-Phone@2fa.test");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(count(&app.pool, "two_factor").await, 0);
    assert_eq!(count(&app.pool, "two_factor_recovery_codes").await, 0);
    let reset = audited(&app, "two_factor.reset").await;
    assert_eq!(reset.len(), 1);
    assert_eq!(
        (reset[0].0.as_str(), reset[0].1.as_str()),
        ("operator", "ops-alice")
    );

    let landing = Visitor::arrive(&app.base_url)
        .await
        .sign_in(email, "right-password")
        .await;
    assert_eq!(landing, "/", "the password alone signs in again");
    assert_eq!(
        sign_in_factors(&app, email).await.last(),
        Some(&json!("none"))
    );

    let unknown = reset_two_factor(&app, "nobody@2fa.test");
    assert!(!unknown.status.success(), "an unknown email is an error");
}
