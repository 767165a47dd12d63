//! Building the application: the shared state, the router (API, operations, console) with its
//! middleware, the background workers (sweeper, purge, webhook dispatcher), and the listener
//! (port 0 in tests).

use std::net::SocketAddr;

use axum::Router;
use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::config::Settings;
use crate::http;
use crate::idempotency::maintenance::{purge, sweep};
use crate::idempotency::Idempotency;
use crate::telemetry;
use crate::webhooks::Dispatcher;
use crate::workers::every;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub idempotency: Idempotency,
    pub metrics: PrometheusHandle,
}

pub struct Application {
    listener: TcpListener,
    router: Router,
    workers: Vec<JoinHandle<()>>,
}

impl Application {
    /// Binds `addr` and starts the workers; `run` then serves.
    pub async fn build(
        settings: &Settings,
        pool: PgPool,
        addr: SocketAddr,
    ) -> anyhow::Result<Self> {
        let state = AppState {
            idempotency: Idempotency::new(
                pool.clone(),
                settings.idempotency_ttl,
                settings.idempotency_lease,
            ),
            pool: pool.clone(),
            metrics: telemetry::metrics(),
        };
        let router = router(state);
        let dispatcher = Dispatcher::new(pool.clone(), settings);
        let listener = TcpListener::bind(addr).await?;
        let workers = vec![
            tokio::spawn(every(settings.sweep_interval, "sweeper", {
                let pool = pool.clone();
                move || sweep(pool.clone())
            })),
            tokio::spawn(every(settings.purge_interval, "purge", move || {
                purge(pool.clone())
            })),
            tokio::spawn(every(
                settings.webhook_interval,
                "webhook dispatcher",
                move || {
                    let dispatcher = dispatcher.clone();
                    async move { dispatcher.drain().await }
                },
            )),
        ];
        Ok(Self {
            listener,
            router,
            workers,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `shutdown` resolves, then stops the workers.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let served = axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await;
        for worker in self.workers {
            worker.abort();
        }
        served
    }
}

pub fn router(state: AppState) -> Router {
    http::api_router()
        .with_state(state)
        .merge(http::console::router())
        .fallback(http::unknown_route)
        .layer(axum::middleware::from_fn(http::middleware::observe))
}
