//! Where an order stands (API.md §3): `pending` until it is `captured` (its amount credited to
//! the balance) or `cancelled`, both final. Stored and shown as its lower-case name.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OrderStatus {
    Pending,
    Captured,
    Cancelled,
}

impl OrderStatus {
    pub const ALL: [Self; 3] = [Self::Pending, Self::Captured, Self::Cancelled];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Captured => "captured",
            Self::Cancelled => "cancelled",
        }
    }
}

impl TryFrom<String> for OrderStatus {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == name)
            .ok_or_else(|| format!("{name:?} is not an order status"))
    }
}

impl std::fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
