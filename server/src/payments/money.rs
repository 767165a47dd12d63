//! Money at the edge: an [`Amount`] in minor units within the contract's range and an upper-case
//! ISO 4217 [`Currency`] we settle. Holding one means it was validated: both deserialise only
//! through their checks, so a typed request that holds them is valid.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::RefOr;

pub const MAX_AMOUNT: i64 = 100_000_000_000;

/// The currencies we settle. The contract requires at least USD, EUR, GBP, CNY and JPY.
pub const CURRENCIES: &[&str] = &[
    "AUD", "BRL", "CAD", "CHF", "CNY", "DKK", "EUR", "GBP", "HKD", "INR", "JPY", "MXN", "NOK",
    "NZD", "PLN", "SEK", "SGD", "USD",
];

/// A positive amount in minor units (cents), at most [`MAX_AMOUNT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Number", into = "i64")]
pub struct Amount(i64);

impl utoipa::PartialSchema for Amount {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .description(Some("In minor units (cents)."))
            .minimum(Some(1))
            .maximum(Some(MAX_AMOUNT))
            .examples([1000])
            .into()
    }
}

impl utoipa::ToSchema for Amount {}

/// A JSON number that is an integer (`1000`, or `1000.0`, which JSON Schema counts as one)
/// within the range.
impl TryFrom<serde_json::Number> for Amount {
    type Error = String;

    fn try_from(number: serde_json::Number) -> Result<Self, String> {
        let integral = number.as_i64().or_else(|| {
            number
                .as_f64()
                .filter(|float| float.fract() == 0.0 && float.abs() <= MAX_AMOUNT as f64)
                .map(|float| float as i64)
        });
        integral.map_or_else(|| Err(out_of_range()), Self::try_from)
    }
}

impl TryFrom<i64> for Amount {
    type Error = String;

    fn try_from(minor_units: i64) -> Result<Self, String> {
        if (1..=MAX_AMOUNT).contains(&minor_units) {
            Ok(Self(minor_units))
        } else {
            Err(out_of_range())
        }
    }
}

fn out_of_range() -> String {
    format!("must be an integer number of minor units from 1 to {MAX_AMOUNT}")
}

impl From<Amount> for i64 {
    fn from(amount: Amount) -> i64 {
        amount.0
    }
}

impl Amount {
    pub fn minor_units(self) -> i64 {
        self.0
    }
}

/// One of [`CURRENCIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency(&'static str);

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::try_from(String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<String> for Currency {
    type Error = String;

    fn try_from(code: String) -> Result<Self, String> {
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
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl utoipa::PartialSchema for Currency {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("An upper-case ISO 4217 code that we settle."))
            .enum_values(Some(CURRENCIES.iter().copied()))
            .examples(["EUR"])
            .into()
    }
}

impl utoipa::ToSchema for Currency {}

impl Currency {
    pub fn code(self) -> &'static str {
        self.0
    }

    /// Digits after the decimal point of an amount in the major unit (ISO 4217's minor unit).
    pub fn exponent(self) -> usize {
        if self.0 == "JPY" {
            0
        } else {
            2
        }
    }

    /// An amount typed in the major unit (`12.50`, or `1200` for JPY) in minor units; the
    /// refusal says what is expected.
    pub fn minor_units(self, typed: &str) -> Result<i64, String> {
        let decimals = self.exponent();
        let (whole, fraction) = typed.trim().split_once('.').unwrap_or((typed.trim(), ""));
        let valid = !whole.is_empty()
            && whole.chars().all(|c| c.is_ascii_digit())
            && fraction.chars().all(|c| c.is_ascii_digit())
            && fraction.len() <= decimals;
        let refused = || {
            format!(
                "Amount must be a number with at most {decimals} decimals, like {}.",
                if decimals == 0 { "1200" } else { "12.50" }
            )
        };
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
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn amounts_outside_the_range_or_not_integers_are_refused() {
        for bad in [
            json!(0),
            json!(-5),
            json!(MAX_AMOUNT + 1),
            json!(1.5),
            json!("10"),
            json!(1e300),
        ] {
            assert!(
                serde_json::from_value::<Amount>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        let max: Amount = serde_json::from_value(json!(MAX_AMOUNT)).unwrap();
        assert_eq!(max.minor_units(), MAX_AMOUNT);
        let integral_float: Amount = serde_json::from_value(json!(1000.0)).unwrap();
        assert_eq!(integral_float.minor_units(), 1000);
    }

    #[test]
    fn typed_amounts_become_minor_units() {
        let currency = |code: &str| Currency::try_from(code.to_owned()).unwrap();
        assert_eq!(currency("EUR").minor_units("12.50"), Ok(1250));
        assert_eq!(currency("EUR").minor_units("12.5"), Ok(1250));
        assert_eq!(currency("USD").minor_units("7"), Ok(700));
        assert_eq!(currency("JPY").minor_units("1200"), Ok(1200));
        for bad in ["", "1.234", "-3", "1,00", "abc", "12.5"] {
            let code = if bad == "12.5" { "JPY" } else { "EUR" };
            assert!(currency(code).minor_units(bad).is_err(), "{bad} {code}");
        }
    }

    #[test]
    fn currencies_must_be_known_and_upper_case() {
        let euro: Currency = serde_json::from_value(json!("EUR")).unwrap();
        assert_eq!(euro.code(), "EUR");
        for bad in [json!("eur"), json!("XXX"), json!(978), json!("")] {
            assert!(
                serde_json::from_value::<Currency>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
