//! Overload: open loops at half and twice the closed-loop capacity, with the generator on a core
//! of its own (see [`crate::pinning`]): what was created and shed, as the client saw it and as
//! the server's own histogram timed it per status (from the request's arrival to its answer,
//! without the client's queues), and the keys left `in_progress` a second later. A run whose
//! generator lagged reports that instead of its figures.

use std::time::Duration;

use crate::database;
use crate::open_loop::{self, OpenLoop};
use crate::pinning::Pinning;
use crate::processes;
use crate::report::{self, Table};
use crate::server_metrics::{self, Reading};
use crate::stack::Stack;

const HISTOGRAM: &str = "kaadxpay_http_request_duration_seconds";

pub struct Overload {
    /// The new-key runs' throughputs, in req/s: the capacity is their median.
    closed_loop: Vec<u64>,
    half_rate: u32,
    double_rate: u32,
    half: OpenLoop,
    double: OpenLoop,
    /// Per status of the 2× run, from the server's histogram: answers and their p99.
    server_side: Vec<(&'static str, u64, Option<Duration>)>,
    /// The server's CPU time over the 2× run.
    double_cpu: Duration,
    left_in_progress: i64,
}

/// The closed loop's capacity: the median of its runs' throughputs `closed_loop` (req/s).
fn capacity(closed_loop: &[u64]) -> f64 {
    crate::median(closed_loop.iter().copied()) as f64
}

/// Open loops at half and twice the capacity, the median of the new-key runs' throughputs
/// `closed_loop` (req/s), `duration` each.
pub async fn run(
    stack: &Stack,
    closed_loop: &[u64],
    duration: Duration,
) -> anyhow::Result<Overload> {
    let capacity = capacity(closed_loop);
    let half_rate = (capacity / 2.0).round().max(1.0) as u32;
    let double_rate = (capacity * 2.0).round().max(1.0) as u32;
    eprintln!("open loop at half the capacity, {half_rate} requests/s...");
    let half = open_loop::run(stack, "half", half_rate, duration).await?;
    eprintln!("open loop at twice the capacity, {double_rate} requests/s...");
    let before = Reading::of(&stack.server).await?;
    let cpu_before = processes::cpu_time(stack.server.pid())?;
    let double = open_loop::run(stack, "overload", double_rate, duration).await?;
    let double_cpu = processes::cpu_time(stack.server.pid())? - cpu_before;
    let after = Reading::of(&stack.server).await?;
    let server_side = ["201", "503"]
        .into_iter()
        .map(|status| {
            let (answers, p99) = orders_p99(&before, &after, status);
            (status, answers, p99)
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let left_in_progress = database::in_progress(&stack.pool, "overload-").await?;
    Ok(Overload {
        closed_loop: closed_loop.to_vec(),
        half_rate,
        double_rate,
        half,
        double,
        server_side,
        double_cpu,
        left_in_progress,
    })
}

/// The `/v1/orders` answers of `status` between two readings of a server and their p99, by its
/// own histogram (its time from the request's arrival to its answer).
pub fn orders_p99(before: &Reading, after: &Reading, status: &str) -> (u64, Option<Duration>) {
    let labels = [("route", "/v1/orders"), ("status", status)];
    server_metrics::quantile(before, after, HISTOGRAM, &labels, 0.99)
}

/// `figure`, or that the generator lagged behind `run`'s schedule.
pub fn unless_lagged(run: &OpenLoop, figure: impl FnOnce() -> String) -> String {
    match run.lagged() {
        Some(lag) => format!(
            "generator lagged (send lag p99 {} > {}): no figure",
            report::millis(lag),
            report::millis(open_loop::MAX_SEND_LAG)
        ),
        None => figure(),
    }
}

impl Overload {
    /// The rows, `cpu_per_new_key` being the server's in the closed loop.
    pub fn rows(&self, table: &mut Table, pinning: &Pinning, cpu_per_new_key: Duration) {
        let (half, double) = (&self.half, &self.double);
        let unpinned = if pinning.pinned { "" } else { ", UNPINNED" };
        table.fact(
            "overload: closed-loop capacity",
            format!(
                "{:.0} req/s (the median of the {} new-key wrk runs with the request log on: {}); {}",
                capacity(&self.closed_loop),
                self.closed_loop.len(),
                self.closed_loop
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                pinning.description
            ),
        );
        let half_all = half.all();
        table.fact(
            format!("half load, {} req/s, open loop{unpinned}", self.half_rate),
            unless_lagged(half, || report::load(&half_all)),
        );
        table.fact("half load: what else ran", half.meanwhile.clone());
        table.fact("half load: the generator", half.generator.clone());
        table.fact(
            format!(
                "2x load, {} req/s, open loop, {} conns{unpinned}",
                self.double_rate,
                open_loop::connections()
            ),
            unless_lagged(double, || {
                format!(
                    "{} created, {} shed (503), {} other errors",
                    double.created.len(),
                    double.shed.len(),
                    double.failed.len()
                )
            }),
        );
        table.fact("2x load: what else ran", double.meanwhile.clone());
        table.fact("2x load: the generator", double.generator.clone());
        let created = double.created();
        let goodput = created.throughput() / capacity(&self.closed_loop);
        table.target(
            "2x load: goodput / capacity",
            unless_lagged(double, || {
                format!(
                    "{:.0} req/s = {:.0} %",
                    created.throughput(),
                    goodput * 100.0
                )
            }),
            ">= 90 %",
            double.lagged().is_none() && goodput >= 0.9,
        );
        // The server's CPU over the 2x run, per key it created, the shed requests' included:
        // beside the closed loop's, what overload costs the core the admitted keys need. It
        // holds even when the generator lagged (the run then sent fewer than it meant to).
        let per_created = self.double_cpu / double.created.len().max(1) as u32;
        table.fact(
            "2x load: server CPU per key created, shed requests included",
            format!(
                "{} µs ({:.0} ms a second; the closed loop's: {} µs)",
                per_created.as_micros(),
                self.double_cpu.as_secs_f64() * 1000.0 / double.elapsed.as_secs_f64(),
                cpu_per_new_key.as_micros(),
            ),
        );
        let server_side = |status: &str| {
            self.server_side
                .iter()
                .find(|(of, _, _)| *of == status)
                .and_then(|(_, answers, p99)| Some((*answers, (*p99)?)))
        };
        table.target(
            "2x load: shed p99, server-side (its histogram)",
            unless_lagged(double, || match server_side("503") {
                Some((answers, p99)) => format!("{} ({answers} shed)", report::millis(p99)),
                None => "none shed".into(),
            }),
            "< 5 ms",
            double.lagged().is_none()
                && server_side("503").is_none_or(|(_, p99)| p99 < Duration::from_millis(5)),
        );
        table.fact(
            "2x load: created p99, server-side (its histogram)",
            unless_lagged(double, || match server_side("201") {
                Some((answers, p99)) => format!("{} ({answers} created)", report::millis(p99)),
                None => "none created".into(),
            }),
        );
        let shed = double.shed();
        // The half-load row gives the admitted requests' latency without overload.
        table.fact(
            "2x load, client-side: shed p99; admitted p99",
            unless_lagged(double, || {
                format!(
                    "{}; {}",
                    report::millis(shed.p99),
                    report::millis(created.p99)
                )
            }),
        );
        table.target(
            "2x load: keys in_progress 1 s after",
            self.left_in_progress.to_string(),
            "0",
            self.left_in_progress == 0,
        );
    }
}
