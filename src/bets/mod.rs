//! House side bets on Prima Carta: definitions, pay tables, settlement (SPEC §5).
mod kind;
mod pay_table;
mod settle;
#[cfg(test)]
mod tests;

pub use kind::*;
pub use pay_table::*;
pub use settle::*;
