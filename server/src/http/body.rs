//! Request bodies: read with a size limit, parsed as one JSON object, and checked field by field
//! so that every rejection names the offending `param`. The parsed value is kept because the
//! idempotency fingerprint is taken over its canonical form.

use axum::extract::{FromRequest, Request};
use serde_json::{Map, Value};

use super::error::ApiError;

/// Larger bodies are refused before they are parsed.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A request body that is a JSON object.
pub struct JsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES)
            .await
            .map_err(|err| {
                if err.into_inner().is::<http_body_util::LengthLimitError>() {
                    ApiError::RequestTooLarge
                } else {
                    ApiError::invalid_body("The request body could not be read in full.")
                }
            })?;
        // No body at all is an empty object, for actions that take no parameters.
        if bytes.is_empty() {
            return Ok(Self(Value::Object(Map::new())));
        }
        let value: Value = serde_json::from_slice(&bytes).map_err(|err| {
            ApiError::invalid_body(format!("The request body is not valid JSON: {err}."))
        })?;
        if !value.is_object() {
            return Err(ApiError::invalid_body(
                "The request body must be a JSON object.",
            ));
        }
        Ok(Self(value))
    }
}

impl JsonBody {
    /// The body's fields, refusing any name not in `allowed`.
    pub fn fields(&self, allowed: &[&str]) -> Result<Fields<'_>, ApiError> {
        let map = self.0.as_object().expect("checked when extracted");
        Fields::checked(map, "", allowed)
    }
}

/// Typed access to the fields of a JSON object, each error naming its field.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: String,
}

impl<'a> Fields<'a> {
    /// `map`'s fields, refusing any name not in `allowed`; `prefix` names the enclosing object.
    fn checked(
        map: &'a Map<String, Value>,
        prefix: &str,
        allowed: &[&str],
    ) -> Result<Self, ApiError> {
        if let Some(unknown) = map.keys().find(|name| !allowed.contains(&name.as_str())) {
            let param = if prefix.is_empty() {
                unknown.clone()
            } else {
                format!("{prefix}[{unknown}]")
            };
            return Err(ApiError::invalid(
                &param,
                format!("Received unknown parameter: {param}."),
            ));
        }
        Ok(Self {
            map,
            prefix: prefix.to_owned(),
        })
    }

    fn param(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}[{name}]", self.prefix)
        }
    }

    /// The nested object `name`, whose own fields are limited to `allowed`.
    pub fn object(&self, name: &str, allowed: &[&str]) -> Result<Fields<'a>, ApiError> {
        match self.required(name)? {
            Value::Object(map) => Self::checked(map, &self.param(name), allowed),
            _ => Err(ApiError::invalid(
                &self.param(name),
                format!("{} must be an object.", self.param(name)),
            )),
        }
    }

    pub fn required(&self, name: &str) -> Result<&'a Value, ApiError> {
        match self.map.get(name) {
            None | Some(Value::Null) => {
                let param = self.param(name);
                Err(ApiError::invalid(
                    &param,
                    format!("Missing required parameter: {param}."),
                ))
            }
            Some(value) => Ok(value),
        }
    }

    pub fn optional(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|value| !value.is_null())
    }

    pub fn required_str(&self, name: &str) -> Result<&'a str, ApiError> {
        as_str(&self.param(name), self.required(name)?)
    }

    /// An optional text of at most `max_chars` characters.
    pub fn optional_text(&self, name: &str, max_chars: usize) -> Result<Option<String>, ApiError> {
        let Some(value) = self.optional(name) else {
            return Ok(None);
        };
        let text = as_str(name, value)?;
        if text.chars().count() > max_chars {
            return Err(ApiError::invalid(
                name,
                format!("{name} must be at most {max_chars} characters long."),
            ));
        }
        Ok(Some(text.to_owned()))
    }
}

pub fn as_str<'v>(name: &str, value: &'v Value) -> Result<&'v str, ApiError> {
    value
        .as_str()
        .ok_or_else(|| ApiError::invalid(name, format!("{name} must be a string.")))
}
