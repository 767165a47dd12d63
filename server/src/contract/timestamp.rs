//! A timestamp as the API writes it: RFC 3339 in UTC with `Z` and as many fraction digits as it
//! has, the form of chrono's own `Serialize`, made in a buffer and handed to the serializer in
//! one piece. chrono's `Serialize` writes it through `collect_str`, which serde_json escapes
//! write by write, some twenty per timestamp (the digits one at a time): a new order's answer
//! and its event hold three (README, "Where a new key's instructions go").

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serializer;

/// For `#[serde(serialize_with = "timestamp::rfc3339")]`.
pub fn rfc3339<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&at.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde::Serialize;

    use super::*;

    #[derive(Serialize)]
    struct Written(#[serde(serialize_with = "rfc3339")] DateTime<Utc>);

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
                serde_json::to_string(&Written(at)).unwrap(),
                serde_json::to_string(&at).unwrap(),
                "{nanos} ns"
            );
        }
    }
}
