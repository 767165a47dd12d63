//! What the request log may keep of a body, path or query: every `whsec_…` webhook secret and
//! `sk_…` API key replaced by its prefix and `[redacted]`, and every IBAN masked but its last 4
//! (`****3000`): the value of any `iban` field (JSON or form), whatever its shape, and anything
//! else shaped like an IBAN (a country code, two check digits, 11 to 30 letters or digits, in one
//! piece or in groups of four). Text PostgreSQL cannot store (U+0000) becomes U+FFFD. Runs in
//! the writer, never on a request's path; a body cut at the cap is redacted all the same.

const REDACTED: &str = "[redacted]";

/// `bytes` as storable, redacted text.
pub fn text(bytes: &[u8]) -> String {
    redact(&String::from_utf8_lossy(bytes).replace('\0', "\u{FFFD}"))
}

pub fn redact(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let chars = secrets(&chars);
    let chars = iban_fields(&chars);
    iban_shapes(&chars).into_iter().collect()
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The characters a secret's random part may hold (base64, base62, and percent-encoding).
fn is_secret_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '=' | '%')
}

fn starts_with(chars: &[char], at: usize, prefix: &str) -> bool {
    chars
        .get(at..at + prefix.len())
        .is_some_and(|text| text.iter().copied().eq(prefix.chars()))
}

/// Replaces `whsec_…`, `sk_test_…` and `sk_live_…` wherever they are, and `sk_…` at the start
/// of a word.
fn secrets(chars: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let at_word_start = i == 0 || !is_word(chars[i - 1]);
        let prefix = ["whsec_", "sk_test_", "sk_live_"]
            .into_iter()
            .find(|prefix| starts_with(chars, i, prefix))
            .or_else(|| (at_word_start && starts_with(chars, i, "sk_")).then_some("sk_"));
        match prefix {
            Some(prefix) => {
                out.extend(prefix.chars().chain(REDACTED.chars()));
                i += prefix.len();
                while i < chars.len() && is_secret_char(chars[i]) {
                    i += 1;
                }
            }
            None => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// `****` and the last 4 letters or digits of `value`.
fn mask(value: &[char]) -> Vec<char> {
    let alphanumeric: Vec<char> = value
        .iter()
        .copied()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let last4 = &alphanumeric[alphanumeric.len().saturating_sub(4)..];
    "****".chars().chain(last4.iter().copied()).collect()
}

/// Masks the value of every `"iban": "…"` (any case, up to its closing quote or the end of a
/// cut body) and every `iban=…` form field.
fn iban_fields(chars: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if let Some((value_start, value_end)) = iban_value(chars, i) {
            out.extend_from_slice(&chars[i..value_start]);
            out.extend(mask(&chars[value_start..value_end]));
            i = value_end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn is_iban_name(chars: &[char], at: usize) -> bool {
    chars.len() >= at + 4
        && chars[at..at + 4]
            .iter()
            .map(char::to_ascii_lowercase)
            .eq("iban".chars())
}

/// Where the value of an `iban` field that starts at `at` lies, if one does.
fn iban_value(chars: &[char], at: usize) -> Option<(usize, usize)> {
    if chars[at] == '"' && is_iban_name(chars, at + 1) && chars.get(at + 5) == Some(&'"') {
        let mut i = at + 6;
        let skip_space = |i: &mut usize| {
            while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
                *i += 1;
            }
        };
        skip_space(&mut i);
        if chars.get(i) != Some(&':') {
            return None;
        }
        i += 1;
        skip_space(&mut i);
        if chars.get(i) != Some(&'"') {
            return None;
        }
        let start = i + 1;
        let mut end = start;
        while end < chars.len() && chars[end] != '"' {
            end += if chars[end] == '\\' { 2 } else { 1 };
        }
        return Some((start, end.min(chars.len())));
    }
    let field_start = at == 0 || matches!(chars[at - 1], '&' | '?');
    if field_start && is_iban_name(chars, at) && chars.get(at + 4) == Some(&'=') {
        let start = at + 5;
        let end = (start..chars.len())
            .find(|&i| chars[i] == '&')
            .unwrap_or(chars.len());
        return Some((start, end));
    }
    None
}

/// Masks everything shaped like an IBAN.
fn iban_shapes(chars: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let at_word_start = i == 0 || !is_word(chars[i - 1]);
        match at_word_start.then(|| iban_end(chars, i)).flatten() {
            Some(end) => {
                out.extend(mask(&chars[i..end]));
                i = end;
            }
            None => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// The end of an IBAN starting at `at`: in one piece (`DE89370400440532013000`) or in groups of
/// four (`DE89 3704 0044 0532 0130 00`), 15 to 34 letters and digits, and then no more of a word.
fn iban_end(chars: &[char], at: usize) -> Option<usize> {
    let head = chars.get(at..at + 4)?;
    if !(head[..2].iter().all(char::is_ascii_uppercase)
        && head[2..].iter().all(char::is_ascii_digit))
    {
        return None;
    }
    let run = |from: usize| {
        (from..chars.len())
            .find(|&i| !chars[i].is_ascii_alphanumeric())
            .unwrap_or(chars.len())
    };
    let solid = run(at + 4);
    let (end, length) = if solid > at + 4 {
        (solid, solid - at)
    } else {
        let (mut end, mut length) = (at + 4, 4);
        while chars.get(end) == Some(&' ') {
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
    let ends_word = chars.get(end).is_none_or(|c| !is_word(*c));
    ((15..=34).contains(&length) && ends_word).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::redact;

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
    }

    #[test]
    fn ids_and_short_codes_are_left_alone() {
        for text in ["po_AB12cdefghijklmnopqrstuv", "DE12 apples", "AB12CDEF"] {
            assert_eq!(redact(text), text);
        }
        assert_eq!(redact("payout-DE89370400440532013000"), "payout-****3000");
    }
}
