//! What a client generator needs to type the answers, done to the finished document: a list's
//! items refer to their object's schema instead of an inline copy (utoipa inlines a generic's
//! parameter), an `object` field documented as "Always `x`." admits only `x`, every field of
//! an answer is required (the server sends `null` for a value it does not have, never leaves a
//! field out: API.md §14), and a struct that flattens a tagged enum is a `oneOf` of objects
//! rather than an `allOf` over a `oneOf`. (The two fields an answer may leave out, an error's
//! `param` and a webhook body's `test`, are in schemas added after this.)

use serde_json::{json, Map, Value};

const SCHEMAS: &str = "#/components/schemas/";

/// Applies each rule of the module to `document` (an OpenAPI 3.1 document as JSON).
pub fn tighten(document: &mut Value) {
    let request_schemas = request_schemas(document);
    let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let unions = distribute_flattened_unions(schemas);
    let names: Vec<String> = schemas.keys().cloned().collect();
    for (name, schema) in schemas.iter_mut() {
        if let Some(item) = name.strip_prefix("List_") {
            if names.iter().any(|known| known == item) {
                schema["properties"]["data"]["items"] = json!({"$ref": format!("{SCHEMAS}{item}")});
            }
        }
        let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
            continue;
        };
        if let Some(object) = properties.get_mut("object") {
            constrain_object_name(object);
        }
    }
    for (_, schema) in schemas
        .iter_mut()
        .filter(|(name, _)| !request_schemas.contains(name))
    {
        require_every_field(schema);
    }
    drop_unreferenced(document, unions);
}

/// Removes each of the schemas `names` that nothing in `document` refers to any more.
fn drop_unreferenced(document: &mut Value, names: Vec<String>) {
    let mut referenced = Vec::new();
    collect_references(document, &mut referenced);
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for name in names.iter().filter(|name| !referenced.contains(name)) {
            schemas.remove(name);
        }
    }
}

/// An `allOf` of a reference to a `oneOf` of objects (what utoipa makes of a struct with a
/// `#[serde(flatten)]` tagged enum) and of inline objects becomes a `oneOf` with one object per
/// variant, holding the variant's fields and the struct's: generators take an `allOf` of
/// objects only. Answers the names of the unions so distributed.
fn distribute_flattened_unions(schemas: &mut Map<String, Value>) -> Vec<String> {
    let rewritten: Vec<(String, String, Value)> = schemas
        .iter()
        .filter_map(|(name, schema)| {
            let members = schema.get("allOf")?.as_array()?;
            let (union, fields) = members.split_first()?;
            let union_name = union.get("$ref")?.as_str()?.strip_prefix(SCHEMAS)?;
            let variants = schemas.get(union_name)?.get("oneOf")?.as_array()?;
            if fields
                .iter()
                .any(|member| member.get("properties").is_none())
            {
                return None;
            }
            let merged = variants
                .iter()
                .map(|variant| fields.iter().fold(variant.clone(), merge_fields))
                .collect::<Vec<_>>();
            let mut distributed = json!({"oneOf": merged});
            if let Some(description) = schema.get("description") {
                distributed["description"] = description.clone();
            }
            Some((name.clone(), union_name.to_owned(), distributed))
        })
        .collect();
    rewritten
        .into_iter()
        .map(|(name, union_name, schema)| {
            schemas.insert(name, schema);
            union_name
        })
        .collect()
}

/// `object` with the properties and required fields of `fields` added.
fn merge_fields(mut object: Value, fields: &Value) -> Value {
    for (field, property) in fields["properties"].as_object().into_iter().flatten() {
        object["properties"][field] = property.clone();
    }
    let required: Vec<Value> = fields["required"].as_array().cloned().unwrap_or_default();
    require(&mut object, required);
    object
}

/// `"Always `x`."` in an `object` field's description becomes the one value it admits.
fn constrain_object_name(object: &mut Value) {
    let name = object
        .get("description")
        .and_then(Value::as_str)
        .and_then(|text| text.strip_prefix("Always `"))
        .and_then(|rest| rest.split('`').next())
        .map(str::to_owned);
    if let Some(name) = name {
        object["enum"] = json!([name]);
    }
}

/// Requires every property of `schema` and of the inline schemas within it (its properties',
/// items' and variants'), never following a reference.
fn require_every_field(schema: &mut Value) {
    let fields: Vec<Value> = schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(field, _)| Value::from(field.as_str()))
        .collect();
    require(schema, fields);
    let Some(schema) = schema.as_object_mut() else {
        return;
    };
    for (keyword, inner) in schema.iter_mut() {
        match (keyword.as_str(), inner) {
            ("properties", Value::Object(properties)) => {
                properties.values_mut().for_each(require_every_field)
            }
            ("items" | "additionalProperties", inner @ Value::Object(_)) => {
                require_every_field(inner)
            }
            ("oneOf" | "allOf" | "anyOf", Value::Array(members)) => {
                members.iter_mut().for_each(require_every_field)
            }
            _ => {}
        }
    }
}

fn require(schema: &mut Value, fields: Vec<Value>) {
    if fields.is_empty() {
        return;
    }
    let required = schema
        .as_object_mut()
        .map(|schema| schema.entry("required").or_insert_with(|| json!([])));
    if let Some(Value::Array(required)) = required {
        for field in fields {
            if !required.contains(&field) {
                required.push(field);
            }
        }
    }
}

/// The names of the schemas a request body refers to, directly or through other schemas: they
/// describe what a client may send, where a nullable field may be left out.
fn request_schemas(document: &Value) -> Vec<String> {
    let empty = Map::new();
    let schemas = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut found: Vec<String> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for item in document["paths"].as_object().unwrap_or(&empty).values() {
        for operation in item.as_object().unwrap_or(&empty).values() {
            collect_references(&operation["requestBody"], &mut pending);
        }
    }
    while let Some(name) = pending.pop() {
        if found.contains(&name) {
            continue;
        }
        if let Some(schema) = schemas.get(&name) {
            collect_references(schema, &mut pending);
        }
        found.push(name);
    }
    found
}

fn collect_references(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (field, inner) in fields {
                match (field.as_str(), inner) {
                    ("$ref", Value::String(reference)) => {
                        if let Some(name) = reference.strip_prefix(SCHEMAS) {
                            into.push(name.to_owned());
                        }
                    }
                    _ => collect_references(inner, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_references(item, into)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_that_flattens_a_tagged_enum_is_a_one_of_its_variants_with_the_struct_fields() {
        let mut document = json!({"components": {"schemas": {
            "Moment": {"oneOf": [
                {"type": "object", "required": ["moment"], "properties": {"moment": {"enum": ["a"]}}},
                {"type": "object", "required": ["moment", "code"], "properties": {"moment": {"enum": ["b"]}, "code": {"type": "string"}}}
            ]},
            "Entry": {"description": "One.", "allOf": [
                {"$ref": "#/components/schemas/Moment"},
                {"type": "object", "required": ["at"], "properties": {"at": {"type": "string"}}}
            ]}
        }}});
        tighten(&mut document);
        let entry = &document["components"]["schemas"]["Entry"];
        assert_eq!(entry["description"], "One.");
        assert_eq!(entry.get("allOf"), None);
        let variants = entry["oneOf"].as_array().unwrap();
        assert_eq!(variants.len(), 2);
        assert_eq!(variants[1]["required"], json!(["moment", "code", "at"]));
        assert_eq!(variants[1]["properties"]["at"], json!({"type": "string"}));
        assert_eq!(variants[0]["properties"]["moment"], json!({"enum": ["a"]}));
        assert_eq!(document["components"]["schemas"].get("Moment"), None);
    }

    #[test]
    fn a_response_schema_requires_every_field_and_a_request_schema_does_not() {
        let mut document = json!({
            "paths": {"/v1/things": {"post": {
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateThing"}}}}
            }}},
            "components": {"schemas": {
                "CreateThing": {"type": "object", "properties": {"note": {"type": ["string", "null"]}}},
                "Thing": {"type": "object", "required": ["id"], "properties": {
                    "id": {"type": "string"},
                    "object": {"type": "string", "description": "Always `thing`."},
                    "note": {"type": ["string", "null"]},
                    "link": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Link"}]},
                    "extra": {"type": "string"}
                }},
                "List_Thing": {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "object"}}}}
            }}
        });
        tighten(&mut document);
        let schemas = &document["components"]["schemas"];
        let mut required: Vec<&str> = schemas["Thing"]["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        required.sort();
        assert_eq!(required, ["extra", "id", "link", "note", "object"]);
        assert_eq!(schemas["CreateThing"].get("required"), None);
        assert_eq!(
            schemas["Thing"]["properties"]["object"]["enum"],
            json!(["thing"])
        );
        assert_eq!(
            schemas["List_Thing"]["properties"]["data"]["items"],
            json!({"$ref": "#/components/schemas/Thing"})
        );
    }
}
