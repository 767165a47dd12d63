//! The test harness: one embedded PostgreSQL for the whole test binary (or the server at
//! `DATABASE_URL`), a freshly migrated database per test (copied from a migrated template, its
//! ledger verified when the test ends: [`checked_database`]), and the application served over
//! real HTTP, in-process on port 0 or as a real `kaadxpay` process to kill.

pub mod browser;
mod checked_database;
pub mod tools;
pub mod webhooks;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use reqwest::redirect::Policy;
use reqwest::{Client, Response};
use serde_json::Value;
use sqlx::{Connection, PgConnection, PgPool};
use tokio::sync::OnceCell;

use kaadxpay_embedded_pg::{Durability, EmbeddedPostgres};
use kaadxpay_partner::TEST_WEBHOOK_SECRET;
use server::platform::db::{self, MIGRATOR};
use server::service::components;
use server::service::config::Settings;
use server::service::startup::Application;
use server::webhooks::Dispatcher;

pub use checked_database::{assert_ledger_whole, ledger_verify, TestDatabase};

/// The key the tests' servers seal secrets with (`KAADXPAY_SECRETS_KEY`): every `serve` with a
/// `DATABASE_URL` needs one.
pub const TEST_SECRETS_KEY: &str =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

struct Cluster {
    admin_url: String,
    template: String,
    _embedded: Option<EmbeddedPostgres>,
}

static CLUSTER: OnceCell<Cluster> = OnceCell::const_new();

/// `url` with its database name replaced.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(base, query)| (base, Some(query)));
    let scheme_end = base.find("://").map_or(0, |at| at + 3);
    let server = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{database}?{query}"),
        None => format!("{server}/{database}"),
    }
}

async fn cluster() -> &'static Cluster {
    CLUSTER
        .get_or_init(|| async {
            let (admin_url, embedded) = match std::env::var("DATABASE_URL") {
                Ok(url) => (url, None),
                Err(_) => {
                    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("../.data")
                        .join(format!("test-{}", std::process::id()));
                    let cluster = EmbeddedPostgres::start(&dir, Durability::Ephemeral)
                        .expect("the embedded PostgreSQL starts");
                    (cluster.url("postgres"), Some(cluster))
                }
            };
            let template = format!("kxp_template_{}", std::process::id());
            let mut admin = PgConnection::connect(&admin_url)
                .await
                .expect("connect to PostgreSQL");
            sqlx::query(&format!("DROP DATABASE IF EXISTS {template}"))
                .execute(&mut admin)
                .await
                .unwrap();
            sqlx::query(&format!("CREATE DATABASE {template}"))
                .execute(&mut admin)
                .await
                .unwrap();
            admin.close().await.unwrap();
            let mut conn = PgConnection::connect(&with_database(&admin_url, &template))
                .await
                .unwrap();
            MIGRATOR.run(&mut conn).await.expect("the migrations apply");
            conn.close().await.unwrap();
            Cluster {
                admin_url,
                template,
                _embedded: embedded,
            }
        })
        .await
}

/// A new, migrated database, its ledger checked when the test ends ([`TestDatabase`]).
pub async fn fresh_database() -> TestDatabase {
    let cluster = cluster().await;
    let name = format!("kxp_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = PgConnection::connect(&cluster.admin_url).await.unwrap();
    sqlx::query(&format!(
        "CREATE DATABASE {name} TEMPLATE {}",
        cluster.template
    ))
    .execute(&mut admin)
    .await
    .unwrap();
    admin.close().await.unwrap();
    TestDatabase::new(with_database(&cluster.admin_url, &name))
}

#[derive(Parser)]
struct SettingsOnly {
    #[command(flatten)]
    settings: Settings,
}

/// The defaults, as `kaadxpay` would have them with the given flags.
pub fn settings(flags: &[&str]) -> Settings {
    SettingsOnly::parse_from(std::iter::once("kaadxpay").chain(flags.iter().copied())).settings
}

/// An author for the audit log of a command run without HTTP.
pub fn test_author() -> server::service::author::By {
    server::service::author::By {
        actor: server::service::author::Actor::ApiKey("key_test".into()),
        address: None,
    }
}

#[derive(Clone)]
pub struct TestMerchant {
    pub id: kaadxpay_types::ids::MerchantId,
    pub api_key: String,
}

pub struct TestApp {
    pub base_url: String,
    pub db_url: TestDatabase,
    pub pool: PgPool,
    pub client: Client,
    pub merchant: TestMerchant,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// The application in-process on port 0, on a fresh database, with `flags` as settings.
pub async fn spawn_app_with(flags: &[&str]) -> TestApp {
    spawn_app_at(0, flags).await
}

/// A private folder for one test's files (such as an in-process partner's store).
pub fn scratch_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kaadxpay-test-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The application in-process on `port` (0: any), on a fresh database, with `flags` as settings.
pub async fn spawn_app_at(port: u16, flags: &[&str]) -> TestApp {
    spawn_app_and_partner(port, flags).await.0
}

/// [`spawn_app_at`], and the URL of the partner it calls (the in-process simulator unless
/// `flags` name one).
pub async fn spawn_app_and_partner(port: u16, flags: &[&str]) -> (TestApp, String) {
    let db_url = fresh_database().await;
    let data_dir = scratch_dir();
    let mut all_flags = vec!["--data-dir", data_dir.to_str().unwrap()];
    // A real partner's webhooks need a secret; the tests' simulators sign with the test one.
    if !flags.contains(&"--partner-webhook-secret") {
        all_flags.extend(["--partner-webhook-secret", TEST_WEBHOOK_SECRET]);
    }
    if !flags.contains(&"--secrets-key") {
        all_flags.extend(["--secrets-key", TEST_SECRETS_KEY]);
    }
    // The tests' webhook receivers listen on 127.0.0.1.
    if !flags.contains(&"--webhook-allow-private-networks") {
        all_flags.extend(["--webhook-allow-private-networks", "true"]);
    }
    // The tests' bursts (a hundred requests at once) are about what each request does, not
    // about shedding load (tests/overload.rs and tests/slow_clients.rs are): all are admitted.
    if !flags.contains(&"--max-in-flight") {
        all_flags.extend(["--max-in-flight", "1000"]);
    }
    all_flags.extend_from_slice(flags);
    let settings = settings(&all_flags);
    let pool = db::connect(&db_url, settings.db_pool_size, settings.db_acquire_timeout)
        .await
        .unwrap();
    let app = Application::build(&settings, pool.clone(), ([127, 0, 0, 1], port).into())
        .await
        .unwrap();
    let base_url = format!("http://{}", app.local_addr());
    let partner_url = app.partner_url().to_owned();
    tokio::spawn(app.run(std::future::pending()));
    let merchant = create_merchant_in(&pool, "Test Merchant", settings.mode).await;
    let app = TestApp {
        base_url,
        db_url,
        pool,
        client: Client::new(),
        merchant,
    };
    (app, partner_url)
}

/// A console user `email` (password `right-password`): a member of `merchant_id` with `role`,
/// or support staff when `membership` is `None`.
pub async fn create_user(
    pool: &PgPool,
    email: &str,
    membership: Option<(&str, app::console::Role)>,
) {
    server::accounts::users::create(pool, email, "right-password", membership)
        .await
        .unwrap();
}

/// A merchant and its first key, a test mode key.
pub async fn create_merchant(pool: &PgPool, name: &str) -> TestMerchant {
    create_merchant_in(pool, name, server::accounts::auth::Mode::Test).await
}

/// A merchant and its first key, made in `mode`.
pub async fn create_merchant_in(
    pool: &PgPool,
    name: &str,
    mode: server::accounts::auth::Mode,
) -> TestMerchant {
    let merchant = server::accounts::auth::create_merchant(pool, name, mode)
        .await
        .unwrap();
    TestMerchant {
        id: merchant.merchant_id,
        api_key: merchant.api_key,
    }
}

impl TestApp {
    /// `POST path` as the test merchant, with `key` as Idempotency-Key and `body` sent verbatim.
    pub async fn post(&self, path: &str, key: Option<&str>, body: &str) -> Response {
        self.post_as(&self.merchant, path, key, body).await
    }

    pub async fn post_as(
        &self,
        merchant: &TestMerchant,
        path: &str,
        key: Option<&str>,
        body: &str,
    ) -> Response {
        let mut request = self
            .client
            .post(format!("{}{path}", self.base_url))
            .bearer_auth(&merchant.api_key)
            .header("content-type", "application/json")
            .body(body.to_owned());
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        request.send().await.expect("the server answers")
    }

    pub async fn get_as(&self, merchant: &TestMerchant, path: &str) -> Response {
        self.client
            .get(format!("{}{path}", self.base_url))
            .bearer_auth(&merchant.api_key)
            .send()
            .await
            .expect("the server answers")
    }

    pub async fn get(&self, path: &str) -> Response {
        self.get_as(&self.merchant, path).await
    }

    /// `GET path` with no API key.
    pub async fn get_without_key(&self, path: &str) -> Response {
        self.client
            .get(format!("{}{path}", self.base_url))
            .send()
            .await
            .expect("the server answers")
    }

    pub async fn put(&self, path: &str, body: &str) -> Response {
        self.client
            .put(format!("{}{path}", self.base_url))
            .bearer_auth(&self.merchant.api_key)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .expect("the server answers")
    }

    /// Captures an order of `amount` EUR cents, crediting the test merchant's balance.
    pub async fn fund(&self, amount: i64) {
        let body = format!(r#"{{"amount": {amount}, "currency": "EUR"}}"#);
        let order = json(
            self.post("/v1/orders", Some(&format!("fund-{amount}")), &body)
                .await,
        )
        .await;
        let captured = self
            .put(
                &format!("/v1/orders/{}", order["id"].as_str().unwrap()),
                r#"{"status": "captured"}"#,
            )
            .await;
        assert_eq!(captured.status(), 200);
    }

    /// Funds the balance with 1000 EUR cents and pays 600 of them out to [`IBAN`]
    /// (Idempotency-Key `payout`): the payout's id.
    pub async fn fund_and_pay_out(&self) -> String {
        self.fund(1000).await;
        let body = payout_body(600, IBAN).to_string();
        let payout = json(self.post("/v1/payouts", Some("payout"), &body).await).await;
        payout["id"].as_str().unwrap().to_owned()
    }

    /// Creates an order of `body` under `key`, which must answer `201 Created`.
    pub async fn create_order(&self, key: &str, body: &str) -> Value {
        let response = self.post("/v1/orders", Some(key), body).await;
        assert_eq!(response.status(), 201);
        json(response).await
    }

    /// The test merchant's available EUR balance, in cents.
    pub async fn available_eur(&self) -> i64 {
        let balance: Value = json(self.get("/v1/balance").await).await;
        balance["available"][0]["amount"].as_i64().unwrap()
    }

    /// The OpenAPI document the server serves.
    pub async fn openapi(&self) -> Value {
        json(self.get_without_key("/openapi.json").await).await
    }

    /// A webhook dispatcher on the test's database; `schedule` is its retry back-off. Endpoints
    /// may be on 127.0.0.1, where the tests' receivers listen.
    pub fn dispatcher(&self, schedule: &str) -> Dispatcher {
        Dispatcher::new(
            self.pool.clone(),
            components::dispatcher(&settings(&[
                "--webhook-retry-schedule",
                schedule,
                "--webhook-allow-private-networks",
                "true",
                "--secrets-key",
                TEST_SECRETS_KEY,
            ]))
            .unwrap(),
        )
    }

    /// Steps `dispatcher` until no delivery is pending.
    pub async fn drain(&self, dispatcher: &Dispatcher) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self
            .count("webhook_deliveries WHERE status = 'pending'")
            .await
            > 0
        {
            assert!(Instant::now() < deadline, "deliveries still pending");
            dispatcher.run_once().await.unwrap();
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// The `/metrics` text.
    pub async fn metrics(&self) -> String {
        self.get_without_key("/metrics").await.text().await.unwrap()
    }

    pub async fn count(&self, sql_from: &str) -> i64 {
        count(&self.pool, sql_from).await
    }

    /// Everything the API can change, counted, to prove a rejected request changed nothing.
    pub async fn snapshot(&self) -> (i64, i64, i64) {
        (
            self.count("orders").await,
            self.count("idempotency_keys").await,
            self.count("balances").await,
        )
    }
}

/// A fresh database with a merchant, and a small pool on it: for tests that run the
/// application as `kaadxpay` processes.
pub async fn database_with_merchant(name: &str) -> (TestDatabase, PgPool, TestMerchant) {
    let db_url = fresh_database().await;
    let pool = db::connect(&db_url, 4, Duration::from_secs(5))
        .await
        .unwrap();
    let merchant = create_merchant(&pool, name).await;
    (db_url, pool, merchant)
}

pub async fn count(pool: &PgPool, sql_from: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT count(*) FROM {sql_from}"))
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The account the tests pay out to (a valid German IBAN).
pub const IBAN: &str = "DE89370400440532013000";

/// The body of a payout of `amount` EUR cents to Ada Lovelace's account `iban`.
pub fn payout_body(amount: i64, iban: &str) -> Value {
    serde_json::json!({"amount": amount, "currency": "EUR",
        "destination": {"account_holder": "Ada Lovelace", "iban": iban}})
}

pub async fn json(response: Response) -> Value {
    response.json().await.expect("a JSON body")
}

pub fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_default()
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A visitor with a session cookie and the CSRF token of its login form.
pub struct Visitor {
    pub client: Client,
    pub base_url: String,
    pub cookie: String,
    pub csrf: String,
}

/// A client as a browser on the console: it reads redirects instead of following them.
pub fn browser_client() -> Client {
    Client::builder().redirect(Policy::none()).build().unwrap()
}

impl Visitor {
    pub async fn arrive(base_url: &str) -> Self {
        Self::arrive_with(base_url, browser_client()).await
    }

    /// A visitor whose connections come from the loopback address `from` (`127.0.0.2`: any
    /// of 127/8 reaches a server on 127.0.0.1), sending `X-Forwarded-For: forwarded` if given.
    pub async fn arrive_from(base_url: &str, from: &str, forwarded: Option<&str>) -> Self {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(forwarded) = forwarded {
            headers.insert("x-forwarded-for", forwarded.parse().unwrap());
        }
        let client = Client::builder()
            .redirect(Policy::none())
            .local_address(from.parse::<std::net::IpAddr>().unwrap())
            .default_headers(headers)
            .build()
            .unwrap();
        Self::arrive_with(base_url, client).await
    }

    async fn arrive_with(base_url: &str, client: Client) -> Self {
        let page = client
            .get(format!("{base_url}/login"))
            .send()
            .await
            .unwrap();
        let cookie = first_cookie(&page);
        let csrf = browser::hidden(&page.text().await.unwrap(), "csrf");
        Self {
            client,
            base_url: base_url.to_owned(),
            cookie,
            csrf,
        }
    }

    /// Submits the form.
    pub async fn submit(&self, email: &str, password: &str) -> reqwest::Response {
        self.client
            .post(format!("{}/login", self.base_url))
            .header("cookie", &self.cookie)
            .form(&[
                ("csrf", self.csrf.as_str()),
                ("email", email),
                ("password", password),
            ])
            .send()
            .await
            .unwrap()
    }

    /// Submits the form; returns where it sends the browser.
    pub async fn sign_in(&self, email: &str, password: &str) -> String {
        let response = self.submit(email, password).await;
        assert_eq!(response.status(), 303);
        response.headers()["location"].to_str().unwrap().to_owned()
    }
}

/// A signed-in browser's session cookie.
pub async fn signed_in(app: &TestApp, email: &str) -> String {
    signed_in_at(&app.base_url, email).await
}

/// A signed-in browser's session cookie on the server at `base_url` (the password is
/// `right-password`).
pub async fn signed_in_at(base_url: &str, email: &str) -> String {
    let response = Visitor::arrive(base_url)
        .await
        .submit(email, "right-password")
        .await;
    let landing = response.headers()["location"].to_str().unwrap();
    assert!(!landing.starts_with("/login"), "signed in: {landing}");
    first_cookie(&response)
}

/// The `name=value` of the cookie an answer sets.
pub fn first_cookie(answer: &Response) -> String {
    answer.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// A real `kaadxpay serve` process on `db_url`, to crash with `SIGKILL`.
pub struct ServerProcess {
    child: Child,
    pub base_url: String,
}

impl ServerProcess {
    pub async fn start(db_url: &str, env: &[(&str, &str)]) -> Self {
        Self::start_at(free_port(), db_url, env).await
    }

    /// On a chosen port, so that a restarted process is found where the first one was.
    pub async fn start_at(port: u16, db_url: &str, env: &[(&str, &str)]) -> Self {
        Self::spawn(port, db_url, env, Stdio::null()).await
    }

    /// [`ServerProcess::start`], writing its logs (its stdout) to the file `log`.
    pub async fn start_logging_to(
        db_url: &str,
        env: &[(&str, &str)],
        log: &std::path::Path,
    ) -> Self {
        let log = std::fs::File::create(log).expect("the log file is made");
        Self::spawn(free_port(), db_url, env, log.into()).await
    }

    async fn spawn(port: u16, db_url: &str, env: &[(&str, &str)], stdout: Stdio) -> Self {
        let child = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
            .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .env("DATABASE_URL", db_url)
            .env("RUST_LOG", "warn")
            .env("KAADXPAY_PARTNER_WEBHOOK_SECRET", TEST_WEBHOOK_SECRET)
            .env("KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true")
            .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
            .envs(env.iter().copied())
            .stdout(stdout)
            .spawn()
            .expect("kaadxpay starts");
        let process = Self {
            child,
            base_url: format!("http://127.0.0.1:{port}"),
        };
        wait_until_answering(&format!("{}/healthz", process.base_url)).await;
        process
    }

    /// `kaadxpay partner-sim` with `flags`, its store in a scratch folder.
    /// (A `--store` among `flags` replaces the scratch one.)
    pub async fn partner_sim(flags: &[&str]) -> Self {
        let port = free_port();
        let store = scratch_dir().join("partner.jsonl");
        let mut command = Command::new(env!("CARGO_BIN_EXE_kaadxpay"));
        command.args(["partner-sim", "--addr", &format!("127.0.0.1:{port}")]);
        if !flags.contains(&"--store") {
            command.args(["--store", store.to_str().unwrap()]);
        }
        let child = command
            .args(flags)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .expect("kaadxpay partner-sim starts");
        let process = Self {
            child,
            base_url: format!("http://127.0.0.1:{port}"),
        };
        wait_until_answering(&format!("{}/_sim/config", process.base_url)).await;
        process
    }

    /// Changes a partner simulator's faults and behaviours (`PUT /_sim/config`).
    pub async fn configure(&self, change: Value) {
        configure_partner(&self.base_url, change).await
    }

    /// A partner simulator's transfers, as it lists them.
    pub async fn transfers(&self) -> Vec<Value> {
        partner_transfers(&self.base_url).await
    }

    /// How many reversals a partner simulator was asked for.
    pub async fn reversal_calls(&self) -> u64 {
        partner_reversal_calls(&self.base_url).await
    }

    /// The process id, to read its memory from `/proc`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `SIGKILL`: no shutdown, no cleanup, like a machine losing power.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// The order the crash and overload tests post.
const ORDER: &str = r#"{"amount": 700, "currency": "GBP"}"#;

/// `POST /v1/orders` to a `kaadxpay` process as `merchant` with `key`; panics without an answer.
pub async fn post_order(base_url: &str, merchant: &TestMerchant, key: &str) -> reqwest::Response {
    try_post_order(base_url, merchant, key)
        .await
        .expect("the server answers")
}

/// `POST /v1/orders` to a `kaadxpay` process as `merchant` with `key`.
pub async fn try_post_order(
    base_url: &str,
    merchant: &TestMerchant,
    key: &str,
) -> reqwest::Result<reqwest::Response> {
    Client::new()
        .post(format!("{base_url}/v1/orders"))
        .bearer_auth(&merchant.api_key)
        .header("idempotency-key", key)
        .body(ORDER)
        .send()
        .await
}

/// Waits until `url` answers a 2xx.
pub async fn wait_until_answering(url: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(response) = reqwest::get(url).await {
            if response.status().is_success() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{url} did not answer within 30 s");
}

/// Changes the faults and behaviours of the partner simulator at `partner_url`
/// (`PUT /_sim/config`).
pub async fn configure_partner(partner_url: &str, change: Value) {
    let answer = reqwest::Client::new()
        .put(format!("{partner_url}/_sim/config"))
        .json(&change)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
}

/// `GET path` at the partner simulator at `partner_url`, as JSON.
async fn partner_json(partner_url: &str, path: &str) -> Value {
    reqwest::get(format!("{partner_url}{path}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The transfers at the partner simulator at `partner_url`, as it lists them.
pub async fn partner_transfers(partner_url: &str) -> Vec<Value> {
    let list = partner_json(partner_url, "/v1/transfers").await;
    list["data"].as_array().unwrap().clone()
}

/// The transfers of payout `id` at the partner simulator at `partner_url`, as it lists them.
pub async fn partner_transfers_of(partner_url: &str, id: &str) -> Vec<Value> {
    let mut transfers = partner_transfers(partner_url).await;
    transfers.retain(|transfer| transfer["reference"] == id);
    transfers
}

/// How many reversals the partner simulator at `partner_url` was asked for.
pub async fn partner_reversal_calls(partner_url: &str) -> u64 {
    let stats = partner_json(partner_url, "/_sim/stats").await;
    stats["reversal_calls"].as_u64().unwrap()
}

/// Polls `check` until it holds, for at most `within`.
pub async fn eventually<F, Fut>(within: Duration, what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    while !check().await {
        assert!(
            Instant::now() < deadline,
            "{what} did not happen within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// For the crash tests: a mature `kaadxpay partner-sim` that settles quickly, and an app
/// in-process that only takes requests (its worker never runs and it knows no partner), so
/// that `kaadxpay serve` processes started with [`worker_env`] carry the transfers out.
pub async fn partner_and_queueing_app() -> (ServerProcess, TestApp) {
    let partner =
        ServerProcess::partner_sim(&["--mode", "mature", "--settle-after", "100ms"]).await;
    let app = spawn_app_with(&[
        "--partner-url",
        "http://127.0.0.1:9",
        "--payout-interval",
        "1h",
    ])
    .await;
    (partner, app)
}

/// The settings of a `kaadxpay serve` that works the payout queue quickly against the partner
/// at `partner_url` (short lease, timeout and intervals), with `failpoints` when given.
pub fn worker_env(partner_url: &str, failpoints: Option<&str>) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("KAADXPAY_PARTNER_URL", partner_url.to_owned()),
        ("KAADXPAY_PAYOUT_LEASE", "2s".to_owned()),
        ("KAADXPAY_PARTNER_TIMEOUT", "1s".to_owned()),
        ("KAADXPAY_PAYOUT_INTERVAL", "100ms".to_owned()),
        ("KAADXPAY_PAYOUT_POLL_INTERVAL", "300ms".to_owned()),
    ];
    env.extend(failpoints.map(|failpoints| ("FAILPOINTS", failpoints.to_owned())));
    env
}

/// `env` as [`ServerProcess::start`] takes it.
pub fn as_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}
