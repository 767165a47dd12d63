//! The document's top-level `webhooks` (OpenAPI 3.1): what an endpoint receives, one entry per
//! event type, named by it, with the body every attempt sends (a schema per event type, say
//! `PayoutPaidEvent`, whose `event_type` is that one value and whose `data.object` is the
//! schema of the object its name begins with) and the Standard Webhooks headers that sign it
//! (API.md §5, §14), so that a generator can type a receiver as well as a client.

use serde_json::{json, Value};

use crate::payments::events::EventType;

/// Adds the `webhooks` section and each event type's body schema.
pub fn describe_deliveries(document: &mut Value) {
    let mut section = serde_json::Map::new();
    for event_type in EventType::ALL {
        let event_type = event_type.as_str();
        let name = body_schema_name(event_type);
        let object = object_schema(document, event_type);
        document["components"]["schemas"][&name] = body_schema(event_type, &name, &object);
        section.insert(event_type.to_owned(), delivery(event_type, &name));
    }
    document["webhooks"] = Value::Object(section);
}

/// `payout.in_transit` → `PayoutInTransitEvent`.
fn body_schema_name(event_type: &str) -> String {
    format!("{}Event", super::titles::pascal(event_type))
}

/// The schema of the objects an event type reports: the one whose `object` is the type's first
/// word (`payout.paid` → the schema whose `object` is always `payout`).
fn object_schema(document: &Value, event_type: &str) -> String {
    let (object, _) = event_type.split_once('.').expect("`object.happening`");
    let schemas = document["components"]["schemas"].as_object();
    schemas
        .into_iter()
        .flatten()
        .find(|(_, schema)| schema["properties"]["object"]["enum"] == json!([object]))
        .map(|(name, _)| name.clone())
        .unwrap_or_else(|| panic!("no schema is the object of {event_type}"))
}

fn body_schema(event_type: &str, name: &str, object: &str) -> Value {
    json!({
        "type": "object",
        "title": name,
        "description": format!("The body of every attempt of a `{event_type}` delivery, byte for byte the same on each."),
        "required": ["event_id", "event_type", "created_at", "data"],
        "properties": {
            "event_id": {"type": "string", "format": "uuid", "description": "The event's id; also the `webhook-id` header. Deduplicate on it."},
            "event_type": {"type": "string", "enum": [event_type]},
            "created_at": {"type": "string", "format": "date-time"},
            "data": {
                "type": "object",
                "title": format!("{name}Data"),
                "required": ["object"],
                "properties": {"object": {"$ref": format!("#/components/schemas/{object}")}}
            },
            "test": {"type": "boolean", "description": "Present and `true` on a test event, whose data is made up; absent otherwise."}
        }
    })
}

fn delivery(event_type: &str, body_schema: &str) -> Value {
    let header = |name: &str, description: &str| json!({"name": name, "in": "header", "required": true, "description": description, "schema": {"type": "string"}});
    json!({"post": {
        "operationId": format!("receive_{}", event_type.replace('.', "_")),
        "summary": format!("`{event_type}`, sent to each endpoint that subscribes to it"),
        "security": [],
        "parameters": [
            header("webhook-id", "The event's id, the same on every attempt."),
            header("webhook-timestamp", "Unix seconds when the attempt was signed."),
            header("webhook-signature", "`v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\">`, keyed with the secret's base64 part; during a rotation's overlap two, space-separated, new first."),
            header("kaadxpay-event-type", "The event type, as in the body."),
            header("kaadxpay-delivery-id", "A new UUID per attempt."),
            header("kaadxpay-delivered-at", "RFC 3339 time of the attempt."),
            {"name": "kaadxpay-test", "in": "header", "required": false, "description": "`true` on a test event.", "schema": {"type": "string", "enum": ["true"]}}
        ],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{body_schema}")}}}},
        "responses": {
            "2XX": {"description": "Received; no further attempt."},
            "410": {"description": "Gone: the endpoint is disabled and receives nothing more."},
            "default": {"description": "Anything else, a timeout or a refused connection: retried with back-off."}
        }
    }})
}
