//! Operations: `/healthz`, `/readyz`, `/metrics` (Prometheus text) and `/openapi.json`.
//! `/readyz` and `/metrics` report what [`Figures::refresh`] last found, every second, in one
//! task: they take no database connection per call, so a probe or scrape storm cannot drain the
//! pool, and they answer at once while the pool is exhausted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use sqlx::PgPool;

use crate::platform::db;
use crate::service::state::AppState;

/// How often [`Figures::refresh`] asks the database.
pub const REFRESH_INTERVAL: Duration = Duration::from_secs(1);

/// What the database said last: whether it is reachable and migrated; the queue depths go to
/// the gauges.
#[derive(Clone, Default)]
pub struct Figures {
    ready: Arc<AtomicBool>,
}

impl Figures {
    /// Asks the database once (run at start, before serving, then every [`REFRESH_INTERVAL`]).
    pub async fn refresh(&self, pool: &PgPool) -> Result<(), std::convert::Infallible> {
        let ready = db::migrations_applied(pool).await;
        self.ready.store(ready, Ordering::Relaxed);
        if !ready {
            return Ok(());
        }
        let depths = sqlx::query!(
            r#"SELECT
                 (SELECT count(*) FROM idempotency_keys WHERE status = 'in_progress')
                   AS "in_progress!",
                 (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
                   AS "pending_deliveries!""#,
        )
        .fetch_one(pool)
        .await;
        if let Ok(depths) = depths {
            metrics::gauge!("kaadxpay_idempotency_in_progress").set(depths.in_progress as f64);
            metrics::gauge!("kaadxpay_webhook_deliveries_pending")
                .set(depths.pending_deliveries as f64);
        }
        Ok(())
    }
}

pub fn router(openapi: serde_json::Value, figures: Figures) -> Router<AppState> {
    Router::new()
        .route("/healthz", get(|| async { Json(json!({"status": "ok"})) }))
        .route("/readyz", get(move || readyz(figures.clone())))
        .route("/metrics", get(metrics))
        .route(
            "/openapi.json",
            get(move || async move { Json(openapi.clone()) }),
        )
}

async fn readyz(figures: Figures) -> impl IntoResponse {
    if figures.ready.load(Ordering::Relaxed) {
        (StatusCode::OK, Json(json!({"status": "ready"})))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(
                json!({"status": "unavailable", "reason": "the database is unreachable or not migrated"}),
            ),
        )
    }
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
}
