//! Pages of a merchant's objects, newest first: at most `limit` (1 to 100, default 20) after
//! the object `starting_after`, answered as `{"data", "has_more"}`.

use kaadxpay_types::ids::MerchantId;
use serde::Serialize;
use sqlx::PgPool;

use crate::contract::error::Error;

pub const DEFAULT_LIMIT: i64 = 20;
pub const MAX_LIMIT: i64 = 100;

#[derive(Debug)]
pub struct Page {
    pub limit: i64,
    pub starting_after: Option<String>,
}

impl Page {
    /// One more than the page holds, to learn whether there is more.
    pub fn fetch_limit(&self) -> i64 {
        self.limit + 1
    }

    /// The end of a newest-first page query over `table`, after its own conditions: `$1` binds
    /// the merchant id, `$2` the cursor (`starting_after`, typed as the table's `id`) and `$3`
    /// [`Page::fetch_limit`].
    pub fn newest_first(table: &str) -> String {
        format!(
            "AND ($2::text IS NULL OR (created_at, id) < \
               (SELECT created_at, id FROM {table} WHERE merchant_id = $1 AND id = $2)) \
             ORDER BY created_at DESC, id DESC LIMIT $3"
        )
    }

    /// A cursor must name one of the merchant's own objects in `table` (whose `id` may be text
    /// or a UUID: it is compared as text).
    pub async fn check_cursor(
        &self,
        pool: &PgPool,
        table: &str,
        merchant_id: &MerchantId,
    ) -> Result<(), Error> {
        let Some(cursor) = &self.starting_after else {
            return Ok(());
        };
        let exists: bool = sqlx::query_scalar(&format!(
            "SELECT EXISTS (SELECT 1 FROM {table} WHERE merchant_id = $1 AND id::text = $2)"
        ))
        .bind(merchant_id)
        .bind(cursor)
        .fetch_one(pool)
        .await?;
        if exists {
            Ok(())
        } else {
            Err(Error::invalid(
                "starting_after",
                format!("No such object: {cursor}."),
            ))
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct List<T> {
    pub data: Vec<T>,
    pub has_more: bool,
}

impl<T> List<T> {
    /// The page from rows fetched with [`Page::fetch_limit`].
    pub fn from_rows(mut rows: Vec<T>, page: &Page) -> Self {
        let has_more = rows.len() as i64 > page.limit;
        rows.truncate(page.limit as usize);
        Self {
            data: rows,
            has_more,
        }
    }
}

/// What a list shows besides its page: rows of one status, made within a range of UTC days
/// (both inclusive). Every filter left out holds for every row.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub status: Option<String>,
    pub from: Option<chrono::NaiveDate>,
    pub to: Option<chrono::NaiveDate>,
}

impl Filters {
    /// The first instant of `from` and the first instant after `to`.
    pub fn period(
        &self,
    ) -> (
        Option<chrono::DateTime<chrono::Utc>>,
        Option<chrono::DateTime<chrono::Utc>>,
    ) {
        let start = |day: chrono::NaiveDate| day.and_hms_opt(0, 0, 0).map(|at| at.and_utc());
        (
            self.from.and_then(start),
            self.to
                .and_then(start)
                .map(|at| at + chrono::TimeDelta::days(1)),
        )
    }

    /// The conditions of a text `status` column and `created_at` on `$4` (status), `$5` and `$6`
    /// (the period), to go before [`Page::newest_first`], which uses `$1` to `$3`.
    const CONDITIONS: &'static str = "AND ($4::text IS NULL OR status = $4) \
         AND ($5::timestamptz IS NULL OR created_at >= $5) \
         AND ($6::timestamptz IS NULL OR created_at < $6)";
}

/// The merchant's rows of `table` (read as `columns`) that pass `filters`, newest first, a page
/// at a time (one row beyond it, for [`List::from_rows`]); a cursor that names none of the
/// merchant's rows is refused.
pub async fn filtered<T>(
    pool: &PgPool,
    table: &str,
    columns: &str,
    merchant_id: &MerchantId,
    filters: &Filters,
    page: &Page,
) -> Result<Vec<T>, Error>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    page.check_cursor(pool, table, merchant_id).await?;
    let (start, end) = filters.period();
    Ok(sqlx::query_as(&format!(
        "SELECT {columns} FROM {table} WHERE merchant_id = $1 {} {}",
        Filters::CONDITIONS,
        Page::newest_first(table)
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .bind(filters.status.as_deref())
    .bind(start)
    .bind(end)
    .fetch_all(pool)
    .await?)
}

/// The merchant's rows of `table` (read as `columns`), newest first, a page at a time, for a
/// table with nothing to filter by (see [`filtered`]).
pub async fn newest<T>(
    pool: &PgPool,
    table: &str,
    columns: &str,
    merchant_id: &MerchantId,
    page: &Page,
) -> Result<Vec<T>, Error>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    page.check_cursor(pool, table, merchant_id).await?;
    Ok(sqlx::query_as(&format!(
        "SELECT {columns} FROM {table} WHERE merchant_id = $1 {}",
        Page::newest_first(table)
    ))
    .bind(merchant_id)
    .bind(page.starting_after.as_deref())
    .bind(page.fetch_limit())
    .fetch_all(pool)
    .await?)
}

/// The merchant's row `id` of `table`, read as `columns`.
pub async fn own<T>(
    pool: &PgPool,
    table: &str,
    columns: &str,
    merchant_id: &MerchantId,
    id: &str,
) -> sqlx::Result<Option<T>>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    sqlx::query_as(&format!(
        "SELECT {columns} FROM {table} WHERE merchant_id = $1 AND id = $2"
    ))
    .bind(merchant_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}
