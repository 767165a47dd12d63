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
//! A statement of a fixed shape (the same fragments in the same order, whatever the values)
//! can compose its text once: [`Statement::of_shape`] with a [`Shape`] of its own composes the
//! text on the shape's first statement and only binds on the others, whose pushes write
//! nothing. Debug builds compose every statement's text anyway and check that it is the
//! shape's, so a fragment whose text depends on a value fails the tests that reach it.
//!
//! ```
//! # use kaadxpay_idempotency::{Shape, Statement};
//! static SHAPE: Shape = Shape::new();
//! for amount in [500_i64, 700] {
//!     let mut statement = Statement::of_shape(&SHAPE);
//!     let amount = statement.bind(amount);
//!     statement.push(format_args!("SELECT {amount}"));
//!     assert_eq!(statement.sql(), "SELECT $1");
//! }
//! ```

use std::fmt::{self, Write};
use std::sync::OnceLock;

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

/// The text of every statement of one shape, composed by the first ([`Statement::of_shape`]).
pub struct Shape(OnceLock<String>);

impl Shape {
    pub const fn new() -> Self {
        Self(OnceLock::new())
    }
}

impl Default for Shape {
    fn default() -> Self {
        Self::new()
    }
}

/// A statement's text and the values its [`Param`]s stand for.
#[derive(Default)]
pub struct Statement {
    /// The text composed by this statement's pushes (in release builds, none when its shape's
    /// text is known).
    sql: String,
    /// The shape whose text this statement has, or composes.
    shape: Option<&'static Shape>,
    arguments: PgArguments,
    /// The first value that failed to encode, reported by [`Statement::query`].
    unencodable: Option<BoxDynError>,
}

impl Statement {
    pub fn new() -> Self {
        Self::default()
    }

    /// A statement of `shape`: its pushes compose the text only if no statement of the shape
    /// has yet (see the module's documentation).
    pub fn of_shape(shape: &'static Shape) -> Self {
        Self {
            shape: Some(shape),
            ..Self::default()
        }
    }

    /// The text already composed by a statement of this one's shape.
    fn known(&self) -> Option<&'static str> {
        self.shape
            .and_then(|shape| shape.0.get())
            .map(String::as_str)
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

    /// Appends `text` (a fragment, its params written with `{param}`); nothing in a release
    /// build when the shape's text is known.
    pub fn push(&mut self, text: impl fmt::Display) -> &mut Self {
        if cfg!(debug_assertions) || self.known().is_none() {
            write!(self.sql, "{text}").expect("writing to a String cannot fail");
        }
        self
    }

    pub fn sql(&self) -> &str {
        match self.known() {
            Some(known) => {
                debug_assert_eq!(self.sql, known, "a statement's text is not its shape's");
                known
            }
            None => &self.sql,
        }
    }

    /// The statement, ready to run with its values; an error if one of them did not encode.
    /// The first statement of a shape leaves its text to the shape.
    pub fn query(&mut self) -> Result<Query<'_, Postgres, PgArguments>, sqlx::Error> {
        if let Some(error) = self.unencodable.take() {
            return Err(sqlx::Error::Encode(error));
        }
        if let (Some(shape), None) = (self.shape, self.known()) {
            let _ = shape.0.set(self.sql.clone());
        }
        let arguments = std::mem::take(&mut self.arguments);
        Ok(sqlx::query_with(self.sql(), arguments))
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

    #[test]
    fn a_shape_keeps_the_first_statements_text_for_the_others() {
        static SHAPE: Shape = Shape::new();
        let texts: Vec<String> = [1_i64, 2]
            .into_iter()
            .map(|value| {
                let mut statement = Statement::of_shape(&SHAPE);
                let value = statement.bind(value);
                statement.push(format_args!("SELECT {value}"));
                let _ = statement.query().expect("encodes");
                statement.sql().to_owned()
            })
            .collect();
        assert_eq!(texts, ["SELECT $1", "SELECT $1"]);
        assert_eq!(SHAPE.0.get().map(String::as_str), Some("SELECT $1"));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a statement's text is not its shape's")]
    fn a_text_that_depends_on_a_value_fails_its_shape_in_debug_builds() {
        static SHAPE: Shape = Shape::new();
        for table in ["orders", "payouts"] {
            let mut statement = Statement::of_shape(&SHAPE);
            statement.push(format_args!("SELECT * FROM {table}"));
            let _ = statement.query();
        }
    }
}
