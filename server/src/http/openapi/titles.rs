//! A title on every schema (API.md §14), so that generators name types after the contract
//! instead of numbering them (`EntryType0`): a component's is its name; an inline object's is
//! its parent's title and its field (`Error409Detail`, `BankAccount`…), a variant's its
//! parent's title and the value of its tag (`EntryRequest` for the variant whose `moment` is
//! `request`).

use serde_json::{Map, Value};

/// Titles every component schema and, within them, every inline object and `oneOf` variant.
pub fn name_every_schema(document: &mut Value) {
    let schemas = document["components"]["schemas"]
        .as_object_mut()
        .into_iter()
        .flatten();
    for (name, schema) in schemas {
        title(schema, name);
    }
}

fn title(schema: &mut Value, fallback: &str) {
    let Some(fields) = schema.as_object_mut() else {
        return;
    };
    if fields.contains_key("$ref") {
        return;
    }
    let name = fields
        .entry("title")
        .or_insert_with(|| Value::from(fallback))
        .as_str()
        .unwrap_or(fallback)
        .to_owned();
    for (keyword, inner) in fields.iter_mut() {
        match (keyword.as_str(), inner) {
            ("properties", Value::Object(properties)) => {
                for (field, property) in properties.iter_mut().filter(|(_, p)| is_object(p)) {
                    title(property, &format!("{name}{}", pascal(field)));
                }
            }
            ("items", items) if is_object(items) => title(items, &format!("{name}Item")),
            ("oneOf" | "anyOf", Value::Array(variants)) => {
                for (at, variant) in variants.iter_mut().enumerate() {
                    let tag = tag_of(variant).unwrap_or_else(|| at.to_string());
                    if variant.get("$ref").is_none() && !is_null(variant) {
                        title(variant, &format!("{name}{}", pascal(&tag)));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether `schema` is an inline object (with properties or variants of its own).
fn is_object(schema: &Value) -> bool {
    schema.get("properties").is_some() || schema.get("oneOf").is_some()
}

fn is_null(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("null"))
}

/// The one value of a variant's first property that admits a single value (its tag).
fn tag_of(variant: &Value) -> Option<String> {
    let empty = Map::new();
    let properties = variant["properties"].as_object().unwrap_or(&empty);
    properties
        .values()
        .find_map(|property| match property["enum"].as_array() {
            Some(values) if values.len() == 1 => values[0].as_str().map(str::to_owned),
            _ => None,
        })
}

/// `in_transit` → `InTransit`, `payout.paid` → `PayoutPaid`.
pub(super) fn pascal(words: &str) -> String {
    words
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(|word| {
            let mut letters = word.chars();
            letters
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + letters.as_str())
                .unwrap_or_default()
        })
        .collect()
}
