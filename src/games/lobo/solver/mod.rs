//! The Lobo solver: exact expectimax (lower bounds with Overs limited, exact values where
//! reachable), the clairvoyant upper bound, simple strategies, and best-play hints.

pub mod clairvoyant;
pub mod deals;
pub mod expectimax;
pub mod fresh;
pub mod hint;
mod memo;
pub mod penalty;
pub mod policy;
pub mod position;
pub mod uniform_draws;

pub use expectimax::{BudgetExceeded, Expectimax, GameLimits};
pub use fresh::{
    clairvoyant_value, exact_value, hint_player_value, policy_value, sampled_value, sampled_value_within, Bracket,
    FreshValue, PenaltyChoice, Progress,
};
pub use hint::{hint, Hint, HintBasis};
pub use penalty::Tiers;
pub use policy::SimplePolicy;
