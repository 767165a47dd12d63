//! Request bodies: read with a size limit (`413` above it), then parsed by [`crate::contract::input`]
//! into the handler's typed command, every refusal a `400` naming its `param`.

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::contract::error::Error;
use crate::contract::input::{self, MAX_BODY_BYTES};

/// A body deserialised into `T`.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Error;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Error> {
        let bytes = axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES)
            .await
            .map_err(|err| {
                if err.into_inner().is::<http_body_util::LengthLimitError>() {
                    Error::RequestTooLarge(MAX_BODY_BYTES)
                } else {
                    Error::invalid_body("The request body could not be read in full.")
                }
            })?;
        let object = input::json_object(&bytes)?;
        Ok(Self(input::command(&object)?))
    }
}

/// The body of an action that takes no parameters: nothing, or `{}`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParameters {}
