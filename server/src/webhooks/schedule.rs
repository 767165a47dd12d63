//! The retry back-off: a list of delays (`KAADXPAY_WEBHOOK_RETRY_SCHEDULE`: `5s,30s,2m,...`),
//! the n-th used after the n-th failed attempt, each spread by ±20 % of jitter so that a recovering endpoint is not hit by every
//! retry at once; a `Retry-After` longer than the delay wins. When the list runs out the
//! delivery has failed.

use std::time::Duration;

use rand::Rng;

/// Longest `Retry-After` honoured: a day, the schedule's own longest step.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(Vec<Duration>);

impl RetrySchedule {
    /// The schedule of `delays`, the first after the first failed attempt.
    pub fn new(delays: Vec<Duration>) -> Self {
        Self(delays)
    }

    /// The wait before the next attempt after `failed_attempts` failures (at least one), or
    /// `None` when no attempt is left.
    pub fn next_delay(
        &self,
        failed_attempts: u32,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        let step = *self.0.get(failed_attempts.checked_sub(1)? as usize)?;
        let jittered = step.mul_f64(rand::thread_rng().gen_range(0.8..=1.2));
        Some(jittered.max(retry_after.unwrap_or_default().min(MAX_RETRY_AFTER)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_jittered_and_run_out() {
        let schedule = RetrySchedule::new(vec![Duration::from_secs(5), Duration::from_secs(120)]);
        let first = schedule.next_delay(1, None).unwrap();
        assert!((4.0..=6.0).contains(&first.as_secs_f64()), "{first:?}");
        let second = schedule.next_delay(2, None).unwrap();
        assert!((96.0..=144.0).contains(&second.as_secs_f64()), "{second:?}");
        assert_eq!(schedule.next_delay(3, None), None);
    }

    #[test]
    fn a_longer_retry_after_wins_up_to_a_day() {
        let schedule = RetrySchedule::new(vec![Duration::from_secs(1)]);
        let hour = Duration::from_secs(3600);
        assert_eq!(schedule.next_delay(1, Some(hour)), Some(hour));
        let week = Duration::from_secs(7 * 24 * 3600);
        assert_eq!(schedule.next_delay(1, Some(week)), Some(MAX_RETRY_AFTER));
    }
}
