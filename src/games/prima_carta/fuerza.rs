//! The house's Fuerza at a Jasper table (docs/confidence-bets.md): the chance that a seated
//! player who paid the copa wins the main game, estimated over the one thing still left to
//! chance once the first pass is dealt — the order Jasper's reshuffle gives the discard pile —
//! and the price the house offers on it.
//!
//! Pure and deterministic: a quote is a count of wins over `samples` orders of the pile drawn
//! from a seed anyone can derive from the round's id and its number of copa decisions, so both
//! verifiers compute it again. Nothing secret goes in: the pile is the first pass's discards,
//! dealt face up; the real reshuffle (from the server seed) is never read.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::first_pass::FirstPass;
use crate::cards::{Card, Rank, Suit};

/// The quote's method, named in the transcript.
pub const ALGORITHM: &str = "fuerza-quote-v1";
/// Orders of the pile drawn per quote. The estimate's standard error is at most
/// `0.5 / sqrt(QUOTE_SAMPLES)` = 0.2 percentage points.
pub const QUOTE_SAMPLES: u32 = 1 << 16;
/// What a price returns on the estimated chance, in basis points: a 5% house edge.
pub const RETURN_BP: u64 = 9_500;
/// No price below this estimated chance (1 in `MIN_CHANCE_DENOMINATOR`): the estimate's
/// relative error grows as the chance shrinks, and the payout with it.
pub const MIN_CHANCE_DENOMINATOR: u64 = 50;
/// The lowest price worth offering, in hundredths (1.01: the stake back and a cent per unit).
pub const MIN_PRICE_HUNDREDTHS: u32 = 101;

/// The table after the first pass, as everyone saw it dealt: each stack's size and top rank,
/// and the discard pile that Jasper reshuffles into the repasso's deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// Cards per stack, by `Suit::index()`.
    counts: [u8; Suit::COUNT],
    /// The rank each stack needs next, by `Suit::index()`.
    needs: [u8; Suit::COUNT],
    /// The discard pile, bottom (discarded first) to top.
    pile: Vec<Card>,
}

impl Position {
    /// The position a first pass leaves, or `None` when a suit completed in it (the round is
    /// over before the copa, or has no repasso to price).
    pub fn after(first: &FirstPass) -> Option<Position> {
        if !first.completed.is_empty() {
            return None;
        }
        let mut needs = [0; Suit::COUNT];
        for (i, stack) in first.stacks.iter().enumerate() {
            // Every suit has a foundation after a whole first pass.
            needs[i] = stack.top?.rank().successor().value();
        }
        Some(Position {
            counts: first.counts,
            needs,
            pile: first.discard.clone(),
        })
    }

    pub fn pile(&self) -> &[Card] {
        &self.pile
    }

    /// The first suit of `live` to complete when the repasso deals `deck` (the pile in some
    /// order) and then turns its discards over pass after pass, as the engine deals it.
    /// `None` if no suit of `live` can complete (never, for a pile from a real first pass).
    pub fn repasso_winner(&self, deck: &[Card], live: &[Suit]) -> Option<Suit> {
        let mut mask = 0u8;
        for s in live {
            mask |= 1 << s.index();
        }
        self.first_completion(deck, mask, mask).map(|(suit, _)| suit)
    }

    /// Deals `deck` and the passes after it until a suit in `stop_mask` completes; returns it
    /// and the first suit of `watch_mask` to complete (it, or one before it).
    fn first_completion(&self, deck: &[Card], stop_mask: u8, watch_mask: u8) -> Option<(Suit, Suit)> {
        let mut counts = self.counts;
        let mut needs = self.needs;
        let mut watched = None;
        let mut this = [Card::from_id(0)?; Card::DECK_SIZE];
        let mut next = [Card::from_id(0)?; Card::DECK_SIZE];
        let mut len = deck.len();
        this[..len].copy_from_slice(deck);
        // Every pass promotes a card (docs/prima-carta.md), so fifty passes end any deal.
        for _ in 0..=Card::DECK_SIZE {
            let mut discards = 0;
            let mut i = 0;
            loop {
                // The play-up before each card and after the last.
                while discards > 0 {
                    let top = next[discards - 1];
                    let s = top.suit().index();
                    if counts[s] >= Rank::MAX || needs[s] != top.rank().value() {
                        break;
                    }
                    discards -= 1;
                    if let Some(won) = promote(&mut counts, &mut needs, &mut watched, top, (stop_mask, watch_mask)) {
                        return Some(won);
                    }
                }
                if i == len {
                    break;
                }
                let card = this[i];
                i += 1;
                let s = card.suit().index();
                if counts[s] < Rank::MAX && needs[s] == card.rank().value() {
                    if let Some(won) = promote(&mut counts, &mut needs, &mut watched, card, (stop_mask, watch_mask)) {
                        return Some(won);
                    }
                } else {
                    next[discards] = card;
                    discards += 1;
                }
            }
            std::mem::swap(&mut this, &mut next);
            len = discards;
            if len == 0 {
                return None;
            }
        }
        None
    }
}

/// Plays `card` onto its stack; when that completes a suit in the stop mask, returns it and
/// the first suit of the watch mask to complete.
fn promote(
    counts: &mut [u8; Suit::COUNT],
    needs: &mut [u8; Suit::COUNT],
    watched: &mut Option<Suit>,
    card: Card,
    (stop_mask, watch_mask): (u8, u8),
) -> Option<(Suit, Suit)> {
    let s = card.suit().index();
    counts[s] += 1;
    needs[s] = card.rank().successor().value();
    if counts[s] == Rank::MAX {
        if watched.is_none() && watch_mask & (1 << s) != 0 {
            *watched = Some(card.suit());
        }
        if stop_mask & (1 << s) != 0 {
            return Some((card.suit(), watched.unwrap_or(card.suit())));
        }
    }
    None
}

/// One seated player's quote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quote {
    pub suit: Suit,
    /// Draws in which this player wins against everyone who has paid the copa, whatever the
    /// players still to decide do (they can only fold away chances of others).
    pub wins: u32,
    /// Draws in which this player wins if everyone still to decide pays too: the chance's
    /// other end while decisions are pending (equal to `wins` once the copa is over).
    pub wins_if_all_pay: u32,
    pub samples: u32,
    /// Decimal odds in hundredths (the stake included), or `None` when the house offers none.
    pub price_hundredths: Option<u32>,
}

/// The price the house offers on `wins` in `samples`: `RETURN_BP` of the fair odds, rounded
/// down to the hundredth; none below a 2% chance or under 1.01.
pub fn price_hundredths(wins: u32, samples: u32) -> Option<u32> {
    let (wins, samples) = (wins as u64, samples as u64);
    if wins == 0 || wins * MIN_CHANCE_DENOMINATOR < samples {
        return None;
    }
    // odds = RETURN_BP/10000 × samples/wins, in hundredths.
    let price = RETURN_BP * samples / (100 * wins);
    (price >= MIN_PRICE_HUNDREDTHS as u64).then_some(price as u32)
}

/// A price in hundredths as the API and the transcript write it ("2.85").
pub fn price_text(hundredths: u32) -> String {
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// What a winning stake returns, stake included, in minor units (rounded down to the cent).
pub fn returned_minor(stake_minor: i64, price_hundredths: u32) -> i64 {
    stake_minor * price_hundredths as i64 / 100
}

/// The seed of the quote after `decisions` copa decisions of round `round_id`: public, so
/// anyone draws the same orders.
pub fn quote_seed(round_id: &str, decisions: usize) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(ALGORITHM.as_bytes());
    h.update([0]);
    h.update(round_id.as_bytes());
    h.update([0]);
    h.update((decisions as u64).to_be_bytes());
    h.finalize().into()
}

/// Quotes every player in `paid` (who paid the copa) over `samples` orders of the pile drawn
/// from `seed`. `undecided` are the players still to decide; folded players are in neither.
pub fn quotes(position: &Position, paid: &[Suit], undecided: &[Suit], samples: u32, seed: [u8; 32]) -> Vec<Quote> {
    let mask_of = |suits: &[Suit]| suits.iter().fold(0u8, |m, s| m | 1 << s.index());
    let paid_mask = mask_of(paid);
    let all_mask = paid_mask | mask_of(undecided);
    let mut wins = [0u32; Suit::COUNT];
    let mut wins_if_all_pay = [0u32; Suit::COUNT];
    let mut rng = ChaCha8Rng::from_seed(seed);
    let mut deck = position.pile.clone();
    for _ in 0..samples {
        draw(&mut rng, &mut deck);
        // The first paid suit to complete wins if every undecided player folds; the first of
        // all of them, if they all pay. The cards come the same way whoever is live.
        if let Some((suit, first_of_all)) = position.first_completion(&deck, paid_mask, all_mask) {
            wins[suit.index()] += 1;
            wins_if_all_pay[first_of_all.index()] += 1;
        }
    }
    paid.iter()
        .map(|&suit| Quote {
            suit,
            wins: wins[suit.index()],
            wins_if_all_pay: wins_if_all_pay[suit.index()],
            samples,
            price_hundredths: price_hundredths(wins[suit.index()], samples),
        })
        .collect()
}

/// A uniform order of `deck` (Fisher–Yates; an index from a 32-bit draw by multiply-shift,
/// whose bias is below 50 in 2^32 per step).
fn draw(rng: &mut ChaCha8Rng, deck: &mut [Card]) {
    for i in (1..deck.len()).rev() {
        let j = ((rng.next_u32() as u64 * (i as u64 + 1)) >> 32) as usize;
        deck.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::ordered_deck;
    use crate::games::prima_carta::{first_pass, play, CopaDecision, Event, Phase, TableRules, Variant, WinKind};
    use proptest::prelude::*;
    use rand::seq::SliceRandom;

    const JASPER: TableRules = TableRules {
        variant: Variant::Jasper,
        ..TableRules::CLASSIC
    };

    fn deck_from(seed: u64) -> Vec<Card> {
        let mut deck = ordered_deck(Rank::MAX);
        deck.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
        deck
    }

    /// Plays a Jasper round to the end with `pays` as each seat's decision in turn, and
    /// returns the first pass, the reshuffled deck, the live suits and the engine's result.
    fn jasper_round(seed: u64, seated: &[Suit], pays: &[bool]) -> Option<(FirstPass, Vec<Card>, Vec<Suit>, Suit)> {
        let deck = deck_from(seed);
        let first = first_pass(&deck).ok()?;
        let mut reshuffle_rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5eed);
        let mut reshuffle = |cards: &mut [Card]| cards.shuffle(&mut reshuffle_rng);
        let mut decisions = Vec::new();
        loop {
            let progress = play(&deck, &JASPER, seated, &decisions, &mut reshuffle).ok()?;
            match progress.phase {
                Phase::AwaitingCopa(turn) => decisions.push(CopaDecision {
                    suit: turn.turn,
                    pay: pays[decisions.len() % pays.len()],
                }),
                Phase::Finished(result) => {
                    if result.how != WinKind::RepassoCompletion {
                        return None;
                    }
                    let after = progress.events.iter().find_map(|e| match e {
                        Event::Reshuffled { after, .. } => Some(after.clone()),
                        _ => None,
                    })?;
                    let live = seated.iter().copied().filter(|s| !result.folded.contains(s)).collect();
                    return Some((first, after, live, result.winner));
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The quote's fast repasso deals exactly as the engine does: the same winner for the
        /// same reshuffled pile, whoever folded.
        #[test]
        fn the_repasso_winner_is_the_engines(seed in any::<u64>(), seats in 2usize..=5, pays in proptest::collection::vec(any::<bool>(), 1..5)) {
            let seated = &Suit::ALL[..seats];
            if let Some((first, after, live, winner)) = jasper_round(seed, seated, &pays) {
                let position = Position::after(&first).expect("no suit completed in the first pass");
                let mut pile = position.pile().to_vec();
                let mut dealt = after.clone();
                pile.sort_by_key(|c| c.id());
                dealt.sort_by_key(|c| c.id());
                prop_assert_eq!(pile, dealt, "the reshuffle orders the first pass's discards");
                prop_assert_eq!(position.repasso_winner(&after, &live), Some(winner));
            }
        }

        /// Quotes are counts that add up: one winner among the paid per draw, the chance with
        /// players still to decide never above the chance if they fold, and equal once the
        /// copa is over; the price follows the count.
        #[test]
        fn quotes_count_every_draw(seed in any::<u64>(), undecided in 0usize..=2) {
            let first = first_pass(&deck_from(seed)).expect("a deck");
            prop_assume!(first.completed.is_empty());
            let position = Position::after(&first).expect("a position");
            let (paid, rest) = Suit::ALL.split_at(3);
            let quotes = quotes(&position, paid, &rest[..undecided], 2_000, quote_seed("r", seed as usize));
            prop_assert_eq!(quotes.iter().map(|q| q.wins).sum::<u32>(), 2_000);
            for q in &quotes {
                prop_assert!(q.wins_if_all_pay <= q.wins);
                if undecided == 0 {
                    prop_assert_eq!(q.wins_if_all_pay, q.wins);
                }
                prop_assert_eq!(q.price_hundredths, price_hundredths(q.wins, q.samples));
            }
        }
    }

    #[test]
    fn a_quote_is_the_same_for_everyone_who_draws_it() {
        let first = first_pass(&deck_from(7)).expect("a deck");
        let position = Position::after(&first).expect("deck 7 completes nothing in the first pass");
        let seed = quote_seed("round-1", 3);
        let a = quotes(&position, &[Suit::Crowns, Suit::Fruit], &[], 5_000, seed);
        let b = quotes(&position, &[Suit::Crowns, Suit::Fruit], &[], 5_000, seed);
        assert_eq!(a, b);
        assert_ne!(seed, quote_seed("round-1", 4), "each decision draws afresh");
        assert_ne!(seed, quote_seed("round-2", 3));
    }

    #[test]
    fn prices_return_ninety_five_percent_rounded_down() {
        // An even chance: 0.95 × 2 = 1.90.
        assert_eq!(price_hundredths(500, 1_000), Some(190));
        // 1 in 3: 0.95 × 3 = 2.85.
        assert_eq!(price_hundredths(1_000, 3_000), Some(285));
        // 1 in 7: 6.65; rounding is down, never up.
        assert_eq!(price_hundredths(1_000, 7_000), Some(665));
        assert_eq!(price_hundredths(3, 7), Some(221), "2.2166… rounds down");
        // A sure thing is not offered (0.95 < 1.01), nor a chance under 2%.
        assert_eq!(price_hundredths(1_000, 1_000), None);
        assert_eq!(price_hundredths(19, 1_000), None);
        assert_eq!(price_hundredths(20, 1_000), Some(4_750));
        assert_eq!(price_hundredths(0, 1_000), None);
        assert_eq!(returned_minor(1_000, 285), 2_850);
        assert_eq!(returned_minor(333, 285), 949, "9.4905 rounds down to the cent");
    }
}
