//! What the request log may keep of a body, path or query: every `whsec_…` webhook secret and
//! `sk_…` API key replaced by its prefix and `[redacted]`, the values of a console form's `csrf`,
//! `password` and `code` (an authentication or recovery code) fields replaced by `[redacted]`, and every IBAN masked but its last 4
//! (`****3000`): the value of any `iban` field (JSON or form), whatever its shape, and anything
//! else shaped like an IBAN (a country code, two check digits, 11 to 30 letters or digits, in one
//! piece or in groups of four). Text PostgreSQL cannot store (U+0000) becomes U+FFFD. Runs in
//! the writer, never on a request's path; a body cut at the cap is redacted all the same.

use std::borrow::Cow;

use memchr::{memchr, memchr2_iter, memchr_iter};

const REDACTED: &[u8] = b"[redacted]";

/// `bytes` as storable, redacted text; borrowed when that is `bytes` as they are (the most
/// common case: valid UTF-8 with nothing to redact costs no copy).
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) if memchr(0, bytes).is_none() => redact(text),
        _ => Cow::Owned(
            redact(&String::from_utf8_lossy(bytes).replace('\0', "\u{FFFD}")).into_owned(),
        ),
    }
}

/// Each pass works on bytes: every pattern is ASCII, and what it replaces starts and ends at an
/// ASCII character or the end, so the text stays UTF-8. A pass whose pattern cannot be in the
/// text is skipped, found by the character its pattern must hold (`_`, `=`, `b`, an uppercase
/// letter) rather than by trying the pattern at every byte; a text no pass changes is not copied.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut bytes = Cow::Borrowed(text.as_bytes());
    if has_secret(&bytes) {
        bytes = Cow::Owned(secrets(&bytes));
    }
    if has_form_secret(&bytes) {
        bytes = Cow::Owned(form_secrets(&bytes));
    }
    if memchr2_iter(b'b', b'B', &bytes).any(|at| at > 0 && is_iban_name(&bytes, at - 1)) {
        bytes = Cow::Owned(iban_fields(&bytes));
    }
    if let Some(masked) = iban_shapes(&bytes) {
        bytes = Cow::Owned(masked);
    }
    match bytes {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned()),
        ),
    }
}

/// Whether `whsec_` or `sk_` is anywhere in `bytes`.
fn has_secret(bytes: &[u8]) -> bool {
    memchr_iter(b'_', bytes).any(|at| {
        let before = &bytes[..at];
        before.ends_with(b"sk") || before.ends_with(b"whsec")
    })
}

/// Whether any of [`FORM_SECRETS`] is anywhere in `bytes`.
fn has_form_secret(bytes: &[u8]) -> bool {
    memchr_iter(b'=', bytes).any(|at| FORM_SECRETS.iter().any(|name| bytes[..=at].ends_with(name)))
}

/// The console form fields whose values are never kept (`name=`, URL-encoded form bodies).
const FORM_SECRETS: [&[u8]; 3] = [b"csrf=", b"password=", b"code="];

/// Replaces the value of every [`FORM_SECRETS`] field of a URL-encoded form, up to the next `&`.
fn form_secrets(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let at_field_start = i == 0 || bytes[i - 1] == b'&';
        let field = FORM_SECRETS
            .into_iter()
            .find(|name| at_field_start && starts_with(bytes, i, name));
        match field {
            Some(name) => {
                out.extend_from_slice(name);
                out.extend_from_slice(REDACTED);
                i += name.len();
                while i < bytes.len() && bytes[i] != b'&' {
                    i += 1;
                }
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The characters a secret's random part may hold (base64, base62, and percent-encoding).
fn is_secret_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'=' | b'%')
}

fn starts_with(bytes: &[u8], at: usize, prefix: &[u8]) -> bool {
    bytes[at..].starts_with(prefix)
}

/// Replaces `whsec_…`, `sk_test_…` and `sk_live_…` wherever they are, and `sk_…` at the start
/// of a word.
fn secrets(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !is_word(bytes[i - 1]);
        let prefix = [&b"whsec_"[..], b"sk_test_", b"sk_live_"]
            .into_iter()
            .find(|prefix| starts_with(bytes, i, prefix))
            .or_else(|| (at_word_start && starts_with(bytes, i, b"sk_")).then_some(&b"sk_"[..]));
        match prefix {
            Some(prefix) => {
                out.extend_from_slice(prefix);
                out.extend_from_slice(REDACTED);
                i += prefix.len();
                while i < bytes.len() && is_secret_char(bytes[i]) {
                    i += 1;
                }
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// An IBAN as the log keeps it: `****` and its last 4 letters or digits (the CSV exports show
/// a payout's destination this way too).
pub fn mask_iban(iban: &str) -> String {
    String::from_utf8_lossy(&mask(iban.as_bytes())).into_owned()
}

/// `****` and the last 4 letters or digits of `value`.
fn mask(value: &[u8]) -> Vec<u8> {
    let alphanumeric: Vec<u8> = value
        .iter()
        .copied()
        .filter(u8::is_ascii_alphanumeric)
        .collect();
    let last4 = &alphanumeric[alphanumeric.len().saturating_sub(4)..];
    [&b"****"[..], last4].concat()
}

/// Masks the value of every `"iban": "…"` (any case, up to its closing quote or the end of a
/// cut body) and every `iban=…` form field.
fn iban_fields(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some((value_start, value_end)) = iban_value(bytes, i) {
            out.extend_from_slice(&bytes[i..value_start]);
            out.extend(mask(&bytes[value_start..value_end]));
            i = value_end;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

fn is_iban_name(bytes: &[u8], at: usize) -> bool {
    bytes
        .get(at..at + 4)
        .is_some_and(|name| name.eq_ignore_ascii_case(b"iban"))
}

/// Where the value of an `iban` field that starts at `at` lies, if one does.
fn iban_value(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    if bytes[at] == b'"' && is_iban_name(bytes, at + 1) && bytes.get(at + 5) == Some(&b'"') {
        let mut i = at + 6;
        let skip_space = |i: &mut usize| {
            while bytes.get(*i).is_some_and(u8::is_ascii_whitespace) {
                *i += 1;
            }
        };
        skip_space(&mut i);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        skip_space(&mut i);
        if bytes.get(i) != Some(&b'"') {
            return None;
        }
        let start = i + 1;
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        return Some((start, end.min(bytes.len())));
    }
    let field_start = at == 0 || matches!(bytes[at - 1], b'&' | b'?');
    if field_start && is_iban_name(bytes, at) && bytes.get(at + 4) == Some(&b'=') {
        let start = at + 5;
        let end = (start..bytes.len())
            .find(|&i| bytes[i] == b'&')
            .unwrap_or(bytes.len());
        return Some((start, end));
    }
    None
}

/// Masks everything shaped like an IBAN; `None` when nothing is.
fn iban_shapes(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut found = ibans(bytes).peekable();
    found.peek()?;
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    for (start, end) in found {
        out.extend_from_slice(&bytes[copied..start]);
        out.extend(mask(&bytes[start..end]));
        copied = end;
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(out)
}

/// Where each IBAN shape lies, left to right, a shape's end being where the next is looked for.
fn ibans(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            // Sixteen places at a time where none may start one (checked side by side).
            if let Some(block) = bytes.get(i.wrapping_sub(1)..i + 16) {
                let may = (0..16).fold(false, |may, k| may | may_start(block[k], block[k + 1]));
                if !may {
                    i += 16;
                    continue;
                }
            }
            let at = i;
            i += 1;
            let before = at.checked_sub(1).map_or(b' ', |before| bytes[before]);
            if may_start(before, bytes[at]) {
                if let Some(end) = iban_end(bytes, at) {
                    i = end;
                    return Some((at, end));
                }
            }
        }
        None
    })
}

/// Whether an IBAN may start at `c`, after `before`: an uppercase letter (see [`iban_end`]) at
/// the start of a word.
fn may_start(before: u8, c: u8) -> bool {
    c.is_ascii_uppercase() & !is_word(before)
}

/// The end of an IBAN starting at `at`: in one piece (`DE89370400440532013000`) or in groups of
/// four (`DE89 3704 0044 0532 0130 00`), 15 to 34 letters and digits, and then no more of a word.
fn iban_end(bytes: &[u8], at: usize) -> Option<usize> {
    let head = bytes.get(at..at + 4)?;
    if !(head[..2].iter().all(u8::is_ascii_uppercase) && head[2..].iter().all(u8::is_ascii_digit)) {
        return None;
    }
    let run = |from: usize| {
        (from..bytes.len())
            .find(|&i| !bytes[i].is_ascii_alphanumeric())
            .unwrap_or(bytes.len())
    };
    let solid = run(at + 4);
    let (end, length) = if solid > at + 4 {
        (solid, solid - at)
    } else {
        let (mut end, mut length) = (at + 4, 4);
        while bytes.get(end) == Some(&b' ') {
            let group_end = run(end + 1);
            let group = group_end - end - 1;
            if !(1..=4).contains(&group) {
                break;
            }
            end = group_end;
            length += group;
            if group < 4 {
                break;
            }
        }
        (end, length)
    };
    let ends_word = bytes.get(end).is_none_or(|c| !is_word(*c));
    ((15..=34).contains(&length) && ends_word).then_some(end)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{redact, text};

    #[test]
    fn secrets_keep_only_their_prefix() {
        assert_eq!(
            redact(r#"{"secret":"whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD","k":"sk_test_abc123"}"#),
            r#"{"secret":"whsec_[redacted]","k":"sk_[redacted]"}"#.replace("sk_[", "sk_test_[")
        );
        assert_eq!(
            redact("starting_after=sk_live_x%2By&a=1"),
            "starting_after=sk_live_[redacted]&a=1"
        );
        assert_eq!(redact("key sk_abc"), "key sk_[redacted]");
        assert_eq!(redact("task_id disk_usage"), "task_id disk_usage");
    }

    #[test]
    fn a_console_forms_token_and_password_are_never_kept() {
        assert_eq!(
            redact("csrf=Ab3dE&amount=12.50&password=hunter2%26x&xcsrf=kept"),
            "csrf=[redacted]&amount=12.50&password=[redacted]&xcsrf=kept"
        );
        assert_eq!(
            redact("csrf=x&code=abcde-12345&back=%2Fpayouts%2Fnew&postcode=kept"),
            "csrf=[redacted]&code=[redacted]&back=%2Fpayouts%2Fnew&postcode=kept"
        );
    }

    #[test]
    fn ibans_keep_their_last_four() {
        assert_eq!(
            redact(r#"{"iban": "DE89 3704 0044 0532 0130 00"}"#),
            r#"{"iban": "****3000"}"#
        );
        assert_eq!(
            redact(r#"{"IBAN":"not-an-iban"}"#),
            r#"{"IBAN":"****iban"}"#
        );
        assert_eq!(
            redact(r#"{"iban":"DE8937040"#),
            r#"{"iban":"****7040"#,
            "cut"
        );
        assert_eq!(
            redact("amount=1&iban=GB33BUKB20201555555555"),
            "amount=1&iban=****5555"
        );
        assert_eq!(redact("pay DE89370400440532013000 now"), "pay ****3000 now");
        assert_eq!(redact("pay DE89 3704 0044 0532 0130 00."), "pay ****3000.");
        assert_eq!(redact(r#"{"iban":"ü\"DE89"}"#), r#"{"iban":"****DE89"}"#);
    }

    #[test]
    fn ids_and_short_codes_are_left_alone() {
        for text in ["po_AB12cdefghijklmnopqrstuv", "DE12 apples", "AB12CDEF"] {
            assert_eq!(redact(text), text);
        }
        assert_eq!(redact("payout-DE89370400440532013000"), "payout-****3000");
    }

    #[test]
    fn a_text_with_nothing_to_redact_is_not_copied() {
        let order = r#"{"id":"ord_2Xk9","amount":1000,"currency":"EUR","description":"Ünïcode"}"#;
        assert!(matches!(text(order.as_bytes()), Cow::Borrowed(_)));
        assert_eq!(text(b"a\0b\xff"), "a\u{FFFD}b\u{FFFD}");
    }
}
