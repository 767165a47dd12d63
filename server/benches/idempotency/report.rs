//! The one table the benchmark prints: each figure, what was measured, the target and
//! whether it was `met` (rows without a target are context for the others).

use std::fmt::Write;
use std::time::Duration;

use crate::load::{ms, Load};

#[derive(Default)]
pub struct Table {
    rows: Vec<[String; 4]>,
}

impl Table {
    /// A figure without a target.
    pub fn fact(&mut self, figure: impl Into<String>, measured: impl Into<String>) {
        self.rows
            .push([figure.into(), measured.into(), String::new(), String::new()]);
    }

    /// A figure against its target; `met` says whether it was reached.
    pub fn target(
        &mut self,
        figure: impl Into<String>,
        measured: impl Into<String>,
        target: impl Into<String>,
        met: bool,
    ) {
        let verdict = if met { "met" } else { "MISSED" };
        self.rows.push([
            figure.into(),
            measured.into(),
            target.into(),
            verdict.into(),
        ]);
    }

    pub fn render(&self) -> String {
        let header = ["figure", "measured", "target", ""].map(String::from);
        let rows = std::iter::once(&header).chain(&self.rows);
        let width = |column: usize| {
            rows.clone()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths = [width(0), width(1), width(2)];
        let mut out = String::new();
        for row in rows {
            let _ = writeln!(
                out,
                "{:<w0$}  {:<w1$}  {:<w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
            );
        }
        out
    }
}

/// `1110 req/s, p50/p99/p99.9 28.1/46.9/72.6 ms, 0 errors`.
pub fn load(load: &Load) -> String {
    format!(
        "{:.0} req/s, p50/p99/p99.9 {:.1}/{:.1}/{:.1} ms, {} errors",
        load.throughput(),
        ms(load.p50),
        ms(load.p99),
        ms(load.p999),
        load.errors
    )
}

/// Milliseconds with two decimals.
pub fn millis(duration: Duration) -> String {
    format!("{:.2} ms", ms(duration))
}
