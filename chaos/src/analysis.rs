//! What the clients saw: every attempt classified against the faults injected at the time,
//! the failing stretches (periods in which no attempt of any client succeeded), and the
//! unavailability each database leader move caused.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use kaadxpay_client::{Attempt, AttemptResult};

use crate::nemesis::{Fault, FaultKind};

/// How long after a replica is back a dropped connection still counts as its kill's.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// What one attempt was, for the verdict.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// A definitive answer.
    Answered,
    /// `503` with `Retry-After`: the contract's answer while the database is unreachable.
    Unavailable,
    /// `409 idempotency_request_in_progress` with `Retry-After`: the key is held by an attempt
    /// still running, or by a process that died (until its lease runs out).
    InProgress,
    /// The connection dropped, or HAProxy's `502` said the replica dropped it, while a
    /// replica was being killed.
    KilledReplica,
    /// Anything else: a violation (`500`, a `503` without `Retry-After`, a timeout, …).
    Unexpected(String),
}

impl Class {
    pub fn is_violation(&self) -> bool {
        matches!(self, Self::Unexpected(_))
    }
}

fn during_replica_kill(at: SystemTime, faults: &[Fault]) -> bool {
    faults.iter().any(|fault| {
        fault.kind == FaultKind::ReplicaKill
            && at >= fault.started_at
            && at <= fault.ended_at + KILL_GRACE
    })
}

/// Classifies one attempt against the faults.
pub fn classify(attempt: &Attempt, faults: &[Fault]) -> Class {
    if !attempt.result.is_retryable() {
        return Class::Answered;
    }
    let killed = during_replica_kill(attempt.finished_at, faults);
    match &attempt.result {
        AttemptResult::Answered {
            status: 503,
            retry_after: Some(_),
            ..
        } => Class::Unavailable,
        AttemptResult::Answered {
            status: 409,
            retry_after: Some(_),
            ..
        } => Class::InProgress,
        AttemptResult::Answered {
            status: 502,
            code: Some(code),
            ..
        } if killed && code == "upstream_connection_lost" => Class::KilledReplica,
        AttemptResult::Connection(_) if killed => Class::KilledReplica,
        AttemptResult::Answered {
            status,
            code,
            retry_after,
            ..
        } => Class::Unexpected(format!(
            "{status} {} (Retry-After {retry_after:?})",
            code.as_deref().unwrap_or("-")
        )),
        AttemptResult::Timeout => Class::Unexpected("timeout".to_owned()),
        AttemptResult::Connection(cause) => Class::Unexpected(format!("connection: {cause}")),
    }
}

/// A period in which every attempt that finished failed, ended by the next success.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub from: SystemTime,
    pub to: SystemTime,
}

impl Stretch {
    pub fn length(&self) -> Duration {
        self.to.duration_since(self.from).unwrap_or_default()
    }
}

/// The failing stretches across all clients: from the first failure after a success to the
/// next success (by the time each attempt finished). A `409` in-progress answer is not a
/// failure here: it says the service is up and holds the key.
pub fn failing_stretches<'a>(attempts: impl Iterator<Item = &'a Attempt>) -> Vec<Stretch> {
    let mut timeline: Vec<(SystemTime, bool)> = attempts
        .filter(|attempt| !matches!(attempt.result, AttemptResult::Answered { status: 409, .. }))
        .map(|attempt| (attempt.finished_at, attempt.result.is_retryable()))
        .collect();
    timeline.sort_by_key(|(at, _)| *at);
    let mut stretches = Vec::new();
    let mut open: Option<SystemTime> = None;
    for (at, failed) in timeline {
        match (failed, open) {
            (true, None) => open = Some(at),
            (false, Some(from)) => {
                stretches.push(Stretch { from, to: at });
                open = None;
            }
            _ => {}
        }
    }
    if let Some(from) = open {
        stretches.push(Stretch { from, to: from });
    }
    stretches
}

/// For each leader move, the longest failing stretch that began during it (0 if none).
pub fn leader_move_unavailability(stretches: &[Stretch], faults: &[Fault]) -> Vec<Duration> {
    faults
        .iter()
        .filter(|fault| fault.kind.moves_leader())
        .map(|fault| {
            stretches
                .iter()
                .filter(|stretch| {
                    stretch.from >= fault.started_at && stretch.from <= fault.ended_at
                })
                .map(Stretch::length)
                .max()
                .unwrap_or_default()
        })
        .collect()
}

/// The median and the maximum.
pub fn p50_max(values: &[Duration]) -> (Duration, Duration) {
    let mut sorted = values.to_vec();
    sorted.sort();
    let p50 = sorted
        .get(sorted.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or_default();
    (p50, sorted.last().copied().unwrap_or_default())
}

/// Counts of attempts by class (violations by their description).
pub fn tally<'a>(classes: impl Iterator<Item = &'a Class>) -> BTreeMap<Class, usize> {
    let mut counts = BTreeMap::new();
    for class in classes {
        *counts.entry(class.clone()).or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000 + seconds)
    }

    fn attempt(seconds: u64, result: AttemptResult) -> Attempt {
        Attempt {
            started_at: at(seconds),
            finished_at: at(seconds),
            result,
        }
    }

    fn answered(status: u16, code: &str, retry_after: Option<u64>) -> AttemptResult {
        AttemptResult::Answered {
            status,
            code: Some(code.to_owned()),
            retry_after: retry_after.map(Duration::from_secs),
            should_retry: None,
        }
    }

    fn kill(from: u64, to: u64) -> Fault {
        Fault {
            kind: FaultKind::ReplicaKill,
            started_at: at(from),
            ended_at: at(to),
            leader_after: None,
            detail: String::new(),
        }
    }

    #[test]
    fn classifies_by_the_contract_and_the_faults() {
        let faults = [kill(10, 12)];
        let cases = [
            (attempt(1, answered(201, "", None)), Class::Answered),
            (
                attempt(1, answered(503, "service_unavailable", Some(1))),
                Class::Unavailable,
            ),
            (
                attempt(1, answered(409, "idempotency_request_in_progress", Some(2))),
                Class::InProgress,
            ),
            (
                attempt(11, answered(502, "upstream_connection_lost", Some(1))),
                Class::KilledReplica,
            ),
            (
                attempt(13, AttemptResult::Connection("reset".into())),
                Class::KilledReplica,
            ),
        ];
        for (attempt, class) in cases {
            assert_eq!(classify(&attempt, &faults), class, "{attempt:?}");
        }
        let violations = [
            attempt(1, answered(500, "internal_error", None)),
            attempt(1, answered(503, "service_unavailable", None)),
            attempt(30, answered(502, "upstream_connection_lost", Some(1))),
            attempt(30, AttemptResult::Connection("reset".into())),
            attempt(1, AttemptResult::Timeout),
        ];
        for attempt in violations {
            assert!(classify(&attempt, &faults).is_violation(), "{attempt:?}");
        }
    }

    #[test]
    fn a_stretch_runs_from_the_first_failure_to_the_next_success() {
        let unavailable = || answered(503, "service_unavailable", Some(1));
        let ok = || answered(201, "", None);
        let attempts = [
            attempt(1, ok()),
            attempt(2, unavailable()),
            attempt(3, answered(409, "idempotency_request_in_progress", Some(2))),
            attempt(5, unavailable()),
            attempt(6, ok()),
            attempt(7, unavailable()),
            attempt(8, ok()),
        ];
        let stretches = failing_stretches(attempts.iter());
        assert_eq!(
            stretches,
            [
                Stretch {
                    from: at(2),
                    to: at(6)
                },
                Stretch {
                    from: at(7),
                    to: at(8)
                }
            ]
        );
        let switchover = Fault {
            kind: FaultKind::Switchover,
            ..kill(1, 4)
        };
        assert_eq!(
            leader_move_unavailability(&stretches, &[switchover, kill(7, 8)]),
            [Duration::from_secs(4)]
        );
        assert_eq!(
            p50_max(&[
                Duration::from_secs(3),
                Duration::from_secs(1),
                Duration::from_secs(9)
            ]),
            (Duration::from_secs(3), Duration::from_secs(9))
        );
    }
}
