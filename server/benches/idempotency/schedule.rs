//! The open loop's schedule: request `n` is due `n` intervals after the start. A connection
//! that is free takes the next request as soon as it is due: at once when it already is (a
//! connection freed by an answer looks at the clock itself), else when a pacer says it fell due,
//! as a permit of a semaphore the idle connections wait on.
//! Nothing in the open loop ever waits to be woken by a clock: on this virtual machine a
//! sleeping thread wakes 0.15 ms late at the median and 0.5 ms at p99 (a few milliseconds at
//! worst), whether its sleep ends or another thread wakes it, which was the send lag of the
//! 150 req/s run. So the pacer is a task on the connections' own single-threaded runtime that
//! looks at the clock and yields, never sleeps: between two looks the runtime polls the sockets
//! and runs the connections, and since the pacer is always ready the runtime never parks. The
//! generator's core is busy for the run's length, whatever the rate; it is the generator's
//! alone.
//!
//! A pacer alone let requests out late whenever answers came in a bunch: the runtime ran every
//! connection they woke before the pacer's next look, and at twice the capacity those bunches
//! (a stall of the server's core, then its answers at once) took up to 8 ms of the generator's
//! core, for 200 ms of late looks in 10 s. The connections that the bunch frees now send what
//! falls due meanwhile themselves.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

/// A pacer's look at the clock later than this after the one before is a stall.
const STALL: Duration = Duration::from_millis(1);

/// The pacer's late looks at the clock ([`STALL`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct Stalls {
    count: u32,
    total: Duration,
    longest: Duration,
}

impl Stalls {
    /// Counts the gap between two looks, if it is a stall.
    fn look(&mut self, gap: Duration) {
        if gap > STALL {
            self.count += 1;
            self.total += gap;
            self.longest = self.longest.max(gap);
        }
    }
}

impl fmt::Display for Stalls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        write!(
            f,
            "pacer stalled {} times over {:.2} ms ({:.2} ms in all, longest {:.2} ms)",
            self.count,
            ms(STALL),
            ms(self.total),
            ms(self.longest)
        )
    }
}

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
}

/// The requests of a [`Schedule`], taken by the connections as they fall due.
pub struct Pacer {
    schedule: Schedule,
    /// The next request's number: how many the connections have taken.
    taken: AtomicU64,
    /// One permit per request as the pacer sees it fall due, for the idle connections (a
    /// request a freed connection took first leaves its permit to wake one for nothing).
    due: Semaphore,
}

impl Pacer {
    pub fn new(schedule: Schedule) -> Self {
        Self {
            schedule,
            taken: AtomicU64::new(0),
            due: Semaphore::new(0),
        }
    }

    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The next request for a free connection, as soon as it is due; `None` once every request
    /// has been taken.
    pub async fn next(&self) -> Option<u64> {
        loop {
            let n = self.taken.load(Ordering::Relaxed);
            if n >= self.schedule.total {
                return None;
            }
            if self.schedule.due_at(Instant::now()) > n {
                if self
                    .taken
                    .compare_exchange(n, n + 1, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    return Some(n);
                }
                continue;
            }
            self.due.acquire().await.expect("never closed").forget();
        }
    }

    /// Adds a permit for each request as it falls due, then `connections` more (for the idle
    /// connections to find the schedule done); returns when all are due, with its late looks
    /// at the clock.
    pub async fn pace(&self, connections: usize) -> Stalls {
        let mut released = 0;
        let mut stalls = Stalls::default();
        let mut last_look = Instant::now();
        while released < self.schedule.total {
            let now = Instant::now();
            stalls.look(now - last_look);
            last_look = now;
            let now_due = self.schedule.due_at(now);
            if now_due > released {
                self.due.add_permits((now_due - released) as usize);
                released = now_due;
            }
            tokio::task::yield_now().await;
        }
        self.due.add_permits(connections);
        stalls
    }
}
