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

/// The latencies of `rate` writes and syncs a second for `duration`, in `dir`.
pub fn fdatasync_latency(dir: &Path, rate: u32, duration: Duration) -> anyhow::Result<Load> {
    let path = dir.join(format!("fdatasync-{}.tmp", std::process::id()));
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    let page = [0x5a_u8; 8192];
    let total = (f64::from(rate) * duration.as_secs_f64()).round() as u64;
    let interval = Duration::from_secs_f64(1.0 / f64::from(rate.max(1)));
    let start = Instant::now();
    let mut latencies = Vec::with_capacity(total as usize);
    for n in 0..total {
        let due = start + interval.mul_f64(n as f64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
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
    Ok(Load::from_latencies(latencies, 0, start.elapsed()))
}
