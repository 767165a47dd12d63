//! Text PostgreSQL cannot store, refused at the door: U+0000 in a request's path, its query or
//! a console form's fields never reaches a statement (where it would be a `500`). A path that
//! holds it names no object (`404 resource_missing`); a query parameter or form field that
//! holds it is a `400` naming that parameter. JSON bodies are checked where they are parsed
//! ([`crate::contract::input::command`]), which names the field inside the body.

use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use percent_encoding::percent_decode;

use crate::contract::error::Error;

const FORM: &str = "application/x-www-form-urlencoded";

/// The refusal of a request whose path, query or form `body` (read in full by
/// [`super::middleware::within_deadlines`]) holds U+0000; `None` for any other.
pub fn refusal_of(parts: &Parts, body: &[u8]) -> Option<Error> {
    if percent_decode(parts.uri.path().as_bytes()).any(|byte| byte == 0) {
        return Some(Error::ResourceMissing("object"));
    }
    if let Some(param) = parts.uri.query().and_then(nul_field) {
        return Some(refusal(&param));
    }
    let is_form = parts
        .headers
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(FORM.as_bytes()));
    if !is_form {
        return None;
    }
    std::str::from_utf8(body)
        .ok()
        .and_then(nul_field)
        .map(|param| refusal(&param))
}

fn refusal(param: &str) -> Error {
    Error::invalid(
        param,
        format!("Invalid {param}: text may not contain the NUL character (U+0000)."),
    )
}

/// The name of the first field of `pairs` (`a=1&b=2`, URL-encoded) whose name or value holds
/// U+0000, with U+FFFD in the NUL's place.
fn nul_field(pairs: &str) -> Option<String> {
    let decode =
        |text: &str| percent_decode(text.replace('+', " ").as_bytes()).collect::<Vec<u8>>();
    pairs.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (name, value) = (decode(name), decode(value));
        (name.contains(&0) || value.contains(&0))
            .then(|| String::from_utf8_lossy(&name).replace('\0', "\u{FFFD}"))
    })
}

#[cfg(test)]
mod tests {
    use super::nul_field;

    #[test]
    fn the_field_holding_nul_is_named() {
        assert_eq!(
            nul_field("limit=2&starting_after=po_%00"),
            Some("starting_after".into())
        );
        assert_eq!(nul_field("email=a%00b&password=x"), Some("email".into()));
        assert_eq!(nul_field("a%00=1"), Some("a\u{FFFD}".into()));
        assert_eq!(nul_field("email=a%2500&password=x+y"), None);
        assert_eq!(nul_field(""), None);
    }
}
