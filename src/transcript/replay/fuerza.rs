//! A transcript's Fuerza bets with the house (docs/confidence-bets.md): each quote drawn again
//! from the round's public cards, id and copa decisions, bit for bit; the price from its
//! counts; the bet settled on the replayed winner; and the transfers it implies.

use std::collections::HashMap;

use super::transfers::{leg, Account, Leg, ESCROW, HOUSE_BANKROLL};
use super::{known_player, minor, suit, PrimaPlay, RoundTranscript};
use crate::cards::Suit;
use crate::games::prima_carta::fuerza::{self as engine, price_text, Position, Quote};
use crate::games::prima_carta::{first_pass, Variant};
use crate::tables::config::PrimaCartaConfig;

/// The legs every Fuerza bet implies, after drawing each bet's quote again and settling it on
/// the round as replayed.
pub(super) fn fuerza_legs<'t>(
    t: &'t RoundTranscript,
    config: &PrimaCartaConfig,
    played: &PrimaPlay<'t>,
    deck: &[crate::cards::Card],
    voided: bool,
) -> Result<(Vec<Leg<'t>>, String), String> {
    if t.fuerza_bets.is_empty() {
        return Ok((Vec::new(), "no Fuerza bets".into()));
    }
    if config.rules().variant != Variant::Jasper {
        return Err("the house quotes a Fuerza only at Jasper tables".into());
    }
    if voided {
        return Err("a voided round dealt no card, so nothing was quoted".into());
    }
    let winner = played
        .game
        .as_ref()
        .and_then(|g| g.result())
        .map(|r| r.winner)
        .ok_or("the round does not finish")?;
    let first = first_pass(deck).map_err(|e| e.to_string())?;
    let position = Position::after(&first).ok_or("a suit completed in the first pass: no copa, no Fuerza")?;
    let seated: Vec<Suit> = played.seats.iter().map(|(s, _)| *s).collect();
    let made: Vec<(Suit, bool)> = t
        .decisions
        .iter()
        .map(|d| Ok((suit(&d.suit)?, d.pay)))
        .collect::<Result<_, String>>()?;
    let mut drawn: HashMap<u32, Vec<Quote>> = HashMap::new();
    let mut legs = Vec::with_capacity(t.fuerza_bets.len() * 3);
    let (mut won, mut lost) = (0, 0);
    for (i, bet) in t.fuerza_bets.iter().enumerate() {
        let at = |why: String| format!("Fuerza bet {i}: {why}");
        known_player(t, &bet.player).map_err(at)?;
        let backed = suit(&bet.suit).map_err(at)?;
        let stake = match minor(&bet.stake).map_err(at)? {
            s if s > 0 => s,
            _ => return Err(at(format!("stake {} is not a positive amount", bet.stake))),
        };
        let q = &bet.quote;
        if q.algorithm != engine::ALGORITHM || q.samples != engine::QUOTE_SAMPLES {
            return Err(at(format!(
                "the quote is {} over {} draws; djego quotes {} over {}",
                q.algorithm,
                q.samples,
                engine::ALGORITHM,
                engine::QUOTE_SAMPLES
            )));
        }
        let k = q.decisions as usize;
        if k == 0 || k > made.len() {
            return Err(at(format!(
                "quoted after {k} copa decisions; the round has {}",
                made.len()
            )));
        }
        let before = &made[..k];
        let paid: Vec<Suit> = before.iter().filter(|d| d.1).map(|d| d.0).collect();
        let undecided: Vec<Suit> = seated
            .iter()
            .copied()
            .filter(|s| !before.iter().any(|d| d.0 == *s))
            .collect();
        if paid.len() + undecided.len() < 2 {
            return Err(at(format!(
                "after {k} decisions the copa was over with one player left"
            )));
        }
        if !paid.contains(&backed) {
            return Err(at(format!("{backed} had not paid the copa after {k} decisions")));
        }
        let quotes = drawn.entry(q.decisions).or_insert_with(|| {
            engine::quotes(
                &position,
                &paid,
                &undecided,
                engine::QUOTE_SAMPLES,
                engine::quote_seed(&t.round_id, k),
            )
        });
        let quote = quotes
            .iter()
            .find(|x| x.suit == backed)
            .ok_or_else(|| at(format!("{backed} has no quote")))?;
        if (quote.wins, quote.wins_if_all_pay) != (q.wins, q.wins_if_all_pay) {
            return Err(at(format!(
                "the quote counts {} and {} wins; drawn again they are {} and {}",
                q.wins, q.wins_if_all_pay, quote.wins, quote.wins_if_all_pay
            )));
        }
        let price = quote
            .price_hundredths
            .ok_or_else(|| at(format!("the house offers no price on {backed} at this quote")))?;
        if q.price != price_text(price) {
            return Err(at(format!(
                "the price is {}; the quote gives {}",
                q.price,
                price_text(price)
            )));
        }
        let w = Account::Wallet(bet.player.as_ref());
        legs.push(leg("bet_stake", w, ESCROW, stake));
        let (status, returned) = if winner == backed {
            won += 1;
            let returned = engine::returned_minor(stake, price);
            legs.push(leg("bet_returned", ESCROW, w, stake));
            if returned > stake {
                legs.push(leg("bet_payout", HOUSE_BANKROLL, w, returned - stake));
            }
            ("won", returned)
        } else {
            lost += 1;
            legs.push(leg("bet_collected", ESCROW, HOUSE_BANKROLL, stake));
            ("lost", 0)
        };
        if bet.status != status {
            return Err(at(format!("status {} but {winner} won: {status}", bet.status)));
        }
        if minor(&bet.returned).map_err(at)? != returned {
            return Err(at(format!(
                "returned {} but the price pays {}",
                bet.returned,
                crate::domain::format_minor(returned)
            )));
        }
    }
    Ok((
        legs,
        format!(
            "{} Fuerza bets drawn again and settled ({won} won, {lost} lost)",
            t.fuerza_bets.len()
        ),
    ))
}
