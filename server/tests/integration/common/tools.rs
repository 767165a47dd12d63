//! The outside tools some tests drive (Schemathesis, client generators, Playwright), installed
//! the first time a test needs them, under `target/`, from the registries by name.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `command` to its end, failing the test with `what` if it does not succeed.
pub fn run(command: &mut Command, what: &str) {
    let status = command
        .status()
        .unwrap_or_else(|err| panic!("cannot run {what}: {err}"));
    assert!(status.success(), "{what} failed with {status}");
}

/// A virtual environment `target/<name>` holding `requirements` (a pip requirements file),
/// made or brought up to date when the file changed; answers its `bin/` folder.
pub fn python_venv(name: &str, requirements: &Path) -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target")
        .join(name);
    let installed = venv.join("installed-requirements.txt");
    let wanted = std::fs::read_to_string(requirements).expect("the requirements file");
    if std::fs::read_to_string(&installed).ok().as_deref() != Some(&wanted) {
        run(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv (Debian: apt-get install python3-venv)",
        );
        run(
            Command::new(venv.join("bin/pip"))
                .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(requirements),
            &format!("pip install -r {}", requirements.display()),
        );
        std::fs::write(&installed, wanted).expect("the venv is writable");
    }
    venv.join("bin")
}

/// `npm ci` in `dir` unless its `node_modules` already holds every one of `packages` (a
/// package added to `package.json` later is installed the next time).
pub fn npm_packages(dir: &Path, packages: &[&str]) {
    let modules = dir.join("node_modules");
    if !packages
        .iter()
        .all(|package| modules.join(package).exists())
    {
        run(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(dir),
            &format!("npm ci in {}", dir.display()),
        );
    }
}
