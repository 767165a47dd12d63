//! The `kaadxpay` command line: serve (the default), migrate, merchants, users (create,
//! reset-two-factor), partner-sim,
//! reconcile, reversals, sweep, purge, audit verify.

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::Context;
use chrono::NaiveDate;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use kaadxpay_partner_sim::{self as sim, SimArgs};
use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::Role;
use server::accounts::auth::{self, NewMerchant};
use server::accounts::{two_factor, users};
use server::history::chain;
use server::idempotency::maintenance;
use server::payments::ledger;
use server::platform::db::Database;
use server::platform::sealing::SecretsKey;
use server::platform::telemetry::{self, LogTarget};
use server::reconcile::{reversals, Reconciler};
use server::service::config::{Hidden, ServeArgs, Settings};
use server::service::startup::Application;
use server::service::{components, flags};

#[derive(Parser)]
#[command(
    name = "kaadxpay",
    version,
    about = "Payments whose every POST takes effect at most once.",
    // The same value twice is one setting; different values are refused (`flags::given_twice`).
    args_override_self = true
)]
struct Cli {
    #[command(flatten)]
    settings: Settings,
    /// `serve`'s settings, for when no command is given.
    #[command(flatten)]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API, the console and the workers (the default).
    Serve(ServeArgs),
    /// Apply the database migrations.
    Migrate,
    /// Manage merchants.
    Merchants {
        #[command(subcommand)]
        command: MerchantsCommand,
    },
    /// Manage console users.
    Users {
        #[command(subcommand)]
        command: UsersCommand,
    },
    /// Run the partner bank simulator.
    PartnerSim(SimArgs),
    /// Reconcile one day's partner transfers with our payouts.
    Reconcile {
        #[arg(long)]
        date: NaiveDate,
        /// Reverse each extra duplicate at the partner (once, however often this runs).
        #[arg(long)]
        apply: bool,
    },
    /// Deal with reversals of duplicate transfers by hand.
    Reversals {
        #[command(subcommand)]
        command: ReversalsCommand,
    },
    /// Mark abandoned in-progress idempotency records failed, once.
    Sweep,
    /// Delete expired idempotency records and history past its retention, once.
    Purge,
    /// Check the audit log.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Check the ledger.
    Ledger {
        #[command(subcommand)]
        command: LedgerCommand,
    },
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// Check that every journal sums to zero per currency and every balance is the sum of its
    /// entries: exit 0 with a summary, else print one line per break and exit 1.
    Verify {
        /// Check this merchant's ledger only (`mer_…`).
        #[arg(long)]
        merchant: Option<String>,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Check each merchant's audit chain: exit 0 when whole, else print each broken chain's
    /// first changed, removed or inserted entry and exit 1.
    Verify {
        /// Check this merchant's chain only (`mer_…`).
        #[arg(long)]
        merchant: Option<String>,
    },
}

#[derive(Subcommand)]
enum MerchantsCommand {
    /// Create a merchant and print its id and API key (shown only now).
    Create {
        #[arg(long)]
        name: String,
        /// Print `{"merchant_id", "api_key"}`.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum ReversalsCommand {
    /// Mark an unfinished reversal dealt with by a person: it is never retried again.
    Resolve {
        /// The duplicate transfer whose reversal is unfinished (`tr_…`).
        #[arg(long)]
        transfer: String,
    },
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text)
        .ok_or_else(|| format!("{text} is not a role: owner, admin, developer, finance or viewer"))
}

#[derive(Subcommand)]
enum UsersCommand {
    /// Create a console user for a merchant, or a support user.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        password: String,
        #[arg(long, required_unless_present = "support", conflicts_with = "support")]
        merchant: Option<String>,
        /// The member's role in the merchant: owner, admin, developer, finance or viewer.
        #[arg(long, default_value = "owner", value_parser = parse_role, conflicts_with = "support")]
        role: Role,
        #[arg(long)]
        support: bool,
    },
    /// Take away a user's two-step sign-in (a lost phone, say), after checking who asks: the
    /// user then signs in with the password alone and enrols again. Recorded in the audit log.
    ResetTwoFactor {
        #[arg(long)]
        email: String,
    },
}

/// The demo merchant of the embedded mode: a fixed, published test key.
const DEMO_MERCHANT_ID: &str = "mer_demo";
const DEMO_API_KEY: &str = "sk_test_demo_0000000000000000000000000000000";
/// The demo console logins: a merchant user of the demo merchant, and a support user.
const DEMO_LOGINS: [(&str, &str, Option<&str>); 2] = [
    (
        "demo@kaadxpay.test",
        "demo-password",
        Some(DEMO_MERCHANT_ID),
    ),
    ("support@kaadxpay.test", "support-password", None),
];

/// mimalloc in place of glibc's malloc: a request allocates and frees many small buffers, and
/// its request log entry is freed on the writer's thread, not the one that made it (README,
/// "Where a new key's instructions go: the profile").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(problem) = flags::given_twice(&Cli::command(), &args) {
        eprintln!("kaadxpay: {problem}");
        return ExitCode::from(2);
    }
    let matches = Cli::command().get_matches_from(&args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit());
    let command = match cli.command {
        None => Command::Serve(cli.serve),
        Some(Command::Serve(after)) => Command::Serve(after.with_flags_before(cli.serve, &matches)),
        Some(command) => command,
    };
    let log_target = match command {
        Command::Serve(_) | Command::PartnerSim(_) => LogTarget::Stdout,
        _ => LogTarget::Stderr,
    };
    telemetry::init_logs(cli.settings.log_format, log_target);
    let mut problems = components::problems(&cli.settings);
    if let Command::Serve(args) = &command {
        problems.extend(cli.settings.serve_problems(args.demo));
    }
    if !problems.is_empty() {
        for problem in problems {
            eprintln!("kaadxpay: {problem}");
        }
        return ExitCode::from(2);
    }
    // One line, its causes after colons, for a person: never a backtrace.
    match start(command, &cli.settings).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("kaadxpay: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `command`: the simulator on its own, anything else on the database.
async fn start(command: Command, settings: &Settings) -> anyhow::Result<()> {
    if let Command::PartnerSim(args) = command {
        let wanted = args.addr;
        let (addr, serving) = sim::bind(args, &settings.data_dir)
            .await
            .with_context(|| format!("cannot listen on {wanted}"))?;
        println!("partner simulator listening on http://{addr}");
        return Ok(serving.await?);
    }
    let db = Database::open(
        settings.database_url.as_deref(),
        settings.migrate_database_url.as_deref(),
        &settings.data_dir,
        settings.db_pool_size,
        settings.db_acquire_timeout,
    )
    .await?;
    let result = run(command, settings, &db).await;
    db.close().await;
    result
}

async fn run(command: Command, settings: &Settings, db: &Database) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve(args, settings, db).await,
        Command::Migrate => {
            println!("migrations applied");
            Ok(())
        }
        Command::Merchants {
            command: MerchantsCommand::Create { name, json },
        } => {
            let merchant = auth::create_merchant(&db.pool, &name, settings.mode).await?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"merchant_id": merchant.merchant_id, "api_key": merchant.api_key})
                );
            } else {
                println!(
                    "merchant {} created; API key {}",
                    merchant.merchant_id, merchant.api_key
                );
            }
            Ok(())
        }
        Command::Users {
            command:
                UsersCommand::Create {
                    email,
                    password,
                    merchant,
                    role,
                    support: _,
                },
        } => {
            let membership = merchant.as_deref().map(|merchant| (merchant, role));
            let id = users::create(&db.pool, &email, &password, membership).await?;
            println!("user {id} created");
            Ok(())
        }
        Command::Users {
            command: UsersCommand::ResetTwoFactor { email },
        } => {
            let operator = std::env::var("USER").unwrap_or_else(|_| "operator".to_owned());
            anyhow::ensure!(
                two_factor::reset(&db.pool, &email, &operator).await?,
                "{email} has no account"
            );
            println!("two-step sign-in of {email} reset: the password alone signs in until it is set up again");
            Ok(())
        }
        Command::PartnerSim(_) => unreachable!("the simulator needs no database and is run first"),
        Command::Reconcile { date, apply } => {
            let partner_url = settings.partner_url_or_local();
            let reconciler = Reconciler {
                pool: db.pool.clone(),
                partner: components::partner_client(settings, &partner_url),
            };
            println!(
                "{}",
                serde_json::to_string_pretty(&reconciler.run(date, apply).await?)?
            );
            Ok(())
        }
        Command::Reversals {
            command: ReversalsCommand::Resolve { transfer },
        } => {
            anyhow::ensure!(
                reversals::resolve(&db.pool, &transfer).await?,
                "{transfer} has no unfinished reversal that is not being asked for right now"
            );
            println!("the reversal of {transfer} is marked resolved");
            Ok(())
        }
        Command::Sweep => {
            println!(
                "{} abandoned records marked failed",
                maintenance::sweep(db.pool.clone()).await?
            );
            Ok(())
        }
        Command::Purge => {
            println!(
                "{} expired records deleted",
                maintenance::purge(db.pool.clone(), settings.idempotency_ttl).await?
            );
            let history = components::retention(settings).purge(&db.pool).await?;
            println!("history past its retention deleted: {history:?}");
            let days =
                server::request_log::partitions::maintain(&db.pool, settings.request_log.retention)
                    .await?;
            println!("{days} request log days past their retention dropped");
            Ok(())
        }
        Command::Audit {
            command: AuditCommand::Verify { merchant },
        } => {
            let merchant = merchant.map(MerchantId::from);
            let report = chain::verify(&db.pool, merchant.as_ref()).await?;
            verdict(
                &report.breaks,
                format!(
                    "the audit log is whole: {} entries in {} chains",
                    report.entries, report.chains
                ),
                format!(
                    "{} of {} audit chains are broken",
                    report.breaks.len(),
                    report.chains
                ),
            )
        }
        Command::Ledger {
            command: LedgerCommand::Verify { merchant },
        } => {
            let merchant = merchant.map(MerchantId::from);
            let report = ledger::verify(&db.pool, merchant.as_ref()).await?;
            verdict(
                &report.breaks,
                format!(
                    "the ledger balances: {} journals of {} entries, {} balances equal to their entries",
                    report.journals, report.entries, report.balances
                ),
                format!("the ledger has {} breaks", report.breaks.len()),
            )
        }
    }
}

/// A verification's verdict: `whole` when nothing is broken, else each break on a line of its
/// own and an error saying `broken` (exit 1).
fn verdict(breaks: &[impl std::fmt::Display], whole: String, broken: String) -> anyhow::Result<()> {
    if breaks.is_empty() {
        println!("{whole}");
        return Ok(());
    }
    for each in breaks {
        println!("{each}");
    }
    anyhow::bail!(broken)
}

async fn serve(args: ServeArgs, settings: &Settings, db: &Database) -> anyhow::Result<()> {
    let mut settings = settings.clone();
    if db.embedded.is_some() {
        // A laptop's own receivers are what local development registers.
        settings.webhook_allow_private_networks = true;
        // The key that seals secrets at rest stays with the data it seals.
        if settings.secrets_key.is_none() {
            let key = SecretsKey::from_file_in(&settings.data_dir)?;
            settings.secrets_key = Some(Hidden(key.to_hex()));
        }
    }
    let app = Application::build(&settings, db.pool.clone(), args.addr).await?;
    let addr = app.local_addr();
    // Never beside a real partner (`serve_problems` refuses `--demo` with one).
    if (args.demo || db.embedded.is_some()) && settings.partner_url.is_none() {
        let demo = NewMerchant {
            merchant_id: DEMO_MERCHANT_ID.into(),
            api_key: DEMO_API_KEY.into(),
        };
        if auth::ensure_merchant(&db.pool, &demo, "Demo Merchant").await? {
            tokio::spawn(fund_demo(
                format!("http://{addr}"),
                app.partner_url().to_owned(),
            ));
        }
        for (email, password, merchant) in DEMO_LOGINS {
            if !users::exists(&db.pool, email).await? {
                let membership = merchant.map(|merchant| (merchant, Role::Owner));
                users::create(&db.pool, email, password, membership).await?;
            }
        }
        println!("Kaadxpay is serving on http://{addr}");
        println!("  console:      http://{addr}/");
        println!("  partner bank: {}", app.partner_url());
        if db.embedded.is_some() {
            println!("  webhook endpoints may be loopback and private addresses (embedded mode)");
        }
        println!("  demo merchant {DEMO_MERCHANT_ID}, API key {DEMO_API_KEY}");
        for (email, password, merchant) in DEMO_LOGINS {
            let role = if merchant.is_some() {
                "merchant owner"
            } else {
                "support user"
            };
            println!("  console login ({role}): {email} / {password}");
        }
        println!("  try: curl -X POST http://{addr}/v1/orders -H 'Authorization: Bearer {DEMO_API_KEY}' -H 'Idempotency-Key: first-order' -d '{{\"amount\": 1000, \"currency\": \"EUR\"}}'");
    }
    tracing::info!(%addr, "serving");
    app.run(shutdown_signal())
        .await
        .context("the server stopped with an error")
}

/// What the demo merchant starts with, once, when it is made: 10,000.00 EUR sent to its funding
/// account at the (simulated) partner bank with its reference, which the partner reports like
/// any money in: a top-up, credited once.
async fn fund_demo(base_url: String, partner_url: String) {
    let client = reqwest::Client::new();
    let funded = async {
        while client
            .get(format!("{base_url}/healthz"))
            .send()
            .await
            .is_err()
        {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let account: serde_json::Value = client
            .get(format!("{base_url}/v1/funding-account"))
            .bearer_auth(DEMO_API_KEY)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        client
            .post(format!("{partner_url}/_sim/incoming"))
            .json(&serde_json::json!({
                "amount": 1_000_000,
                "currency": "EUR",
                "reference": account["reference"],
            }))
            .send()
            .await?
            .error_for_status()?;
        anyhow::Ok(())
    };
    if let Err(error) = funded.await {
        tracing::warn!(
            error = format!("{error:#}"),
            "the demo merchant was not funded"
        );
    }
}

async fn shutdown_signal() {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler installs");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    tracing::info!("shutting down");
}
