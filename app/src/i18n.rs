//! The console's two languages, English and Simplified Chinese: which one a request gets, the
//! translation context every page reads through `leptos_fluent::tr!`, and money and times
//! written the way each language writes them. The catalogues are `app/locales/*/main.ftl`.
//!
//! The language is the `kaadxpay_lang` cookie's, which the nav's switch sets (the server's
//! `POST /language`); else the first language of the request's `Accept-Language` the console
//! speaks (any `zh` tag is Simplified Chinese); else English.

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

    /// The language of the request being rendered (English outside one).
    pub fn current() -> Lang {
        use_context::<http::request::Parts>()
            .map(|parts| Lang::of_request(&parts.headers))
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

/// Puts the translation context of `lang` into the page being rendered, for `tr!`.
pub fn provide(lang: Lang) {
    provide_context(I18n::new(
        RwSignal::new(lang.language()),
        &LANGUAGES,
        Signal::derive(|| vec![&CATALOGUES]),
    ));
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

/// A time the backend wrote as `YYYY-MM-DD HH:MM:SS[.mmm] UTC`, as the language writes it:
/// unchanged in English, `YYYY年MM月DD日 HH:MM:SS UTC` in Chinese. A bare day
/// (`YYYY-MM-DD`) is written the same way; anything else is shown as it is.
pub fn when(text: &str) -> String {
    if Lang::current() == Lang::En {
        return text.to_owned();
    }
    let Some((day, rest)) = text.get(..10).zip(text.get(10..)) else {
        return text.to_owned();
    };
    let parts: Vec<&str> = day.split('-').collect();
    match parts[..] {
        [year, month, date]
            if year.len() == 4 && month.len() == 2 && date.len() == 2
                && day.bytes().filter(u8::is_ascii_digit).count() == 8 =>
        {
            format!("{year}年{month}月{date}日{rest}")
        }
        _ => text.to_owned(),
    }
}
