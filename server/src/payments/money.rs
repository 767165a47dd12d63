//! Money at the edge: an [`Amount`] in minor units within the contract's range and an upper-case
//! ISO 4217 [`Currency`] we settle (the one `kaadxpay_types::Currency`, which the console shares,
//! with how the API reads, writes and documents it). Holding one means it was validated: both
//! deserialise only through their checks, so a typed request that holds them is valid.

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::RefOr;

pub const MAX_AMOUNT: i64 = 100_000_000_000;

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

pub use kaadxpay_types::Currency;

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
