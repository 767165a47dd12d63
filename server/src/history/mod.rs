//! What the product keeps of the past and for how long: timelines read it, retention purges it.

pub mod retention;
pub mod timeline;
