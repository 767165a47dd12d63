//! The server's own figures, read from its `/metrics` (Prometheus text) before and after a run,
//! so that their difference is the run's: a counter (the answer cache's hits and misses) and a
//! histogram (time to answer, per route and status), whose quantiles are interpolated within
//! its buckets as Prometheus' `histogram_quantile` does.

use std::time::Duration;

use crate::stack::Server;

/// One reading of `/metrics`.
pub struct Reading {
    text: String,
}

impl Reading {
    pub async fn of(server: &Server) -> anyhow::Result<Self> {
        let text = reqwest::get(format!("{}/metrics", server.base_url))
            .await?
            .error_for_status()?
            .text()
            .await?;
        Ok(Self { text })
    }

    /// The sum of the samples of `name` whose labels include all of `labels`.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.samples(name, labels).map(|(_, value)| value).sum()
    }

    /// `(upper bound, cumulative count)` of histogram `name` with `labels`, summed over the
    /// other labels, in increasing bounds (`+Inf` last).
    fn buckets(&self, name: &str, labels: &[(&str, &str)]) -> Vec<(f64, f64)> {
        let mut buckets: Vec<(f64, f64)> = Vec::new();
        for (sample_labels, value) in self.samples(&format!("{name}_bucket"), labels) {
            let Some(bound) = label(sample_labels, "le").and_then(|le| le.parse().ok()) else {
                continue;
            };
            match buckets.iter_mut().find(|(at, _)| *at == bound) {
                Some((_, count)) => *count += value,
                None => buckets.push((bound, value)),
            }
        }
        buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        buckets
    }

    /// `(labels, value)` of each sample of `name` with all of `labels`.
    fn samples<'a>(
        &'a self,
        name: &'a str,
        labels: &'a [(&str, &str)],
    ) -> impl Iterator<Item = (&'a str, f64)> + 'a {
        self.text.lines().filter_map(move |line| {
            let rest = line.strip_prefix(name)?;
            let (sample_labels, value) = match rest.strip_prefix('{') {
                Some(rest) => rest.rsplit_once("} ")?,
                None => ("", rest.strip_prefix(' ')?),
            };
            labels
                .iter()
                .all(|(key, wanted)| label(sample_labels, key) == Some(wanted))
                .then(|| Some((sample_labels, value.trim().parse().ok()?)))?
        })
    }
}

/// The value of `key` in `a="x",b="y"` (values without commas or quotes).
fn label<'a>(labels: &'a str, key: &str) -> Option<&'a str> {
    labels.split(',').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name == key).then(|| value.trim_matches('"'))
    })
}

/// Observations of histogram `name` with `labels` between two readings: how many, and their
/// `q` quantile (`None` without any).
pub fn quantile(
    before: &Reading,
    after: &Reading,
    name: &str,
    labels: &[(&str, &str)],
    q: f64,
) -> (u64, Option<Duration>) {
    let earlier = before.buckets(name, labels);
    let buckets: Vec<(f64, f64)> = after
        .buckets(name, labels)
        .into_iter()
        .map(|(bound, count)| {
            let was = earlier
                .iter()
                .find(|(at, _)| *at == bound)
                .map_or(0.0, |b| b.1);
            (bound, count - was)
        })
        .collect();
    let total = buckets.last().map_or(0.0, |bucket| bucket.1);
    if total <= 0.0 {
        return (0, None);
    }
    let rank = q * total;
    let (mut lower, mut below) = (0.0, 0.0);
    for (bound, count) in buckets {
        if count >= rank {
            let seconds = if bound.is_infinite() {
                lower
            } else {
                lower + (bound - lower) * (rank - below) / (count - below).max(f64::MIN_POSITIVE)
            };
            return (total as u64, Some(Duration::from_secs_f64(seconds)));
        }
        (lower, below) = (bound, count);
    }
    (total as u64, None)
}
