//! Prima Carta, the house game (docs/prima-carta.md): a pure engine. A deck and the
//! players' copa decisions go in; an event list, the public table state and
//! the round's outcome come out. No I/O, no clock, no randomness of its own:
//! Jasper's reshuffle is a callback that continues the round's RNG stream.

pub mod confidence;
mod deal_facts;
mod error;
mod event;
mod facts;
mod fast_count;
mod first_pass;
pub mod fuerza;
mod layout;
mod round;
mod rules;
mod seats;
pub mod strategy;

pub use deal_facts::{deal_facts, deal_out, DealOut};
pub use error::EngineError;
pub use event::{Destination, Event};
pub use facts::DealFacts;
pub use fast_count::{first_pass_count, first_pass_counts, FirstPassCursor};
pub use first_pass::{first_pass, FirstPass};
pub(crate) use layout::Layout;
pub use layout::{StackState, TableState};
pub use round::{
    play, CobreOutcome, Contribution, CopaDecision, CopaTurn, Phase, RoundProgress, RoundResult, WinKind, CORTE_UNITS,
    SPIGA_UNITS,
};
pub use rules::{CobreRule, TableRules, Variant};
pub use strategy::{basic_strategy, CopaAdvice};

#[cfg(test)]
mod worked_cases;
