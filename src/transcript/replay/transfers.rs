//! The transfers a round implies, compared with the transcript's.

use std::borrow::Cow;
use std::fmt;

use super::bet_returns::BetMoney;
use super::{minor, Mismatch, PrimaPlay, RoundTranscript};
use crate::bets::BetResult;
use crate::cards::Suit;
use crate::domain::format_minor;
use crate::games::prima_carta::{CobreRule, RoundProgress};
use crate::tables::config::PrimaCartaConfig;

/// An account as a transcript names it: a player's wallet by pseudonym, or
/// a house or round account by name ("pot", "house:revenue", ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Account<'a> {
    Wallet(&'a str),
    Named(&'a str),
}

impl<'a> Account<'a> {
    fn parse(name: &'a str) -> Account<'a> {
        match name.strip_prefix("wallet:") {
            Some(pseudonym) => Account::Wallet(pseudonym),
            None => Account::Named(name),
        }
    }
}

impl fmt::Display for Account<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Account::Wallet(p) => write!(f, "wallet:{p}"),
            Account::Named(name) => f.write_str(name),
        }
    }
}

pub(super) const POT: Account = Account::Named("pot");
pub(super) const ESCROW: Account = Account::Named("escrow");
pub(super) const COBRE: Account = Account::Named("cobre");
pub(super) const HOUSE_REVENUE: Account = Account::Named("house:revenue");
pub(super) const HOUSE_BANKROLL: Account = Account::Named("house:bankroll");
pub(super) const DEALER_TIPS: Account = Account::Named("house:tips");

/// One transfer as compared, borrowed from the transcript or the replay;
/// ordered by amount first, which settles most comparisons without a string.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Leg<'a> {
    amount_minor: i64,
    kind: &'a str,
    from: Account<'a>,
    to: Account<'a>,
}

pub(super) fn leg<'a>(kind: &'a str, from: Account<'a>, to: Account<'a>, amount_minor: i64) -> Leg<'a> {
    Leg {
        kind,
        from,
        to,
        amount_minor,
    }
}

impl fmt::Display for Leg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} → {} {}",
            self.kind,
            self.from,
            self.to,
            format_minor(self.amount_minor)
        )
    }
}

pub(super) fn prima_transfers<'a>(
    t: &'a RoundTranscript,
    config: &PrimaCartaConfig,
    played: &PrimaPlay,
    bets: &[BetMoney],
    confidence: Vec<Leg<'a>>,
    voided: bool,
) -> Result<Cow<'static, str>, Mismatch> {
    let unit = config.unit.minor();
    let mut expected: Vec<Leg> = confidence;
    expected.reserve(t.transfers.len());
    // Each seat, and a void's reversal of it.
    for (_, player) in &played.seats {
        let w = Account::Wallet(player);
        let seat = [
            Some(("spiga", POT, unit)),
            config.seat_fee.map(|fee| ("seat_fee", HOUSE_REVENUE, fee.minor())),
            config.corte.then_some(("corte_held", ESCROW, unit)),
        ];
        for (kind, to, amount) in seat.into_iter().flatten() {
            expected.push(leg(kind, w, to, amount));
            if voided {
                expected.push(leg("refund", to, w, amount));
            }
        }
    }
    for bet in bets {
        let w = Account::Wallet(bet.player);
        expected.push(leg("bet_stake", w, ESCROW, bet.stake));
        match bet.result {
            None => expected.push(leg("bet_refund", ESCROW, w, bet.stake)),
            Some(BetResult::Lost) => expected.push(leg("bet_collected", ESCROW, HOUSE_BANKROLL, bet.stake)),
            Some(BetResult::Pushed) => expected.push(leg("bet_returned", ESCROW, w, bet.stake)),
            Some(BetResult::Won { .. }) => {
                expected.push(leg("bet_returned", ESCROW, w, bet.stake));
                if bet.returned > bet.stake {
                    expected.push(leg("bet_payout", HOUSE_BANKROLL, w, bet.returned - bet.stake));
                }
            }
        }
    }
    if let Some(result) = played.game.as_ref().and_then(RoundProgress::result) {
        let owner = |s: Suit| {
            let seat = played.seats.iter().find(|(x, _)| *x == s);
            seat.map_or(Account::Named(""), |(_, p)| Account::Wallet(p))
        };
        if config.corte {
            for (s, p) in &played.seats {
                if Some(*s) == result.corte_payer {
                    expected.push(leg("corte", ESCROW, DEALER_TIPS, unit));
                } else {
                    expected.push(leg("refund", ESCROW, Account::Wallet(p), unit));
                }
            }
        }
        for c in &result.contributions {
            if c.copa_units > 0 {
                expected.push(leg("copa", owner(c.suit), POT, unit * c.copa_units as i64));
            }
        }
        let winner = owner(result.winner);
        if result.winner_takes_units > 0 {
            expected.push(leg("pot_payout", POT, winner, unit * result.winner_takes_units as i64));
        }
        let carried = minor(t.carried_cobre_in.as_deref().unwrap_or("0.00"))?;
        if carried > 0 {
            expected.push(leg("cobre_carried", COBRE, winner, carried));
        }
        if let Some(cobre) = &result.cobre {
            let to = if cobre.disposition == CobreRule::House {
                HOUSE_REVENUE
            } else {
                COBRE
            };
            expected.push(leg("cobre", POT, to, unit * cobre.units as i64));
        }
    }
    same_transfers(t, expected)
}

/// Compares the implied transfers with the transcript's as multisets.
pub(super) fn same_transfers<'a>(
    t: &'a RoundTranscript,
    mut expected: Vec<Leg<'a>>,
) -> Result<Cow<'static, str>, Mismatch> {
    let mut given = Vec::with_capacity(t.transfers.len());
    for (i, tr) in t.transfers.iter().enumerate() {
        let amount = minor(&tr.amount).map_err(|e| format!("transfer {i}: {e}"))?;
        given.push(leg(&tr.kind, Account::parse(&tr.from), Account::parse(&tr.to), amount));
    }
    expected.sort_unstable();
    given.sort_unstable();
    let (mut e, mut g) = (0, 0);
    while e < expected.len() || g < given.len() {
        match (expected.get(e), given.get(g)) {
            (Some(x), Some(y)) if x == y => {
                e += 1;
                g += 1;
            }
            (Some(x), y) if y.map_or(true, |y| x < y) => {
                return Err(format!("missing: {x}").into());
            }
            (_, Some(y)) => return Err(format!("unexpected: {y}").into()),
            (None, None) => break,
            (Some(x), None) => return Err(format!("missing: {x}").into()),
        }
    }
    Ok(format!("{} transfers as the rules imply", given.len()).into())
}
