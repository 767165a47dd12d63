//! The Playwright suite in `end2end/`, run against a real `kaadxpay` process in Debian's
//! Chromium, so that `cargo test` runs every test. It installs what it needs: the npm packages
//! (`npm ci`) and, when missing and running as root, Debian's `chromium`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fresh_database, ServerProcess};

fn end2end_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../end2end")
}

fn chromium_path() -> PathBuf {
    std::env::var_os("CHROMIUM_PATH")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

fn run(command: &mut Command, what: &str) {
    let status = command
        .status()
        .unwrap_or_else(|err| panic!("cannot run {what}: {err}"));
    assert!(status.success(), "{what} failed with {status}");
}

fn ensure_chromium() {
    if chromium_path().exists() {
        return;
    }
    assert!(
        nix::unistd::geteuid().is_root(),
        "Chromium is missing: install Debian's package (`apt-get install chromium`) or set CHROMIUM_PATH"
    );
    let installed = Command::new("apt-get")
        .args(["install", "-y", "--no-install-recommends", "chromium"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .is_ok_and(|status| status.success());
    if !installed {
        run(Command::new("apt-get").arg("update"), "apt-get update");
        run(
            Command::new("apt-get")
                .args(["install", "-y", "--no-install-recommends", "chromium"])
                .env("DEBIAN_FRONTEND", "noninteractive"),
            "apt-get install chromium",
        );
    }
}

fn ensure_npm_packages(dir: &Path) {
    if !dir.join("node_modules/@playwright/test").exists() {
        run(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(dir),
            "npm ci in end2end/",
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_passes_its_playwright_suite() {
    let dir = end2end_dir();
    ensure_chromium();
    ensure_npm_packages(&dir);
    let server = ServerProcess::start(&fresh_database().await, &[]).await;
    let base_url = server.base_url.clone();
    let status = tokio::task::spawn_blocking(move || {
        Command::new("npx")
            .args(["playwright", "test"])
            .current_dir(&dir)
            .env("KAADXPAY_BASE_URL", base_url)
            .env("CHROMIUM_PATH", chromium_path())
            .status()
            .expect("npx runs")
    })
    .await
    .unwrap();
    assert!(
        status.success(),
        "the Playwright suite failed ({status}); see its report above and end2end/test-results/"
    );
}
