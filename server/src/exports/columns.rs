//! The columns of each export and how a value becomes a cell: times in UTC ISO 8601 (as the
//! API writes them), amounts in minor units and as a decimal in major units (the currency's own
//! exponent, `kaadxpay_types::Money::decimal`), IBANs masked but their last 4 (the request log's
//! rule), empty cells for nulls, and text guarded against formula injection: a text cell that
//! starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so a
//! spreadsheet shows it instead of running it. Numbers are never guarded (a negative number
//! stays a number).

use chrono::{DateTime, SecondsFormat, Utc};
use csv::{Terminator, Writer, WriterBuilder};
use kaadxpay_types::{Money, TransferOf};

use crate::history::audit::AuditRow;
use crate::payments::orders::Order;
use crate::payments::payouts::Payout;
use crate::payments::statement::BalanceTransaction;
use crate::reconcile::Item;
use crate::request_log::query::LoggedRequest;
use crate::request_log::redact::mask_iban;

/// A row of an export: its header, and its cells in that order.
pub trait CsvRow {
    const HEADER: &'static [&'static str];
    fn record(&self) -> Vec<String>;
}

/// A writer of RFC 4180 records (CRLF line ends, quotes only where needed) into memory.
pub fn chunk_writer() -> Writer<Vec<u8>> {
    writer_into(Vec::with_capacity(super::CHUNK + 8 * 1024))
}

/// UTF-8's byte-order mark: without it, spreadsheet programs (Excel) read the file in the
/// system's code page, and 张三 comes out garbled.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// The writer of a file's first chunk: [`chunk_writer`]'s, after the byte-order mark.
pub fn first_chunk_writer() -> Writer<Vec<u8>> {
    let mut bytes = Vec::with_capacity(super::CHUNK + 8 * 1024);
    bytes.extend_from_slice(BYTE_ORDER_MARK);
    writer_into(bytes)
}

fn writer_into(bytes: Vec<u8>) -> Writer<Vec<u8>> {
    WriterBuilder::new()
        .terminator(Terminator::CRLF)
        .from_writer(bytes)
}

/// A text cell, guarded against formula injection.
pub fn text(value: &str) -> String {
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value.to_owned()
    }
}

fn optional(value: Option<&str>) -> String {
    value.map(text).unwrap_or_default()
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

fn decimal(amount: i64, currency: &str) -> String {
    Money {
        amount,
        currency: currency.to_owned(),
    }
    .decimal()
}

impl CsvRow for Payout {
    const HEADER: &'static [&'static str] = &[
        "id",
        "idempotency_key",
        "status",
        "amount",
        "amount_decimal",
        "currency",
        "account_holder",
        "iban",
        "partner_transfer_id",
        "failure_code",
        "created_at",
        "updated_at",
    ];

    fn record(&self) -> Vec<String> {
        vec![
            text(&self.id),
            text(&self.idempotency_key),
            self.status.to_string(),
            self.amount.to_string(),
            decimal(self.amount, &self.currency),
            text(&self.currency),
            text(&self.destination.account_holder),
            mask_iban(&self.destination.iban),
            optional(self.partner_transfer_id.as_deref()),
            optional(self.failure_code.as_deref()),
            time(self.created_at),
            time(self.updated_at),
        ]
    }
}

impl CsvRow for Order {
    const HEADER: &'static [&'static str] = &[
        "id",
        "status",
        "amount",
        "amount_decimal",
        "currency",
        "description",
        "created_at",
        "updated_at",
    ];

    fn record(&self) -> Vec<String> {
        vec![
            text(&self.id),
            self.status.to_string(),
            self.amount.to_string(),
            decimal(self.amount, &self.currency),
            text(&self.currency),
            optional(self.description.as_deref()),
            time(self.created_at),
            time(self.updated_at),
        ]
    }
}

impl CsvRow for BalanceTransaction {
    const HEADER: &'static [&'static str] = &[
        "id",
        "type",
        "amount",
        "amount_decimal",
        "currency",
        "balance_after",
        "balance_after_decimal",
        "source_type",
        "source_id",
        "created_at",
    ];

    fn record(&self) -> Vec<String> {
        vec![
            text(&self.id),
            text(&self.kind),
            self.amount.to_string(),
            decimal(self.amount, &self.currency),
            text(&self.currency),
            self.balance_after.to_string(),
            decimal(self.balance_after, &self.currency),
            text(&self.source.kind),
            text(&self.source.id),
            time(self.created_at),
        ]
    }
}

impl CsvRow for LoggedRequest {
    const HEADER: &'static [&'static str] = &[
        "id",
        "created_at",
        "method",
        "route",
        "path",
        "idempotency_key",
        "verdict",
        "status",
        "error_code",
        "latency_ms",
        "api_key_id",
        "user",
        "client_address",
        "request_body",
        "response_body",
        "client_request_id",
    ];

    /// The bodies as the log keeps them: already redacted when they were written.
    fn record(&self) -> Vec<String> {
        vec![
            text(&self.id),
            time(self.created_at),
            text(&self.method),
            text(&self.route),
            text(&self.path),
            optional(self.idempotency_key.as_deref()),
            optional(self.verdict.as_deref()),
            self.status.to_string(),
            optional(self.error_code.as_deref()),
            self.latency_ms.to_string(),
            optional(self.api_key_id.as_deref()),
            optional(self.user.as_deref()),
            optional(self.client_address.as_deref()),
            optional(self.request_body.as_deref()),
            optional(self.response_body.as_deref()),
            optional(self.client_request_id.as_deref()),
        ]
    }
}

impl CsvRow for AuditRow {
    const HEADER: &'static [&'static str] = &[
        "id",
        "created_at",
        "actor_kind",
        "actor",
        "action",
        "object_type",
        "object_id",
        "client_address",
        "before",
        "after",
        "seq",
        "hash",
    ];

    fn record(&self) -> Vec<String> {
        let json = |value: &Option<serde_json::Value>| {
            optional(value.as_ref().map(|value| value.to_string()).as_deref())
        };
        vec![
            text(&self.id),
            time(self.created_at),
            text(&self.actor_kind),
            text(&self.actor),
            text(&self.action),
            text(&self.object_type),
            text(&self.object_id),
            optional(self.client_address.as_deref()),
            json(&self.before),
            json(&self.after),
            self.seq.to_string(),
            text(&self.hash),
        ]
    }
}

impl CsvRow for Item {
    const HEADER: &'static [&'static str] = &[
        "kind",
        "merchant_id",
        "payout_id",
        "transfer_id",
        "amount",
        "amount_decimal",
        "currency",
        "action",
        "detail",
    ];

    fn record(&self) -> Vec<String> {
        let money = self.amount.zip(self.currency.as_deref());
        vec![
            text(&self.kind),
            optional(self.merchant_id.as_deref()),
            optional(self.transfer_of.as_ref().map(TransferOf::as_str)),
            optional(self.transfer_id.as_deref()),
            self.amount
                .map(|amount| amount.to_string())
                .unwrap_or_default(),
            money
                .map(|(amount, currency)| decimal(amount, currency))
                .unwrap_or_default(),
            optional(self.currency.as_deref()),
            optional(self.action.as_deref()),
            optional(self.detail.as_deref()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_a_spreadsheet_would_run_is_quoted_and_other_text_is_not() {
        for risky in ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\rx"] {
            assert_eq!(text(risky), format!("'{risky}"));
        }
        for plain in ["po_123", "Ada Lovelace", "", "a=b", "12.50"] {
            assert_eq!(text(plain), plain);
        }
    }

    #[test]
    fn amounts_read_in_the_currencys_major_units() {
        assert_eq!(decimal(1250, "EUR"), "12.50");
        assert_eq!(decimal(5, "USD"), "0.05");
        assert_eq!(decimal(1200, "JPY"), "1200");
    }

    #[test]
    fn records_end_in_crlf_and_quote_what_needs_it() {
        let mut writer = chunk_writer();
        writer
            .write_record(["a,b", "say \"hi\"", "line\nbreak", "plain"])
            .unwrap();
        let bytes = writer.into_inner().unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\",plain\r\n"
        );
    }
}
