//! The official SDKs (`sdk/`, API.md §14), each against a real `kaadxpay serve`: their own
//! suites, their integration examples and deliberate mistakes under the type checkers, and
//! their generated parts compared with what the live document regenerates.

mod generated;
mod python;
mod typescript;

use std::path::{Path, PathBuf};

use crate::common::TestMerchant;
use crate::common::{create_merchant, fresh_database};

/// `sdk/`, the SDKs' folder.
pub fn sdk_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk")
}

/// A fresh database with a merchant, funded with nothing.
pub async fn database_and_merchant(name: &str) -> (String, TestMerchant) {
    let db_url = fresh_database().await;
    let pool = server::platform::db::connect(&db_url, 2, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    (db_url.clone(), create_merchant(&pool, name).await)
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
