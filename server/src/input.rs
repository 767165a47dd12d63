//! Request bodies into typed commands: a body is one JSON object of at most
//! [`MAX_BODY_BYTES`], deserialised into its command's struct, and every refusal is a
//! `400 invalid_request` that names its `param` as the API spells it (`amount`,
//! `destination[iban]`, `events[0]`, `metadata[sku]`). The rules of each field live with its
//! type (`Amount`, `Currency`, `Iban`, ...), whose `TryFrom` gives the sentence.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use serde_path_to_error::Segment;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

use crate::error::Error;

/// Larger bodies are refused before they are parsed.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The body as one JSON object; no body at all is an empty object, for actions that take no
/// parameters.
pub fn json_object(bytes: &[u8]) -> Result<Value, Error> {
    if bytes.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|err| {
        Error::invalid_body(format!("The request body is not valid JSON: {err}."))
    })?;
    if !value.is_object() {
        return Err(Error::invalid_body(
            "The request body must be a JSON object.",
        ));
    }
    Ok(value)
}

/// `body` as the command `T`, or the refusal that names the first field at fault.
pub fn command<T: DeserializeOwned>(body: &Value) -> Result<T, Error> {
    serde_path_to_error::deserialize(body).map_err(|err| {
        let param = param_of(err.path());
        let cause = err.into_inner().to_string();
        refusal(param, &cause)
    })
}

/// The API's name of the field at `path`: the first segment bare, the rest in brackets.
fn param_of(path: &serde_path_to_error::Path) -> String {
    let mut param = String::new();
    for segment in path.iter() {
        let name = match segment {
            Segment::Map { key } => key.clone(),
            Segment::Seq { index } => index.to_string(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => "?".to_owned(),
        };
        if param.is_empty() {
            param = name;
        } else {
            param = format!("{param}[{name}]");
        }
    }
    param
}

/// The refusal for serde's `cause` at `param`, in the API's sentences. A missing field is
/// reported at its parent, so its name is taken from the cause.
fn refusal(param: String, cause: &str) -> Error {
    let quoted = |prefix: &str| {
        cause
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_owned)
    };
    if let Some(field) = quoted("missing field `") {
        let param = if param.is_empty() {
            field
        } else {
            format!("{param}[{field}]")
        };
        let message = format!("Missing required parameter: {param}.");
        return Error::invalid(&param, message);
    }
    if cause.starts_with("unknown field `") {
        let message = format!("Received unknown parameter: {param}.");
        return Error::invalid(&param, message);
    }
    // serde's own words for a wrong type ("invalid type: string \"x\", expected i64"), or
    // the sentence of a field type's `TryFrom`.
    let message = format!("Invalid {param}: {}.", cause.trim_end_matches('.'));
    Error::invalid(&param, message)
}

/// The OpenAPI schema of a text field with its limits, for the field types that check them.
pub fn text_schema(
    min_length: usize,
    max_length: usize,
    pattern: Option<&str>,
    example: &str,
) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(min_length))
        .max_length(Some(max_length))
        .pattern(pattern)
        .examples([example])
        .into()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // read through Debug only
    struct Outer {
        amount: i64,
        inner: Option<Inner>,
        tags: Option<Vec<String>>,
        metadata: Option<BTreeMap<String, String>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        iban: String,
    }

    fn param(body: Value) -> String {
        match command::<Outer>(&body).unwrap_err() {
            Error::InvalidRequest { param, message } => {
                assert!(!message.is_empty());
                param.expect("a named param")
            }
            other => panic!("not a 400: {other:?}"),
        }
    }

    #[test]
    fn refusals_name_the_field_as_the_api_spells_it() {
        assert_eq!(param(json!({})), "amount");
        assert_eq!(param(json!({"amount": "1"})), "amount");
        assert_eq!(param(json!({"amount": 1, "extra": 1})), "extra");
        assert_eq!(param(json!({"amount": 1, "inner": {}})), "inner[iban]");
        assert_eq!(
            param(json!({"amount": 1, "inner": {"iban": "x", "bic": "y"}})),
            "inner[bic]"
        );
        assert_eq!(param(json!({"amount": 1, "tags": ["a", 2]})), "tags[1]");
        assert_eq!(
            param(json!({"amount": 1, "metadata": {"a": 1}})),
            "metadata[a]"
        );
    }

    #[test]
    fn a_body_must_be_one_json_object() {
        assert_eq!(json_object(b"").unwrap(), json!({}));
        assert!(json_object(b"[1]").is_err());
        assert!(json_object(b"{").is_err());
    }
}
