//! A second pair of eyes on large payouts (issue 19 item 5, API.md §4, §9, §11), through the
//! console's real forms, the API and the real payout worker paying the in-process partner
//! simulator: at or above the threshold a payout (console or API) waits in `pending_approval`
//! with its amount reserved and nothing sent to the partner; its creator cannot approve it;
//! another member's approval gets it paid, a rejection gives the amount back; twenty approvals
//! at once, or approvals racing rejections, make one outcome and at most one transfer; API keys
//! and the roles that may not get `403`; the events reach the outbox and the audit log has
//! every step.

use crate::common;

use std::time::Duration;

use app::console::Role;
use futures::future::join_all;
use serde_json::{json, Value};

use common::browser::{get, hidden, page, signed_in_as, submit, Browser};
use common::{
    count, error_code, eventually, json, partner_transfers_of, spawn_app_and_partner, TestApp,
};
use kaadxpay_partner_sim::scenarios::{Scenario, MAGIC_IBANS};

const FUNDS: i64 = 1_000_000;

fn paid_iban() -> &'static str {
    MAGIC_IBANS
        .iter()
        .find(|magic| magic.scenario == Scenario::Paid)
        .unwrap()
        .iban
}

/// An app paying the in-process simulator with a quick worker, funded with [`FUNDS`] EUR cents.
async fn funded_app() -> (TestApp, String) {
    let (app, partner_url) = spawn_app_and_partner(
        0,
        &["--payout-interval", "100ms", "--payout-retry-base", "200ms"],
    )
    .await;
    app.fund(FUNDS).await;
    (app, partner_url)
}

/// The partner's transfers of payout `id`.
async fn transfers_of(partner_url: &str, id: &str) -> usize {
    partner_transfers_of(partner_url, id).await.len()
}

async fn status_of(app: &TestApp, id: &str) -> String {
    sqlx::query_scalar("SELECT status FROM payouts WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn wait_for(app: &TestApp, id: &str, status: &str) {
    eventually(
        Duration::from_secs(20),
        &format!("{id} {status}"),
        || async { status_of(app, id).await == status },
    )
    .await;
}

/// Sets the EUR threshold through the console's form as `browser`: the answer's status.
async fn set_threshold(app: &TestApp, browser: &Browser, amount: &str) -> (u16, String) {
    submit(
        app,
        browser,
        "/settings/payouts",
        &[("amount", amount), ("currency", "EUR")],
    )
    .await
}

/// A payout of `amount` (major units) made with the console's form as `browser`; its id.
async fn console_payout(app: &TestApp, browser: &Browser, key: &str, amount: &str) -> String {
    let (status, location) = submit(
        app,
        browser,
        "/payouts",
        &[
            ("idempotency_key", key),
            ("amount", amount),
            ("currency", "EUR"),
            ("account_holder", "Ada Lovelace"),
            ("iban", paid_iban()),
        ],
    )
    .await;
    assert_eq!(status, 303);
    location
        .strip_prefix("/payouts/")
        .expect("lands on the payout")
        .to_owned()
}

/// `POST /v1/payouts` of `amount` cents under `key`: the answer's status and body.
async fn api_payout(app: &TestApp, key: &str, amount: i64) -> (u16, Value) {
    let body = json!({"amount": amount, "currency": "EUR",
        "destination": {"account_holder": "Grace Hopper", "iban": paid_iban()}});
    let answer = app.post("/v1/payouts", Some(key), &body.to_string()).await;
    (answer.status().as_u16(), json(answer).await)
}

/// Approves or rejects payout `id` with the form `browser` was shown (its key minted then).
async fn decide(
    app: &TestApp,
    browser: &Browser,
    id: &str,
    verb: &str,
    key: &str,
) -> (u16, String) {
    submit(
        app,
        browser,
        &format!("/payouts/{id}/{verb}"),
        &[("idempotency_key", key)],
    )
    .await
}

async fn events(app: &TestApp, event_type: &str) -> i64 {
    count(
        &app.pool,
        &format!("events WHERE event_type = '{event_type}'"),
    )
    .await
}

async fn audited(app: &TestApp, action: &str) -> i64 {
    count(&app.pool, &format!("audit_log WHERE action = '{action}'")).await
}

#[tokio::test]
async fn a_large_payout_waits_for_another_member_who_approves_or_rejects_it() {
    let (app, partner_url) = funded_app().await;
    let owner = signed_in_as(&app, "owner@approvals.test", Some(Role::Owner)).await;
    let maker = signed_in_as(&app, "maker@approvals.test", Some(Role::Finance)).await;
    let developer = signed_in_as(&app, "dev@approvals.test", Some(Role::Developer)).await;
    let viewer = signed_in_as(&app, "viewer@approvals.test", Some(Role::Viewer)).await;

    // The owner sets 500.00 EUR; the page lists it and the audit log has the change.
    assert_eq!(
        set_threshold(&app, &owner, "500.00").await,
        (303, "/settings/payouts".to_owned())
    );
    let settings = page(&app, &owner, "/settings/payouts").await;
    for label in ["Approval threshold", "Currency", "Save", "500.00"] {
        assert!(settings.contains(label), "{label}: {settings}");
    }
    assert!(page(&app, &owner, "/")
        .await
        .contains("href=\"/settings/payouts\""));
    assert_eq!(audited(&app, "payout_threshold.changed").await, 1);

    // At or above it, a console payout and an API payout wait; below it, a payout is paid.
    let from_console = console_payout(&app, &maker, "maker-1", "600.00").await;
    assert_eq!(status_of(&app, &from_console).await, "pending_approval");
    let (status, from_api) = api_payout(&app, "api-large", 50_000).await;
    assert_eq!(
        (status, from_api["status"].as_str()),
        (201, Some("pending_approval"))
    );
    let from_api = from_api["id"].as_str().unwrap().to_owned();
    let replay = app
        .post(
            "/v1/payouts",
            Some("api-large"),
            &json!({"amount": 50_000, "currency": "EUR",
                "destination": {"account_holder": "Grace Hopper", "iban": paid_iban()}})
            .to_string(),
        )
        .await;
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(json(replay).await["status"], "pending_approval");
    // Below the threshold, to another account (payouts to one account within a day are summed).
    let small = common::payout_body(49_999, common::IBAN).to_string();
    let small = app.post("/v1/payouts", Some("api-small"), &small).await;
    assert_eq!(small.status(), 201);
    let small = json(small).await;
    assert_eq!(small["status"], "pending");
    let small = small["id"].as_str().unwrap().to_owned();
    wait_for(&app, &small, "paid").await;
    // The worker ran many times since: the waiting payouts are still waiting, nothing sent,
    // and their amounts reserved.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for waiting in [&from_console, &from_api] {
        assert_eq!(status_of(&app, waiting).await, "pending_approval");
        assert_eq!(transfers_of(&partner_url, waiting).await, 0, "nothing sent");
    }
    assert_eq!(app.available_eur().await, FUNDS - 60_000 - 50_000 - 49_999);
    assert_eq!(events(&app, "payout.pending_approval").await, 2);

    // The maker may not approve or reject its own payout; the page offers it no button.
    let maker_view = page(&app, &maker, &format!("/payouts/{from_console}")).await;
    assert!(!maker_view.contains(">Approve<"), "{maker_view}");
    for verb in ["approve", "reject"] {
        let (client, cookie) = &maker;
        let csrf = hidden(&page(&app, &maker, "/keys").await, "csrf");
        let answer = client
            .post(format!("{}/payouts/{from_console}/{verb}", app.base_url))
            .header("cookie", cookie)
            .form(&[("csrf", csrf.as_str()), ("idempotency_key", "own")])
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 403, "{verb} own payout");
        let text = answer.text().await.unwrap();
        assert!(text.contains("You created this payout"), "{text}");
    }
    // Developers and viewers may not decide, nor see or change thresholds; finance may not
    // change thresholds either.
    for (who, browser) in [("developer", &developer), ("viewer", &viewer)] {
        for verb in ["approve", "reject"] {
            let (status, _) =
                decide(&app, browser, &from_api, verb, &format!("{who}-{verb}")).await;
            assert_eq!(status, 403, "{who} {verb}s");
        }
    }
    for (who, browser) in [
        ("developer", &developer),
        ("viewer", &viewer),
        ("finance", &maker),
    ] {
        assert_eq!(set_threshold(&app, browser, "1.00").await.0, 403, "{who}");
        assert_eq!(
            get(&app, browser, "/settings/payouts").await.status(),
            403,
            "{who}"
        );
        assert!(!page(&app, browser, "/")
            .await
            .contains("href=\"/settings/payouts\""));
    }
    // An API key is always refused, and its key left free.
    for verb in ["approve", "reject"] {
        let answer = app
            .post(
                &format!("/v1/payouts/{from_api}/{verb}"),
                Some("by-key"),
                "",
            )
            .await;
        assert_eq!(answer.status(), 403);
        assert_eq!(error_code(&json(answer).await), "forbidden");
    }
    assert_eq!(status_of(&app, &from_api).await, "pending_approval");

    // The owner approves the maker's payout with the page's button: the worker pays it.
    let owner_view = page(&app, &owner, &format!("/payouts/{from_console}")).await;
    assert!(owner_view.contains(">Approve<") && owner_view.contains(">Reject<"));
    let approve_key = hidden(&owner_view, "idempotency_key");
    for _ in 0..2 {
        assert_eq!(
            decide(&app, &owner, &from_console, "approve", &approve_key).await,
            (303, format!("/payouts/{from_console}"))
        );
    }
    wait_for(&app, &from_console, "paid").await;
    assert_eq!(transfers_of(&partner_url, &from_console).await, 1);
    let decided_by: Option<String> =
        sqlx::query_scalar("SELECT decided_by FROM payouts WHERE id = $1")
            .bind(&from_console)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(decided_by.as_deref(), Some("owner@approvals.test"));

    // The maker (finance, not its creator) rejects the API's payout: the amount comes back.
    let before = app.available_eur().await;
    let (status, landing) = decide(&app, &maker, &from_api, "reject", "reject-1").await;
    assert_eq!((status, landing), (303, format!("/payouts/{from_api}")));
    assert_eq!(status_of(&app, &from_api).await, "rejected");
    assert_eq!(app.available_eur().await, before + 50_000);
    let (_, again) = decide(&app, &owner, &from_api, "approve", "approve-late").await;
    assert_eq!(
        again,
        format!("/payouts/{from_api}?error=invalid%5Fstate%5Ftransition"),
        "no longer awaiting approval"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(transfers_of(&partner_url, &from_api).await, 0);
    assert_eq!(app.available_eur().await, before + 50_000);

    // One event and one audit entry per outcome.
    assert_eq!(events(&app, "payout.approved").await, 1);
    assert_eq!(events(&app, "payout.rejected").await, 1);
    assert_eq!(audited(&app, "payout.approved").await, 1);
    assert_eq!(audited(&app, "payout.rejected").await, 1);
    let audit = page(&app, &owner, "/settings/audit").await;
    for action in [
        "payout.approved",
        "payout.rejected",
        "payout_threshold.changed",
    ] {
        assert!(audit.contains(action), "{action}");
    }

    // Without a threshold, no payout needs approval.
    assert_eq!(set_threshold(&app, &owner, "").await.0, 303);
    let (_, unlimited) = api_payout(&app, "api-after", 90_000).await;
    assert_eq!(unlimited["status"], "pending");
    assert_eq!(audited(&app, "payout_threshold.changed").await, 2);
}

#[tokio::test]
async fn approvals_at_once_and_approvals_racing_rejections_make_one_outcome() {
    let (app, partner_url) = funded_app().await;
    let owner = signed_in_as(&app, "owner@race.test", Some(Role::Owner)).await;
    let admin = signed_in_as(&app, "admin@race.test", Some(Role::Admin)).await;
    let finance = signed_in_as(&app, "finance@race.test", Some(Role::Finance)).await;
    assert_eq!(set_threshold(&app, &owner, "1.00").await.0, 303);
    let (_, first) = api_payout(&app, "race-1", 10_000).await;
    let (_, second) = api_payout(&app, "race-2", 20_000).await;
    let (first, second) = (
        first["id"].as_str().unwrap().to_owned(),
        second["id"].as_str().unwrap().to_owned(),
    );
    let deciders = [&owner, &admin, &finance];

    // Twenty approvals at once: ten keys of their own, ten submits of one form.
    let approvals = (0..20).map(|n| {
        let key = if n % 2 == 0 {
            format!("approve-{n}")
        } else {
            "double-click".to_owned()
        };
        let (app, browser, id) = (&app, deciders[n % 3], &first);
        async move { decide(app, browser, id, "approve", &key).await }
    });
    let answers = join_all(approvals).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 303),
        "{answers:?}"
    );
    assert_eq!(events(&app, "payout.approved").await, 1);
    assert_eq!(audited(&app, "payout.approved").await, 1);
    wait_for(&app, &first, "paid").await;
    assert_eq!(transfers_of(&partner_url, &first).await, 1);

    // Approvals racing rejections: one of them wins, the money moves or comes back once.
    let before = app.available_eur().await;
    let decisions = (0..20).map(|n| {
        let verb = if n % 2 == 0 { "approve" } else { "reject" };
        let (app, browser, id) = (&app, deciders[n % 3], &second);
        async move { decide(app, browser, id, verb, &format!("{verb}-{n}")).await }
    });
    join_all(decisions).await;
    let approved = events(&app, "payout.approved").await - 1;
    let rejected = events(&app, "payout.rejected").await;
    assert_eq!(approved + rejected, 1, "one outcome");
    tokio::time::sleep(Duration::from_millis(500)).await;
    if rejected == 1 {
        assert_eq!(status_of(&app, &second).await, "rejected");
        assert_eq!(app.available_eur().await, before + 20_000);
        assert_eq!(transfers_of(&partner_url, &second).await, 0);
    } else {
        wait_for(&app, &second, "paid").await;
        assert_eq!(app.available_eur().await, before);
        assert_eq!(transfers_of(&partner_url, &second).await, 1);
    }
}
