//! The bounded texts of requests: a description, metadata, and a payout's bank account (holder
//! and IBAN). Like money, each deserialises only through its checks, and its `TryFrom` says
//! what is wrong in a sentence that the refusal carries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use crate::contract::input::{name, text_schema, NAME_PATTERN};

pub const MAX_DESCRIPTION_CHARS: usize = 1000;
pub const MAX_METADATA_KEYS: usize = 20;
pub const MAX_METADATA_KEY_CHARS: usize = 40;
pub const MAX_METADATA_VALUE_CHARS: usize = 500;
pub const MAX_HOLDER_CHARS: usize = 140;

/// A free text of at most [`MAX_DESCRIPTION_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Description(String);

impl PartialSchema for Description {
    fn schema() -> RefOr<Schema> {
        text_schema(0, MAX_DESCRIPTION_CHARS, None, "Blue shoes")
    }
}

impl ToSchema for Description {}

impl TryFrom<String> for Description {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        if text.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(format!(
                "must be at most {MAX_DESCRIPTION_CHARS} characters long"
            ));
        }
        Ok(Self(text))
    }
}

impl From<Description> for String {
    fn from(description: Description) -> String {
        description.0
    }
}

impl Description {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Up to [`MAX_METADATA_KEYS`] string pairs the merchant keeps on an object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    try_from = "BTreeMap<String, String>",
    into = "BTreeMap<String, String>"
)]
pub struct Metadata(BTreeMap<String, String>);

impl PartialSchema for Metadata {
    fn schema() -> RefOr<Schema> {
        let value = text_schema(0, MAX_METADATA_VALUE_CHARS, None, "B-42");
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property_names(Some(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .max_length(Some(MAX_METADATA_KEY_CHARS)),
            ))
            .additional_properties(Some(value))
            .max_properties(Some(MAX_METADATA_KEYS))
            .examples([serde_json::json!({"sku": "B-42"})])
            .into()
    }
}

impl ToSchema for Metadata {}

impl TryFrom<BTreeMap<String, String>> for Metadata {
    type Error = String;

    fn try_from(pairs: BTreeMap<String, String>) -> Result<Self, String> {
        if pairs.len() > MAX_METADATA_KEYS {
            return Err(format!("can have at most {MAX_METADATA_KEYS} keys"));
        }
        let too_long = pairs.iter().any(|(key, value)| {
            key.chars().count() > MAX_METADATA_KEY_CHARS
                || value.chars().count() > MAX_METADATA_VALUE_CHARS
        });
        if too_long {
            return Err(format!("keys are limited to {MAX_METADATA_KEY_CHARS} characters and values to {MAX_METADATA_VALUE_CHARS}"));
        }
        Ok(Self(pairs))
    }
}

impl From<Metadata> for BTreeMap<String, String> {
    fn from(metadata: Metadata) -> Self {
        metadata.0
    }
}

impl Metadata {
    pub fn pairs(&self) -> &BTreeMap<String, String> {
        &self.0
    }
}

/// The name on the account: a [`name`] of at most [`MAX_HOLDER_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AccountHolder(String);

impl PartialSchema for AccountHolder {
    fn schema() -> RefOr<Schema> {
        text_schema(1, MAX_HOLDER_CHARS, Some(NAME_PATTERN), "Ada Lovelace")
    }
}

impl ToSchema for AccountHolder {}

impl TryFrom<String> for AccountHolder {
    type Error = String;

    fn try_from(holder: String) -> Result<Self, String> {
        name(&holder, MAX_HOLDER_CHARS).map(|holder| Self(holder.to_owned()))
    }
}

impl From<AccountHolder> for String {
    fn from(holder: AccountHolder) -> String {
        holder.0
    }
}

/// An IBAN's shape: a country code, two check digits, and 11 to 30 letters or digits, written
/// together or with spaces anywhere (as printed, `DE89 3704 …`); it is kept without the spaces.
/// The schema's pattern says exactly that (and no length, which the pattern implies: a length
/// beside it leaves a generator few strings to offer). The partner checks the checksum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Iban(String);

impl PartialSchema for Iban {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^( *[A-Z]){2}( *[0-9]){2}( *[A-Za-z0-9]){11,30} *$"))
            .examples(["DE89370400440532013000", "DE89 3704 0044 0532 0130 00"])
            .into()
    }
}

impl ToSchema for Iban {}

impl TryFrom<String> for Iban {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        let iban: String = text.chars().filter(|c| *c != ' ').collect();
        // ASCII first: the slices below are byte offsets, which must fall between characters.
        let well_formed = iban.chars().all(|c| c.is_ascii_alphanumeric())
            && (15..=34).contains(&iban.len())
            && iban[..2].chars().all(|c| c.is_ascii_uppercase())
            && iban[2..4].chars().all(|c| c.is_ascii_digit());
        if !well_formed {
            return Err(
                "must be an IBAN: a country code, two check digits and up to 30 letters or digits, together or with spaces"
                    .to_owned(),
            );
        }
        Ok(Self(iban))
    }
}

impl Iban {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<Iban> for String {
    fn from(iban: Iban) -> String {
        iban.0
    }
}

/// A payout's bank account, as a request gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BankAccount {
    pub account_holder: AccountHolder,
    pub iban: Iban,
}

impl From<BankAccount> for kaadxpay_partner::wire::Destination {
    fn from(account: BankAccount) -> Self {
        Self {
            account_holder: account.account_holder.into(),
            iban: account.iban.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Iban;

    #[test]
    fn the_simulators_magic_ibans_are_accepted_by_the_api() {
        for magic in kaadxpay_partner_sim::scenarios::MAGIC_IBANS {
            assert!(
                Iban::try_from(magic.iban.to_owned()).is_ok(),
                "{}",
                magic.iban
            );
        }
    }

    /// What the schema's pattern allows, and nothing else: spaces anywhere (kept out), no other
    /// white space.
    #[test]
    fn an_iban_is_taken_together_or_with_spaces_and_kept_without_them() {
        for written in [
            "DE89370400440532013000",
            "DE89 3704 0044 0532 0130 00",
            " D E 8 9 370400440532013000 ",
        ] {
            assert_eq!(
                String::from(Iban::try_from(written.to_owned()).unwrap()),
                "DE89370400440532013000"
            );
        }
        let longest = "MT84 MALT 0110 0001 2345 MTLC AST0 01S";
        assert!(Iban::try_from(longest.to_owned()).is_ok());
        for refused in [
            "DE89\t3704 0044 0532 0130 00",
            "DE89\n370400440532013000",
            "DE89\u{a0}370400440532013000",
            "de89370400440532013000",
        ] {
            assert!(Iban::try_from(refused.to_owned()).is_err(), "{refused:?}");
        }
    }
}
