//! The API contract's shared pieces (API.md §1): every error with its code and status, request
//! bodies parsed into typed commands, and pages of lists.

pub mod error;
pub mod input;
pub mod pagination;
