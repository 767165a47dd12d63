//! Schemas whose answer about one object carries a field that a list's items leave out: the
//! document gives that answer a schema of its own, where the field is required, and the item's
//! schema loses it, so that a generated client never has to ask whether it is there.

use serde_json::{json, Value};

const SCHEMAS: &str = "#/components/schemas/";

/// A field only some answers carry: `schema`'s `field`, in the schema `detailed`, which the
/// success answers of `answers` (`method path`) refer to.
struct Detailed {
    schema: &'static str,
    field: &'static str,
    detailed: &'static str,
    answers: &'static [&'static str],
}

const DETAILED: [Detailed; 3] = [
    Detailed {
        schema: "Event",
        field: "deliveries",
        detailed: "EventWithDeliveries",
        answers: &[
            "get /v1/events/{event_id}",
            "post /v1/events/{event_id}/redeliver",
            "post /v1/webhook-endpoints/{id}/test",
        ],
    },
    Detailed {
        schema: "StoredRun",
        field: "items",
        detailed: "RunWithItems",
        answers: &["get /v1/reconciliation-runs/{id}"],
    },
    Detailed {
        schema: "Endpoint",
        field: "secret",
        detailed: "EndpointWithSecret",
        answers: &[
            "post /v1/webhook-endpoints",
            "post /v1/webhook-endpoints/{id}/rotate-secret",
        ],
    },
];

/// Splits each schema of [`DETAILED`] and points its answers at the detailed one.
pub fn split(document: &mut Value) {
    for detailed in &DETAILED {
        let schemas = &mut document["components"]["schemas"];
        let mut full = schemas[detailed.schema].clone();
        let Some(properties) = schemas[detailed.schema]["properties"].as_object_mut() else {
            panic!("the schema {} has no properties", detailed.schema);
        };
        assert!(
            properties.remove(detailed.field).is_some(),
            "{} has no field {}",
            detailed.schema,
            detailed.field
        );
        let required = full["required"].as_array_mut();
        match required {
            Some(required) => required.push(json!(detailed.field)),
            None => full["required"] = json!([detailed.field]),
        }
        schemas[detailed.detailed] = full;
        for answer in detailed.answers {
            let (method, path) = answer.split_once(' ').expect("`method path`");
            let operation = &mut document["paths"][path][method];
            assert!(operation.is_object(), "no operation {answer}");
            refer_to(operation, detailed.schema, detailed.detailed);
        }
    }
}

/// Points every success answer of `operation` that refers to `from` at `to`.
fn refer_to(operation: &mut Value, from: &str, to: &str) {
    let answers = operation["responses"].as_object_mut().into_iter().flatten();
    for (_, answer) in answers.filter(|(status, _)| status.starts_with('2')) {
        if let Some(schema) = answer.pointer_mut("/content/application~1json/schema") {
            if schema["$ref"] == format!("{SCHEMAS}{from}") {
                *schema = json!({"$ref": format!("{SCHEMAS}{to}")});
            }
        }
    }
}
