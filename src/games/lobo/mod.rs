//! Lobo against the house (docs/lobo.md): the pure engine, house rules with proven edges, the solver,
//! and three-round play for contests among players (§9).

mod error;
mod house_rule;
mod mode;
mod play;
mod pot_split;
pub mod solver;
mod stakes;
mod state;
mod three_rounds;

pub use error::{BadDeck, IllegalPlay};
pub use house_rule::*;
pub use mode::Mode;
pub use play::{Play, PlayKind};
pub use pot_split::{split_pot, PotSplit, RakeRate, MAX_RAKE_BASIS_POINTS};
pub use stakes::{settle_money, start_money, SettleMoney, StartMoney};
pub use state::{apply, legal_plays, outcome, replay, EndReason, LoboState, Outcome, PublicView, HAND_SIZE};
pub use three_rounds::{replay_three_rounds, RoundScore, ThreeRounds, ROUNDS};

#[cfg(test)]
mod tests;
