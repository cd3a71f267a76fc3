//! Lobo against the house (docs/lobo.md): the pure engine, house rules with proven edges, and the solver.

mod error;
mod house_rule;
mod mode;
mod play;
pub mod solver;
mod stakes;
mod state;

pub use error::{BadDeck, IllegalPlay};
pub use house_rule::*;
pub use mode::Mode;
pub use play::{Play, PlayKind};
pub use stakes::{settle_money, start_money, SettleMoney, StartMoney};
pub use state::{apply, legal_plays, outcome, replay, EndReason, LoboState, Outcome, PublicView, HAND_SIZE};

#[cfg(test)]
mod tests;
