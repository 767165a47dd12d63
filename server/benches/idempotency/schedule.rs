//! The open loop's schedule: request `n` is due `n` intervals after the start, and a pacer lets
//! the requests out as they fall due, as permits of a semaphore that the connections take.
//! The pacer is a thread of its own that sleeps until the next request is due: a thread's sleep
//! wakes within tens of microseconds, where a runtime's timer fires on the next millisecond at
//! the earliest, which alone would put a send lag of up to a millisecond on every request. On a
//! virtual machine a sleep can still wake a few hundred microseconds late (here: 0.15 ms at the
//! median, 0.5 ms at p99, at 150 a second), so when the schedule leaves room (requests at least
//! twice [`SPIN`] apart) the pacer sleeps until [`SPIN`] before the request is due and spins the
//! rest (p99 0.03 ms); at higher rates it never spins, since its core also runs the connections.
//! When it wakes late it lets out every request due by then at once, so the connections catch
//! up.

use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

/// How long before a request is due the pacer stops sleeping and spins, when it spins.
const SPIN: Duration = Duration::from_micros(500);

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
    /// takers that will find the schedule done); returns when all are out.
    pub fn pace(&self, due: &Semaphore, then: usize) {
        let spin = if self.interval >= 2 * SPIN {
            SPIN
        } else {
            Duration::ZERO
        };
        let mut released = 0;
        while released < self.total {
            let now = Instant::now();
            let next = self.intended(released);
            if next > now + spin {
                std::thread::sleep(next - spin - now);
                continue;
            }
            if next > now {
                std::hint::spin_loop();
                continue;
            }
            let now_due = self.due_at(now);
            due.add_permits((now_due - released) as usize);
            released = now_due;
        }
        due.add_permits(then);
    }
}
