//! The command line's settings (API.md §10): a global flag means the same before or after the
//! subcommand, one given twice with different values is refused in one line, and an address
//! `serve` cannot listen on is named in one line, without a backtrace.

use crate::common;

use std::process::{Child, Command, Output, Stdio};

use common::{free_port, fresh_database, wait_until_answering, TEST_SECRETS_KEY};

/// `kaadxpay` with `args` on `db_url`, as an operator runs it (with `RUST_BACKTRACE` set, as
/// many shells have it).
fn kaadxpay(db_url: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaadxpay"));
    command
        .args(args)
        .env("DATABASE_URL", db_url)
        .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
        .env("KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true")
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Kills the process when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stderr_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_serve_flag_before_the_subcommand_means_what_it_means_after_it() {
    let db_url = fresh_database().await;
    let addr = format!("127.0.0.1:{}", free_port());
    let _serving = Running(
        kaadxpay(&db_url, &["--addr", &addr, "serve"])
            .spawn()
            .expect("kaadxpay starts"),
    );
    wait_until_answering(&format!("http://{addr}/healthz")).await;
}

#[tokio::test]
async fn a_setting_given_twice_with_different_values_is_refused_in_one_line() {
    let db_url = fresh_database().await;
    for args in [
        &["--db-pool-size", "4", "migrate", "--db-pool-size", "8"][..],
        &["--db-pool-size=4", "--db-pool-size", "8", "migrate"][..],
        &["serve", "--addr", "127.0.0.1:1", "--addr", "127.0.0.1:2"][..],
    ] {
        let output = kaadxpay(&db_url, args).output().unwrap();
        let lines = stderr_lines(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {lines:?}");
        let flag = args[0].split('=').next().unwrap();
        let flag = if flag == "serve" { "--addr" } else { flag };
        assert_eq!(lines.len(), 1, "{args:?}: one line: {lines:?}");
        assert!(lines[0].contains(flag), "{args:?}: names {flag}: {lines:?}");
    }
    let same = kaadxpay(
        &db_url,
        &["--db-pool-size", "4", "migrate", "--db-pool-size", "4"],
    )
    .output()
    .unwrap();
    assert!(
        same.status.success(),
        "the same value twice is one setting: {:?}",
        stderr_lines(&same)
    );
}

#[tokio::test]
async fn an_address_serve_cannot_listen_on_is_named_in_one_line() {
    let db_url = fresh_database().await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = kaadxpay(&db_url, &["serve", "--addr", &addr])
        .output()
        .unwrap();
    let lines = stderr_lines(&output);
    assert!(!output.status.success(), "{lines:?}");
    assert_eq!(lines.len(), 1, "one line, no backtrace: {lines:#?}");
    assert!(lines[0].contains(&addr), "names {addr}: {lines:?}");
}
