//! Rebuilds the server when a migration is added or changed: `sqlx::migrate!` embeds the
//! `migrations/` folder at compile time and cannot track it on stable Rust.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
