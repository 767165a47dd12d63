//! Money at the edge: an [`Amount`] in minor units within the contract's range and an upper-case
//! ISO 4217 [`Currency`]. Holding one means it was validated.

use std::fmt;

use serde_json::Value;

use crate::http::error::ApiError;

pub const MAX_AMOUNT: i64 = 100_000_000_000;

/// The currencies we settle. The contract requires at least USD, EUR, GBP, CNY and JPY.
pub const CURRENCIES: &[&str] = &[
    "AUD", "BRL", "CAD", "CHF", "CNY", "DKK", "EUR", "GBP", "HKD", "INR", "JPY", "MXN", "NOK",
    "NZD", "PLN", "SEK", "SGD", "USD",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount(i64);

impl Amount {
    pub fn parse(param: &str, value: &Value) -> Result<Self, ApiError> {
        let out_of_range = || {
            ApiError::invalid(
                param,
                format!("{param} must be an integer number of minor units from 1 to {MAX_AMOUNT}."),
            )
        };
        let amount = value.as_i64().ok_or_else(out_of_range)?;
        if !(1..=MAX_AMOUNT).contains(&amount) {
            return Err(out_of_range());
        }
        Ok(Self(amount))
    }

    pub fn minor_units(self) -> i64 {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency(&'static str);

impl Currency {
    pub fn parse(param: &str, value: &Value) -> Result<Self, ApiError> {
        let code = value.as_str().unwrap_or_default();
        CURRENCIES
            .iter()
            .find(|known| **known == code)
            .map(|known| Self(known))
            .ok_or_else(|| {
                ApiError::invalid(
                    param,
                    format!(
                        "{param} must be an upper-case ISO 4217 code we support: {}.",
                        CURRENCIES.join(", ")
                    ),
                )
            })
    }

    pub fn code(self) -> &'static str {
        self.0
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
        ] {
            assert!(Amount::parse("amount", &bad).is_err(), "{bad}");
        }
        assert_eq!(
            Amount::parse("amount", &json!(MAX_AMOUNT))
                .unwrap()
                .minor_units(),
            MAX_AMOUNT
        );
    }

    #[test]
    fn currencies_must_be_known_and_upper_case() {
        assert_eq!(
            Currency::parse("currency", &json!("EUR")).unwrap().code(),
            "EUR"
        );
        for bad in [json!("eur"), json!("XXX"), json!(978), json!("")] {
            assert!(Currency::parse("currency", &bad).is_err(), "{bad}");
        }
    }
}
