//! Ids with their prefixes (API.md §1): an object's `id` and the `{id}` of its routes admit only
//! its own kind (a payout's refuses `ord_…`), and an event's id is a UUID.

use kaadxpay_types::ids::{
    ApiKeyId, BalanceTransactionId, EndpointId, OrderId, PayoutId, RefundId, RequestId, RunId,
    TopUpId,
};
use serde_json::{json, Value};

/// Each kind of object with an id: its `object` name, its ids' prefix and its collection.
const KINDS: [(&str, &str, &str); 9] = [
    ("order", OrderId::PREFIX, "/v1/orders"),
    ("payout", PayoutId::PREFIX, "/v1/payouts"),
    ("refund", RefundId::PREFIX, "/v1/refunds"),
    (
        "webhook_endpoint",
        EndpointId::PREFIX,
        "/v1/webhook-endpoints",
    ),
    ("api_key", ApiKeyId::PREFIX, "/v1/api-keys"),
    (
        "reconciliation_run",
        RunId::PREFIX,
        "/v1/reconciliation-runs",
    ),
    ("request", RequestId::PREFIX, "/v1/requests"),
    ("top_up", TopUpId::PREFIX, "/v1/top-ups"),
    (
        "balance_transaction",
        BalanceTransactionId::PREFIX,
        "/v1/balance-transactions",
    ),
];

fn pattern(prefix: &str) -> String {
    format!("^{prefix}_[0-9A-Za-z]+$")
}

/// Gives the `id` of each schema of a kind in [`KINDS`] its pattern, and each `{id}` under a
/// collection of one (and each `{event_id}`) its schema.
pub fn constrain(document: &mut Value) {
    let schemas = document["components"]["schemas"]
        .as_object_mut()
        .into_iter()
        .flatten();
    for (_, schema) in schemas {
        let object = schema["properties"]["object"]["enum"].clone();
        let kind = KINDS.iter().find(|(name, _, _)| {
            object
                .as_array()
                .is_some_and(|names| names == &[json!(name)])
        });
        let Some(id) = schema.pointer_mut("/properties/id") else {
            continue;
        };
        if let Some((_, prefix, _)) = kind {
            id["pattern"] = json!(pattern(prefix));
        } else if object == json!(["event"]) {
            id["format"] = json!("uuid");
        }
    }
    let paths = document["paths"].as_object_mut().into_iter().flatten();
    for (path, item) in paths {
        let id_schema = if path.contains("{event_id}") {
            Some(json!({"type": "string", "format": "uuid"}))
        } else {
            KINDS
                .iter()
                .find(|(_, _, collection)| path.starts_with(&format!("{collection}/{{id}}")))
                .map(|(_, prefix, _)| json!({"type": "string", "pattern": pattern(prefix)}))
        };
        let Some(id_schema) = id_schema else {
            continue;
        };
        let operations = item.as_object_mut().into_iter().flatten();
        for (_, operation) in operations {
            let parameters = operation
                .get_mut("parameters")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten();
            for parameter in parameters {
                if parameter["in"] == "path"
                    && matches!(parameter["name"].as_str(), Some("id" | "event_id"))
                {
                    parameter["schema"] = id_schema.clone();
                }
            }
        }
    }
}
