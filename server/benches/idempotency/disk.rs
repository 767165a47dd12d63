//! The disk's own commit latency, the reference beside the open loop's tail: a new key's answer
//! waits for its commit, and a durable commit waits for PostgreSQL's WAL to reach the disk
//! (`fdatasync`), so no answer at a steady rate comes faster than the disk syncs. This times
//! `fdatasync` after an 8 kB write (a WAL page's size), at the loop's rate and for its
//! duration, in a file beside the cluster's data directory (the same file system), with no
//! PostgreSQL and no server in between.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::load::Load;
use crate::schedule::Schedule;

/// The latencies of `rate` writes and syncs a second for `duration`, in `dir`.
pub fn fdatasync_latency(dir: &Path, rate: u32, duration: Duration) -> anyhow::Result<Load> {
    let path = dir.join(format!("fdatasync-{}.tmp", std::process::id()));
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    let page = [0x5a_u8; 8192];
    let schedule = Schedule::new(Instant::now(), rate, duration);
    let mut latencies = Vec::with_capacity(schedule.total() as usize);
    for n in 0..schedule.total() {
        if let Some(wait) = schedule.intended(n).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let began = Instant::now();
        // Sixty-four pages in turn, as WAL segments are written over page by page.
        file.write_all_at(&page, (n % 64) * 8192)?;
        file.sync_data()?;
        latencies.push(began.elapsed());
    }
    drop(file);
    std::fs::remove_file(&path)?;
    Ok(Load::from_latencies(
        latencies,
        0,
        schedule.start().elapsed(),
    ))
}
