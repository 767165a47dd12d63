//! The audit log (API.md §11): who changed what in a merchant's account, when, from which
//! address, with the object before and after. An entry is written in the transaction of the
//! change it records ([`record`] on that transaction's connection, or the CTE [`cte`] in a
//! one-statement command), so there is never a change without its entry nor an entry without
//! its change, and a replayed request writes none. The table is append-only in the database
//! (a trigger refuses every `UPDATE`, and every `DELETE` of an entry younger than a year; the
//! server's role may only insert and read, deploy/roles.sql) and tamper-evident: the database
//! chains each entry to the previous one of its merchant by hash (`super::chain` verifies);
//! [`purge`] deletes the whole days past the retention and moves each chain's start.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use kaadxpay_idempotency::{Param, Statement};
use kaadxpay_types::ids::{new_id, MerchantId};
pub use kaadxpay_types::ObjectType;
use serde::Serialize;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};

use crate::contract::error::Error;
use crate::contract::pagination::{Filters as Days, Page};
use crate::service::author::By;

/// The shortest retention: the database refuses to delete an entry younger than this.
pub const MIN_RETENTION: Duration = Duration::from_secs(365 * 24 * 3600);

pub use kaadxpay_types::AuditAction as Action;

/// One entry, as it is written.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub merchant_id: &'a MerchantId,
    pub by: &'a By,
    pub action: Action,
    pub object_type: ObjectType,
    pub object_id: &'a str,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

impl<'a> Entry<'a> {
    pub fn new(
        merchant_id: &'a MerchantId,
        by: &'a By,
        action: Action,
        object_type: ObjectType,
        object_id: &'a str,
    ) -> Self {
        Self {
            merchant_id,
            by,
            action,
            object_type,
            object_id,
            before: None,
            after: None,
        }
    }

    /// The object before the change.
    pub fn before(self, before: impl Serialize) -> Self {
        Self {
            before: serde_json::to_value(before).ok(),
            ..self
        }
    }

    /// The object after the change.
    pub fn after(self, after: impl Serialize) -> Self {
        Self {
            after: serde_json::to_value(after).ok(),
            ..self
        }
    }
}

const COLUMNS: &str = "id, merchant_id, actor_kind, actor, action, object_type, object_id, \
     client_address, before, after";

/// The values of `entry` in [`COLUMNS`]' order, bound in `statement`; `merchant` is the param
/// of the merchant's id.
fn values(statement: &mut Statement, merchant: Param, entry: &Entry<'_>) -> String {
    let id = statement.bind(new_id("aud"));
    let kind = statement.bind(entry.by.actor.kind().as_str());
    let actor = statement.bind(entry.by.actor.name());
    let action = statement.bind(entry.action.as_str());
    let object_type = statement.bind(entry.object_type.as_str());
    let object_id = statement.bind(entry.object_id);
    let address = statement.bind(entry.by.address.map(|address| address.to_string()));
    let before = statement.bind(&entry.before);
    let after = statement.bind(&entry.after);
    format!(
        "{id}, {merchant}, {kind}, {actor}, {action}, {object_type}, {object_id}, \
         {address}::inet, {before}::jsonb, {after}::jsonb"
    )
}

/// Writes `entry` on `conn`, in the transaction of the change it records.
pub async fn record(conn: &mut PgConnection, entry: &Entry<'_>) -> sqlx::Result<()> {
    let mut statement = Statement::new();
    let merchant = statement.bind(entry.merchant_id);
    let values = values(&mut statement, merchant, entry);
    statement.push(format_args!(
        "INSERT INTO audit_log ({COLUMNS}) VALUES ({values})"
    ));
    statement.query()?.execute(conn).await?;
    Ok(())
}

/// The CTE `audited` (preceded by `, `) of a one-statement command
/// (`kaadxpay_idempotency::Once::run`): `entry`, written only with the key's record (a row of
/// `recorded`), for the merchant whose id is `merchant`.
pub fn audited(statement: &mut Statement, merchant: Param, entry: &Entry<'_>) {
    let values = values(statement, merchant, entry);
    statement.push(format_args!(
        ", audited AS (INSERT INTO audit_log ({COLUMNS}) SELECT {values} FROM recorded)"
    ));
}

/// The columns of an [`AuditRow`], the address written as a plain address, the hash in hex.
pub const ROW_COLUMNS: &str = "id, created_at, actor_kind, actor, action, object_type, \
     object_id, host(client_address) AS client_address, before, after, seq, \
     encode(hash, 'hex') AS hash";

/// An entry as the page and the CSV show it.
#[derive(Debug, Clone, sqlx::FromRow, Serialize)]
pub struct AuditRow {
    pub id: String,
    #[serde(serialize_with = "crate::contract::timestamp::rfc3339")]
    pub created_at: DateTime<Utc>,
    pub actor_kind: String,
    pub actor: String,
    pub action: String,
    pub object_type: String,
    pub object_id: String,
    pub client_address: Option<String>,
    pub before: Option<Value>,
    pub after: Option<Value>,
    /// Its place in the merchant's hash chain, and its hash (hex): what an auditor keeps to
    /// check the chain later (`super::chain`).
    pub seq: i64,
    pub hash: String,
}

/// Which entries a list shows: one action's, made within a range of UTC days (inclusive).
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub action: Option<Action>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
}

impl Filters {
    /// The list filters of its days, with its action as the status: what every list's
    /// period and its export read.
    pub fn days(&self) -> Days {
        Days {
            status: self.action.map(|action| action.as_str().to_owned()),
            from: self.from,
            to: self.to,
        }
    }
}

/// The merchant's entries that pass `filters`, newest first, a page at a time (one row beyond
/// it, for `List::from_rows`); a cursor that names none of the merchant's entries is refused.
pub async fn list(
    pool: &PgPool,
    merchant_id: &MerchantId,
    filters: &Filters,
    page: &Page,
) -> Result<Vec<AuditRow>, Error> {
    page.check_cursor(pool, "audit_log", merchant_id).await?;
    let (start, end) = filters.days().period();
    Ok(sqlx::query_as(&format!(
        "SELECT {ROW_COLUMNS} FROM audit_log WHERE merchant_id = $1 \
           AND ($4::text IS NULL OR action = $4) \
           AND ($5::timestamptz IS NULL OR created_at >= $5) \
           AND ($6::timestamptz IS NULL OR created_at < $6) {}",
        Page::newest_first("audit_log")
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .bind(filters.action.map(Action::as_str))
    .bind(start)
    .bind(end)
    .fetch_all(pool)
    .await?)
}

/// Deletes the entries of the whole UTC days past `retention` (never shorter than
/// [`MIN_RETENTION`]: the database refuses the younger ones), each chain's oldest first, through
/// `audit_log_purge`, which runs as the table's owner and moves each chain's start.
pub async fn purge(pool: &PgPool, retention: Duration) -> sqlx::Result<u64> {
    let purged = sqlx::query_scalar!(
        r#"SELECT audit_log_purge(make_interval(secs => $1)) AS "purged!""#,
        retention.max(MIN_RETENTION).as_secs_f64(),
    )
    .fetch_one(pool)
    .await?;
    Ok(purged as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::author::Actor;

    #[test]
    fn the_cte_and_the_insert_bind_every_column() {
        let by = By {
            actor: Actor::User("ada@example.com".into()),
            address: None,
        };
        let merchant_id = MerchantId::from("mer_1");
        let entry = Entry::new(
            &merchant_id,
            &by,
            Action::PayoutCreated,
            ObjectType::Payout,
            "po_1",
        );
        let mut statement = Statement::new();
        statement.push("WITH recorded AS (SELECT 1)");
        let merchant = statement.bind(&merchant_id);
        audited(&mut statement, merchant, &entry);
        let values = values(&mut Statement::new(), merchant, &entry);
        assert_eq!(values.split(',').count(), COLUMNS.split(',').count());
        assert!(statement.sql().contains("$10::jsonb FROM recorded"));
    }
}
