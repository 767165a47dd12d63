//! Entries as the rows of a binary `COPY request_log … FROM STDIN` (PostgreSQL's `COPY` file
//! format: a header, each row its fields' count and each field its length, `-1` for NULL, and
//! its value as the type's binary form, then a trailer): what the writer sends for a batch,
//! encoded straight from the entries, redacted on the way, with nothing bound per value.

use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use kaadxpay_types::Verdict;

use super::{partitions, redact, Entry};

/// The statement the rows are for; [`Rows::push`] writes the columns in this order.
pub const STATEMENT: &str = "COPY request_log (id, created_at, merchant_id, api_key_id, user_id, \
    method, route, path, idempotency_key, verdict, status, error_code, latency_ms, \
    client_address, request_body, response_body, client_request_id) FROM STDIN (FORMAT binary)";

const COLUMNS: i16 = 17;

/// The signature, no flags, and no header extension.
const HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC), from which a
/// `timestamptz` counts.
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// A batch's rows, and the UTC days they fall on (for a missing partition).
pub struct Rows {
    data: Vec<u8>,
    len: usize,
    days: Option<(NaiveDate, NaiveDate)>,
}

impl Default for Rows {
    fn default() -> Self {
        Self {
            data: HEADER.to_vec(),
            len: 0,
            days: None,
        }
    }
}

impl Rows {
    /// Appends `entry` as a row, redacted.
    pub fn push(&mut self, entry: Entry) {
        let day = entry.created_at.date_naive();
        self.days = Some(
            self.days
                .map_or((day, day), |(first, last)| (first.min(day), last.max(day))),
        );
        self.len += 1;
        self.data.extend_from_slice(&COLUMNS.to_be_bytes());
        self.text(Some(&entry.id));
        self.value(&timestamp(entry.created_at));
        self.text(Some(&entry.merchant_id));
        self.text(entry.api_key_id.as_deref());
        self.text(entry.user_id.as_deref());
        self.text(Some(entry.method.as_str()));
        self.text(Some(&entry.route));
        self.redacted(entry.path.as_bytes());
        self.redacted_or_null(entry.idempotency_key.as_deref());
        self.text(entry.verdict.map(Verdict::as_str));
        self.value(
            &i16::try_from(entry.status)
                .unwrap_or(i16::MAX)
                .to_be_bytes(),
        );
        let error_code = (entry.status >= 400)
            .then(|| error_code(&entry.response_body))
            .flatten();
        self.text(error_code.as_deref());
        self.value(&(entry.latency.as_secs_f64() * 1000.0).to_be_bytes());
        match entry.client_address {
            Some(address) => self.field(|data| write!(data, "{address}").expect("to a Vec")),
            None => self.null(),
        }
        self.body(&entry.request_body);
        self.body(&entry.response_body);
        self.redacted_or_null(entry.client_request_id.as_deref());
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The first and last UTC days of the rows (today without rows).
    pub fn days(&self) -> (NaiveDate, NaiveDate) {
        self.days
            .unwrap_or_else(|| (partitions::today(), partitions::today()))
    }

    /// The `COPY` data: the rows and the trailer.
    pub fn finish(&mut self) -> &[u8] {
        self.data.extend_from_slice(&(-1i16).to_be_bytes());
        &self.data
    }

    /// No rows, for the next batch: the room its data took is kept (a batch is hundreds of
    /// kilobytes, which a new buffer would take in a dozen growths).
    pub fn clear(&mut self) {
        self.data.truncate(HEADER.len());
        self.len = 0;
        self.days = None;
    }

    fn null(&mut self) {
        self.data.extend_from_slice(&(-1i32).to_be_bytes());
    }

    fn value(&mut self, bytes: &[u8]) {
        self.field(|data| data.extend_from_slice(bytes));
    }

    /// A field written by `write`, its length filled in after.
    fn field(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let at = self.data.len();
        self.data.extend_from_slice(&[0; 4]);
        write(&mut self.data);
        let len = i32::try_from(self.data.len() - at - 4).expect("a field under 2 GiB");
        self.data[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }

    fn text(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.value(text.as_bytes()),
            None => self.null(),
        }
    }

    fn redacted(&mut self, bytes: &[u8]) {
        self.value(redact::text(bytes).as_bytes());
    }

    fn redacted_or_null(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.redacted(text.as_bytes()),
            None => self.null(),
        }
    }

    /// A body, redacted; NULL when there was none.
    fn body(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            self.null();
        } else {
            self.redacted(bytes);
        }
    }
}

/// A `timestamptz`'s binary form.
fn timestamp(at: DateTime<Utc>) -> [u8; 8] {
    (at.timestamp_micros() - POSTGRES_EPOCH_MICROS).to_be_bytes()
}

/// The `error.code` of an error body.
fn error_code(body: &[u8]) -> Option<String> {
    let body: serde_json::Value = serde_json::from_slice(body).ok()?;
    Some(body["error"]["code"].as_str()?.to_owned())
}
