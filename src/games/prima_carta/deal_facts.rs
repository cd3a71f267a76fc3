//! The side-bet facts of a deal (docs/prima-carta.md), from the full deal-out,
//! whatever the main game did.

use super::event::Event;
use super::facts::DealFacts;
use super::first_pass::deal_first_pass;
use super::rules::Variant;
use super::seats::parse_deck;
use super::EngineError;
use crate::cards::{Card, Suit};

/// The full deal-out: its facts and every event of it, from the first card
/// to the first completed suit (a Jasper reshuffle included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealOut {
    pub facts: DealFacts,
    pub events: Vec<Event>,
}

impl DealOut {
    /// The Jasper reshuffle of the deal-out, if it needed one: `(before, after)`.
    pub fn reshuffle(&self) -> Option<(&[Card], &[Card])> {
        self.events.iter().find_map(|e| match e {
            Event::Reshuffled { before, after } => Some((before.as_slice(), after.as_slice())),
            _ => None,
        })
    }
}

/// Deals the whole first pass, then (when no suit completed in it) keeps
/// dealing passes until the first suit completes. For Jasper the discards are
/// reshuffled once before the second pass, exactly as the live round does
/// after the copa, so the same RNG stream gives the same facts as the round.
/// `reshuffle` is called at most once, and only when the first pass completed
/// no suit. Cinco deals out like Classic: the bets ask about the deal-out, not
/// the variant's single pass.
pub fn deal_out(
    deck: &[Card],
    variant: Variant,
    reshuffle: &mut dyn FnMut(&mut [Card]),
) -> Result<DealOut, EngineError> {
    let deck = parse_deck(deck)?;
    let (mut layout, mut events) = deal_first_pass(&deck)?;
    let first_pass_counts = layout.counts();
    let first_pass_count = first_pass_counts.iter().sum();
    let mut foundation_order = Suit::ALL;
    foundation_order.copy_from_slice(layout.foundation_order());
    let foundations = layout.stacks().map(|s| s.foundation.unwrap_or(deck[0]));

    let first_to_complete = match layout.completion_order().first() {
        Some(&suit) => suit,
        None => {
            let reshuffle = (variant == Variant::Jasper).then_some(reshuffle);
            layout.run_repassos(&mut events, reshuffle, &mut |_| true)?
        }
    };
    let facts = DealFacts {
        first_card: deck[0],
        foundations,
        foundation_order,
        first_pass_counts,
        first_pass_count,
        first_to_complete,
    };
    Ok(DealOut { facts, events })
}

/// The facts alone (simulations and certification need no events).
pub fn deal_facts(
    deck: &[Card],
    variant: Variant,
    reshuffle: &mut dyn FnMut(&mut [Card]),
) -> Result<DealFacts, EngineError> {
    deal_out(deck, variant, reshuffle).map(|d| d.facts)
}
