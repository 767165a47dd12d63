//! The API contract's shared pieces (API.md §1): every error with its code and status, request
//! bodies parsed into typed commands, pages of lists, the schemas of text fields that take one of
//! a few values, and timestamps as they are written.

pub mod error;
pub mod input;
pub mod pagination;
pub mod schema;
pub mod timestamp;
