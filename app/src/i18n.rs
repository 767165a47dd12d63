//! The console's two languages, English and Simplified Chinese: which one a request gets, the
//! translation context every page reads through `leptos_fluent::tr!`, and money and times
//! written the way each language writes them. The catalogues are `app/locales/*/main.ftl`.
//!
//! The language is the `kaadxpay_lang` cookie's, which the nav's switch sets (the server's
//! `GET /language`); else the first language of the request's `Accept-Language` the console
//! speaks (any `zh` tag is Simplified Chinese); else English.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use leptos::prelude::*;
use leptos_fluent::{I18n, Language, WritingDirection};

use crate::console::Money;

/// The cookie that remembers the language chosen with the switch.
pub const COOKIE: &str = "kaadxpay_lang";

fluent_templates::static_loader! {
    static CATALOGUES = {
        locales: "./locales",
        fallback_language: "en",
        // No Unicode isolation marks around arguments: ids and amounts stay plain text.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

static ENGLISH: Language = Language {
    id: "en",
    name: "English",
    dir: &WritingDirection::Ltr,
    flag: None,
    script: None,
};

static CHINESE: Language = Language {
    id: "zh-CN",
    name: "简体中文",
    dir: &WritingDirection::Ltr,
    flag: None,
    script: Some("Hans"),
};

static LANGUAGES: [&Language; 2] = [&ENGLISH, &CHINESE];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// The BCP 47 tag: `<html lang>`, the cookie's value and the catalogue's folder.
    pub fn tag(self) -> &'static str {
        self.language().id
    }

    /// The language's own name, for the switch.
    pub fn name(self) -> &'static str {
        self.language().name
    }

    fn language(self) -> &'static Language {
        match self {
            Lang::En => &ENGLISH,
            Lang::Zh => &CHINESE,
        }
    }

    /// The language a tag asks for, if the console speaks it: `en…` is English, any `zh…`
    /// (`zh`, `zh-CN`, `zh-Hans`, …) Simplified Chinese, the only Chinese it has.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The language of a request: its cookie's, else its `Accept-Language`'s, else English.
    pub fn of_request(headers: &http::HeaderMap) -> Lang {
        let header = |name, separator| {
            headers
                .get_all(name)
                .iter()
                .filter_map(|value| value.to_str().ok())
                .collect::<Vec<_>>()
                .join(separator)
        };
        from_cookie(&header(http::header::COOKIE, ";"))
            .or_else(|| from_accept_language(&header(http::header::ACCEPT_LANGUAGE, ",")))
            .unwrap_or(Lang::En)
    }

    /// The language being written: the translation context's (`tr!`'s), else the request's
    /// being rendered, else English.
    pub fn current() -> Lang {
        use_context::<I18n>()
            .and_then(|i18n| Lang::from_tag(i18n.language.get_untracked().id))
            .or_else(|| {
                use_context::<http::request::Parts>().map(|parts| Lang::of_request(&parts.headers))
            })
            .unwrap_or(Lang::En)
    }
}

/// The switch's cookie, when it names a language the console speaks.
fn from_cookie(header: &str) -> Option<Lang> {
    header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .and_then(|(_, value)| Lang::from_tag(value.trim_matches('"')))
}

/// The most preferred language (highest `q`, then first) of an `Accept-Language` that the
/// console speaks; a `q=0` one is refused, not wanted.
fn from_accept_language(header: &str) -> Option<Lang> {
    let mut wanted: Vec<(f32, Lang)> = header
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let lang = Lang::from_tag(parts.next()?)?;
            let q = parts
                .find_map(|param| param.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
            (q > 0.0).then_some((q, lang))
        })
        .collect();
    wanted.sort_by(|a, b| b.0.total_cmp(&a.0));
    wanted.first().map(|(_, lang)| *lang)
}

/// The `Set-Cookie` value that remembers `lang` for a year (`Secure` when the console is
/// reached over `https://`); no script reads it.
pub fn cookie(lang: Lang, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly{secure}",
        lang.tag()
    )
}

/// Where the switch sends the browser back to: `back` when it is a path of this site
/// (`/payouts?status=paid`), else `/`, so the switch never redirects elsewhere (`//host`,
/// `/\host`, `https://…`) nor puts anything but plain ASCII into a `Location`.
pub fn same_site_path(back: &str) -> &str {
    let local = back.starts_with('/') && !back.starts_with("//") && !back.starts_with("/\\");
    if local && back.bytes().all(|byte| byte.is_ascii_graphic()) {
        back
    } else {
        "/"
    }
}

/// Puts the translation context of `lang` into the page being rendered, for `tr!`.
pub fn provide(lang: Lang) {
    provide_context(I18n::new(
        RwSignal::new(lang.language()),
        &LANGUAGES,
        Signal::derive(|| vec![&CATALOGUES]),
    ));
}

/// What `write` returns, written in `lang` outside any page (the API's English timeline).
pub fn in_language<T>(lang: Lang, write: impl FnOnce() -> T) -> T {
    Owner::new().with(|| {
        provide(lang);
        write()
    })
}

/// An amount as the language writes it: `1,234.50 EUR` in English, `EUR 1,234.50` in Chinese
/// (thousands grouped in both; no decimals for JPY).
pub fn money(money: &Money) -> String {
    let decimal = money.decimal();
    let (sign, digits) = match decimal.strip_prefix('-') {
        Some(digits) => ("-", digits),
        None => ("", decimal.as_str()),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, format!(".{fraction}")),
        None => (digits, String::new()),
    };
    let mut grouped = String::new();
    for (index, digit) in whole.chars().enumerate() {
        if index > 0 && (whole.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let amount = format!("{sign}{grouped}{fraction}");
    match Lang::current() {
        Lang::En => format!("{amount} {}", money.currency),
        Lang::Zh => format!("{} {amount}", money.currency),
    }
}

/// A moment to the second as the language writes it, in the reader's time zone, named:
/// `2026-12-05 11:33:00 UTC` in English, `2026年12月05日 19:33:00 Asia/Shanghai` in Chinese
/// for a reader in Shanghai.
pub fn when(at: &DateTime<Utc>) -> String {
    when_in(at, time_zone(), "%H:%M:%S")
}

/// A moment to the millisecond (a timeline's, a request's), written as [`when`] writes one.
pub fn when_exactly(at: &DateTime<Utc>) -> String {
    when_in(at, time_zone(), "%H:%M:%S%.3f")
}

fn when_in(at: &DateTime<Utc>, zone: Tz, clock: &str) -> String {
    let local = at.with_timezone(&zone);
    let pattern = format!("{} {clock}", day_pattern());
    format!("{} {}", local.format(&pattern), zone.name())
}

/// The time zone the reader chose (`/settings/profile`), else UTC: the signed-in user's, in
/// the request being rendered.
fn time_zone() -> Tz {
    use_context::<http::request::Parts>()
        .and_then(|parts| {
            let user = parts.extensions.get::<crate::console::CurrentUser>();
            user.map(|user| user.time_zone)
        })
        .unwrap_or(Tz::UTC)
}

/// Every time zone a user may choose: the IANA database's names, in its order.
pub fn time_zones() -> impl Iterator<Item = &'static str> {
    chrono_tz::TZ_VARIANTS.iter().map(|zone| zone.name())
}

/// A day as the language writes it: `2026-12-05`, or `2026年12月05日`.
pub fn day(date: &NaiveDate) -> String {
    date.format(day_pattern()).to_string()
}

fn day_pattern() -> &'static str {
    match Lang::current() {
        Lang::En => "%Y-%m-%d",
        Lang::Zh => "%Y年%m月%d日",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    const CATALOGUES_TEXT: [(&str, &str); 2] = [
        ("en", include_str!("../locales/en/main.ftl")),
        ("zh-CN", include_str!("../locales/zh-CN/main.ftl")),
    ];

    /// A catalogue's message ids; it must parse without an error.
    fn ids(name: &str, text: &str) -> BTreeSet<String> {
        let resource = fluent_syntax::parser::parse(text)
            .unwrap_or_else(|(_, errors)| panic!("{name}/main.ftl does not parse: {errors:?}"));
        resource
            .body
            .into_iter()
            .filter_map(|entry| match entry {
                fluent_syntax::ast::Entry::Message(message) => Some(message.id.name.to_owned()),
                _ => None,
            })
            .collect()
    }

    /// Every id the app's source passes to the `tr!` macro.
    fn used_ids(folder: &Path, found: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(folder).expect("source folder") {
            let path = entry.expect("source entry").path();
            if path.is_dir() {
                used_ids(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).expect("source file");
                let calls = text.match_indices("tr!(\"").filter(|(at, _)| {
                    let before = text[..*at].chars().next_back();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                for (at, call) in calls {
                    let rest = &text[at + call.len()..];
                    found.extend(rest.split('"').next().map(str::to_owned));
                }
            }
        }
    }

    #[test]
    fn both_languages_have_every_key_and_every_key_is_used() {
        let [(en_name, en), (zh_name, zh)] = CATALOGUES_TEXT;
        let (en, zh) = (ids(en_name, en), ids(zh_name, zh));
        let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| -> Vec<String> {
            a.difference(b).cloned().collect()
        };
        assert_eq!(only(&en, &zh), Vec::<String>::new(), "missing in zh-CN");
        assert_eq!(only(&zh, &en), Vec::<String>::new(), "missing in en");
        let mut used = BTreeSet::new();
        used_ids(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut used,
        );
        assert_eq!(
            only(&used, &en),
            Vec::<String>::new(),
            "used but in no catalogue"
        );
        assert_eq!(
            only(&en, &used),
            Vec::<String>::new(),
            "in the catalogues, never used"
        );
    }

    fn headers(pairs: &[(&str, &str)]) -> http::HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                    http::HeaderValue::from_str(value).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn the_cookie_wins_then_accept_language_then_english() {
        let lang = |pairs: &[(&str, &str)]| Lang::of_request(&headers(pairs));
        assert_eq!(lang(&[]), Lang::En);
        for zh in [
            "zh",
            "zh-CN",
            "zh-Hans",
            "zh-Hans-CN",
            "ZH-cn",
            "fr, zh;q=0.5",
        ] {
            assert_eq!(lang(&[("accept-language", zh)]), Lang::Zh, "{zh}");
        }
        for en in [
            "en-GB",
            "fr-FR",
            "de, en;q=0.1",
            "zh;q=0.2, en;q=0.9",
            "zh;q=0",
            "*",
        ] {
            assert_eq!(lang(&[("accept-language", en)]), Lang::En, "{en}");
        }
        let zh_cookie = [
            ("cookie", "a=b; kaadxpay_lang=zh-CN"),
            ("accept-language", "en"),
        ];
        assert_eq!(lang(&zh_cookie), Lang::Zh);
        let en_cookie = [("cookie", "kaadxpay_lang=en"), ("accept-language", "zh-CN")];
        assert_eq!(lang(&en_cookie), Lang::En);
        // A cookie that names nothing, or only looks like ours, leaves the header to decide.
        for cookie in ["kaadxpay_lang", "kaadxpay_lang=xx", "kaadxpay_language=en"] {
            let pairs = [("cookie", cookie), ("accept-language", "zh")];
            assert_eq!(lang(&pairs), Lang::Zh, "{cookie}");
        }
    }

    #[test]
    fn the_switch_sends_back_only_to_this_sites_paths() {
        for local in [
            "/",
            "/payouts?status=paid&from=2026-12-01",
            "/keys?key=a%26b",
        ] {
            assert_eq!(same_site_path(local), local);
        }
        for foreign in [
            "",
            "//evil.example",
            "/\\evil.example",
            "https://evil.example/",
            "evil",
            "/a b",
            "/\u{7f}",
            "/ünïcode",
            "javascript:alert(1)",
        ] {
            assert_eq!(same_site_path(foreign), "/", "{foreign:?}");
        }
        assert_eq!(
            cookie(Lang::Zh, true),
            "kaadxpay_lang=zh-CN; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly; Secure"
        );
    }

    #[test]
    fn money_and_times_are_written_as_each_language_writes_them() {
        let euros = Money {
            amount: -123_456_789,
            currency: "EUR".into(),
        };
        let yen = Money {
            amount: 1200,
            currency: "JPY".into(),
        };
        let moment = "2026-12-05T11:33:00.250Z".parse::<DateTime<Utc>>().unwrap();
        in_language(Lang::En, || {
            assert_eq!(money(&euros), "-1,234,567.89 EUR");
            assert_eq!(money(&yen), "1,200 JPY");
            assert_eq!(when(&moment), "2026-12-05 11:33:00 UTC");
            assert_eq!(when_exactly(&moment), "2026-12-05 11:33:00.250 UTC");
            assert_eq!(
                when_in(&moment, Tz::America__New_York, "%H:%M"),
                "2026-12-05 06:33 America/New_York"
            );
            assert_eq!(leptos_fluent::tr!("payout-submit"), "Pay out");
        });
        in_language(Lang::Zh, || {
            assert_eq!(money(&euros), "EUR -1,234,567.89");
            assert_eq!(when(&moment), "2026年12月05日 11:33:00 UTC");
            assert_eq!(day(&moment.date_naive()), "2026年12月05日");
            assert_eq!(
                when_in(&moment, Tz::Asia__Shanghai, "%H:%M:%S"),
                "2026年12月05日 19:33:00 Asia/Shanghai"
            );
            assert!(time_zones().any(|name| name == "UTC"));
            assert_eq!(leptos_fluent::tr!("payout-submit"), "提现");
            assert_eq!(
                leptos_fluent::tr!("timeline-of-payout", {"id" => "po_1"}),
                "提现 po_1"
            );
        });
    }
}
