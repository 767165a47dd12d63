//! The OpenAPI document types what the answers carry (API.md §14), so that generated clients
//! need no cast: every field of an answer required, the list item and the single answer apart,
//! error codes narrowed per status, one webhook body per event type, the headers every answer
//! carries, ids with their prefixes, a title on every schema. Every breach is listed at once.

use crate::common;

use serde_json::{json, Value};

use common::spawn_app;

const SCHEMAS: &str = "#/components/schemas/";

/// The names of the schemas request bodies refer to (where optional fields belong).
fn request_schemas(doc: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            let reference =
                &operation["requestBody"]["content"]["application/json"]["schema"]["$ref"];
            if let Some(name) = reference.as_str().and_then(|r| r.strip_prefix(SCHEMAS)) {
                found.push(name.to_owned());
            }
        }
    }
    found
}

fn answer_schema(doc: &Value, method: &str, path: &str, status: &str) -> Value {
    doc["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        .clone()
}

#[tokio::test]
async fn the_document_types_every_answer_without_casts() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let schema = |name: &str| schemas.get(name).cloned().unwrap_or_default();
    let mut problems: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };

    // Every field of an answer is required; a request body's optional fields stay optional.
    let requests = request_schemas(&doc);
    for (name, described) in schemas {
        let required = described["required"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let properties = described["properties"].as_object().into_iter().flatten();
        for (field, _) in properties {
            let optional = requests.contains(name) || field == "test";
            check(
                optional || required.contains(&json!(field)),
                format!("{name}.{field} is not required"),
            );
        }
        // A title on every schema and on every inline variant.
        check(
            described["title"].is_string(),
            format!("{name} has no title"),
        );
        for variant in described["oneOf"].as_array().into_iter().flatten() {
            let inline = variant.get("$ref").is_none() && variant["type"] != "null";
            check(
                !inline || variant["title"].is_string(),
                format!("a variant of {name} has no title"),
            );
        }
    }

    // The list item and the single answer apart.
    let single = [
        (
            "post",
            "/v1/webhook-endpoints",
            "201",
            "EndpointWithSecret",
            "secret",
        ),
        (
            "get",
            "/v1/events/{event_id}",
            "200",
            "EventWithDeliveries",
            "deliveries",
        ),
        (
            "get",
            "/v1/reconciliation-runs/{id}",
            "200",
            "RunWithItems",
            "items",
        ),
    ];
    for (method, path, status, detailed, field) in single {
        check(
            answer_schema(&doc, method, path, status) == json!(format!("{SCHEMAS}{detailed}")),
            format!("{method} {path} does not answer {detailed}"),
        );
        check(
            schema(detailed)["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!(field))),
            format!("{detailed}.{field} is not required"),
        );
    }
    for (item, field) in [
        ("Endpoint", "secret"),
        ("Event", "deliveries"),
        ("StoredRun", "items"),
    ] {
        check(
            schema(item)["properties"].get(field).is_none(),
            format!("the list item {item} has {field}"),
        );
    }
    check(
        answer_schema(&doc, "get", "/v1/webhook-endpoints/{id}", "200")
            == json!(format!("{SCHEMAS}Endpoint")),
        "GET /v1/webhook-endpoints/{id} does not answer Endpoint".into(),
    );

    // Error codes narrowed per status.
    let codes = |status: &str| {
        schema(&format!("Error{status}"))["properties"]["error"]["properties"]["code"]["enum"]
            .clone()
    };
    check(
        codes("402") == json!(["insufficient_funds"]),
        format!("402: {}", codes("402")),
    );
    check(
        codes("409")
            == json!([
                "idempotency_request_in_progress",
                "invalid_state_transition",
                "amount_exceeds_refundable"
            ]),
        format!("409: {}", codes("409")),
    );
    check(
        codes("422") == json!(["idempotency_key_reused"]),
        format!("422: {}", codes("422")),
    );
    check(
        answer_schema(&doc, "post", "/v1/payouts", "402") == json!(format!("{SCHEMAS}Error402")),
        "POST /v1/payouts's 402 is not Error402".into(),
    );

    // One webhook per event type, its event_type that one value, its data.object one schema.
    for (event_type, object) in [("order.captured", "Order"), ("payout.paid", "Payout")] {
        let body = &doc["webhooks"][event_type]["post"]["requestBody"]["content"]
            ["application/json"]["schema"]["$ref"];
        let name = body
            .as_str()
            .unwrap_or_default()
            .trim_start_matches(SCHEMAS);
        let body = schema(name);
        check(
            body["properties"]["event_type"]["enum"] == json!([event_type]),
            format!("the {event_type} webhook's event_type is not that one value"),
        );
        check(
            body["properties"]["data"]["properties"]["object"]["$ref"]
                == json!(format!("{SCHEMAS}{object}")),
            format!("the {event_type} webhook's data.object is not {object}"),
        );
    }

    // The headers: X-Request-Id on every answer, Kaadxpay-Should-Retry on every error, the
    // engine's two on every answer of a POST.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, answer) in operation["responses"].as_object().unwrap() {
                let has = |header: &str| answer["headers"][header].is_object();
                check(
                    has("X-Request-Id"),
                    format!("{method} {path} {status}: no X-Request-Id"),
                );
                if status.starts_with('4') || status.starts_with('5') {
                    check(
                        answer["headers"]["Kaadxpay-Should-Retry"]["required"] == true,
                        format!("{method} {path} {status}: no Kaadxpay-Should-Retry"),
                    );
                }
                if method == "post" {
                    for header in ["Idempotent-Replayed", "Idempotency-Key-Status"] {
                        check(
                            has(header),
                            format!("{method} {path} {status}: no {header}"),
                        );
                    }
                }
            }
        }
    }

    // Ids with their prefixes, in the schemas and the paths.
    check(
        schema("Payout")["properties"]["id"]["pattern"] == "^po_[0-9A-Za-z]+$",
        "Payout.id has no pattern".into(),
    );
    let payout_id =
        doc["paths"]["/v1/payouts/{id}"]["get"]["parameters"][0]["schema"]["pattern"].clone();
    check(
        payout_id == "^po_[0-9A-Za-z]+$",
        format!("GET /v1/payouts/{{id}}: {payout_id}"),
    );

    // Every object's id, and every `{id}` of a route, has its kind's shape: a new kind of
    // object missing from `http/openapi/ids.rs` fails here, not in a client.
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        let id = &schema["properties"]["id"];
        if schema["properties"]["object"]["enum"].is_array() && id.is_object() {
            check(
                id["pattern"].is_string() || id["format"] == "uuid",
                format!("{name}.id has no pattern"),
            );
        }
    }
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let parameters = operation["parameters"].as_array().into_iter().flatten();
            for parameter in parameters.filter(|parameter| parameter["in"] == "path") {
                let shaped = parameter["schema"]["pattern"].is_string()
                    || parameter["schema"]["format"] == "uuid";
                check(
                    shaped || parameter["name"] != "id",
                    format!("{method} {path}: its {{id}} has no pattern"),
                );
            }
        }
    }

    // A refund's id, the refunds' routes and what creating one answers.
    check(
        schema("Refund")["properties"]["id"]["pattern"] == "^re_[0-9A-Za-z]+$",
        "Refund.id has no pattern".into(),
    );
    let refund_id =
        doc["paths"]["/v1/refunds/{id}"]["get"]["parameters"][0]["schema"]["pattern"].clone();
    check(
        refund_id == "^re_[0-9A-Za-z]+$",
        format!("GET /v1/refunds/{{id}}: {refund_id}"),
    );
    let refunds = "/v1/orders/{id}/refunds";
    check(
        answer_schema(&doc, "post", refunds, "201") == json!(format!("{SCHEMAS}Refund")),
        format!("POST {refunds} does not answer Refund"),
    );
    check(
        answer_schema(&doc, "post", refunds, "402") == json!(format!("{SCHEMAS}Error402")),
        format!("POST {refunds} has no 402"),
    );

    // Approve and reject say what they answer when they succeed.
    for action in ["approve", "reject"] {
        let path = format!("/v1/payouts/{{id}}/{action}");
        check(
            answer_schema(&doc, "post", &path, "200") == json!(format!("{SCHEMAS}Payout")),
            format!("{action} has no success answer"),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
