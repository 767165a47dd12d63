//! Secrets kept at rest that the service must read back (two-step sign-in's TOTP secrets),
//! sealed with XChaCha20-Poly1305 under one 32-byte key from the settings
//! (`KAADXPAY_SECRETS_KEY`, 64 hexadecimal characters; in embedded mode a key file made once
//! under the data folder). Each seal draws a random 24-byte nonce, stored before the ciphertext;
//! the associated data (a row's owner, say) binds a sealed value to where it belongs, so it does
//! not open anywhere else.

use std::fmt;
use std::io::Write;
use std::path::Path;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;

const NONCE_LEN: usize = 24;
const KEY_LEN: usize = 32;

/// The name of the key file in embedded mode's data folder.
pub const KEY_FILE: &str = "secrets.key";

/// The key secrets are sealed with: 32 bytes, never printed.
#[derive(Clone)]
pub struct SecretsKey([u8; KEY_LEN]);

impl fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretsKey(…)")
    }
}

/// Why a key was not accepted (the key itself is never part of the message).
#[derive(Debug, thiserror::Error)]
#[error("KAADXPAY_SECRETS_KEY must be 64 hexadecimal characters (32 bytes), such as the output of `openssl rand -hex 32`")]
pub struct NotAKey;

impl SecretsKey {
    /// A key written as 64 hexadecimal characters (surrounding white space ignored).
    pub fn from_hex(text: &str) -> Result<Self, NotAKey> {
        let bytes = hex::decode(text.trim()).map_err(|_| NotAKey)?;
        Ok(Self(bytes.try_into().map_err(|_| NotAKey)?))
    }

    pub fn generate() -> Self {
        let mut key = [0u8; KEY_LEN];
        rand::rngs::OsRng.fill_bytes(&mut key);
        Self(key)
    }

    /// The key as 64 hexadecimal characters, as the setting and the key file write it.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The key in `dir`'s key file, made (readable by its owner only) if there is none yet:
    /// embedded mode's key, kept with the data it seals.
    pub fn from_file_in(dir: &Path) -> anyhow::Result<Self> {
        use anyhow::Context;
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the data folder {}", dir.display()))?;
        let path = dir.join(KEY_FILE);
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path);
        match made {
            Ok(mut file) => {
                let key = Self::generate();
                file.write_all(key.to_hex().as_bytes())
                    .and_then(|()| file.sync_all())
                    .with_context(|| format!("cannot write the key file {}", path.display()))?;
                Ok(key)
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read the key file {}", path.display()))?;
                Self::from_hex(&text)
                    .with_context(|| format!("the key file {} does not hold a key", path.display()))
            }
            Err(err) => Err(err).with_context(|| format!("cannot create {}", path.display())),
        }
    }
}

/// Why a sealed value did not open: another key sealed it, it was sealed for other associated
/// data, or it was altered.
#[derive(Debug, thiserror::Error)]
#[error("a sealed secret did not open: wrong key, wrong owner, or altered")]
pub struct Unopenable;

/// Seals and opens secrets under one key.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sealer(…)")
    }
}

impl Sealer {
    pub fn new(key: &SecretsKey) -> Self {
        Self {
            cipher: XChaCha20Poly1305::new(&key.0.into()),
        }
    }

    /// `secret` sealed for `owner`: a random nonce, then the ciphertext with its tag.
    pub fn seal(&self, secret: &[u8], owner: &str) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let payload = Payload {
            msg: secret,
            aad: owner.as_bytes(),
        };
        let sealed = self
            .cipher
            .encrypt(XNonce::from_slice(&nonce), payload)
            .expect("XChaCha20-Poly1305 seals any message that fits in memory");
        [nonce.as_slice(), &sealed].concat()
    }

    /// What [`Sealer::seal`] sealed for `owner`.
    pub fn open(&self, sealed: &[u8], owner: &str) -> Result<Vec<u8>, Unopenable> {
        if sealed.len() < NONCE_LEN {
            return Err(Unopenable);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let payload = Payload {
            msg: ciphertext,
            aad: owner.as_bytes(),
        };
        self.cipher
            .decrypt(XNonce::from_slice(nonce), payload)
            .map_err(|_| Unopenable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_only_with_its_key_and_owner() {
        let key = SecretsKey::generate();
        let sealer = Sealer::new(&key);
        let sealed = sealer.seal(b"the secret", "usr_1");
        assert!(!sealed.windows(10).any(|part| part == b"the secret"));
        assert_eq!(sealer.open(&sealed, "usr_1").unwrap(), b"the secret");
        assert!(sealer.open(&sealed, "usr_2").is_err(), "another owner");
        let other = Sealer::new(&SecretsKey::generate());
        assert!(other.open(&sealed, "usr_1").is_err(), "another key");
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert!(sealer.open(&altered, "usr_1").is_err(), "altered");
        assert_ne!(
            sealer.seal(b"the secret", "usr_1"),
            sealed,
            "a new nonce each time"
        );
    }

    #[test]
    fn a_key_is_64_hex_characters() {
        assert!(SecretsKey::from_hex(&"ab".repeat(32)).is_ok());
        assert!(SecretsKey::from_hex(&"ab".repeat(31)).is_err());
        assert!(SecretsKey::from_hex(&"zz".repeat(32)).is_err());
        assert!(SecretsKey::from_hex("").is_err());
        let key = SecretsKey::from_hex(&"0f".repeat(32)).unwrap();
        assert_eq!(format!("{key:?}"), "SecretsKey(…)");
    }

    #[test]
    fn the_key_file_is_made_once_for_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("kaadxpay-key-{}", uuid::Uuid::new_v4()));
        let first = SecretsKey::from_file_in(&dir).unwrap();
        let again = SecretsKey::from_file_in(&dir).unwrap();
        assert_eq!(first.0, again.0);
        let mode = std::fs::metadata(dir.join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
