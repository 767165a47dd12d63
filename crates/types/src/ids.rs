//! Prefixed, random identifiers (`mer_`, `ord_`, `po_`, ...): 24 base-62 characters after the
//! prefix, about 143 bits of randomness, so they never collide and never reveal a count.

use rand::distributions::Alphanumeric;
use rand::Rng;

pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_token(24))
}

/// A random alphanumeric string, for identifiers and secrets.
pub fn random_token(len: usize) -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}
