//! Forms that keep what was typed (API.md §9, "Forms and people"): a submitted form is read once
//! as its fields ([`Submitted`]), parsed into the handler's struct, and, when it must come back
//! to its page (refused, interrupted by a step-up, held back as a repeat), kept for the
//! session's page alone ([`keep`], a note of its own: `notes`), taken by the session layer on
//! the page's next `GET`. What is
//! kept is what the user typed, never the CSRF token, a password or a code; the form's
//! `idempotency_key` only while it is the same intent still (a step-up, a repeat), not after a
//! refusal, whose key the engine may hold an answer for.

use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use serde::de::DeserializeOwned;
use tower_sessions::Session;

use app::console::{ErrorCode, FieldRefusal, KeptForm, Refusal};

use super::notes::{self, Slot};
use super::notices::{failure, forbidden};

/// How long a kept form waits for its page.
const KEPT_FOR_SECS: i64 = 10 * 60;

/// Fields never kept: they are secrets or the session's own.
const NEVER_KEPT: [&str; 5] = ["csrf", "password", "code", "again", "recovery_code"];

/// A console form as submitted: where it was posted, and its fields in the order sent.
pub struct Submitted {
    action: String,
    fields: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequest<S> for Submitted {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Response> {
        let action = request.uri().path().to_owned();
        let Form(fields) = Form::<Vec<(String, String)>>::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        Ok(Self { action, fields })
    }
}

/// A submitted form that does not fit its handler's struct: not one of our pages' forms, so
/// answered `403` as a form without its token.
pub struct NotOurForm;

impl IntoResponse for NotOurForm {
    fn into_response(self) -> Response {
        forbidden()
    }
}

impl Submitted {
    /// The form as the handler's struct `T` (its fields are text; unknown ones are ignored).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, NotOurForm> {
        let object: serde_json::Map<String, serde_json::Value> = self
            .fields
            .iter()
            .map(|(name, value)| (name.clone(), serde_json::Value::from(value.as_str())))
            .collect();
        serde_json::from_value(serde_json::Value::Object(object)).map_err(|_| NotOurForm)
    }

    /// Where it was posted.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The value of field `name`, or empty.
    pub fn field(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|(field, _)| field == name)
            .map_or("", |(_, value)| value.as_str())
    }

    /// What may be kept of it for `page`, with its key when `with_key`.
    pub fn kept(&self, page: &str, with_key: bool) -> KeptForm {
        let fields = self
            .fields
            .iter()
            .filter(|(name, _)| !NEVER_KEPT.contains(&name.as_str()))
            .filter(|(name, _)| with_key || name != "idempotency_key")
            .cloned()
            .collect();
        KeptForm {
            page: page.to_owned(),
            action: self.action.clone(),
            fields,
            ..KeptForm::default()
        }
    }
}

/// The form field a refusal is about: the amount for insufficient funds or more than is left to
/// refund; for an invalid field,
/// the last part of the API's name of it (`destination[iban]`: `iban`, `events[0]`:
/// `events`); none (the form as a whole) for anything else.
fn field_of(refusal: &Refusal) -> String {
    match (refusal.code, refusal.param.as_deref()) {
        (ErrorCode::InsufficientFunds | ErrorCode::AmountExceedsRefundable, _) => {
            "amount".to_owned()
        }
        (ErrorCode::InvalidRequest, Some(param)) => {
            let segments: Vec<&str> = param
                .split(['[', ']'])
                .filter(|segment| !segment.is_empty())
                .collect();
            let named = segments
                .iter()
                .rev()
                .find(|segment| !segment.chars().all(|c| c.is_ascii_digit()));
            named.map_or_else(String::new, |name| (*name).to_owned())
        }
        _ => String::new(),
    }
}

/// Keeps `kept` for its page's next `GET` in this session.
pub async fn keep(session: &Session, kept: &KeptForm) -> anyhow::Result<()> {
    notes::put(session, Slot::Kept(&kept.page), kept).await
}

/// The form kept for `path`, taken (shown once); `None` when there is none for it, or it waited
/// too long.
pub async fn take(session: &Session, path: &str) -> anyhow::Result<Option<KeptForm>> {
    let taken = notes::take::<KeptForm>(session, Slot::Kept(path)).await?;
    Ok(taken.and_then(|(kept, age)| (0..=KEPT_FOR_SECS).contains(&age).then_some(kept)))
}

/// Back to `page` with the form as typed and the refusal beside its field.
pub async fn refused(
    session: &Session,
    page: &str,
    submitted: &Submitted,
    refusal: Refusal,
) -> Response {
    let mut kept = submitted.kept(page, false);
    kept.refusal = Some(FieldRefusal {
        field: field_of(&refusal),
        refusal,
    });
    back_with(session, &kept).await
}

/// To the page `kept` is for, which shows it.
pub async fn back_with(session: &Session, kept: &KeptForm) -> Response {
    match keep(session, kept).await {
        Ok(()) => Redirect::to(&kept.page).into_response(),
        Err(error) => failure(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(code: ErrorCode, param: Option<&str>) -> Refusal {
        Refusal {
            code,
            param: param.map(str::to_owned),
        }
    }

    #[test]
    fn a_refusal_is_beside_the_field_it_names() {
        let field = |code, param| field_of(&refusal(code, param));
        let invalid = ErrorCode::InvalidRequest;
        assert_eq!(field(invalid, Some("destination[iban]")), "iban");
        assert_eq!(field(invalid, Some("amount")), "amount");
        assert_eq!(field(invalid, Some("events[0]")), "events");
        assert_eq!(field(ErrorCode::InsufficientFunds, None), "amount");
        assert_eq!(field(ErrorCode::AmountExceedsRefundable, None), "amount");
        assert_eq!(field(ErrorCode::IdempotencyKeyReused, None), "");
    }

    #[test]
    fn secrets_are_never_kept_and_the_key_only_when_asked() {
        let submitted = Submitted {
            action: "/x".to_owned(),
            fields: [
                ("csrf", "t"),
                ("password", "p"),
                ("code", "123456"),
                ("idempotency_key", "k"),
                ("amount", "12,50"),
            ]
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .to_vec(),
        };
        let names = |kept: KeptForm| -> Vec<String> {
            kept.fields.into_iter().map(|(name, _)| name).collect()
        };
        assert_eq!(names(submitted.kept("/x", false)), ["amount"]);
        assert_eq!(
            names(submitted.kept("/x", true)),
            ["idempotency_key", "amount"]
        );
    }
}
