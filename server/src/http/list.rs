//! Lists' query string: `?limit=` and `?starting_after=<id>` into a [`Page`].

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::Deserialize;

use crate::contract::error::Error;
use crate::contract::pagination::{Page, DEFAULT_LIMIT, MAX_LIMIT};

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// How many objects to return, 1 to 100 (default 20). Read as text, so that a bad value
    /// gets the contract's `400` naming `limit`.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The id of the last object of the previous page: one of the merchant's own objects.
    starting_after: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Page {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let Query(query) = Query::<PageQuery>::from_request_parts(parts, state)
            .await
            .map_err(|err| Error::invalid_body(format!("The query string is invalid: {err}.")))?;
        let limit = match query.limit {
            None => DEFAULT_LIMIT,
            Some(text) => text
                .parse()
                .ok()
                .filter(|limit| (1..=MAX_LIMIT).contains(limit))
                .ok_or_else(|| {
                    Error::invalid(
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
