//! Confidence bets between players at a Prima Carta table (docs/confidence-bets.md): what a
//! bet's terms say, when they may be offered, who may take each side, and how the round's
//! outcome settles them, the house's commission included. Pure: the service stores offers and
//! moves the money; the verifiers settle a transcript's bets through the same functions.

use serde::{Deserialize, Serialize};

use crate::cards::{Card, Rank, Suit};

/// Fewest and most cards a first pass can leave in the five stacks (N).
pub const FIRST_PASS_COUNT_RANGE: (u8, u8) = (10, 50);
/// Most basis points a table may take as commission: a quarter of the winner's gain.
pub const MAX_COMMISSION_BP: u32 = 2_500;

/// Every kind's name, as the API and the transcript write it.
pub const KINDS: [&str; 6] = [
    "prima",
    "fuerza",
    "seguro",
    "wins",
    "first_to_complete",
    "first_pass_count",
];

/// What a confidence bet is on. The side *for* wins when the proposition comes true, the side
/// *against* when it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Terms {
    /// Prima, before the deal, between a backer and the seated player who owns `suit`: the first
    /// card dealt is of `suit`. The backer is *for*, the seated player *against*. With
    /// `ace_voids`, a first card that is `suit`'s 1 voids the bet (both stakes back), the
    /// exclusion players traditionally agree because a 1 as the Prima pays less at the house.
    Prima { suit: Suit, ace_voids: bool },
    /// Fuerza, after the first pass, between a backer and the seated player who owns `suit` and
    /// has paid the copa: `suit` wins the main game. The backer is *for*, the seated player
    /// *against* (the seated player's insurance: they collect if they lose the pot).
    Fuerza { suit: Suit },
    /// Seguro, during the copa, between two seated players: the backer, who has paid their own
    /// copa, pays part of the copa of `suit`'s player, whose decision is still to come, for
    /// `share_bp` of what that player wins (traditionally half, 5000). The backer is *for* and
    /// stakes the contribution; the backed player is *against* and stakes nothing now: the
    /// contribution reaches their wallet when they pay the copa, goes back if they fold, and
    /// they pay the share out of the pot if they win.
    Seguro { suit: Suit, share_bp: u32 },
    /// Before the deal, any two players: `suit` wins the main game.
    Wins { suit: Suit },
    /// Before the deal, any two players: `suit` is the first to complete its ten cards in the
    /// full deal-out, owned or not, folded or not (as the house's Escúcha).
    FirstToComplete { suit: Suit },
    /// Before the deal, any two players: the first pass leaves between `min` and `max` cards
    /// (inclusive) in the five stacks.
    FirstPassCount { min: u8, max: u8 },
}

/// When a bet may be offered and accepted; an offer not accepted expires when its window ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// While the round takes seats and side bets; ends when betting closes.
    BeforeDeal,
    /// While the copa is being decided; ends when the copa is over.
    Copa,
}

/// A side of a bet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    For,
    Against,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::For => Side::Against,
            Side::Against => Side::For,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Side::For => "for",
            Side::Against => "against",
        }
    }
}

/// Why terms cannot be offered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TermsError {
    #[error("first_pass_count needs {lo} <= min <= max <= {hi}", lo = FIRST_PASS_COUNT_RANGE.0, hi = FIRST_PASS_COUNT_RANGE.1)]
    CountRange,
    #[error("the range covers every possible count: the bet could not lose")]
    CertainCount,
    #[error("a Seguro's share of the winnings is 1 to 10000 basis points")]
    ShareRange,
}

impl Terms {
    pub fn window(&self) -> Window {
        match self {
            Terms::Fuerza { .. } | Terms::Seguro { .. } => Window::Copa,
            _ => Window::BeforeDeal,
        }
    }

    /// The suit whose seated player must lay the bet (take the side *against*): Prima's and
    /// Fuerza's centrale, Seguro's backed player. Other bets may be between any two players.
    pub fn centrale(&self) -> Option<Suit> {
        match *self {
            Terms::Prima { suit, .. } | Terms::Fuerza { suit } | Terms::Seguro { suit, .. } => Some(suit),
            _ => None,
        }
    }

    /// The kind's name, as the API and the transcript write it.
    pub fn kind(&self) -> &'static str {
        match self {
            Terms::Prima { .. } => "prima",
            Terms::Fuerza { .. } => "fuerza",
            Terms::Seguro { .. } => "seguro",
            Terms::Wins { .. } => "wins",
            Terms::FirstToComplete { .. } => "first_to_complete",
            Terms::FirstPassCount { .. } => "first_pass_count",
        }
    }

    pub fn check(&self) -> Result<(), TermsError> {
        if let Terms::Seguro { share_bp, .. } = *self {
            if !(1..=10_000).contains(&share_bp) {
                return Err(TermsError::ShareRange);
            }
        }
        if let Terms::FirstPassCount { min, max } = *self {
            let (lo, hi) = FIRST_PASS_COUNT_RANGE;
            if !(lo <= min && min <= max && max <= hi) {
                return Err(TermsError::CountRange);
            }
            if min == lo && max == hi {
                return Err(TermsError::CertainCount);
            }
        }
        Ok(())
    }

    /// Which side the round's outcome makes win, or `None` when the terms void the bet.
    pub fn verdict(&self, outcome: &Outcome) -> Option<Side> {
        let holds = match *self {
            Terms::Prima { suit, ace_voids } => {
                let first = outcome.first_card;
                if ace_voids && first.suit() == suit && first.rank() == Rank::ACE {
                    return None;
                }
                first.suit() == suit
            }
            Terms::Fuerza { suit } | Terms::Seguro { suit, .. } | Terms::Wins { suit } => outcome.winner == suit,
            Terms::FirstToComplete { suit } => outcome.first_to_complete == suit,
            Terms::FirstPassCount { min, max } => (min..=max).contains(&outcome.first_pass_count),
        };
        Some(if holds { Side::For } else { Side::Against })
    }

    /// One line for people: "Crowns is the Prima (a Prima on its 1 is void)".
    pub fn describe(&self) -> String {
        match *self {
            Terms::Prima { suit, ace_voids } => {
                format!("{suit} is the Prima{}", if ace_voids { " (void on its 1)" } else { "" })
            }
            Terms::Fuerza { suit } => format!("{suit} wins the pot (Fuerza)"),
            Terms::Seguro { suit, share_bp } => {
                format!(
                    "Seguro: part of {suit}'s copa for {}% of its winnings",
                    share_bp as f64 / 100.0
                )
            }
            Terms::Wins { suit } => format!("{suit} wins the pot"),
            Terms::FirstToComplete { suit } => format!("{suit} is the first suit to complete"),
            Terms::FirstPassCount { min, max } if min == max => format!("the first pass leaves {min} cards"),
            Terms::FirstPassCount { min, max } => format!("the first pass leaves {min} to {max} cards"),
        }
    }
}

/// What of a round settles its confidence bets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub first_card: Card,
    /// The main game's winner.
    pub winner: Suit,
    pub first_to_complete: Suit,
    pub first_pass_count: u8,
}

/// The table's commission on a winner's gain: `bp` basis points, at most `cap_minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commission {
    pub bp: u32,
    pub cap_minor: i64,
}

impl Commission {
    /// On a gain of `gain_minor`: rounded down to the cent, never above the cap.
    pub fn on(self, gain_minor: i64) -> i64 {
        debug_assert!(gain_minor >= 0 && self.bp <= MAX_COMMISSION_BP && self.cap_minor >= 0);
        (gain_minor.saturating_mul(self.bp as i64) / 10_000).min(self.cap_minor)
    }
}

/// The money of a settled bet, in minor units. Invariant: what leaves escrow equals what both
/// sides put in (`paid + commission` or the two refunds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settlement {
    /// `winner` receives both stakes less the commission on the loser's stake.
    Won {
        winner: Side,
        paid_minor: i64,
        commission_minor: i64,
    },
    /// Both stakes go back.
    Void,
}

/// Settles accepted stakes (`for_minor` on the proposition, `against_minor` against it).
pub fn settle(verdict: Option<Side>, for_minor: i64, against_minor: i64, commission: Commission) -> Settlement {
    match verdict {
        None => Settlement::Void,
        Some(winner) => {
            let gain = match winner {
                Side::For => against_minor,
                Side::Against => for_minor,
            };
            let commission_minor = commission.on(gain);
            let paid_minor = for_minor + against_minor - commission_minor;
            debug_assert!(paid_minor >= for_minor.min(against_minor));
            Settlement::Won {
                winner,
                paid_minor,
                commission_minor,
            }
        }
    }
}

/// A Seguro won by the backed player: the share of `winnings_minor` (what the pot paid them) due
/// to the backer, rounded down to the cent, and the commission on the backer's gain over their
/// contribution (none when the share does not exceed it).
pub fn seguro_share(winnings_minor: i64, share_bp: u32, contribution_minor: i64, commission: Commission) -> Settlement {
    let share = winnings_minor.saturating_mul(share_bp as i64) / 10_000;
    let commission_minor = commission.on((share - contribution_minor).max(0));
    Settlement::Won {
        winner: Side::For,
        paid_minor: share - commission_minor,
        commission_minor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn card(suit: Suit, rank: u8) -> Card {
        Card::new(suit, Rank::new(rank).unwrap())
    }

    fn outcome() -> Outcome {
        Outcome {
            first_card: card(Suit::Fruit, 1),
            winner: Suit::Locks,
            first_to_complete: Suit::Cups,
            first_pass_count: 14,
        }
    }

    #[test]
    fn each_kind_settles_on_its_fact() {
        let o = outcome();
        assert_eq!(
            Terms::Prima {
                suit: Suit::Fruit,
                ace_voids: false
            }
            .verdict(&o),
            Some(Side::For)
        );
        assert_eq!(
            Terms::Prima {
                suit: Suit::Fruit,
                ace_voids: true
            }
            .verdict(&o),
            None
        );
        assert_eq!(
            Terms::Prima {
                suit: Suit::Crowns,
                ace_voids: true
            }
            .verdict(&o),
            Some(Side::Against)
        );
        assert_eq!(Terms::Fuerza { suit: Suit::Locks }.verdict(&o), Some(Side::For));
        assert_eq!(Terms::Wins { suit: Suit::Swords }.verdict(&o), Some(Side::Against));
        assert_eq!(Terms::FirstToComplete { suit: Suit::Cups }.verdict(&o), Some(Side::For));
        assert_eq!(Terms::FirstPassCount { min: 14, max: 15 }.verdict(&o), Some(Side::For));
        assert_eq!(
            Terms::FirstPassCount { min: 15, max: 15 }.verdict(&o),
            Some(Side::Against)
        );
    }

    #[test]
    fn every_kind_is_named_once() {
        let all = [
            Terms::Prima {
                suit: Suit::Cups,
                ace_voids: false,
            },
            Terms::Fuerza { suit: Suit::Cups },
            Terms::Seguro {
                suit: Suit::Cups,
                share_bp: 5000,
            },
            Terms::Wins { suit: Suit::Cups },
            Terms::FirstToComplete { suit: Suit::Cups },
            Terms::FirstPassCount { min: 12, max: 13 },
        ];
        assert_eq!(all.map(|t| t.kind()), KINDS);
        for t in all {
            let json = serde_json::to_value(t).unwrap();
            assert_eq!(json["kind"], t.kind());
            assert_eq!(serde_json::from_value::<Terms>(json).unwrap(), t);
        }
    }

    #[test]
    fn a_seguro_pays_its_share_of_the_winnings_less_the_commission_on_the_gain() {
        let c = Commission {
            bp: 1000,
            cap_minor: 1_000,
        };
        // Half of 13.00 is 6.50; the backer put in 2.00, so 10% of 4.50 is the commission.
        assert_eq!(
            seguro_share(1_300, 5_000, 200, c),
            Settlement::Won {
                winner: Side::For,
                paid_minor: 605,
                commission_minor: 45
            }
        );
        // A share no larger than the contribution pays no commission.
        assert_eq!(
            seguro_share(300, 5_000, 200, c),
            Settlement::Won {
                winner: Side::For,
                paid_minor: 150,
                commission_minor: 0
            }
        );
        assert_eq!(
            Terms::Seguro {
                suit: Suit::Cups,
                share_bp: 0
            }
            .check(),
            Err(TermsError::ShareRange)
        );
        assert_eq!(
            Terms::Seguro {
                suit: Suit::Cups,
                share_bp: 10_001
            }
            .check(),
            Err(TermsError::ShareRange)
        );
        assert_eq!(
            Terms::Seguro {
                suit: Suit::Cups,
                share_bp: 10_000
            }
            .check(),
            Ok(())
        );
    }

    #[test]
    fn count_ranges_are_checked() {
        assert_eq!(
            Terms::FirstPassCount { min: 9, max: 12 }.check(),
            Err(TermsError::CountRange)
        );
        assert_eq!(
            Terms::FirstPassCount { min: 13, max: 12 }.check(),
            Err(TermsError::CountRange)
        );
        assert_eq!(
            Terms::FirstPassCount { min: 10, max: 51 }.check(),
            Err(TermsError::CountRange)
        );
        assert_eq!(
            Terms::FirstPassCount { min: 10, max: 50 }.check(),
            Err(TermsError::CertainCount)
        );
        assert_eq!(Terms::FirstPassCount { min: 10, max: 49 }.check(), Ok(()));
    }

    #[test]
    fn commission_is_rounded_down_and_capped() {
        let c = Commission {
            bp: 500,
            cap_minor: 1_000,
        };
        assert_eq!(c.on(399), 19);
        assert_eq!(c.on(40_000), 1_000);
        assert_eq!(
            Commission {
                bp: 0,
                cap_minor: 1_000
            }
            .on(40_000),
            0
        );
        assert_eq!(
            settle(Some(Side::Against), 100, 400, c),
            Settlement::Won {
                winner: Side::Against,
                paid_minor: 495,
                commission_minor: 5
            }
        );
    }

    proptest! {
        #[test]
        fn money_is_conserved(
            for_minor in 1i64..10_000_000,
            against_minor in 1i64..10_000_000,
            bp in 0u32..=MAX_COMMISSION_BP,
            cap_minor in 0i64..1_000_000,
            verdict in prop_oneof![Just(None), Just(Some(Side::For)), Just(Some(Side::Against))],
        ) {
            let c = Commission { bp, cap_minor };
            match settle(verdict, for_minor, against_minor, c) {
                Settlement::Void => prop_assert_eq!(verdict, None),
                Settlement::Won { winner, paid_minor, commission_minor } => {
                    prop_assert_eq!(Some(winner), verdict);
                    prop_assert_eq!(paid_minor + commission_minor, for_minor + against_minor);
                    let (own, gain) = match winner {
                        Side::For => (for_minor, against_minor),
                        Side::Against => (against_minor, for_minor),
                    };
                    // The winner never gets less than their own stake back; the house takes at
                    // most its rate of the gain and never more than the cap.
                    prop_assert!(paid_minor >= own);
                    prop_assert!(commission_minor <= cap_minor);
                    prop_assert!(commission_minor * 10_000 <= gain * bp as i64);
                    prop_assert!(commission_minor >= 0);
                }
            }
        }

        #[test]
        fn exactly_one_side_wins_unless_void(
            suit in 0usize..5, first in 0usize..5, rank in 1u8..=10, winner in 0usize..5,
            complete in 0usize..5, n in 10u8..=50, min in 10u8..=50, span in 0u8..40,
        ) {
            let o = Outcome {
                first_card: card(Suit::ALL[first], rank),
                winner: Suit::ALL[winner],
                first_to_complete: Suit::ALL[complete],
                first_pass_count: n,
            };
            let s = Suit::ALL[suit];
            let max = min.saturating_add(span).min(50);
            for terms in [
                Terms::Prima { suit: s, ace_voids: false },
                Terms::Fuerza { suit: s },
                Terms::Wins { suit: s },
                Terms::FirstToComplete { suit: s },
                Terms::FirstPassCount { min, max },
            ] {
                prop_assert!(terms.verdict(&o).is_some());
            }
            let voided = Terms::Prima { suit: s, ace_voids: true }.verdict(&o).is_none();
            prop_assert_eq!(voided, first == suit && rank == 1);
        }
    }
}
