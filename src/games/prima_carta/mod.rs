pub mod facts;
pub use facts::DealFacts;
