//! Error answers in the document: each status refers to its own body schema (`Error409`, …)
//! whose `code` is an enum of the codes that status can carry ([`CODES`], the one error's
//! table), so that a generated client narrows a `409` to its two codes. Every answer declares `X-Request-Id`, and every error answer `Kaadxpay-Should-Retry`
//! (API.md §14), both required.

use serde_json::{json, Map, Value};

use crate::contract::error::CODES;

/// The name of the body schema of an error answer of `status`.
pub fn schema_name(status: &str) -> String {
    format!("Error{status}")
}

/// Adds the body schema of each error status the operations refer to, and the headers every answer carries.
pub fn describe(document: &mut Value) {
    let mut statuses: Vec<String> = Vec::new();
    for_each_answer(document, |status, answer| {
        declare(answer, "X-Request-Id", request_id_header());
        if is_error(status) {
            declare(answer, "Kaadxpay-Should-Retry", should_retry_header());
            if !statuses.iter().any(|known| known == status) {
                statuses.push(status.to_owned());
            }
        }
    });
    let schemas = &mut document["components"]["schemas"];
    for status in statuses {
        let codes: Vec<&str> = CODES
            .iter()
            .filter(|(code_status, _)| code_status.to_string() == status)
            .map(|&(_, code)| code.as_str())
            .collect();
        schemas[schema_name(&status)] = body(&status, &codes);
    }
}

fn is_error(status: &str) -> bool {
    status.starts_with('4') || status.starts_with('5')
}

/// Calls `visit` with the status and the answer of every response of every operation.
fn for_each_answer(document: &mut Value, mut visit: impl FnMut(&str, &mut Value)) {
    let paths = document["paths"].as_object_mut().into_iter().flatten();
    for (_, item) in paths {
        let operations = item.as_object_mut().into_iter().flatten();
        for (_, operation) in operations {
            let responses = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
                .into_iter()
                .flatten();
            for (status, answer) in responses {
                visit(status, answer);
            }
        }
    }
}

fn declare(answer: &mut Value, name: &str, header: Value) {
    if !answer["headers"].is_object() {
        answer["headers"] = Value::Object(Map::new());
    }
    answer["headers"][name] = header;
}

fn request_id_header() -> Value {
    json!({
        "required": true,
        "description": "The server's id for this request (`GET /v1/requests/{id}`); quote it to support.",
        "schema": {"type": "string", "pattern": "^req_[0-9A-Za-z]+$"}
    })
}

fn should_retry_header() -> Value {
    json!({
        "required": true,
        "description": "Whether the same request (same key, same body) may succeed if sent again: `true` exactly for `408`, `409 idempotency_request_in_progress` and `5xx`.",
        "schema": {"type": "string", "enum": ["true", "false"]}
    })
}

/// `{"error": {"code", "message", "param"?}}` with the `codes` of `status`.
fn body(status: &str, codes: &[&str]) -> Value {
    json!({
        "type": "object",
        "description": format!("The error answer of a `{status}`."),
        "required": ["error"],
        "properties": {"error": {
            "type": "object",
            "title": format!("Error{status}Detail"),
            "required": ["code", "message"],
            "properties": {
                "code": {
                    "type": "string",
                    "enum": codes,
                    "description": "Stable and machine-readable (docs/api.md lists every code)."
                },
                "message": {"type": "string", "description": "A sentence for people; it may change."},
                "param": {"type": "string", "description": "The request field at fault, as the API spells it (`destination[iban]`); only when there is one."}
            }
        }}
    })
}
