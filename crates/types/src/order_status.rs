//! Where an order stands (API.md §3): `pending` until it is `captured` (its amount credited to
//! the balance) or `cancelled`, both final. Stored and shown as its lower-case name.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum OrderStatus {
    Pending,
    Captured,
    Cancelled,
}

status_names!(OrderStatus, "an order status", {
    Pending => "pending",
    Captured => "captured",
    Cancelled => "cancelled",
});

#[cfg(test)]
mod tests {
    use super::OrderStatus;

    #[test]
    fn names_read_back_as_their_status() {
        assert_eq!(
            OrderStatus::ALL.map(OrderStatus::as_str),
            ["pending", "captured", "cancelled"]
        );
        for status in OrderStatus::ALL {
            assert_eq!(OrderStatus::try_from(status.to_string()), Ok(status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        assert_eq!(
            OrderStatus::try_from("paid".to_owned()),
            Err(r#""paid" is not an order status"#.to_owned())
        );
    }
}
