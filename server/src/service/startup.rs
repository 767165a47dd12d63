//! Building the application: the shared state, the router (from `http`), the background workers (sweeper, purge, payouts, reconciliation, webhook
//! dispatcher, the request log's writer and its partitions), and the listener (port 0 in tests). Without a partner URL it also starts the
//! partner simulator in-process, sending its webhooks back to us.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use chrono::{Days, Utc};
use sqlx::PgPool;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tower_sessions::ExpiredDeletion;

use crate::exports;
use crate::service::components;
use crate::service::config::{Settings, LOCAL_PARTNER_ADDR};

use crate::accounts::auth;
use crate::edge::middleware::{Admission, Deadlines};
use crate::http::ops::{Figures, REFRESH_INTERVAL};
use crate::idempotency::maintenance::{purge, sweep};
use crate::idempotency::Idempotency;
use crate::payments::executor::PayoutWorker;
use crate::platform::db;
use crate::platform::telemetry;
use crate::platform::workers::{every, every_after_one_interval};
use crate::reconcile::reversals::ReversalWorker;
use crate::reconcile::Reconciler;
use crate::request_log::{self, RequestLog};
use crate::service::kernel::Kernel;
use crate::service::state::{AppState, Services};
use crate::webhooks::{self, Dispatcher};
use crate::{console, edge};
use kaadxpay_partner_sim::test_mode::TestMode;
use kaadxpay_partner_sim::{self as sim, Mode, SimArgs};

/// Connections the idempotency engine keeps in reserve for marking claimed keys failed.
const SETTLE_CONNECTIONS: u32 = 2;

/// How often the idempotency outcome counts reach the database.
const OUTCOMES_FLUSH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

pub struct Application {
    listener: TcpListener,
    router: Router,
    header_read_timeout: std::time::Duration,
    workers: Vec<JoinHandle<()>>,
    partner_url: String,
}

impl Application {
    /// Binds `addr`, starts the workers (and the partner simulator when no partner is
    /// configured); `run` then serves.
    pub async fn build(
        settings: &Settings,
        pool: PgPool,
        addr: SocketAddr,
    ) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let mut workers = Vec::new();
        let (partner_url, test_mode) = match &settings.partner_url {
            Some(url) => (url.clone(), TestMode::at(url)),
            None => {
                let (url, simulator) =
                    start_local_partner(settings, listener.local_addr()?).await?;
                workers.push(simulator);
                (url, TestMode::embedded())
            }
        };
        let (request_log, request_log_buffer) = RequestLog::new(&components::request_log(settings));
        if let Some(buffer) = request_log_buffer {
            workers.push(tokio::spawn(request_log::writer::run(
                request_log::writer::connection(&pool),
                buffer,
            )));
        }
        let kernel = Kernel {
            idempotency: Idempotency::new(
                pool.clone(),
                db::reserve(&pool, SETTLE_CONNECTIONS),
                settings.idempotency_ttl,
                settings.idempotency_lease,
            )
            .on_broken_connection(db::connection_broke),
            pool: pool.clone(),
            webhook_allow_private_networks: settings.webhook_allow_private_networks,
        };
        let state = AppState::from(Services {
            kernel,
            mode: settings.mode,
            api_keys: Arc::default(),
            key_usage: Arc::default(),
            metrics: telemetry::metrics(),
            partner: components::partner_client(settings, &partner_url),
            partner_webhook_secret: components::partner_webhook_secret(settings)?.into(),
            funding: Arc::new(components::funding_details(settings)),
            test_mode,
            request_log,
            exports_pool: db::reserve(&pool, exports::CONNECTIONS),
            mail: components::invitation_mail(settings)?,
            sealer: components::sealer(settings)?,
            step_up_window: settings.step_up_window,
        });
        // Before any worker or request reads them.
        webhooks::secrets::seal_stored_in_clear(&pool, &state.sealer).await?;
        let outcomes = state.idempotency.outcomes().clone();
        let key_usage = state.key_usage.clone();
        workers.push(tokio::spawn(auth::cache::listen(
            state.api_keys.clone(),
            db::reserve(&pool, 1),
        )));
        let sessions = console::session_store(&state).await?;
        let admission = Admission::new(
            settings.max_in_flight(),
            settings.max_waiting(),
            settings.admission_wait,
        );
        let deadlines = Deadlines {
            body: settings.body_read_timeout,
            total: settings.request_timeout,
        };
        // On a connection of their own, so that an exhausted pool does not read as not ready.
        let figures = Figures::default();
        let figures_pool = db::reserve(&pool, 1);
        let _ = figures.refresh(&figures_pool).await;
        workers.push(tokio::spawn(every(REFRESH_INTERVAL, "figures", {
            let figures = figures.clone();
            move || {
                let (figures, pool) = (figures.clone(), figures_pool.clone());
                async move { figures.refresh(&pool).await }
            }
        })));
        let router = edge::router(
            state,
            sessions.clone(),
            admission,
            deadlines,
            figures,
            settings.serves_https(),
            components::trusted_proxies(settings).map_err(anyhow::Error::msg)?,
        );
        let dispatcher = Dispatcher::new(pool.clone(), components::dispatcher(settings)?);
        let payouts = PayoutWorker {
            pool: pool.clone(),
            partner: components::partner_client(settings, &partner_url),
            lease: settings.payout_lease,
            retry_base: settings.payout_retry_base,
            poll_interval: settings.payout_poll_interval,
        };
        let reconciler = Arc::new(Reconciler {
            pool: pool.clone(),
            partner: components::partner_client(settings, &partner_url),
        });
        let reversals = ReversalWorker {
            pool: pool.clone(),
            partner: components::partner_client(settings, &partner_url),
        };
        workers.extend([
            tokio::spawn(every(settings.sweep_interval, "sweeper", {
                let pool = pool.clone();
                move || sweep(pool.clone())
            })),
            tokio::spawn(every(settings.purge_interval, "purge", {
                let (pool, ttl) = (pool.clone(), settings.idempotency_ttl);
                move || purge(pool.clone(), ttl)
            })),
            tokio::spawn(every(settings.purge_interval, "history purge", {
                let (pool, retention) = (pool.clone(), components::retention(settings));
                move || {
                    let (pool, retention) = (pool.clone(), retention.clone());
                    async move { retention.purge(&pool).await }
                }
            })),
            // The payout worker and the webhook dispatcher first run one interval after start,
            // like every later run: work queued meanwhile waits at most that long, and their
            // interval alone decides when they run.
            tokio::spawn(every_after_one_interval(
                settings.payout_interval,
                "payouts",
                move || {
                    let payouts = payouts.clone();
                    async move { payouts.run_once().await }
                },
            )),
            // Not at boot: a fleet restarting together would all reconcile at once. Each check
            // after that reconciles yesterday on whichever replica claims the day first.
            tokio::spawn(every_after_one_interval(
                settings.reconcile_interval,
                "reconciliation",
                move || {
                    let reconciler = reconciler.clone();
                    let yesterday = Utc::now().date_naive() - Days::new(1);
                    async move { reconciler.run_daily(yesterday).await }
                },
            )),
            tokio::spawn(every(settings.purge_interval, "request log partitions", {
                let (pool, retention) = (pool.clone(), settings.request_log.retention);
                move || {
                    let pool = pool.clone();
                    async move { request_log::partitions::maintain(&pool, retention).await }
                }
            })),
            // Unfinished reversals, whatever their day, on every replica (claims keep them apart).
            tokio::spawn(every(settings.reconcile_interval, "reversals", move || {
                let reversals = reversals.clone();
                async move { reversals.run_once().await }
            })),
            tokio::spawn(every(
                settings.purge_interval,
                "expired sessions",
                move || {
                    let sessions = sessions.clone();
                    async move { sessions.delete_expired().await }
                },
            )),
            tokio::spawn(every(auth::usage::FLUSH_INTERVAL, "API key use", {
                let pool = pool.clone();
                move || {
                    let (key_usage, pool) = (key_usage.clone(), pool.clone());
                    async move { key_usage.flush(&pool).await }
                }
            })),
            tokio::spawn(every(OUTCOMES_FLUSH_INTERVAL, "outcomes", move || {
                let (outcomes, pool) = (outcomes.clone(), pool.clone());
                async move { outcomes.flush(&pool).await }
            })),
            tokio::spawn(every_after_one_interval(
                settings.webhook_interval,
                "webhook dispatcher",
                move || {
                    let dispatcher = dispatcher.clone();
                    async move { dispatcher.drain().await }
                },
            )),
        ]);
        Ok(Self {
            listener,
            router,
            header_read_timeout: settings.header_read_timeout,
            workers,
            partner_url,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    pub fn partner_url(&self) -> &str {
        &self.partner_url
    }

    /// Serves until `shutdown` resolves, then stops the workers.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        edge::listener::serve(
            self.listener,
            self.router,
            self.header_read_timeout,
            shutdown,
        )
        .await;
        for worker in self.workers {
            worker.abort();
        }
        Ok(())
    }
}

/// The partner simulator, in-process, on the local partner address or any free port.
async fn start_local_partner(
    settings: &Settings,
    app_addr: SocketAddr,
) -> anyhow::Result<(String, JoinHandle<()>)> {
    let webhook_secret = components::partner_webhook_secret(settings)?;
    let args = |addr: SocketAddr| SimArgs {
        addr,
        mode: Mode::Mature,
        latency_ms: 0,
        error_rate: 0.0,
        timeout_rate: 0.0,
        behaviours: Default::default(),
        webhook_url: Some(format!("http://{app_addr}/webhooks/partner")),
        webhook_secret: webhook_secret.to_owned(),
        store: None,
        settle_after: std::time::Duration::from_millis(200),
    };
    let local: SocketAddr = LOCAL_PARTNER_ADDR.parse().expect("a valid address");
    let (addr, serving) = match sim::bind(args(local), &settings.data_dir).await {
        Ok(bound) => bound,
        Err(_) => {
            sim::bind(
                args(SocketAddr::from(([127, 0, 0, 1], 0))),
                &settings.data_dir,
            )
            .await?
        }
    };
    tracing::info!(%addr, "partner simulator started in-process");
    let task = tokio::spawn(async move {
        if let Err(err) = serving.await {
            tracing::error!(error = ?err, "the partner simulator stopped");
        }
    });
    Ok((format!("http://{addr}"), task))
}
