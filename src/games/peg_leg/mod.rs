//! Peg Leg (docs/peg-leg.md): Cinco's single first pass, watched for one suit.
//! The first card sets the key suit; players bet on how many cards the key
//! suit's stack holds at the end of the pass, and may bet again or surrender
//! after every card. A pure engine and its pricing: no I/O, no clock, and no
//! randomness of its own (the simulation draws from an RNG it is given).
//!
//! - `engine`: the pass dealt card by card through the Prima Carta first-pass
//!   engine, with its events, the key suit and its running count.
//! - `exact`: the exact distribution of the final count by a memoised search
//!   over a reduced state.
//! - `simulate`: the same distribution by simulation, with confidence bounds.
//! - `pricing`: quotes (a multiplier per count with RTP at most the target)
//!   and surrender values.
//! - `returns`: what the offered prices return against the true probabilities, per band.

mod engine;
mod exact;
mod pricing;
mod returns;
mod simulate;

pub use engine::{CardStep, PegLegError, PegLegPass, MAX_COUNT};
pub use exact::{exact_order_counts, exact_order_counts_in, ExactMemo, ExactSearch, OrderCounts, MAX_EXACT_UNDEALT};
pub use pricing::{
    distribution, distribution_in, quote, quote_from, quote_in, simulated, surrender_cents, CountQuote, Distribution,
    Method, PricingConfig, Quote, COUNTS, EXACT_UNDEALT,
};
pub use returns::{band_of, Band, Returns, BANDS, BAND_MIN_RETURN};
pub use simulate::{kl_lower, kl_upper, sample_counts, SampleCounts};

#[cfg(test)]
mod tests;
