//! The official SDKs (`sdk/`, API.md §14), each against a real `kaadxpay serve`: their own
//! suites, their integration examples and deliberate mistakes under the type checkers, and
//! their generated parts compared with what the live document regenerates; and one
//! conformance suite (`sdk/conformance/cases.json`) that both SDKs and the Rust `client/`
//! pass through a fault proxy.

mod conformance;
mod docs;
mod generated;
mod proxy;
mod python;
mod typescript;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::common::tools::{npm_packages, python_venv};
use crate::common::TestMerchant;
use crate::common::{create_merchant, fresh_database, TestDatabase};

/// `sdk/`, the SDKs' folder.
pub fn sdk_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk")
}

/// Held while a test installs the SDKs' tools, so that two tests never install at once.
static INSTALLING: Mutex<()> = Mutex::new(());

/// The `bin/` of `target/sdk-python-venv`, which holds `sdk/python/requirements-dev.txt`.
pub fn python_bin() -> PathBuf {
    let _installing = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    python_venv(
        "sdk-python-venv",
        &sdk_dir().join("python/requirements-dev.txt"),
    )
}

/// `sdk/typescript/node_modules`, installed by `npm ci` when it lacks a package.
pub fn typescript_modules() {
    let _installing = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    npm_packages(
        &sdk_dir().join("typescript"),
        &["openapi-typescript", "typescript"],
    );
}

/// A fresh database with a merchant, funded with nothing.
pub async fn database_and_merchant(name: &str) -> (TestDatabase, TestMerchant) {
    let db_url = fresh_database().await;
    let pool = server::platform::db::connect(&db_url, 2, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let merchant = create_merchant(&pool, name).await;
    (db_url, merchant)
}

/// The lines of `file` marked `# error:` or `// error:`: each must be a type error.
pub fn marked_lines(file: &Path) -> Vec<usize> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains("# error:") || line.contains("// error:"))
        .map(|(at, _)| at + 1)
        .collect()
}

/// The lines of `file` outside comments that hold one of `words`, which would loosen its types
/// (a cast, `Any`, a silenced checker): none may be in an integration example.
pub fn loosenings(file: &Path, words: &[&str]) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            !["//", "#", "*", "/*"]
                .iter()
                .any(|c| line.trim_start().starts_with(c))
        })
        .filter(|(_, line)| words.iter().any(|word| line.contains(word)))
        .map(|(at, line)| format!("{}:{}: {}", file.display(), at + 1, line.trim()))
        .collect()
}
