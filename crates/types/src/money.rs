//! Currencies we settle, each with its exponent (ISO 4217's minor unit), and amounts in minor
//! units written as decimals.

use std::fmt;

/// The currencies we settle. The contract requires at least USD, EUR, GBP, CNY and JPY.
pub const CURRENCIES: &[&str] = &[
    "AUD", "BRL", "CAD", "CHF", "CNY", "DKK", "EUR", "GBP", "HKD", "INR", "JPY", "MXN", "NOK",
    "NZD", "PLN", "SEK", "SGD", "USD",
];

/// One of [`CURRENCIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Currency(&'static str);

impl Currency {
    /// The currency of an upper-case ISO 4217 `code` we settle; the refusal lists them.
    pub fn parse(code: &str) -> Result<Self, String> {
        CURRENCIES
            .iter()
            .find(|known| **known == code)
            .map(|known| Self(known))
            .ok_or_else(|| {
                format!(
                    "must be an upper-case ISO 4217 code we support: {}",
                    CURRENCIES.join(", ")
                )
            })
    }

    pub fn code(self) -> &'static str {
        self.0
    }

    /// Digits after the decimal point of an amount in the major unit.
    pub fn exponent(self) -> usize {
        if self.0 == "JPY" {
            0
        } else {
            2
        }
    }

    /// An amount typed in the major unit in minor units, written as people write it: a decimal
    /// point or a decimal comma (`12.50`, `12,50`), thousands grouped by spaces (`1 234.50`),
    /// or none for JPY (`1200`). The refusal says what is expected.
    pub fn minor_units(self, typed: &str) -> Result<i64, String> {
        let decimals = self.exponent();
        let refused = || {
            format!(
                "Amount must be a number with at most {decimals} decimals, like {}.",
                if decimals == 0 { "1200" } else { "12.50" }
            )
        };
        let typed = typed.trim();
        let (whole, fraction) = match (typed.split_once('.'), typed.split_once(',')) {
            (Some(_), Some(_)) => return Err(refused()),
            (Some(split), None) | (None, Some(split)) => split,
            (None, None) => (typed, ""),
        };
        let whole = ungrouped(whole).ok_or_else(refused)?;
        let valid = fraction.chars().all(|c| c.is_ascii_digit()) && fraction.len() <= decimals;
        if !valid {
            return Err(refused());
        }
        let fraction: i64 = format!("{fraction:0<decimals$}").parse().unwrap_or(0);
        whole
            .parse::<i64>()
            .ok()
            .and_then(|whole| {
                whole
                    .checked_mul(10_i64.pow(decimals as u32))?
                    .checked_add(fraction)
            })
            .ok_or_else(refused)
    }

    /// `minor_units` in the major unit as a plain decimal: `12.50`, `-0.05`, or `1200` for JPY.
    pub fn decimal(self, minor_units: i64) -> String {
        let decimals = self.exponent();
        if decimals == 0 {
            return minor_units.to_string();
        }
        let sign = if minor_units < 0 { "-" } else { "" };
        let per_major = 10_u64.pow(decimals as u32);
        let amount = minor_units.unsigned_abs();
        format!(
            "{sign}{}.{:0decimals$}",
            amount / per_major,
            amount % per_major
        )
    }
}

/// The digits of a whole number typed with its thousands grouped by spaces (`1 234 567`, with
/// plain, no-break or thin spaces), or `None` when it is not one: groups after the first have
/// three digits, so `12 50` is not taken for `1250`.
fn ungrouped(whole: &str) -> Option<String> {
    let mut groups = whole.split([' ', '\u{a0}', '\u{202f}', '\u{2009}']);
    let first = groups.next().filter(|first| !first.is_empty())?;
    let mut digits = first.to_owned();
    for group in groups {
        if group.len() != 3 || first.len() > 3 {
            return None;
        }
        digits.push_str(group);
    }
    digits.chars().all(|c| c.is_ascii_digit()).then_some(digits)
}

impl TryFrom<String> for Currency {
    type Error = String;

    fn try_from(code: String) -> Result<Self, String> {
        Self::parse(&code)
    }
}

/// Read only through [`Currency::parse`]: holding one means it is a currency we settle.
impl<'de> serde::Deserialize<'de> for Currency {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        Self::parse(&code).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Currency {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Currency {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("An upper-case ISO 4217 code that we settle."))
            .enum_values(Some(CURRENCIES.iter().copied()))
            .examples(["EUR"])
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Currency {}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// An amount in minor units of a currency, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Money {
    pub amount: i64,
    pub currency: String,
}

impl Money {
    /// The amount in major units as a plain decimal (see [`Currency::decimal`]); in minor
    /// units for a currency we do not settle.
    pub fn decimal(&self) -> String {
        Currency::parse(&self.currency).map_or_else(
            |_| self.amount.to_string(),
            |currency| currency.decimal(self.amount),
        )
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.decimal(), self.currency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn currency(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    #[test]
    fn typed_amounts_become_minor_units() {
        assert_eq!(currency("EUR").minor_units("12.50"), Ok(1250));
        assert_eq!(currency("EUR").minor_units("12.5"), Ok(1250));
        assert_eq!(currency("USD").minor_units("7"), Ok(700));
        assert_eq!(currency("JPY").minor_units("1200"), Ok(1200));
        // As people write them: a decimal comma, and thousands grouped by spaces.
        assert_eq!(currency("EUR").minor_units("12,50"), Ok(1250));
        assert_eq!(currency("EUR").minor_units("1 234.50"), Ok(123_450));
        assert_eq!(currency("EUR").minor_units("1\u{a0}234,5"), Ok(123_450));
        assert_eq!(currency("JPY").minor_units("1 200 000"), Ok(1_200_000));
        for bad in [
            "", "1.234", "-3", "1,000", "abc", "12.5", "12 50", "1 23.50", "1,2.3",
        ] {
            let code = if bad == "12.5" { "JPY" } else { "EUR" };
            assert!(currency(code).minor_units(bad).is_err(), "{bad} {code}");
        }
    }

    #[test]
    fn minor_units_are_written_as_decimals() {
        assert_eq!(currency("EUR").decimal(1250), "12.50");
        assert_eq!(currency("EUR").decimal(-5), "-0.05");
        assert_eq!(currency("EUR").decimal(-123_456_789), "-1234567.89");
        assert_eq!(currency("JPY").decimal(1200), "1200");
    }

    #[test]
    fn only_the_currencies_we_settle_are_known() {
        assert_eq!(currency("EUR").code(), "EUR");
        for bad in ["eur", "XXX", ""] {
            assert!(Currency::parse(bad).is_err(), "{bad}");
        }
    }
}
