//! Domain types that cannot hold an invalid value.

mod amount;
mod role;
mod username;
pub mod whole;

pub use amount::*;
pub use role::Role;
pub use username::{Password, Username};
