//! Forms and people (API.md §9) over plain HTTP: a refused submit comes back as typed with the
//! reason beside its field, amounts as people write them, the payout form's currencies and
//! what is available in each, and the repeat guard (Back, then submit again under a new key)
//! for payouts, API keys, secret rotations and invitations.

use crate::common;

use app::console::Role;

use common::browser::{get, hidden, page, signed_in_as, submit, submit_from, Browser};
use common::{count, json, spawn_app, TestApp, IBAN};

/// The new-payout form with `key`, `amount` EUR and the test IBAN: the answer's status and
/// where it sends the browser.
async fn pay_out(app: &TestApp, browser: &Browser, key: &str, amount: &str) -> (u16, String) {
    let fields = [
        ("idempotency_key", key),
        ("amount", amount),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", IBAN),
    ];
    submit_from(app, browser, "/payouts/new", "/payouts", &fields).await
}

/// Funds the merchant with `amount` minor units of `currency` (an order, captured).
async fn fund_in(app: &TestApp, currency: &str, amount: i64) {
    let body = format!(r#"{{"amount": {amount}, "currency": "{currency}"}}"#);
    let key = format!("fund-{currency}-{amount}");
    let order = json(app.post("/v1/orders", Some(&key), &body).await).await;
    let path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
    let captured = app.put(&path, r#"{"status": "captured"}"#).await;
    assert_eq!(captured.status(), 200);
}

/// The input (or select) element named `name` in `html`, up to its `>`.
fn element<'a>(html: &'a str, name: &str) -> &'a str {
    let at = html
        .find(&format!("name=\"{name}\""))
        .unwrap_or_else(|| panic!("no field {name}: {html}"));
    let start = html[..at].rfind('<').unwrap();
    &html[start..at + html[at..].find('>').unwrap()]
}

#[tokio::test]
async fn a_refused_payout_comes_back_as_typed_with_the_reason_beside_its_field() {
    let app = spawn_app().await;
    app.fund(1_000).await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;

    let (status, location) = pay_out(&app, &owner, "too-much", "1 000,00").await;
    assert_eq!((status, location.as_str()), (303, "/payouts/new"));
    let form = page(&app, &owner, "/payouts/new").await;
    let amount = element(&form, "amount");
    assert!(amount.contains(r#"value="1 000,00""#), "{amount}");
    assert!(amount.contains(r#"aria-invalid="true""#), "{amount}");
    assert!(
        amount.contains(r#"aria-describedby="amount-reason""#),
        "{amount}"
    );
    assert!(
        form.contains(r#"id="amount-reason""#) && form.contains("10.00 EUR is available"),
        "the reason beside the amount says what is available: {form}"
    );
    assert!(element(&form, "account_holder").contains(r#"value="Ada Lovelace""#));
    assert!(element(&form, "iban").contains(&format!(r#"value="{IBAN}""#)));
    assert!(!element(&form, "iban").contains("aria-invalid"));
    assert_ne!(
        hidden(&form, "idempotency_key"),
        "too-much",
        "a refused form is a new intent"
    );
    assert_eq!(count(&app.pool, "payouts").await, 0);

    // Shown once: the next visit is an empty form.
    let again = page(&app, &owner, "/payouts/new").await;
    assert!(!again.contains("1 000,00"), "{again}");

    // A bad IBAN: the reason is beside the IBAN, the amount kept.
    let fields = [
        ("idempotency_key", "bad-iban"),
        ("amount", "2,50"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", "DE00 not an iban"),
    ];
    submit_from(&app, &owner, "/payouts/new", "/payouts", &fields).await;
    let form = page(&app, &owner, "/payouts/new").await;
    let iban = element(&form, "iban");
    assert!(
        iban.contains(r#"aria-invalid="true""#) && iban.contains("DE00 not an iban"),
        "{iban}"
    );
    assert!(form.contains(r#"id="iban-reason""#), "{form}");
    assert!(element(&form, "amount").contains(r#"value="2,50""#));
}

#[tokio::test]
async fn amounts_are_read_as_people_write_them() {
    let app = spawn_app().await;
    app.fund(1_000_000).await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;
    for (key, typed, cents) in [
        ("point", "12.50", 1_250_i64),
        ("comma", "12,51", 1_251),
        ("grouped", "1 234.50", 123_450),
    ] {
        let (status, location) = pay_out(&app, &owner, key, typed).await;
        assert_eq!(status, 303);
        assert!(location.starts_with("/payouts/po_"), "{typed}: {location}");
        let id = location.trim_start_matches("/payouts/");
        let amount: i64 = sqlx::query_scalar("SELECT amount FROM payouts WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
        assert_eq!(amount, cents, "{typed}");
    }
}

#[tokio::test]
async fn the_payout_form_offers_every_currency_with_a_balance_and_what_is_available() {
    let app = spawn_app().await;
    app.fund(1_000).await;
    fund_in(&app, "CHF", 50_000).await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;
    let form = page(&app, &owner, "/payouts/new").await;
    assert!(form.contains(r#"<option value="CHF""#), "{form}");
    assert!(form.contains(r#"<option value="EUR""#), "{form}");
    assert!(
        !form.contains(r#"<option value="JPY""#),
        "no balance in JPY: {form}"
    );
    assert!(
        form.contains("500.00 CHF") && form.contains("10.00 EUR"),
        "{form}"
    );
}

#[tokio::test]
async fn back_then_submit_again_under_a_new_key_is_held_back_as_a_repeat() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;
    let (_, first) = pay_out(&app, &owner, "first-form", "1.00").await;
    assert!(first.starts_with("/payouts/po_"), "{first}");

    // Back, then the form again: the same fields under another key do nothing.
    let (status, location) = pay_out(&app, &owner, "second-form", "1,00").await;
    assert_eq!((status, location.as_str()), (303, "/repeat"));
    assert_eq!(count(&app.pool, "payouts").await, 1);
    let shown = get(&app, &owner, "/repeat").await;
    assert_eq!(shown.status(), 200);
    let repeat = shown.text().await.unwrap();
    assert!(
        repeat.contains("<title>This looks like a repeat</title>"),
        "{repeat}"
    );
    assert!(
        repeat.contains("<h1>This looks like a repeat</h1>"),
        "{repeat}"
    );
    assert!(repeat.contains(&format!("href=\"{first}\"")), "{repeat}");
    assert!(repeat.contains(">Do it again</button>"), "{repeat}");
    assert_eq!(hidden(&repeat, "idempotency_key"), "second-form");

    // A double click of the first form never reaches the guard: the first payout.
    let (_, location) = pay_out(&app, &owner, "first-form", "1.00").await;
    assert_eq!(location, first);

    // "Do it again": the new key makes the second payout, and stays that one.
    let mut again: Vec<(&str, &str)> = vec![
        ("idempotency_key", "second-form"),
        ("amount", "1,00"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", IBAN),
        ("again", "1"),
    ];
    let (_, second) = submit(&app, &owner, "/payouts", &again).await;
    assert!(
        second.starts_with("/payouts/po_") && second != first,
        "{second}"
    );
    again.pop();
    assert_eq!(submit(&app, &owner, "/payouts", &again).await.1, second);
    assert_eq!(count(&app.pool, "payouts").await, 2);

    // Another amount is no repeat.
    let (_, third) = pay_out(&app, &owner, "third-form", "2.00").await;
    assert!(third.starts_with("/payouts/po_"), "{third}");
}

#[tokio::test]
async fn api_keys_rotations_and_invitations_are_guarded_too() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;
    let key = |name: &'static str, form: &'static str| {
        [
            ("idempotency_key", form),
            ("name", name),
            ("access", "read_write"),
        ]
    };
    let keys = "SELECT count(*) FROM api_keys WHERE name = 'Shop'";
    let keys_named =
        async || -> i64 { sqlx::query_scalar(keys).fetch_one(&app.pool).await.unwrap() };
    assert_eq!(
        submit(&app, &owner, "/settings/keys", &key("Shop", "key-1"))
            .await
            .1,
        "/settings/keys"
    );
    assert_eq!(
        submit(&app, &owner, "/settings/keys", &key("Shop", "key-2"))
            .await
            .1,
        "/repeat"
    );
    assert_eq!(keys_named().await, 1, "no second key of the same name");
    assert!(page(&app, &owner, "/repeat")
        .await
        .contains("This looks like a repeat"));
    assert_eq!(
        submit(&app, &owner, "/settings/keys", &key("Other", "key-3"))
            .await
            .1,
        "/settings/keys"
    );

    let endpoint = json(
        app.post(
            "/v1/webhook-endpoints",
            Some("endpoint"),
            r#"{"url": "http://127.0.0.1:9/hooks"}"#,
        )
        .await,
    )
    .await;
    let rotate = format!(
        "/webhooks/endpoints/{}/rotate",
        endpoint["id"].as_str().unwrap()
    );
    let rotation = |form: &'static str| [("idempotency_key", form), ("overlap", "1h")];
    assert_eq!(
        submit(&app, &owner, &rotate, &rotation("rotate-1")).await.1,
        "/webhooks"
    );
    assert_eq!(
        submit(&app, &owner, &rotate, &rotation("rotate-2")).await.1,
        "/repeat"
    );
    let rotations =
        "SELECT count(*) FROM audit_log WHERE action = 'webhook_endpoint.secret_rotated'";
    let rotated: i64 = sqlx::query_scalar(rotations)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(rotated, 1, "one rotation");

    let invitation = |form: &'static str| {
        [
            ("idempotency_key", form),
            ("email", "new@forms.test"),
            ("role", "viewer"),
        ]
    };
    let team = "/settings/team/invitations";
    assert!(submit(&app, &owner, team, &invitation("invite-1"))
        .await
        .1
        .starts_with("/settings/team"));
    assert_eq!(
        submit(&app, &owner, team, &invitation("invite-2")).await.1,
        "/repeat"
    );
    assert_eq!(count(&app.pool, "invitations").await, 1);
}

/// A form's key that is no key (API.md §2: here with a space, too long, or empty) is refused
/// where the form is read, as the API refuses it, before the repeat guard or the backend see
/// it: the form comes back as typed with a new key, and nothing is made or held back, even
/// with the fields of a payout made a moment ago.
#[tokio::test]
async fn a_form_whose_key_is_no_key_is_refused_before_anything_reads_it() {
    let app = spawn_app().await;
    app.fund(10_000).await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;
    let (_, first) = pay_out(&app, &owner, "first-form", "1.00").await;
    assert!(first.starts_with("/payouts/po_"), "{first}");

    let too_long = "k".repeat(256);
    for no_key in ["a b", too_long.as_str(), ""] {
        let (status, location) = pay_out(&app, &owner, no_key, "1.00").await;
        assert_eq!(
            (status, location.as_str()),
            (303, "/payouts/new"),
            "{no_key}"
        );
        let form = page(&app, &owner, "/payouts/new").await;
        assert!(form.contains("This form has expired"), "{form}");
        assert!(
            element(&form, "amount").contains(r#"value="1.00""#),
            "{form}"
        );
        assert_ne!(hidden(&form, "idempotency_key"), no_key);
    }
    assert_eq!(count(&app.pool, "payouts").await, 1);
    assert_eq!(count(&app.pool, "console_submits").await, 1);
}

/// "Run reconciliation now" with `key` for the day `date`: where it sends the browser.
async fn run_now(app: &TestApp, browser: &Browser, key: &str, date: &str) -> (u16, String) {
    let fields = [("idempotency_key", key), ("date", date)];
    submit(app, browser, "/reconciliation/run", &fields).await
}

/// "Run reconciliation now" reads its day and its key where the form is: a day that is none is
/// refused, named `date` (checked first), and a key that is none as the API refuses it; neither
/// runs anything.
#[tokio::test]
async fn run_now_refuses_a_day_or_a_key_that_is_none_and_runs_nothing() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "owner@forms.test", Some(Role::Owner)).await;
    let no_day = (
        303,
        "/reconciliation?error=invalid%5Frequest&param=date".to_owned(),
    );
    for date in ["2026-02-30", "30/11/2026", "2026-12-6x", ""] {
        assert_eq!(
            run_now(&app, &owner, "run-form", date).await,
            no_day,
            "{date}"
        );
    }
    assert_eq!(run_now(&app, &owner, "a b", "someday").await, no_day);
    let today = chrono::Utc::now().date_naive().to_string();
    assert_eq!(
        run_now(&app, &owner, "a b", &today).await,
        (
            303,
            "/reconciliation?error=idempotency%5Fkey%5Finvalid".to_owned()
        )
    );
    let refused = page(&app, &owner, &no_day.1).await;
    assert!(refused.contains("Enter a day as YYYY-MM-DD."), "{refused}");
    assert_eq!(count(&app.pool, "reconciliation_runs").await, 0);

    let (_, ran) = run_now(&app, &owner, "run-form", &today).await;
    assert!(ran.starts_with("/reconciliation/rec_"), "{ran}");
}
