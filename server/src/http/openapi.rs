//! The OpenAPI 3.1 document at `/openapi.json`. Each handler declares its own success answer,
//! body and domain refusals; [`Contract`] then adds what every operation shares, so that no
//! operation can forget it: the bearer scheme, the error envelope on every `4xx`/`5xx`, `401`,
//! `500` and `503` (with `Retry-After`) everywhere, `403` on every operation that writes (a
//! read-only key), `400`/`413` where there is a body, `404` where there is an id, the path
//! parameters, a body that may be left out wherever none of its fields is required (the API
//! reads no body as `{}`), and for the operations that take an `Idempotency-Key` the key's exact
//! format, its `409`/`422` and the engine's headers on every answer. [`detailed`] splits the schemas whose
//! single answer carries more than a list's item, [`typing`] then tightens the schemas for
//! client generators, [`errors`] gives each error status its codes and the headers every answer
//! carries (`X-Request-Id`, and on an error `Kaadxpay-Should-Retry`), [`webhooks`] describes what
//! endpoints receive, [`ids`] gives ids their prefixes and [`titles`] names every schema.

mod detailed;
mod errors;
mod ids;
mod titles;
mod typing;
mod webhooks;

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Required, Response};
use utoipa::{Modify, OpenApi};

use crate::idempotency::key::MAX_LEN;

#[derive(OpenApi)]
#[openapi(
    info(title = "Kaadxpay API", description = "Payments whose every POST takes effect at most once per Idempotency-Key. The reference is docs/api.md."),
    servers((url = "/", description = "This service: the document is served by the API it describes.")),
    security(("api_key" = []))
)]
pub struct ApiDoc;

/// The document of `routes` (the handlers' own declarations), completed by [`Contract`],
/// its detailed answers split off, tightened by [`typing`], given its error bodies, its
/// `webhooks`, its ids' patterns and its titles. (A modifier on [`ApiDoc`] would run before the
/// routes' operations are merged in.)
pub fn document(mut routes: utoipa::openapi::OpenApi) -> serde_json::Value {
    Contract.modify(&mut routes);
    let mut document = serde_json::to_value(routes).expect("an OpenAPI document is JSON");
    detailed::split(&mut document);
    typing::tighten(&mut document);
    errors::describe(&mut document);
    webhooks::describe_deliveries(&mut document);
    ids::constrain(&mut document);
    titles::name_every_schema(&mut document);
    document
}

/// The shared parts of every operation (see the module's documentation).
struct Contract;

const KEY_HEADER: &str = "Idempotency-Key";

impl Modify for Contract {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme(
                "api_key",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some("An API key: `Authorization: Bearer sk_test_...`."))
                        .build(),
                ),
            );
        let optional_bodies = schemas_without_required_fields(openapi);
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                (&mut item.get, false),
                (&mut item.put, true),
                (&mut item.post, true),
                (&mut item.patch, true),
                (&mut item.delete, true),
            ];
            for (operation, writes) in operations {
                if let Some(operation) = operation {
                    complete(path, operation, writes);
                    mark_body_optional(operation, &optional_bodies);
                }
            }
        }
    }
}

/// The references (`#/components/schemas/…`) of the object schemas none of whose fields is
/// required.
fn schemas_without_required_fields(openapi: &utoipa::openapi::OpenApi) -> Vec<String> {
    let schemas = openapi
        .components
        .iter()
        .flat_map(|components| &components.schemas);
    schemas
        .filter(|(_, schema)| {
            matches!(schema, RefOr::T(Schema::Object(object)) if object.required.is_empty())
        })
        .map(|(name, _)| format!("#/components/schemas/{name}"))
        .collect()
}

/// Declares the operation's body optional when it refers to one of `optional_bodies`: the API
/// reads a request without a body as `{}`, which such a body accepts.
fn mark_body_optional(operation: &mut Operation, optional_bodies: &[String]) {
    let Some(body) = operation.request_body.as_mut() else {
        return;
    };
    let refers_to_optional = body.content.values().any(|content| {
        matches!(&content.schema, Some(RefOr::Ref(reference)) if optional_bodies.contains(&reference.ref_location))
    });
    if refers_to_optional {
        body.required = Some(Required::False);
    }
}

/// Adds the shared parts to the operation at `path` (one that `writes` when its method does).
fn complete(path: &str, operation: &mut Operation, writes: bool) {
    declare_path_parameters(path, operation);
    let keyed = operation
        .parameters
        .iter_mut()
        .flatten()
        .find(|parameter| parameter.name == KEY_HEADER);
    let takes_key = keyed.is_some();
    if let Some(parameter) = keyed {
        parameter.schema = Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(MAX_LEN))
                .pattern(Some("^[!-~]+$"))
                .examples(["order-2026-0001"])
                .into(),
        );
        parameter.description = Some(format!(
            "One key per intended operation: 1 to {MAX_LEN} visible ASCII characters. A retry sends the same key and body."
        ));
    }
    let mut errors: Vec<(&str, &str)> = vec![
        ("401", "No valid API key."),
        (
            "500",
            "A fault on our side; nothing was kept, and a retry with the same key is safe.",
        ),
        (
            "503",
            "Busy or without its database; retry after `Retry-After` (with the same key).",
        ),
    ];
    if writes {
        errors.push(("403", "A read-only API key may not write."));
    }
    let takes_query = operation
        .parameters
        .iter()
        .flatten()
        .any(|parameter| parameter.parameter_in == ParameterIn::Query);
    if operation.request_body.is_some() || takes_key || takes_query {
        errors.push((
            "400",
            "The request is invalid; `param` names the field at fault.",
        ));
    }
    if operation.request_body.is_some() {
        errors.push((
            "408",
            "The body did not arrive in time; send it again in full.",
        ));
        errors.push(("413", "The body is larger than 64 KiB."));
    }
    if path.contains('{') {
        errors.push(("404", "No such object for this merchant."));
    }
    if takes_key {
        errors.push((
            "409",
            "A request with this key is still in progress; retry after `Retry-After`.",
        ));
        errors.push((
            "422",
            "The key was used before with another endpoint or body.",
        ));
    }
    for (status, description) in errors {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| ResponseBuilder::new().description(description).into());
    }
    for (status, response) in operation.responses.responses.iter_mut() {
        if let RefOr::T(response) = response {
            describe(status, response, takes_key);
        }
    }
}

/// Declares each `{name}` of `path` that the operation does not declare itself.
fn declare_path_parameters(path: &str, operation: &mut Operation) {
    let names = path
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split('}').next());
    for name in names {
        let parameters = operation.parameters.get_or_insert_with(Vec::new);
        if parameters.iter().any(|parameter| parameter.name == name) {
            continue;
        }
        parameters.push(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .description(Some("The object's id."))
                .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                .build(),
        );
    }
}

/// The error envelope of its status on an error answer, `Retry-After` where it says when to
/// retry, and the engine's headers on every answer of a keyed operation.
fn describe(status: &str, response: &mut Response, takes_key: bool) {
    let is_error = status.starts_with('4') || status.starts_with('5');
    if is_error && response.content.is_empty() {
        response.content.insert(
            "application/json".to_owned(),
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(errors::schema_name(status))))
                .build(),
        );
    }
    if response.description.is_empty() {
        response.description = if is_error { "Refused." } else { "Done." }.to_owned();
    }
    // A keyed operation's 409 is the key in progress; another's is a state it cannot leave.
    if (status == "409" && takes_key) || status == "503" {
        header(
            response,
            "Retry-After",
            "Seconds to wait before retrying.",
            Type::Integer,
        );
    }
    if status == "201" {
        header(
            response,
            "Location",
            "Where the new object is.",
            Type::String,
        );
    }
    if takes_key {
        header(
            response,
            "Idempotency-Key-Status",
            "On every answer that passed through the engine: `new`, `replayed`, `in_progress` or `mismatch`.",
            Type::String,
        );
        header(
            response,
            "Idempotent-Replayed",
            "`true` when this is the stored answer of an earlier request with the key (a stored refusal such as `402` included).",
            Type::String,
        );
    }
}

fn header(response: &mut Response, name: &str, description: &str, kind: Type) {
    response.headers.entry(name.to_owned()).or_insert_with(|| {
        HeaderBuilder::new()
            .schema(ObjectBuilder::new().schema_type(kind))
            .description(Some(description))
            .build()
    });
}
