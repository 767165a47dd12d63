//! What the product keeps of the past and for how long: timelines and support's search read
//! it, retention purges it.

pub mod retention;
pub mod search;
pub mod timeline;
