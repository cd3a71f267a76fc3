//! Each bet's stake and return, from the facts and its pay table.

use rust_decimal::Decimal;

use super::pay_tables::RoundPayTables;
use super::{known_player, minor, RoundTranscript};
use crate::bets::{self, BetKind, BetResult, Selection};
use crate::domain::format_minor;
use crate::games::prima_carta as engine;

/// Each bet's stake and return in minor units, checked against the facts.
pub(super) struct BetMoney<'a> {
    pub(super) player: &'a str,
    pub(super) stake: i64,
    pub(super) returned: i64,
    pub(super) result: Option<BetResult>,
}

pub(super) fn bet_returns<'a>(
    t: &'a RoundTranscript,
    tables: &RoundPayTables,
    facts: Option<&engine::DealFacts>,
    voided: bool,
) -> Result<Vec<BetMoney<'a>>, String> {
    let mut out = Vec::with_capacity(t.bets.len());
    for (i, bet) in t.bets.iter().enumerate() {
        let at = |why: String| format!("bet {i} ({} {}): {why}", bet.player, bet.kind);
        known_player(t, &bet.player).map_err(at)?;
        let stake = minor(&bet.amount).map_err(at)?;
        let returned = minor(&bet.returned).map_err(at)?;
        if stake <= 0 {
            return Err(at("the stake is not positive".into()));
        }
        let Some(facts) = facts else {
            // Voided: every stake comes back whole.
            if voided && (bet.status != "refunded" || returned != stake) {
                return Err(at(format!(
                    "a voided round refunds {}, the transcript says {} {}",
                    format_minor(stake),
                    bet.status,
                    bet.returned
                )));
            }
            out.push(BetMoney {
                player: &bet.player,
                stake,
                returned,
                result: None,
            });
            continue;
        };
        let kind = BetKind::parse(&bet.kind).ok_or_else(|| at("unknown bet kind".into()))?;
        let table = tables
            .get(&bet.pay_table)
            .ok_or_else(|| at("its pay table is not listed".into()))?;
        let selection = kind
            .parse_selection(bet.suit.as_deref(), bet.number, table)
            .map_err(|e| at(e.describe()))?;
        let settlement = bets::settle(kind, &selection, table, facts).map_err(|e| at(e.describe()))?;
        let expected_returned = bets::returned_amount(Decimal::new(stake, 2), &settlement.result);
        let expected_minor = (expected_returned * Decimal::from(100)).try_into().unwrap_or(i64::MIN);
        let status = match settlement.result {
            BetResult::Won { .. } => "won",
            BetResult::Lost => "lost",
            BetResult::Pushed => "pushed",
        };
        if status != bet.status || expected_minor != returned {
            return Err(at(format!(
                "{} returns {} ({status}), the transcript says {} ({})",
                describe_selection(&selection),
                format_minor(expected_minor),
                bet.returned,
                bet.status
            )));
        }
        out.push(BetMoney {
            player: &bet.player,
            stake,
            returned,
            result: Some(settlement.result),
        });
    }
    Ok(out)
}

pub(super) fn describe_selection(s: &Selection) -> String {
    match s {
        Selection::Suit(suit) => format!("on {suit}"),
        Selection::Number(n) => format!("on {n}"),
        Selection::None => "the bet".to_owned(),
    }
}
