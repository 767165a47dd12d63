//! One conformance suite for every client of Kaadxpay (API.md §2, §14): the Python SDK, the
//! TypeScript SDK and the Rust `client/` crate each make the cases of
//! `sdk/conformance/cases.json` against a real `kaadxpay serve`, through a proxy that injects
//! faults between them ([`super::proxy`]: lost answers, a cut while the server holds the key so
//! the retry meets the server's real `409 idempotency_request_in_progress`, `503`s with
//! `Retry-After`, a bare `502`) and final answers (`402`, `409 invalid_state_transition`,
//! `422`). Each language's runner (`sdk/conformance/runner.py`, `runner.mjs`, and [`rust`]
//! here) reports what each call came back with; this test checks it against the case and
//! counts the effects in the database: no duplicate effect, the right error, `Retry-After`
//! waited (the gap the proxy measured), the caller's own key never replaced, one key on every
//! attempt of a call.
//!
//! `KAADXPAY_CONFORMANCE_MAX_RETRIES=0` overrides every case's `max_retries` (retries off): the
//! suite then fails for each language, as it must.

use kaadxpay_client::{Client, RetryPolicy};
use serde_json::{json, Value};
use sqlx::PgPool;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use super::proxy::{Fault, FaultProxy, Route, Seen};
use super::{python_bin, sdk_dir, typescript_modules};
use crate::common::{count, database_with_merchant, scratch_dir, ServerProcess, TestMerchant};

/// The clients under test, by the name each runner uses in its URLs and markers.
const LANGUAGES: [&str; 3] = ["python", "typescript", "rust"];

/// A `Retry-After` wait may be measured this much short (timer granularity), never more.
const SLACK: f64 = 0.05;

fn cases_file() -> PathBuf {
    sdk_dir().join("conformance/cases.json")
}

fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(cases_file()).unwrap();
    let document: Value = serde_json::from_str(&text).unwrap();
    document["cases"].as_array().unwrap().clone()
}

fn max_retries_override() -> Option<u64> {
    std::env::var("KAADXPAY_CONFORMANCE_MAX_RETRIES")
        .ok()
        .map(|value| value.parse().expect("a number of retries"))
}

/// The description a case's objects get, and the caller's key when the case gives one.
fn marker(language: &str, case: &str) -> String {
    format!("conformance {language} {case}")
}

fn callers_key(language: &str, case: &str) -> String {
    format!("conformance-{language}-{case}")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_client_passes_the_conformance_suite_under_faults() {
    let python = tokio::task::spawn_blocking(|| {
        typescript_modules();
        python_bin()
    })
    .await
    .unwrap();
    let (db_url, pool, merchant) = database_with_merchant("Conformance").await;
    let main = ServerProcess::start(&db_url, &[]).await;
    fund(&main.base_url, &merchant).await;
    // One held server per language: its first keyed request holds its key for 2.5 s.
    let held_point = [("FAILPOINTS", "idempotency.in_transaction=1*return(2500)")];
    let mut held = Vec::new();
    for _ in LANGUAGES {
        held.push(ServerProcess::start(&db_url, &held_point).await);
    }
    let mut routes = HashMap::new();
    for (language, held) in LANGUAGES.iter().zip(&held) {
        for case in cases() {
            let upstream = match case["upstream"].as_str() {
                Some("held") => held.base_url.clone(),
                _ => main.base_url.clone(),
            };
            let faults = case["faults"].as_array().unwrap();
            let faults = faults.iter().map(|f| Fault::named(f.as_str().unwrap()));
            let name = case["name"].as_str().unwrap().to_owned();
            let route = Route {
                faults: faults.collect(),
                upstream,
            };
            routes.insert((language.to_string(), name), route);
        }
    }
    let proxy = FaultProxy::start(routes).await;

    let scratch = scratch_dir();
    let external = |language: &'static str, program: PathBuf, script: &str, dir: PathBuf| {
        let out = scratch.join(format!("{language}.json"));
        let mut command = Command::new(program);
        command
            .arg(script)
            .current_dir(dir)
            .env("KAADXPAY_CONFORMANCE_CASES", cases_file())
            .env("KAADXPAY_CONFORMANCE_PROXY", &proxy.url)
            .env("KAADXPAY_CONFORMANCE_DIRECT", &main.base_url)
            .env("KAADXPAY_CONFORMANCE_OUT", &out)
            .env("KAADXPAY_TEST_API_KEY", &merchant.api_key)
            .env("PYTHONPATH", sdk_dir().join("python/src"));
        tokio::task::spawn_blocking(move || {
            let status = command.status().expect("the runner starts");
            assert!(status.success(), "the {language} runner failed: {status}");
            let outcomes: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            outcomes
        })
    };
    let conformance = sdk_dir().join("conformance");
    let (from_python, from_typescript, from_rust) = tokio::join!(
        external(
            "python",
            python.join("python"),
            "runner.py",
            conformance.clone()
        ),
        external("typescript", "node".into(), "runner.mjs", conformance),
        rust::run_all(&proxy.url, &main.base_url, &merchant.api_key),
    );
    let outcomes = [from_python.unwrap(), from_typescript.unwrap(), from_rust];

    let mut breaches = Vec::new();
    for (language, outcomes) in LANGUAGES.iter().zip(&outcomes) {
        let made: Vec<&Value> = outcomes.iter().map(|outcome| &outcome["case"]).collect();
        let named: Vec<Value> = cases().iter().map(|case| case["name"].clone()).collect();
        assert!(made.iter().copied().eq(&named), "{language} made {made:?}");
        for (case, outcome) in cases().iter().zip(outcomes) {
            let name = case["name"].as_str().unwrap();
            let attempts = proxy.attempts(language, name);
            for breach in check(&pool, language, case, outcome, &attempts).await {
                breaches.push(format!("{language} {name}: {breach}"));
            }
        }
    }
    assert!(
        breaches.is_empty(),
        "{} breaches of the conformance suite:\n{}",
        breaches.len(),
        breaches.join("\n")
    );
    std::fs::remove_dir_all(&scratch).ok();
}

/// Gives the merchant 10 000.00 EUR to pay out from.
async fn fund(base_url: &str, merchant: &TestMerchant) {
    let client = Client::new(base_url, &merchant.api_key, RetryPolicy::default());
    let body = json!({"amount": 1_000_000, "currency": "EUR", "description": "funding"});
    let order = client
        .post("/v1/orders", "conformance-funding", &body)
        .await;
    let path = format!("/v1/orders/{}", order.unwrap().body["id"].as_str().unwrap());
    let captured = client.put(&path, &json!({"status": "captured"})).await;
    assert_eq!(captured.unwrap().status, 200);
}

/// The rows a case's call made: its orders or payouts (a payout's debits counted with it), or
/// for a capture the balance's credits for its order.
async fn effects(pool: &PgPool, op: &str, marker: &str) -> Result<i64, String> {
    let described = format!("description = '{marker}'");
    match op {
        "create_payout" => {
            let payouts = count(pool, &format!("payouts WHERE {described}")).await;
            let debits = count(
                pool,
                &format!(
                    "balance_transactions WHERE type = 'payout' AND source_id IN \
                     (SELECT id FROM payouts WHERE {described})"
                ),
            )
            .await;
            if debits != payouts {
                return Err(format!("{payouts} payouts but {debits} debits"));
            }
            Ok(payouts)
        }
        "capture_cancelled_order" => {
            let credits = format!(
                "balance_transactions WHERE source_id IN (SELECT id FROM orders WHERE {described})"
            );
            Ok(count(pool, &credits).await)
        }
        _ => Ok(count(pool, &format!("orders WHERE {described}")).await),
    }
}

/// What is wrong with one language's outcome of one case (nothing, when it conforms).
async fn check(
    pool: &PgPool,
    language: &str,
    case: &Value,
    outcome: &Value,
    attempts: &[Seen],
) -> Vec<String> {
    let mut breaches = Vec::new();
    let name = case["name"].as_str().unwrap();
    let op = case["op"].as_str().unwrap();
    let expect = &case["expect"];
    let keyed = op != "capture_cancelled_order";

    let statuses: Vec<Value> = attempts.iter().map(|seen| json!(seen.status)).collect();
    if Some(&statuses) != expect["statuses"].as_array() {
        breaches.push(format!(
            "the server saw attempts answered {statuses:?}, the case wants {}",
            expect["statuses"]
        ));
    }
    // One key on every attempt: the caller's when given, else a UUIDv4 the client made.
    let sent: Vec<Option<&str>> = attempts
        .iter()
        .map(|seen| seen.idempotency_key.as_deref())
        .collect();
    let key = sent.first().copied().flatten();
    if keyed {
        if sent.iter().any(|each| *each != key) || key.is_none() {
            breaches.push(format!("the attempts did not send one key: {sent:?}"));
        }
        let own = callers_key(language, name);
        match (case["callers_key"].as_bool() == Some(true), key) {
            (true, Some(key)) if key != own => {
                breaches.push(format!("the caller's key {own} was replaced by {key}"))
            }
            (false, Some(key))
                if uuid::Uuid::parse_str(key).map(|k| k.get_version_num()) != Ok(4) =>
            {
                breaches.push(format!("the client's key {key} is not a UUIDv4"))
            }
            _ => {}
        }
    }
    // Retry-After: the least gap between one attempt's end and the next one's arrival.
    for (at, wait) in expect["waits"].as_array().into_iter().flatten().enumerate() {
        let wait = wait.as_f64().unwrap();
        if at == 0 || wait == 0.0 || at >= attempts.len() {
            continue;
        }
        let Some(finished) = attempts[at - 1].finished else {
            breaches.push(format!("attempt {at} never finished"));
            continue;
        };
        let gap = attempts[at]
            .arrived
            .saturating_duration_since(finished)
            .as_secs_f64();
        if gap < wait - SLACK {
            breaches.push(format!(
                "attempt {} came {gap:.3} s after the answer asking for {wait} s",
                at + 1
            ));
        }
    }
    // The result or the error, with the key that was sent.
    let says_key = |found: &Value| {
        if keyed && found["idempotency_key"].as_str() != key {
            Some(format!(
                "it says key {}, the attempts sent {key:?}",
                found["idempotency_key"]
            ))
        } else {
            None
        }
    };
    if let Some(wanted) = expect.get("result") {
        let result = &outcome["result"];
        if result.is_null() {
            breaches.push(format!("a result was wanted, it got {}", outcome["error"]));
        } else {
            if result["replayed"] != wanted["replayed"] {
                breaches.push(format!(
                    "replayed is {}, the case wants {}",
                    result["replayed"], wanted["replayed"]
                ));
            }
            breaches.extend(says_key(result));
        }
    }
    if let Some(wanted) = expect.get("error") {
        let error = &outcome["error"];
        if error.is_null() {
            breaches.push(format!("{wanted} was wanted, it got {}", outcome["result"]));
        } else {
            for field in ["status", "code"] {
                if error[field] != wanted[field] {
                    breaches.push(format!(
                        "the error's {field} is {}, not {}",
                        error[field], wanted[field]
                    ));
                }
            }
            // The Rust client has no error classes: its status and code are the type.
            if !error["class"].is_null() && error["class"] != wanted["class"] {
                breaches.push(format!(
                    "the error is a {}, not a {}",
                    error["class"], wanted["class"]
                ));
            }
            breaches.extend(says_key(error));
        }
    }
    if op == "create_order_again_with_the_errors_key" {
        let first = &outcome["first_error"];
        if first["class"] != "APIConnectionError" {
            breaches.push(format!(
                "the lost answer surfaced as {first}, not APIConnectionError"
            ));
        }
        breaches.extend(says_key(first));
    }
    match effects(pool, op, &marker(language, name)).await {
        Ok(made) if Some(made) != expect["effects"].as_i64() => breaches.push(format!(
            "{made} effects on the server, the case wants {}",
            expect["effects"]
        )),
        Ok(_) => {}
        Err(breach) => breaches.push(breach),
    }
    breaches
}

/// The Rust `client/` crate's runner, in this process: the same cases, the same outcomes.
mod rust {
    use std::time::Duration;

    use kaadxpay_client::{Answer, AttemptResult, Client, GaveUp, RetryPolicy};
    use serde_json::{json, Value};

    use super::{callers_key, cases, marker, max_retries_override};

    const LANGUAGE: &str = "rust";

    pub async fn run_all(proxy: &str, direct: &str, api_key: &str) -> Vec<Value> {
        let mut outcomes = Vec::new();
        for case in cases() {
            outcomes.push(run(&case, proxy, direct, api_key).await);
        }
        outcomes
    }

    fn policy(max_retries: u64) -> RetryPolicy {
        RetryPolicy {
            attempt_timeout: Duration::from_secs(30),
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            give_up_after: Duration::from_secs(120),
            max_retries: Some(max_retries as usize),
        }
    }

    /// A call's outcome as the runners write it: `result` or `error` (the Rust client's
    /// error is the answer's status and code, or no answer at all).
    fn outcome(called: &Result<Answer, GaveUp>) -> (Value, Value) {
        match called {
            Ok(answer) if answer.status.as_u16() < 400 => (
                json!({"id": answer.body["id"], "idempotency_key": answer.idempotency_key,
                       "replayed": answer.replayed}),
                Value::Null,
            ),
            Ok(answer) => (
                Value::Null,
                json!({"class": null, "status": answer.status.as_u16(),
                       "code": answer.body["error"]["code"], "idempotency_key": answer.idempotency_key}),
            ),
            Err(gave_up) => {
                let error = match gave_up.attempts.last().map(|attempt| &attempt.result) {
                    Some(AttemptResult::Answered { status, code, .. }) => {
                        json!({"class": null, "status": status, "code": code})
                    }
                    _ => json!({"class": "APIConnectionError", "status": null, "code": null}),
                };
                let mut error = error;
                error["idempotency_key"] = json!(gave_up.idempotency_key);
                (Value::Null, error)
            }
        }
    }

    async fn run(case: &Value, proxy: &str, direct: &str, api_key: &str) -> Value {
        let name = case["name"].as_str().unwrap();
        let retries = max_retries_override().unwrap_or(case["max_retries"].as_u64().unwrap());
        let client = Client::new(
            &format!("{proxy}/{LANGUAGE}/{name}"),
            api_key,
            policy(retries),
        );
        let setup = Client::new(direct, api_key, policy(2));
        let (amount, currency) = (&case["amount"], &case["currency"]);
        let marker = marker(LANGUAGE, name);
        let own = callers_key(LANGUAGE, name);
        let keyed = case["callers_key"].as_bool() == Some(true);
        let order = json!({"amount": amount, "currency": currency, "description": marker});
        let post = |path: &'static str, body: Value| {
            let (client, own) = (&client, own.clone());
            async move {
                if keyed {
                    client.post(path, &own, &body).await
                } else {
                    client.post_fresh(path, &body).await
                }
            }
        };
        let mut first_error = Value::Null;
        let called = match case["op"].as_str().unwrap() {
            "create_order" => post("/v1/orders", order).await,
            "create_payout" => {
                let body = json!({"amount": amount, "currency": currency, "description": marker,
                    "destination": {"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"}});
                post("/v1/payouts", body).await
            }
            "capture_cancelled_order" => {
                let made = setup.post_fresh("/v1/orders", &order).await.unwrap();
                let path = format!("/v1/orders/{}", made.body["id"].as_str().unwrap());
                setup
                    .put(&path, &json!({"status": "cancelled"}))
                    .await
                    .unwrap();
                client.put(&path, &json!({"status": "captured"})).await
            }
            "create_order_with_a_used_key" => {
                let other = json!({"amount": 1, "currency": currency, "description": "setup"});
                setup.post("/v1/orders", &own, &other).await.unwrap();
                post("/v1/orders", order).await
            }
            "create_order_again_with_the_errors_key" => {
                match client.post_fresh("/v1/orders", &order).await {
                    Err(gave_up) => {
                        first_error = outcome(&Err(gave_up.clone())).1;
                        let key = gave_up.idempotency_key.unwrap();
                        client.post("/v1/orders", &key, &order).await
                    }
                    answered => answered,
                }
            }
            op => panic!("unknown op {op}"),
        };
        let (result, error) = outcome(&called);
        json!({"case": name, "result": result, "error": error, "first_error": first_error})
    }
}
