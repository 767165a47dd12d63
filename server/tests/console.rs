//! Console sign-in throttling (API.md §9), through the real login form: atomic (a burst of
//! parallel guesses counts every guess and at most five are checked), per account and per
//! client address, and an unknown email costs the same Argon2 verification as a wrong password.

mod common;

use futures::future::join_all;
use reqwest::redirect::Policy;
use reqwest::Client;

use common::{count, spawn_app, ServerProcess, TestApp};

/// A visitor with a session cookie and the CSRF token of its login form.
struct Visitor {
    client: Client,
    base_url: String,
    cookie: String,
    csrf: String,
}

impl Visitor {
    async fn arrive(base_url: &str) -> Self {
        let client = Client::builder().redirect(Policy::none()).build().unwrap();
        let page = client
            .get(format!("{base_url}/login"))
            .send()
            .await
            .unwrap();
        let cookie = page.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let html = page.text().await.unwrap();
        let csrf = html
            .split("name=\"csrf\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the login form carries a CSRF token")
            .to_owned();
        Self {
            client,
            base_url: base_url.to_owned(),
            cookie,
            csrf,
        }
    }

    /// Submits the form; returns where it sends the browser.
    async fn sign_in(&self, email: &str, password: &str) -> String {
        let response = self
            .client
            .post(format!("{}/login", self.base_url))
            .header("cookie", &self.cookie)
            .form(&[
                ("csrf", self.csrf.as_str()),
                ("email", email),
                ("password", password),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 303);
        response.headers()["location"].to_str().unwrap().to_owned()
    }
}

async fn app_with_user(email: &str) -> TestApp {
    let app = spawn_app().await;
    server::users::create(&app.pool, email, "right-password", Some(&app.merchant.id))
        .await
        .unwrap();
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_parallel_wrong_passwords_count_twenty_and_only_five_are_checked() {
    let app = app_with_user("ada@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    let answers =
        join_all((0..20).map(|_| visitor.sign_in("ada@example.com", "wrong-password"))).await;
    assert_eq!(
        count(&app.pool, "login_failures WHERE email = 'ada@example.com'").await,
        20,
        "every guess counts"
    );
    let checked = answers
        .iter()
        .filter(|to| to.ends_with("error=invalid"))
        .count();
    let throttled = answers
        .iter()
        .filter(|to| to.ends_with("error=throttled"))
        .count();
    assert_eq!((checked, throttled), (5, 15), "{answers:?}");
    assert_eq!(
        visitor.sign_in("ada@example.com", "right-password").await,
        "/login?error=throttled",
        "even the right password waits out the window"
    );
}

#[tokio::test]
async fn an_address_guessing_across_accounts_is_throttled() {
    let app = app_with_user("grace@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    for n in 0..20 {
        let to = visitor
            .sign_in(&format!("nobody-{n}@example.com"), "guess")
            .await;
        assert_eq!(to, "/login?error=invalid", "guess {n}");
    }
    assert_eq!(
        visitor.sign_in("grace@example.com", "right-password").await,
        "/login?error=throttled",
        "twenty failures from one address throttle it, whichever accounts they tried"
    );
}

#[tokio::test]
async fn the_right_password_signs_in_and_leaves_no_failure_behind() {
    let app = app_with_user("alan@example.com").await;
    let visitor = Visitor::arrive(&app.base_url).await;
    assert_eq!(
        visitor.sign_in("alan@example.com", "right-password").await,
        "/"
    );
    assert_eq!(count(&app.pool, "login_failures").await, 0);
}

#[tokio::test]
async fn an_unknown_email_costs_one_argon2_verification() {
    // A process of its own, so that its metrics count only this sign-in.
    let db_url = common::fresh_database().await;
    let server = ServerProcess::start(&db_url, &[]).await;
    let visitor = Visitor::arrive(&server.base_url).await;
    assert_eq!(
        visitor.sign_in("nobody@example.com", "guess").await,
        "/login?error=invalid"
    );
    let metrics = reqwest::get(format!("{}/metrics", server.base_url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics
            .lines()
            .any(|line| line == "kaadxpay_login_verifications_total 1"),
        "one verification for an unknown email"
    );
}
