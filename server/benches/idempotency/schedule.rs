//! The open loop's schedule: request `n` is due `n` intervals after the start, and a pacer lets
//! the requests out as they fall due, as permits of a semaphore that the connections take.
//! Nothing in the open loop ever waits to be woken: on this virtual machine a sleeping thread
//! wakes 0.15 ms late at the median and 0.5 ms at p99 (a few milliseconds at worst), whether
//! its sleep ends or another thread wakes it, which was the send lag of the 150 req/s run.
//! So the pacer is a task on the connections' own single-threaded runtime that looks at the
//! clock and yields, never sleeps: between two looks the runtime polls the sockets and runs the
//! connections the permits woke, and since the pacer is always ready the runtime never parks.
//! The generator's core is busy for the run's length, whatever the rate; it is the generator's
//! alone. When a look comes late, every request due by then is let out at once, so the
//! connections catch up.

use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::stalls::Stalls;

#[derive(Clone, Copy)]
pub struct Schedule {
    start: Instant,
    interval: Duration,
    total: u64,
}

impl Schedule {
    /// `rate` requests a second for `duration`, from `start`.
    pub fn new(start: Instant, rate: u32, duration: Duration) -> Self {
        Self {
            start,
            interval: Duration::from_secs(1) / rate.max(1),
            total: u64::from(rate) * duration.as_secs(),
        }
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// When request `n` (from 0) is due.
    pub fn intended(&self, n: u64) -> Instant {
        self.start + Duration::from_nanos(self.interval.as_nanos() as u64 * n)
    }

    /// How many requests are due at `now`.
    fn due_at(&self, now: Instant) -> u64 {
        match now.checked_duration_since(self.start) {
            Some(since) => {
                let due = since.as_nanos() / self.interval.as_nanos().max(1) + 1;
                (due as u64).min(self.total)
            }
            None => 0,
        }
    }

    /// Adds a permit to `due` for each request as it falls due, then `then` more (for the
    /// takers that will find the schedule done); returns when all are out, with its late looks
    /// at the clock.
    pub async fn pace(&self, due: &Semaphore, then: usize) -> Stalls {
        let mut released = 0;
        let mut stalls = Stalls::default();
        let mut last_look = Instant::now();
        while released < self.total {
            let now = Instant::now();
            stalls.look(now - last_look);
            last_look = now;
            let now_due = self.due_at(now);
            if now_due > released {
                due.add_permits((now_due - released) as usize);
                released = now_due;
            }
            tokio::task::yield_now().await;
        }
        due.add_permits(then);
        stalls
    }
}
