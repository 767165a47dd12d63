//! An answer as the engine stores and replays it, and the resource it links to.

/// The resource a request created or acted on, linked from its record.
#[derive(Debug, Clone)]
pub struct Resource {
    pub kind: String,
    pub id: String,
    /// The resource's row as JSON, when the statement that found the record read it too
    /// (`Once::renders_from`); `None` otherwise, and the renderer reads it itself.
    pub row: Option<serde_json::Value>,
}

impl Resource {
    /// The `kind` resource `id`, its row not read.
    pub fn new(kind: impl Into<String>, id: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            id: id.into(),
            row: None,
        }
    }
}

/// An answer as it is stored and replayed: status, `Location` and the exact body bytes.
#[derive(Debug, Clone)]
pub struct StoredResponse {
    pub status: u16,
    pub location: Option<String>,
    pub body: Vec<u8>,
    pub resource: Option<Resource>,
    /// Whether the answer can be rendered again from its resource, byte for byte, so that the
    /// record keeps only the reference (a `201` of the one-commit path; not one that shows a
    /// secret the resource may since have changed).
    pub renders_again: bool,
}

impl StoredResponse {
    /// `201 Created` for the new `kind` resource `id`, at `{collection}/{id}`.
    pub fn created(
        collection: &str,
        kind: &'static str,
        id: &str,
        body: &impl serde::Serialize,
    ) -> Self {
        Self {
            status: 201,
            location: Some(format!("{collection}/{id}")),
            body: serde_json::to_vec(body).expect("a response body serialises"),
            resource: Some(Resource::new(kind, id)),
            renders_again: true,
        }
    }

    /// This answer's bytes are recorded, never rendered again from the resource.
    pub fn recorded_verbatim(self) -> Self {
        Self {
            renders_again: false,
            ..self
        }
    }

    /// A `200` answer about an existing resource (an action on it, not its creation).
    pub fn ok(body: &impl serde::Serialize, resource: Resource) -> Self {
        Self {
            status: 200,
            location: None,
            body: serde_json::to_vec(body).expect("a response body serialises"),
            resource: Some(resource),
            renders_again: false,
        }
    }

    /// The resource a `201` of the one-commit path was recorded as, without its bytes: its
    /// answer is rendered again from the resource.
    pub fn reference(&self) -> Option<Resource> {
        (self.status == 201 && self.body.is_empty())
            .then(|| self.resource.clone())
            .flatten()
    }
}
