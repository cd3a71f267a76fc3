//! Settling a side bet on the facts of the full deal-out (docs/prima-carta.md).

use super::kind::{BetError, BetKind, Selection};
use super::pay_table::{PairTieRule, PayTable};
use crate::cards::{Card, Rank, Suit};
use crate::games::prima_carta::DealFacts;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "result")]
pub enum BetResult {
    /// Returns the stake plus `pays` × stake.
    Won {
        pays: Decimal,
    },
    Lost,
    /// Returns the stake.
    Pushed,
}

/// The facts that decided a bet, kept with its settlement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "fact")]
pub enum DecidedBy {
    /// Prima: the first card dealt.
    FirstCard { card: Card },
    /// Escúcha: the first suit to complete and its foundation card.
    FirstToComplete { suit: Suit, foundation: Card },
    /// Máximo: the highest foundation rank and the suits that hold it.
    HighestFoundation { rank: Rank, suits: Vec<Suit> },
    /// Conto, Cartas, Começo: N.
    FirstPassCount { n: u8 },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    #[serde(flatten)]
    pub result: BetResult,
    pub decided_by: DecidedBy,
}

fn won_or_lost(won: bool, pays: Decimal) -> BetResult {
    if won {
        BetResult::Won { pays }
    } else {
        BetResult::Lost
    }
}

/// Settles one bet. Fails only when the selection does not fit the kind or the
/// pay table (a Cartas number it does not offer).
pub fn settle(
    kind: BetKind,
    selection: &Selection,
    pay_table: &PayTable,
    facts: &DealFacts,
) -> Result<Settlement, BetError> {
    kind.check_selection(selection, pay_table)?;
    let t = pay_table.spec();
    let n = facts.first_pass_count;
    let by_count = DecidedBy::FirstPassCount { n };
    let settlement = match (kind, *selection) {
        (BetKind::Prima, Selection::Suit(suit)) => {
            let card = facts.first_card;
            let pays = if card.rank() == Rank::ACE {
                t.prima.ace_pays
            } else {
                t.prima.pays
            };
            Settlement {
                result: won_or_lost(card.suit() == suit, pays),
                decided_by: DecidedBy::FirstCard { card },
            }
        }
        (BetKind::Escucha, Selection::Suit(suit)) => {
            let winner = facts.first_to_complete;
            let foundation = facts.foundations[winner.index()];
            let pays = if foundation.rank() == Rank::ACE {
                t.escucha.ace_pays
            } else {
                t.escucha.pays
            };
            Settlement {
                result: won_or_lost(winner == suit, pays),
                decided_by: DecidedBy::FirstToComplete {
                    suit: winner,
                    foundation,
                },
            }
        }
        (BetKind::Maximo, Selection::Suit(suit)) => {
            let rank = facts.foundations.iter().map(|c| c.rank()).max().unwrap_or(Rank::ACE);
            let suits: Vec<Suit> = Suit::ALL
                .into_iter()
                .filter(|s| facts.foundations[s.index()].rank() == rank)
                .collect();
            let result = if !suits.contains(&suit) {
                BetResult::Lost
            } else if suits.len() == 2 {
                match t.maximo.pair_tie {
                    PairTieRule::Lose => BetResult::Lost,
                    PairTieRule::Push => BetResult::Pushed,
                }
            } else {
                BetResult::Won { pays: t.maximo.pays }
            };
            Settlement {
                result,
                decided_by: DecidedBy::HighestFoundation { rank, suits },
            }
        }
        (BetKind::ContoAlto, Selection::None) => Settlement {
            result: won_or_lost(n >= 17, t.conto_alto),
            decided_by: by_count,
        },
        (BetKind::ContoBajo, Selection::None) => Settlement {
            result: won_or_lost(n == 10 || n == 11, t.conto_bajo),
            decided_by: by_count,
        },
        (BetKind::ContoMedio, Selection::None) => Settlement {
            result: won_or_lost(n == 14 || n == 15, t.conto_medio),
            decided_by: by_count,
        },
        (BetKind::Cartas, Selection::Number(number)) => {
            let pays = pay_table
                .cartas_pays(number)
                .ok_or(BetError::NumberNotOffered(number as i64))?;
            Settlement {
                result: won_or_lost(n == number, pays),
                decided_by: by_count,
            }
        }
        (BetKind::Comeco, Selection::None) => Settlement {
            result: match pay_table.comeco_pays(n) {
                Some(pays) => BetResult::Won { pays },
                None => BetResult::Lost,
            },
            decided_by: by_count,
        },
        (kind, _) => {
            return Err(BetError::WrongSelection {
                kind,
                needed: kind.selection_needed(),
            })
        }
    };
    Ok(settlement)
}

/// The amount handed back for a stake: a win returns stake + stake × pays, with
/// the winnings (stake × pays) rounded to cents toward zero, i.e. toward the
/// house (a 1.25 stake at 5.4:1 wins 6.75, returns 8.00; 0.05 at 0.5:1 wins 0.02);
/// a push returns the stake; a loss returns nothing. Stakes are whole cents.
pub fn returned_amount(stake: Decimal, result: &BetResult) -> Decimal {
    match result {
        BetResult::Won { pays } => stake + (stake * pays).round_dp_with_strategy(2, RoundingStrategy::ToZero),
        BetResult::Pushed => stake,
        BetResult::Lost => Decimal::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_round_toward_the_house() {
        let won = BetResult::Won {
            pays: Decimal::new(54, 1),
        };
        assert_eq!(returned_amount(Decimal::new(125, 2), &won), Decimal::new(800, 2));
        assert_eq!(
            returned_amount(
                Decimal::new(5, 2),
                &BetResult::Won {
                    pays: Decimal::new(5, 1)
                }
            ),
            Decimal::new(7, 2)
        );
        assert_eq!(
            returned_amount(
                Decimal::new(333, 2),
                &BetResult::Won {
                    pays: Decimal::new(4, 0)
                }
            ),
            Decimal::new(1665, 2)
        );
        assert_eq!(
            returned_amount(Decimal::new(1000, 2), &BetResult::Pushed),
            Decimal::new(1000, 2)
        );
        assert_eq!(returned_amount(Decimal::new(1000, 2), &BetResult::Lost), Decimal::ZERO);
    }
}
