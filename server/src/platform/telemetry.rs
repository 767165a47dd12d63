//! Logs (JSON lines by default, filtered by `RUST_LOG`) and the Prometheus recorder.

use std::sync::OnceLock;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;

use crate::service::config::LogFormat;

/// Where log lines go: stdout for the long-running services, stderr for one-shot commands, whose
/// stdout is their answer (`merchants create --json` prints exactly one JSON object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogTarget {
    Stdout,
    Stderr,
}

/// `RUST_LOG`, or by default `info` without PostgreSQL's notices (such as a migration's
/// "already exists, skipping"), which are not news to anyone.
pub fn init_logs(format: LogFormat, target: LogTarget) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx::postgres::notice=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(move || -> Box<dyn std::io::Write> {
            match target {
                LogTarget::Stdout => Box::new(std::io::stdout()),
                LogTarget::Stderr => Box::new(std::io::stderr()),
            }
        });
    match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .init(),
        LogFormat::Pretty => builder.init(),
    }
}

/// The process-wide metrics recorder, installed on first use.
pub fn metrics() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Suffix("duration_seconds".into()),
                    &[
                        0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.0,
                        2.0, 5.0,
                    ],
                )
                .expect("the bucket list is not empty")
                .install_recorder()
                .expect("no other metrics recorder is installed")
        })
        .clone()
}
