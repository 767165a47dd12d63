//! Operations: `/healthz`, `/readyz`, `/metrics` (Prometheus text) and `/openapi.json`.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use crate::db;
use crate::state::AppState;

pub fn router(openapi: utoipa::openapi::OpenApi) -> Router<AppState> {
    Router::new()
        .route("/healthz", get(|| async { Json(json!({"status": "ok"})) }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route(
            "/openapi.json",
            get(move || async move { Json(openapi.clone()) }),
        )
}

async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    if db::migrations_applied(&state.pool).await {
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
    let depths: Result<(i64, i64), _> = sqlx::query_as(
        "SELECT (SELECT count(*) FROM idempotency_keys WHERE status = 'in_progress'), \
                (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')",
    )
    .fetch_one(&state.pool)
    .await;
    if let Ok((in_progress, pending_deliveries)) = depths {
        metrics::gauge!("kaadxpay_idempotency_in_progress").set(in_progress as f64);
        metrics::gauge!("kaadxpay_webhook_deliveries_pending").set(pending_deliveries as f64);
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
}
