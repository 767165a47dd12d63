//! The embedded PostgreSQL's promises: it accepts connections on a Unix socket in a private
//! folder only (no TCP, so no other local user can connect as its superuser), and it comes up
//! from a checkout the `postgres` user cannot enter (as root under `/root`), relocated.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use kaadxpay_embedded_pg::{Durability, EmbeddedPostgres};
use sqlx::{Connection, PgConnection};

/// A new folder for one test's cluster, under the project's `.data/`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.data")
        .join(format!("embedded-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn show(conn: &mut PgConnection, setting: &str) -> String {
    sqlx::query_scalar(&format!("SHOW {setting}"))
        .fetch_one(conn)
        .await
        .unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_embedded_cluster_listens_on_a_private_unix_socket_only() {
    // Ephemeral: the cluster's watcher deletes the folder once the test binary is gone.
    let cluster = EmbeddedPostgres::start(&scratch("socket"), Durability::Ephemeral)
        .expect("the embedded PostgreSQL starts");
    let mut conn = PgConnection::connect(&cluster.url("postgres"))
        .await
        .expect("its URL connects");

    assert_eq!(
        show(&mut conn, "listen_addresses").await,
        "",
        "the embedded PostgreSQL must not listen on any TCP address"
    );
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", cluster.port())).is_err(),
        "nothing may answer on 127.0.0.1:{}",
        cluster.port()
    );

    let data_dir = PathBuf::from(show(&mut conn, "data_directory").await);
    let socket_dir = PathBuf::from(show(&mut conn, "unix_socket_directories").await);
    assert!(
        socket_dir.starts_with(&data_dir) && socket_dir != data_dir,
        "the socket folder {} must be a folder of its own inside the data folder {}",
        socket_dir.display(),
        data_dir.display()
    );
    assert_eq!(mode(&data_dir), 0o700, "the data folder is private");
    assert_eq!(mode(&socket_dir), 0o700, "the socket folder is private");
    conn.close().await.unwrap();
}

#[tokio::test]
async fn as_root_a_cluster_under_a_private_folder_comes_up_where_postgres_can_reach_it() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: only root runs PostgreSQL as another user (`postgres`)");
        return;
    }
    let private = scratch("private");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let requested = private.join("pg");

    let cluster = EmbeddedPostgres::start(&requested, Durability::Ephemeral)
        .expect("the embedded PostgreSQL starts under a folder `postgres` cannot enter");
    let mut conn = PgConnection::connect(&cluster.url("postgres"))
        .await
        .expect("its URL connects");
    let data_dir = PathBuf::from(show(&mut conn, "data_directory").await);
    assert!(
        data_dir.starts_with("/var/tmp") && !data_dir.starts_with(&private),
        "the cluster is kept under /var/tmp, not in {}",
        data_dir.display()
    );
    let postgres = nix::unistd::User::from_name("postgres").unwrap().unwrap();
    let metadata = std::fs::metadata(&data_dir).unwrap();
    assert_eq!(metadata.uid(), postgres.uid.as_raw(), "owned by postgres");
    assert_eq!(
        mode(&data_dir),
        0o700,
        "the relocated data folder is private"
    );

    // A second command on the same data folder finds the same running cluster.
    let attached = EmbeddedPostgres::start(&requested, Durability::Ephemeral)
        .expect("a second start attaches to the running cluster");
    let mut second = PgConnection::connect(&attached.url("postgres"))
        .await
        .expect("the attached URL connects");
    assert_eq!(
        PathBuf::from(show(&mut second, "data_directory").await),
        data_dir
    );
    second.close().await.unwrap();
    conn.close().await.unwrap();

    cluster.stop();
    std::fs::remove_dir_all(&data_dir).unwrap();
    std::fs::remove_dir_all(&private).unwrap();
}
