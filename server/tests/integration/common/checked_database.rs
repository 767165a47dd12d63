//! Every database the tests make is checked when its test ends: the last holder of a
//! [`TestDatabase`] to let it go runs `kaadxpay ledger verify` on it, so a test whose requests
//! (or whose server's workers) leave a journal unbalanced, a balance unequal to its entries or a
//! statement that does not add up fails, whatever it asserted itself. A test that breaks the
//! ledger on purpose says so with [`TestDatabase::ledger_broken_on_purpose`]; a test that is
//! already failing is not checked again.

use std::ffi::OsStr;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A test's database, known by its URL (it derefs to it), checked when the last clone of it is
/// dropped.
#[derive(Clone)]
pub struct TestDatabase(Arc<Checked>);

struct Checked {
    url: String,
    broken_on_purpose: AtomicBool,
}

impl TestDatabase {
    /// The database at `url`, to check at the end of the test.
    pub fn new(url: String) -> Self {
        Self(Arc::new(Checked {
            url,
            broken_on_purpose: AtomicBool::new(false),
        }))
    }

    /// The test breaks this database's ledger on purpose (to see the break named): its end
    /// does not check it.
    pub fn ledger_broken_on_purpose(&self) {
        self.0.broken_on_purpose.store(true, Ordering::Relaxed);
    }
}

impl Drop for Checked {
    fn drop(&mut self) {
        if !self.broken_on_purpose.load(Ordering::Relaxed) && !std::thread::panicking() {
            assert_ledger_whole(&self.url);
        }
    }
}

impl Deref for TestDatabase {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0.url
    }
}

impl AsRef<str> for TestDatabase {
    fn as_ref(&self) -> &str {
        self
    }
}

impl AsRef<OsStr> for TestDatabase {
    fn as_ref(&self) -> &OsStr {
        OsStr::new(&self.0.url)
    }
}

impl fmt::Display for TestDatabase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

/// `kaadxpay ledger verify` on `db_url`: its exit code and what it printed.
pub fn ledger_verify(db_url: &str) -> (Option<i32>, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(["ledger", "verify"])
        .env("DATABASE_URL", db_url)
        .env_remove("RUST_LOG")
        .output()
        .expect("kaadxpay runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Fails unless `kaadxpay ledger verify` finds every journal balanced and every balance equal
/// to its entries on `db_url`.
pub fn assert_ledger_whole(db_url: &str) {
    let (code, out) = ledger_verify(db_url);
    assert_eq!(code, Some(0), "ledger verify of {db_url}: {out}");
    assert!(out.starts_with("the ledger balances"), "{out}");
}
