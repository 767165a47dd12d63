//! Statements composed from fragments that bind their own values: a fragment asks
//! [`Statement::bind`] for a value's [`Param`] and writes that param into its text, so no two
//! fragments (the engine's record, an effect's writes, an event, an audit entry) have to agree
//! on `$n` numbers, and a fragment can be reused in any statement.
//!
//! ```
//! # use kaadxpay_idempotency::Statement;
//! let mut statement = Statement::new();
//! let merchant = statement.bind("mer_1");
//! let amount = statement.bind(500_i64);
//! statement.push(format_args!("INSERT INTO orders (merchant_id, amount) VALUES ({merchant}, {amount})"));
//! assert_eq!(statement.sql(), "INSERT INTO orders (merchant_id, amount) VALUES ($1, $2)");
//! ```
//!
//! Each request builds its text anew, the same text for the same shape of statement, so
//! PostgreSQL's prepared statement is still reused by the connection.

use std::fmt::{self, Write};

use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArguments, Postgres};
use sqlx::query::Query;
use sqlx::{Arguments, Encode, Type};

/// A bound value of a [`Statement`], written into its text as `$n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param(usize);

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.0)
    }
}

/// A statement's text and the values its [`Param`]s stand for.
#[derive(Default)]
pub struct Statement {
    sql: String,
    arguments: PgArguments,
    /// The first value that failed to encode, reported by [`Statement::query`].
    unencodable: Option<BoxDynError>,
}

impl Statement {
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `value` as the statement's next parameter.
    pub fn bind<'q, T>(&mut self, value: T) -> Param
    where
        T: 'q + Encode<'q, Postgres> + Type<Postgres>,
    {
        if let Err(error) = Arguments::<'q>::add(&mut self.arguments, value) {
            self.unencodable.get_or_insert(error);
        }
        Param(Arguments::<'q>::len(&self.arguments))
    }

    /// Appends `text` (a fragment, its params written with `{param}`).
    pub fn push(&mut self, text: impl fmt::Display) -> &mut Self {
        write!(self.sql, "{text}").expect("writing to a String cannot fail");
        self
    }

    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// The statement, ready to run with its values; an error if one of them did not encode.
    pub fn query(&mut self) -> Result<Query<'_, Postgres, PgArguments>, sqlx::Error> {
        if let Some(error) = self.unencodable.take() {
            return Err(sqlx::Error::Encode(error));
        }
        Ok(sqlx::query_with(
            &self.sql,
            std::mem::take(&mut self.arguments),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_numbered_in_the_order_values_are_bound_wherever_the_text_names_them() {
        let mut statement = Statement::new();
        let merchant = statement.bind("mer_1");
        statement.push(format_args!("WITH a AS (SELECT {merchant}), "));
        let amount = statement.bind(7_i64);
        statement.push(format_args!("b AS (SELECT {amount}, {merchant}) SELECT 1"));
        assert_eq!(
            statement.sql(),
            "WITH a AS (SELECT $1), b AS (SELECT $2, $1) SELECT 1"
        );
    }
}
