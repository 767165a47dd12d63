//! Whose keys a record is among. Keys are chosen by clients, so one key means one request only
//! within a scope: a merchant's own keys, or the platform's support staff's, who act for no
//! merchant and share one scope (what one of them started, another's repeat answers).

use std::fmt;

use kaadxpay_types::ids::MerchantId;

/// The scope's name in the record's `merchant_id` column for support staff: no merchant's id
/// (those begin `mer_`).
const STAFF: &str = "staff";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// A merchant's keys.
    Merchant(&'a MerchantId),
    /// The keys of the platform's support staff, together.
    Staff,
}

impl<'a> Scope<'a> {
    /// As the record's `merchant_id` column holds it.
    pub fn as_str(&self) -> &'a str {
        match self {
            Self::Merchant(merchant_id) => merchant_id.as_str(),
            Self::Staff => STAFF,
        }
    }

    /// The merchant whose keys these are, if any.
    pub fn merchant(&self) -> Option<&'a MerchantId> {
        match self {
            Self::Merchant(merchant_id) => Some(merchant_id),
            Self::Staff => None,
        }
    }
}

impl<'a> From<&'a MerchantId> for Scope<'a> {
    fn from(merchant_id: &'a MerchantId) -> Self {
        Self::Merchant(merchant_id)
    }
}

impl fmt::Display for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
