//! The console's pages, one module each.

mod api_keys;
mod audit;
mod chart;
mod home;
mod keys;
pub(crate) mod login;
mod not_found;
mod orders;
mod payouts;
mod profile;
mod reconciliation;
mod requests;
mod security;
mod support;
mod team;
mod thresholds;
mod timeline;
mod webhooks;

pub use api_keys::ApiKeys;
pub use audit::Audit;
pub use home::Home;
pub use keys::Keys;
pub use login::Login;
pub use not_found::NotFound;
pub use orders::{OrderDetail, Orders};
pub use payouts::{NewPayout, PayoutDetail, Payouts};
pub use profile::Profile;
pub use reconciliation::{RunDetail, Runs};
pub use requests::{RequestDetail, Requests};
pub use security::{SecurityPage, StepUp};
pub use support::Support;
pub use team::{AcceptInvitation, Team};
pub use thresholds::PayoutSettings;
pub use timeline::SupportTimeline;
pub use webhooks::Webhooks;
