//! The `Idempotency-Key` (API.md §2): 1 to 255 visible ASCII characters, also accepted in its
//! RFC 8941 string form (`"abc"`), which is unquoted first. One type for the engine, the API's
//! header and the console's forms and addresses, so a key is read by one rule everywhere.

/// The longest key, in characters.
pub const MAX_LEN: usize = 255;

/// A key that passed [`IdempotencyKey::parse`]: nothing else makes one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// Why a text is no key: a sentence for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidKey(pub String);

impl std::fmt::Display for InvalidKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidKey {}

impl IdempotencyKey {
    pub fn parse(raw: &[u8]) -> Result<Self, InvalidKey> {
        let key = unquote_sf_string(raw).unwrap_or(raw);
        if key.is_empty() {
            return Err(InvalidKey(
                "The Idempotency-Key header is empty; send 1 to 255 visible ASCII characters."
                    .into(),
            ));
        }
        if key.len() > MAX_LEN {
            return Err(InvalidKey(format!(
                "The Idempotency-Key header is {} characters long; the limit is {MAX_LEN}.",
                key.len()
            )));
        }
        if let Some(bad) = key.iter().find(|byte| !(0x21..=0x7e).contains(*byte)) {
            return Err(InvalidKey(format!(
                "The Idempotency-Key header contains the byte 0x{bad:02x}; only visible ASCII characters (0x21 to 0x7E) are allowed."
            )));
        }
        let key = String::from_utf8(key.to_vec()).expect("visible ASCII is UTF-8");
        Ok(Self(key))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The inner bytes of an RFC 8941 sf-string without escapes (`"..."`), if `raw` is one.
/// A quoted value with escapes is taken literally and then fails the visible-ASCII rule
/// only if it holds characters outside it.
fn unquote_sf_string(raw: &[u8]) -> Option<&[u8]> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    (!inner.contains(&b'"') && !inner.contains(&b'\\')).then_some(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_ascii_keys_are_accepted_and_sf_strings_unquoted() {
        assert_eq!(
            IdempotencyKey::parse(b"order-1").unwrap().as_str(),
            "order-1"
        );
        assert_eq!(IdempotencyKey::parse(b"\"abc\"").unwrap().as_str(), "abc");
        let longest = "k".repeat(MAX_LEN);
        assert!(IdempotencyKey::parse(longest.as_bytes()).is_ok());
    }

    #[test]
    fn empty_long_and_invisible_keys_are_refused() {
        let too_long = "k".repeat(MAX_LEN + 1);
        for bad in [
            &b""[..],
            b"\"\"",
            too_long.as_bytes(),
            b"a b",
            b"tab\there",
            "caf\u{e9}".as_bytes(),
            b"\x7f",
        ] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_parsed_key_reads_the_same_when_parsed_again() {
        for raw in ["\"abc\"", "\"\"abc\"\"", "a\"b", "\"a\\\""] {
            let key = IdempotencyKey::parse(raw.as_bytes()).unwrap();
            assert_eq!(IdempotencyKey::parse(key.as_str().as_bytes()), Ok(key));
        }
    }
}
