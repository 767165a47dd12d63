//! The document's top-level `webhooks` (OpenAPI 3.1): what an endpoint receives, one entry per
//! event type, with the body every attempt sends and the Standard Webhooks headers that sign it
//! (API.md §5), so that a generator can type a receiver as well as a client.

use serde_json::{json, Value};

use crate::payments::events::EventType;

/// Adds the `webhooks` section and the delivered body's schema (`WebhookDelivery`).
pub fn describe_deliveries(document: &mut Value) {
    document["components"]["schemas"]["WebhookDelivery"] = delivery_schema();
    let mut section = serde_json::Map::new();
    for event_type in EventType::ALL {
        section.insert(
            event_type.as_str().to_owned(),
            delivery(event_type.as_str()),
        );
    }
    document["webhooks"] = Value::Object(section);
}

fn delivery_schema() -> Value {
    json!({
        "type": "object",
        "description": "The body of every attempt of a delivery, byte for byte the same on each.",
        "required": ["event_id", "event_type", "created_at", "data"],
        "properties": {
            "event_id": {"type": "string", "format": "uuid", "description": "The event's id; also the `webhook-id` header. Deduplicate on it."},
            "event_type": {"$ref": "#/components/schemas/EventType"},
            "created_at": {"type": "string", "format": "date-time"},
            "data": {"$ref": "#/components/schemas/EventData"},
            "test": {"type": "boolean", "description": "Present and `true` on a test event, whose data is made up."}
        }
    })
}

fn delivery(event_type: &str) -> Value {
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
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WebhookDelivery"}}}},
        "responses": {
            "2XX": {"description": "Received; no further attempt."},
            "410": {"description": "Gone: the endpoint is disabled and receives nothing more."},
            "default": {"description": "Anything else, a timeout or a refused connection: retried with back-off."}
        }
    }})
}
