//! House side bets on Prima Carta: definitions, pay tables, settlement (docs/side-bets.md).
mod kind;
mod pay_table;
mod settle;
#[cfg(test)]
mod tests;

pub use kind::*;
pub use pay_table::*;
pub use settle::*;
