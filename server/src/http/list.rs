//! Lists: `?limit=` (1..=100, default 20) and `?starting_after=<id>` in, `{"data", "has_more"}` out.

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;

use super::error::ApiError;

pub const DEFAULT_LIMIT: i64 = 20;
pub const MAX_LIMIT: i64 = 100;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct PageQuery {
    /// How many objects to return, 1 to 100 (default 20).
    limit: Option<String>,
    /// The id of the last object of the previous page.
    starting_after: Option<String>,
}

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
        merchant_id: &str,
    ) -> Result<(), ApiError> {
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
            Err(ApiError::invalid(
                "starting_after",
                format!("No such object: {cursor}."),
            ))
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Page {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(query) = Query::<PageQuery>::from_request_parts(parts, state)
            .await
            .map_err(|err| {
                ApiError::invalid_body(format!("The query string is invalid: {err}."))
            })?;
        let limit = match query.limit {
            None => DEFAULT_LIMIT,
            Some(text) => text
                .parse()
                .ok()
                .filter(|limit| (1..=MAX_LIMIT).contains(limit))
                .ok_or_else(|| {
                    ApiError::invalid(
                        "limit",
                        format!("limit must be an integer from 1 to {MAX_LIMIT}."),
                    )
                })?,
        };
        Ok(Self {
            limit,
            starting_after: query.starting_after,
        })
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
