//! What `deploy/cluster` trusts in its scratch folder: only a folder private to the caller (its
//! owner, mode 0700; any other is refused, never adopted nor removed), and only the processes
//! it started itself, whatever a pid file there names. Needs none of the cluster's packages.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use chaos::cluster::this_checkout;

/// A new `mktemp -d` folder (mode 0700) to make scratch folders in.
fn private_parent() -> PathBuf {
    let output = Command::new("mktemp").arg("-d").output().unwrap();
    assert!(output.status.success(), "mktemp -d");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// A scratch folder of mode `mode`, marked as a cluster's, with a `run/` folder.
fn cluster_folder(parent: &Path, name: &str, mode: u32) -> PathBuf {
    let dir = parent.join(name);
    std::fs::DirBuilder::new().mode(mode).create(&dir).unwrap();
    std::fs::write(dir.join(".kaadxpay-cluster"), "").unwrap();
    std::fs::create_dir(dir.join("run")).unwrap();
    dir
}

fn deploy_cluster(dir: &Path, args: &[&str]) -> Output {
    Command::new(this_checkout().join("deploy/cluster"))
        .args(args)
        .env("KAADXPAY_CLUSTER_DIR", dir)
        .output()
        .expect("deploy/cluster runs")
}

fn uid_of(user: &str) -> Option<u32> {
    let output = Command::new("id").args(["-u", user]).output().ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
}

#[test]
fn a_scratch_folder_another_user_could_write_to_is_refused_and_left_alone() {
    let parent = private_parent();
    let mut folders = vec![cluster_folder(&parent, "group-and-world-readable", 0o755)];
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    if let (true, Some(nobody)) = (root, uid_of("nobody")) {
        let theirs = cluster_folder(&parent, "owned-by-nobody", 0o700);
        std::os::unix::fs::chown(&theirs, Some(nobody), None).unwrap();
        assert_eq!(std::fs::metadata(&theirs).unwrap().uid(), nobody);
        folders.push(theirs);
    }
    for dir in &folders {
        for command in [&["down"][..], &["status"], &["kill", "etcd"]] {
            let output = deploy_cluster(dir, command);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                !output.status.success() && stderr.contains("mode 0700"),
                "deploy/cluster {command:?} refuses {}: {}, {stderr}",
                dir.display(),
                output.status
            );
            assert!(
                dir.join(".kaadxpay-cluster").exists(),
                "{} left alone",
                dir.display()
            );
        }
    }
    std::fs::remove_dir_all(&parent).unwrap();
}

#[test]
fn a_pid_file_naming_a_process_the_cluster_did_not_start_is_not_signalled() {
    let parent = private_parent();
    let dir = cluster_folder(&parent, "cluster", 0o700);
    let mut bystander = Command::new("sleep")
        .arg("60")
        .process_group(0)
        .spawn()
        .unwrap();
    for name in ["etcd", "pg1", "app1"] {
        std::fs::write(
            dir.join(format!("run/{name}.pid")),
            format!("{}\n", bystander.id()),
        )
        .unwrap();
        let output = deploy_cluster(&dir, &["kill", name]);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            bystander.try_wait().unwrap().is_none(),
            "deploy/cluster kill {name} killed a process it did not start: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    bystander.kill().unwrap();
    bystander.wait().unwrap();
    std::fs::remove_dir_all(&parent).unwrap();
}
