//! A transcript's confidence bets between players (docs/confidence-bets.md): each one's
//! parties checked against the rules' sides, settled again from the replayed round by the
//! engine's terms, and turned into the transfers it implies.

use super::transfers::{leg, Account, Leg, ESCROW, HOUSE_REVENUE};
use super::{known_player, minor, PrimaPlay, RoundTranscript};
use crate::domain::format_minor;
use crate::games::prima_carta::confidence::{self as rules, Outcome, Settlement, Side, Terms};
use crate::tables::config::PrimaCartaConfig;

fn side(text: &str) -> Result<Side, String> {
    match text {
        "for" => Ok(Side::For),
        "against" => Ok(Side::Against),
        other => Err(format!("offerer_side {other:?} is not for or against")),
    }
}

fn positive(text: &str, what: &str) -> Result<i64, String> {
    match minor(text)? {
        m if m > 0 => Ok(m),
        _ => Err(format!("{what} {text} is not a positive amount")),
    }
}

/// The legs every confidence bet implies, after checking each bet's parties, status, payout
/// and commission against the round as replayed.
pub(super) fn confidence_legs<'t>(
    t: &'t RoundTranscript,
    config: &PrimaCartaConfig,
    played: &PrimaPlay<'t>,
    voided: bool,
) -> Result<(Vec<Leg<'t>>, String), String> {
    let (outcome, winnings) = match (&played.game, &played.deal_out) {
        (Some(game), Some(deal_out)) => {
            let result = game.result().ok_or("the round does not finish")?;
            let facts = &deal_out.facts;
            let carried = minor(t.carried_cobre_in.as_deref().unwrap_or("0.00"))?;
            let outcome = Outcome {
                first_card: facts.first_card,
                winner: result.winner,
                first_to_complete: facts.first_to_complete,
                first_pass_count: facts.first_pass_count,
            };
            (
                Some(outcome),
                result.winner_takes_units as i64 * config.unit.minor() + carried,
            )
        }
        _ => (None, 0),
    };
    let owner = |suit| played.seats.iter().find(|(s, _)| *s == suit).map(|(_, p)| *p);
    let decision = |suit: crate::cards::Suit| t.decisions.iter().find(|d| d.suit == suit.name()).map(|d| d.pay);
    let commission = config.confidence_commission();
    let mut legs = Vec::new();
    // A Seguro's backed player stakes nothing, and a share can round to nothing: no leg of 0.
    fn push<'t>(legs: &mut Vec<Leg<'t>>, kind: &'static str, from: Account<'t>, to: Account<'t>, amount: i64) {
        if amount > 0 {
            legs.push(leg(kind, from, to, amount));
        }
    }
    let (mut taken, mut settled) = (0, 0);
    for (i, bet) in t.confidence_bets.iter().enumerate() {
        let at = |why: String| format!("confidence bet {i}: {why}");
        let terms: Terms =
            serde_json::from_str(bet.terms.get()).map_err(|e| at(format!("the terms do not read: {e}")))?;
        terms.check().map_err(|e| at(e.to_string()))?;
        let seguro = matches!(terms, Terms::Seguro { .. });
        known_player(t, &bet.offered_by).map_err(at)?;
        let offerer_side = side(&bet.offerer_side).map_err(at)?;
        let for_stake = positive(&bet.for_stake, "for_stake").map_err(at)?;
        let against_stake = if seguro {
            match minor(&bet.against_stake)? {
                0 => 0,
                _ => return Err(at("a Seguro's backed player stakes nothing".into())),
            }
        } else {
            positive(&bet.against_stake, "against_stake").map_err(at)?
        };
        if seguro && offerer_side != Side::For {
            return Err(at("a Seguro is offered by its backer".into()));
        }
        let stake_of = |s: Side| if s == Side::For { for_stake } else { against_stake };
        let offerer = Account::Wallet(&bet.offered_by);
        push(&mut legs, "confidence_stake", offerer, ESCROW, stake_of(offerer_side));
        let status = bet.status.as_ref();
        let Some(taker) = bet.accepted_by.as_deref() else {
            if !["withdrawn", "declined", "expired"].contains(&status) {
                return Err(at(format!("an offer nobody took cannot be {status}")));
            }
            if minor(&bet.paid)? != 0 || minor(&bet.commission)? != 0 {
                return Err(at("an offer nobody took pays nothing".into()));
            }
            push(&mut legs, "confidence_refund", ESCROW, offerer, stake_of(offerer_side));
            continue;
        };
        taken += 1;
        known_player(t, taker).map_err(at)?;
        if taker == bet.offered_by.as_ref() {
            return Err(at("the offerer took their own offer".into()));
        }
        let holder_name = |s: Side| {
            if s == offerer_side {
                bet.offered_by.as_ref()
            } else {
                taker
            }
        };
        let holder = |s: Side| Account::Wallet(holder_name(s));
        push(
            &mut legs,
            "confidence_stake",
            holder(offerer_side.other()),
            ESCROW,
            stake_of(offerer_side.other()),
        );
        if let Some(suit) = terms.centrale() {
            if owner(suit) != Some(holder_name(Side::Against)) {
                return Err(at(format!(
                    "the side against a {} is {suit}'s seated player",
                    terms.kind()
                )));
            }
            if matches!(terms, Terms::Fuerza { .. }) && decision(suit) != Some(true) {
                return Err(at(format!(
                    "a Fuerza is made only with a player who paid the copa; {suit} did not"
                )));
            }
        }
        let refund_both = |legs: &mut Vec<Leg<'t>>| {
            for s in [Side::For, Side::Against] {
                if stake_of(s) > 0 {
                    legs.push(leg("confidence_refund", ESCROW, holder(s), stake_of(s)));
                }
            }
        };
        let settlement = match (&outcome, terms) {
            (None, _) if voided => {
                refund_both(&mut legs);
                None
            }
            (None, _) => return Err("the round does not finish".into()),
            (Some(o), Terms::Seguro { suit, share_bp }) => {
                let backer = holder_name(Side::For);
                let backer_paid = played
                    .seats
                    .iter()
                    .find(|(_, p)| *p == backer)
                    .is_some_and(|(s, _)| *s != suit && decision(*s) == Some(true));
                if !backer_paid {
                    return Err(at("a Seguro's backer is a seated player who paid their own copa".into()));
                }
                match decision(suit) {
                    Some(true) => {
                        push(
                            &mut legs,
                            "seguro_contribution",
                            ESCROW,
                            holder(Side::Against),
                            for_stake,
                        );
                        Some(if o.winner == suit {
                            rules::seguro_share(winnings, share_bp, for_stake, commission)
                        } else {
                            Settlement::Won {
                                winner: Side::Against,
                                paid_minor: 0,
                                commission_minor: 0,
                            }
                        })
                    }
                    // Folded, or never asked: the contribution goes back.
                    _ => Some(Settlement::Void),
                }
            }
            (Some(o), _) => Some(rules::settle(terms.verdict(o), for_stake, against_stake, commission)),
        };
        let (expected_status, paid_minor, commission_minor) = match settlement {
            None => ("refunded", 0, 0),
            Some(Settlement::Void) => {
                refund_both(&mut legs);
                ("void", 0, 0)
            }
            Some(Settlement::Won {
                winner,
                paid_minor,
                commission_minor,
            }) => {
                if seguro {
                    push(
                        &mut legs,
                        "seguro_share",
                        holder(Side::Against),
                        ESCROW,
                        paid_minor + commission_minor,
                    );
                }
                push(&mut legs, "confidence_payout", ESCROW, holder(winner), paid_minor);
                push(
                    &mut legs,
                    "confidence_commission",
                    ESCROW,
                    HOUSE_REVENUE,
                    commission_minor,
                );
                settled += 1;
                ("settled", paid_minor, commission_minor)
            }
        };
        if status != expected_status {
            return Err(at(format!("it is {status}; the round makes it {expected_status}")));
        }
        let (given_paid, given_commission) = (minor(&bet.paid)?, minor(&bet.commission)?);
        if (given_paid, given_commission) != (paid_minor, commission_minor) {
            return Err(at(format!(
                "it shows {} paid and {} commission; the terms give {} and {}",
                format_minor(given_paid),
                format_minor(given_commission),
                format_minor(paid_minor),
                format_minor(commission_minor)
            )));
        }
    }
    Ok((
        legs,
        format!(
            "{} confidence bet(s): {taken} taken, {settled} settled as the terms give",
            t.confidence_bets.len()
        ),
    ))
}
