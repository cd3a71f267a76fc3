//! The seated suits, validated once.

use super::EngineError;
use crate::cards::{Card, Suit};

/// 2 to 5 distinct owned suits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Seats {
    owned: [bool; Suit::COUNT],
}

impl Seats {
    pub(crate) fn new(seated: &[Suit]) -> Result<Seats, EngineError> {
        if !(2..=Suit::COUNT).contains(&seated.len()) {
            return Err(EngineError::SeatCount { seated: seated.len() });
        }
        let mut owned = [false; Suit::COUNT];
        for &suit in seated {
            if owned[suit.index()] {
                return Err(EngineError::DuplicateSeat { suit });
            }
            owned[suit.index()] = true;
        }
        Ok(Seats { owned })
    }

    pub(crate) fn owns(&self, suit: Suit) -> bool {
        self.owned[suit.index()]
    }

    /// Owned suits in Crowns → Cups order.
    pub(crate) fn suits(&self) -> Vec<Suit> {
        Suit::ALL.into_iter().filter(|s| self.owns(*s)).collect()
    }

    /// Copa turn order: from the Prima suit (or the next owned suit after it
    /// when it is unowned) round Crowns → Locks → Fruit → Swords → Cups.
    pub(crate) fn copa_order(&self, prima: Suit) -> Vec<Suit> {
        let mut order = Vec::with_capacity(Suit::COUNT);
        let mut suit = prima;
        for _ in 0..Suit::COUNT {
            if self.owns(suit) {
                order.push(suit);
            }
            suit = suit.next();
        }
        order
    }
}

/// Parses a deck: exactly the fifty cards, each once.
pub(crate) fn parse_deck(deck: &[Card]) -> Result<[Card; Card::DECK_SIZE], EngineError> {
    if deck.len() != Card::DECK_SIZE {
        return Err(EngineError::InvalidDeck {
            reason: format!("{} cards, not {}", deck.len(), Card::DECK_SIZE),
        });
    }
    let mut seen = [false; Card::DECK_SIZE];
    for &card in deck {
        if std::mem::replace(&mut seen[card.id() as usize], true) {
            return Err(EngineError::InvalidDeck {
                reason: format!("{card} appears twice"),
            });
        }
    }
    let mut parsed = [deck[0]; Card::DECK_SIZE];
    parsed.copy_from_slice(deck);
    Ok(parsed)
}

/// True when `after` holds exactly the cards of `before`.
pub(crate) fn same_cards(before: &[Card], after: &[Card]) -> bool {
    let mut a = before.to_vec();
    let mut b = after.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copa_order_starts_at_prima_or_next_owned() {
        let seats = Seats::new(&[Suit::Cups, Suit::Locks, Suit::Swords]).unwrap();
        assert_eq!(
            seats.copa_order(Suit::Swords),
            vec![Suit::Swords, Suit::Cups, Suit::Locks]
        );
        // Crowns unowned: start at the next owned suit, Locks.
        assert_eq!(
            seats.copa_order(Suit::Crowns),
            vec![Suit::Locks, Suit::Swords, Suit::Cups]
        );
        assert_eq!(
            seats.copa_order(Suit::Fruit),
            vec![Suit::Swords, Suit::Cups, Suit::Locks]
        );
    }

    #[test]
    fn seat_sets_are_checked() {
        assert_eq!(Seats::new(&[Suit::Cups]), Err(EngineError::SeatCount { seated: 1 }));
        assert_eq!(
            Seats::new(&[Suit::Cups, Suit::Cups]),
            Err(EngineError::DuplicateSeat { suit: Suit::Cups })
        );
        assert!(Seats::new(&Suit::ALL).is_ok());
    }

    #[test]
    fn decks_must_be_permutations() {
        let deck = crate::cards::ordered_deck(10);
        assert!(parse_deck(&deck).is_ok());
        assert!(parse_deck(&deck[1..]).is_err());
        let mut dup = deck.clone();
        dup[1] = dup[0];
        assert!(parse_deck(&dup).is_err());
    }
}
