//! A timestamp as the API writes it: RFC 3339 in UTC with `Z` and as many fraction digits as it
//! has, the form of chrono's own `Serialize`, made in a buffer and handed to the serializer in
//! one piece. chrono's `Serialize` writes it through `collect_str`, which serde_json escapes
//! write by write, some twenty per timestamp (the digits one at a time): a new order's answer
//! and its event hold three, a page of a hundred orders two hundred (README, "Where a new key's
//! instructions go"). Every timestamp of the API's answers and events is written so.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Serialize, Serializer};

/// For `#[serde(serialize_with = "crate::contract::timestamp::rfc3339")]`.
pub fn rfc3339<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&at.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// [`rfc3339`] of a timestamp that may be absent (`null`, as serde writes a `None`).
pub fn rfc3339_option<S: Serializer>(
    at: &Option<DateTime<Utc>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => serializer.serialize_some(&Written(at)),
        None => serializer.serialize_none(),
    }
}

/// A timestamp that [`rfc3339`] writes.
struct Written<'a>(&'a DateTime<Utc>);

impl Serialize for Written<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        rfc3339(self.0, serializer)
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde::Serialize;

    use super::*;

    #[derive(Serialize)]
    struct Instant(#[serde(serialize_with = "rfc3339")] DateTime<Utc>);

    #[derive(Serialize)]
    struct Maybe(#[serde(serialize_with = "rfc3339_option")] Option<DateTime<Utc>>);

    /// Stored answers and delivered events hold chrono's bytes: a timestamp written here must be
    /// the same, whatever its fraction.
    #[test]
    fn a_timestamp_is_written_as_chronos_own_serialisation_writes_it() {
        let second = Utc.with_ymd_and_hms(2026, 12, 7, 18, 45, 9).unwrap();
        for nanos in [
            0,
            120_000_000,
            123_000_000,
            123_456_000,
            123_456_789,
            1,
            999_999_999,
        ] {
            let at = second + chrono::Duration::nanoseconds(nanos);
            assert_eq!(
                serde_json::to_string(&Instant(at)).unwrap(),
                serde_json::to_string(&at).unwrap(),
                "{nanos} ns"
            );
            assert_eq!(
                serde_json::to_string(&Maybe(Some(at))).unwrap(),
                serde_json::to_string(&Some(at)).unwrap(),
                "{nanos} ns"
            );
        }
        assert_eq!(serde_json::to_string(&Maybe(None)).unwrap(), "null");
    }
}
