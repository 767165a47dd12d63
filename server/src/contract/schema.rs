//! The schema of a text field that takes one of a few values (a status the database keeps as
//! text), for the OpenAPI document: `#[schema(schema_with = …)]` on the field names a function
//! that calls [`one_of`].

use utoipa::openapi::schema::{Object, ObjectBuilder, Type};

/// A string that is one of `values`, described by `description`.
pub fn one_of(values: &[&str], description: &str) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .description(Some(description))
        .build()
}
