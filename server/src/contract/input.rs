//! Request bodies into typed commands: a body is one JSON object of at most
//! [`MAX_BODY_BYTES`], deserialised into its command's struct, and every refusal is a
//! `400 invalid_request` that names its `param` as the API spells it (`amount`,
//! `destination[iban]`, `events[0]`, `metadata[sku]`). The rules of each field live with its
//! type (`Amount`, `Currency`, `Iban`, ...), whose `TryFrom` gives the sentence. Text
//! PostgreSQL cannot store (U+0000, in any key or value) is refused here for every command,
//! before any field's own rule.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use serde_path_to_error::Segment;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

use crate::contract::error::Error;

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
    if let Some(path) = nul_at(body) {
        let param = param_name(path.into_iter().rev());
        let message = format!("Invalid {param}: text may not contain the NUL character (U+0000).");
        return Err(Error::invalid(&param, message));
    }
    serde_path_to_error::deserialize(body).map_err(|err| {
        let param = param_of(err.path());
        let cause = err.into_inner().to_string();
        refusal(param, &cause)
    })
}

/// Where in `value` the first text holding U+0000 is (an object key counts as its own
/// field, named with U+FFFD in its place so that no refusal carries the NUL on), innermost
/// segment first; `None` when there is none.
fn nul_at(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::String(text) => text.contains('\0').then(Vec::new),
        Value::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
            let mut path = nul_at(item)?;
            path.push(index.to_string());
            Some(path)
        }),
        Value::Object(fields) => fields.iter().find_map(|(key, field)| {
            let mut path = if key.contains('\0') {
                Vec::new()
            } else {
                nul_at(field)?
            };
            path.push(key.replace('\0', "\u{FFFD}"));
            Some(path)
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// The API's name of the field at `path`: the first segment bare, the rest in brackets.
fn param_of(path: &serde_path_to_error::Path) -> String {
    param_name(path.iter().map(|segment| match segment {
        Segment::Map { key } => key.clone(),
        Segment::Seq { index } => index.to_string(),
        Segment::Enum { variant } => variant.clone(),
        Segment::Unknown => "?".to_owned(),
    }))
}

/// `a`, `b`, `c` as the API spells a nested field: `a[b][c]`.
pub fn param_name(segments: impl IntoIterator<Item = String>) -> String {
    let mut param = String::new();
    for name in segments {
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

/// What the schema of a name ([`NAME_PATTERN`], at most `max_chars` characters) admits, as
/// JSON Schema reads a pattern (ECMA-262: `\s` is [`is_pattern_space`]; `.`, as the validators
/// in use read it, anything but `\n`): at most `max_chars` characters as sent, something other
/// than whitespace, and no line break inside. The name is kept trimmed.
pub fn name(raw: &str, max_chars: usize) -> Result<&str, String> {
    let name = raw.trim_matches(is_pattern_space);
    if name.is_empty() || raw.chars().count() > max_chars {
        return Err(format!("must be 1 to {max_chars} characters"));
    }
    if name.contains('\n') {
        return Err("must be one line".to_owned());
    }
    Ok(name)
}

/// Whitespace as a JSON Schema pattern's `\s` means it (ECMA-262's WhiteSpace and
/// LineTerminator): Rust's `char::is_whitespace` without U+0085, with U+FEFF. Not Python's
/// `str.isspace`, which also counts U+001C to U+001F.
fn is_pattern_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// A name's pattern: something other than whitespace, on one line, blanks around it allowed.
pub const NAME_PATTERN: &str = r"^\s*\S(.*\S)?\s*$";

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
    fn text_holding_nul_is_refused_where_it_stands() {
        assert_eq!(
            param(json!({"amount": 1, "tags": ["a", "b\u{0}"]})),
            "tags[1]"
        );
        assert_eq!(
            param(json!({"amount": 1, "metadata": {"k": "v\u{0}"}})),
            "metadata[k]"
        );
        assert_eq!(
            param(json!({"amount": 1, "metadata": {"k\u{0}": "v"}})),
            "metadata[k\u{FFFD}]"
        );
        assert_eq!(
            param(json!({"amount": 1, "inner": {"iban": "\u{0}"}})),
            "inner[iban]"
        );
    }

    #[test]
    fn a_name_is_what_its_schema_admits() {
        assert_eq!(name(" Ada Lovelace\t", 20), Ok("Ada Lovelace"));
        assert_eq!(name("Ada\rLovelace", 20), Ok("Ada\rLovelace"));
        assert!(name("\tA \t\r\n\u{b}*", 20).is_err(), "a line break inside");
        assert!(
            name("\u{feff}\u{a0}\u{3000}", 20).is_err(),
            "only whitespace"
        );
        // What JSON Schema's `\S` admits (Schemathesis found the server refusing it): not
        // whitespace to ECMA-262, though Python's `str.isspace` and Rust's `is_whitespace`
        // each count one of them.
        assert_eq!(name(" \u{1e} ", 20), Ok("\u{1e}"));
        assert_eq!(name("\u{85}", 20), Ok("\u{85}"));
        assert!(
            name(&format!("\n{}", "*".repeat(20)), 20).is_err(),
            "too long as sent"
        );
        assert_eq!(
            name(&format!("\n{}", "*".repeat(19)), 20).map(str::len),
            Ok(19)
        );
    }

    #[test]
    fn a_body_must_be_one_json_object() {
        assert_eq!(json_object(b"").unwrap(), json!({}));
        assert!(json_object(b"[1]").is_err());
        assert!(json_object(b"{").is_err());
    }
}
