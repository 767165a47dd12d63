//! `deploy/cluster` run from a checkout the `postgres` user cannot enter (a clone under a 0700
//! folder, as `/root` and `mktemp -d` are, and as CI runs): it comes up and goes down, nothing it
//! writes is readable by another user, and PostgreSQL, etcd and Patroni's REST API ask for the
//! password. Skipped, saying why, where the chaos test is: etcd, Patroni and HAProxy cannot be
//! installed here.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use chaos::cluster::{this_checkout, Cluster, ClusterOptions, Startup};
use chaos::run::sibling_binary;
use sqlx::{Connection, PgConnection};

fn run(command: &mut Command) {
    let status = command.status().expect("the command runs");
    assert!(status.success(), "{command:?} failed: {status}");
}

/// A clone of this checkout in a new `mktemp -d` folder (mode 0700), with this working tree's
/// `deploy/` (so the script under test is the one being edited, committed or not).
fn private_clone() -> (PathBuf, PathBuf) {
    let output = Command::new("mktemp").arg("-d").output().unwrap();
    assert!(output.status.success(), "mktemp -d");
    let private = PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    let checkout = private.join("kaadxpay");
    run(Command::new("git")
        .args(["clone", "-q"])
        .arg(this_checkout())
        .arg(&checkout));
    run(Command::new("cp")
        .arg("-r")
        .arg(this_checkout().join("deploy/."))
        .arg(checkout.join("deploy")));
    (private, checkout)
}

/// Every file and folder under `folder` that a user other than its owner can read, write or
/// enter (sockets aside: their folder guards them).
fn open_to_others(folder: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(path) = pending.pop() {
        let metadata = std::fs::symlink_metadata(&path).unwrap();
        if metadata.file_type().is_socket() {
            continue;
        }
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            found.push(format!("{} ({mode:o})", path.display()));
        }
        if metadata.is_dir() {
            pending.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .map(|entry| entry.unwrap().path()),
            );
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_cluster_comes_up_from_a_private_checkout_and_keeps_everything_to_its_owner() {
    let (private, checkout) = private_clone();
    let dir = Path::new("/var/tmp").join(format!("kaadxpay-checkout-{}", std::process::id()));
    let options = ClusterOptions {
        checkout,
        kaadxpay_bin: sibling_binary("KAADXPAY_BIN", "kaadxpay").expect("the kaadxpay binary"),
        receiver_bin: env!("CARGO_BIN_EXE_webhook-receiver").into(),
        dir: dir.clone(),
        keep: false,
        env: Vec::new(),
    };
    let cluster = match Cluster::up(options).expect("deploy/cluster up from a private checkout") {
        Startup::Up(cluster) => cluster,
        Startup::Unavailable(reason) => {
            eprintln!(
                "SKIPPED: the cluster needs etcd, Patroni, HAProxy and PostgreSQL 15: {reason}"
            );
            std::fs::remove_dir_all(&private).unwrap();
            return;
        }
    };

    let url = cluster.url("DATABASE_URL").to_owned();
    let conn = PgConnection::connect(&url)
        .await
        .expect("cluster.env's DATABASE_URL connects");
    conn.close().await.unwrap();
    let mut without = reqwest::Url::parse(&url).unwrap();
    assert!(
        !without.password().unwrap_or_default().is_empty(),
        "{url} has a password"
    );
    without.set_password(None).unwrap();
    let refused = PgConnection::connect(without.as_str())
        .await
        .expect_err("PostgreSQL refuses a connection without the password");
    assert!(
        refused.to_string().contains("password"),
        "refused for want of a password: {refused}"
    );

    let http = reqwest::Client::new();
    let etcd = http
        .post(format!("{}/v3/kv/range", cluster.url("ETCD_URL")))
        .body(r#"{"key": "Lw==", "range_end": "AA=="}"#)
        .send()
        .await
        .unwrap();
    let etcd_status = etcd.status();
    let etcd_body = etcd.text().await.unwrap();
    assert!(
        !etcd_status.is_success() || !etcd_body.contains("\"kvs\""),
        "etcd, where Patroni's configuration lives, answers a reader without the password: {etcd_status} {etcd_body}"
    );
    let patch = http
        .patch(format!("{}/config", cluster.url("PATRONI_PG1_URL")))
        .body(r#"{"ttl": 11}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(
        patch.status(),
        reqwest::StatusCode::UNAUTHORIZED,
        "Patroni's REST API changes the configuration without the password"
    );

    let node_home = Path::new(cluster.url("PATRONI_CONFIG"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf();
    for folder in [&dir, &node_home] {
        assert_eq!(
            open_to_others(folder),
            Vec::<String>::new(),
            "open to other users"
        );
    }

    drop(cluster);
    assert!(
        !dir.exists(),
        "deploy/cluster down removes {}",
        dir.display()
    );
    assert!(
        !node_home.exists(),
        "deploy/cluster down removes {}",
        node_home.display()
    );
    std::fs::remove_dir_all(&private).unwrap();
}
