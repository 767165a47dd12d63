//! What the product keeps of the past and for how long: timelines and support's search read
//! it, the audit log records who changed what (its hash chains verified by `chain`), retention
//! purges it.

pub mod audit;
pub mod chain;
pub mod retention;
pub mod search;
pub mod timeline;
