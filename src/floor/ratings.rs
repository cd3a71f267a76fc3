//! Player ratings (docs/floor.md, "Player ratings"): each player's sessions
//! at each table over a gaming day, with time played, rounds, staked, average
//! bet, actual result, theoretical loss and points. Pure: the player's money
//! movements and bets in; sessions out.
//!
//! A session is a player's run of activity at one table: their money
//! movements there and the ends of the rounds they put money into, sorted by
//! time; a pause longer than the rule's gap ends it, and so does the gaming
//! day's cut-off (the facts are read one gaming day at a time).

use chrono::NaiveDate;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use utoipa::ToSchema;

use super::lobo::ESCROW_KIND as LOBO_ESCROW_KIND;
use super::performance::{csv_field, money};
use crate::domain::{format_minor, MINOR_DIGITS};

/// Longest pause the rule may allow inside a session: a gaming day.
pub const MAX_SESSION_GAP_MINUTES: u32 = 24 * 60;
/// Most points the rule may give per unit of theoretical loss.
pub const MAX_POINTS_PER_THEO_UNIT: u32 = 1_000;
const MICROS_PER_MINUTE: i64 = 60_000_000;
const MICROS_PER_SECOND: i64 = 1_000_000;

/// The rating rule as JSON carries it (`GET`/`PUT /api/v1/floor/rating-rule`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingRuleSpec {
    /// A pause longer than this many minutes ends a session (1 to 1440).
    #[schema(example = 30, minimum = 1, maximum = 1440)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub session_gap_minutes: u32,
    /// Points accrued per unit of theoretical loss, a decimal from 0 to 1000
    /// with at most 4 places; points are whole, rounded down per session.
    #[schema(value_type = String, example = "1.5")]
    pub points_per_theo_unit: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RatingRuleError {
    #[error("session_gap_minutes must be 1 to {MAX_SESSION_GAP_MINUTES}, not {0}")]
    SessionGap(u32),
    #[error(
        "points_per_theo_unit must be a decimal from 0 to {MAX_POINTS_PER_THEO_UNIT} with at most 4 places, not {0:?}"
    )]
    PointsPerTheoUnit(String),
}

/// A valid rating rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingRule {
    session_gap_minutes: u32,
    points_per_theo_unit: Decimal,
}

impl Default for RatingRule {
    /// Sessions end after 30 minutes without play; one point per unit of theoretical loss.
    fn default() -> RatingRule {
        RatingRule {
            session_gap_minutes: 30,
            points_per_theo_unit: Decimal::ONE,
        }
    }
}

impl RatingRule {
    pub fn new(spec: &RatingRuleSpec) -> Result<RatingRule, RatingRuleError> {
        if !(1..=MAX_SESSION_GAP_MINUTES).contains(&spec.session_gap_minutes) {
            return Err(RatingRuleError::SessionGap(spec.session_gap_minutes));
        }
        let bad = || RatingRuleError::PointsPerTheoUnit(spec.points_per_theo_unit.clone());
        let text = &spec.points_per_theo_unit;
        let well_formed = !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && text.split('.').count() <= 2
            && text.split('.').all(|part| !part.is_empty());
        let points: Decimal = if well_formed {
            text.parse().map_err(|_| bad())?
        } else {
            return Err(bad());
        };
        if points.scale() > 4 || points > Decimal::from(MAX_POINTS_PER_THEO_UNIT) {
            return Err(bad());
        }
        Ok(RatingRule {
            session_gap_minutes: spec.session_gap_minutes,
            points_per_theo_unit: points.normalize(),
        })
    }

    pub fn spec(&self) -> RatingRuleSpec {
        RatingRuleSpec {
            session_gap_minutes: self.session_gap_minutes,
            points_per_theo_unit: self.points_per_theo_unit.to_string(),
        }
    }

    fn gap_us(&self) -> i64 {
        i64::from(self.session_gap_minutes) * MICROS_PER_MINUTE
    }
}

/// A ledger transfer between a player's wallet and a table's accounts.
pub struct WalletTransfer<'a> {
    pub player_id: &'a str,
    pub table_id: &'a str,
    pub round_id: Option<&'a str>,
    /// The side bet a `bet_stake` transfer stakes.
    pub bet_id: Option<&'a str>,
    pub kind: &'a str,
    /// Out of the player's wallet (a stake, a fee) or into it (a payout, a refund).
    pub out_of_wallet: bool,
    pub amount_minor: i64,
    /// What it adds to the player's fees (`performance::fee_minor`): a fee, or a fee refunded.
    pub fee_minor: i64,
    pub at_us: i64,
}

/// A settled side bet, with its certified house edge.
pub struct RatedBet {
    pub stake_minor: i64,
    /// 1 − the certified RTP of the bet under its pay table.
    pub house_edge: Decimal,
}

/// One player's session at one table.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct RatingSession {
    /// "YYYY-MM-DD": the gaming day the session was played in.
    pub gaming_day: String,
    pub player_id: String,
    pub username: Option<String>,
    pub table_id: String,
    pub table_name: Option<String>,
    /// The session's first and last activity, microseconds since the Unix epoch.
    pub started_at_us: i64,
    pub ended_at_us: i64,
    /// Whole seconds from the first activity to the last.
    pub seconds_played: i64,
    /// Rounds the player put money into or was paid from.
    pub rounds: i64,
    /// What the player put at risk: stakes and fees, less refunds.
    #[schema(value_type = String, example = "42.50")]
    pub staked: String,
    /// staked / rounds, rounded half to even to the cent; null with no rounds.
    #[schema(value_type = Option<String>, example = "4.25")]
    pub average_bet: Option<String>,
    /// What came back to the wallet − what left it; negative when the player lost.
    #[schema(value_type = String, example = "-12.00")]
    pub actual_result: String,
    /// Σ stake × house edge of the settled side bets, plus the fees paid.
    #[schema(value_type = String, example = "3.10")]
    pub theo_loss: String,
    /// ⌊theo_loss × points_per_theo_unit⌋.
    pub points: i64,
}

#[derive(Default)]
struct Tally<'a> {
    started_at_us: i64,
    ended_at_us: i64,
    rounds: BTreeSet<&'a str>,
    staked_minor: i64,
    result_minor: i64,
    fees_minor: i64,
    theo_minor: Decimal,
}

/// The sessions of a gaming day, by player then table then start.
/// `round_ends_us` maps a round to when it ended, for the rounds that ended
/// that day; `settled_bets` the side bets settled won, lost or pushed. A
/// bet's theoretical loss belongs to the session of its stake. `lobo_theo_minor` maps the
/// settled Lobo rounds to the theoretical loss of their play (`−unit × U`), which belongs to the
/// session of the round's escrow.
pub fn sessions(
    rule: &RatingRule,
    gaming_day: NaiveDate,
    transfers: &[WalletTransfer<'_>],
    round_ends_us: &HashMap<&str, i64>,
    settled_bets: &HashMap<&str, RatedBet>,
    lobo_theo_minor: &HashMap<&str, Decimal>,
) -> Vec<RatingSession> {
    // Each player's activity at each table: (instant, the transfer if any).
    let mut activity: BTreeMap<(&str, &str), Vec<(i64, Option<&WalletTransfer<'_>>)>> = BTreeMap::new();
    for t in transfers {
        let list = activity.entry((t.player_id, t.table_id)).or_default();
        list.push((t.at_us, Some(t)));
        if let Some(end) = t.round_id.and_then(|r| round_ends_us.get(r)) {
            list.push((*end, None));
        }
    }
    let mut out = Vec::new();
    for ((player_id, table_id), mut list) in activity {
        list.sort_by_key(|(at, t)| (*at, t.is_none()));
        let mut tallies: Vec<Tally> = Vec::new();
        for (at_us, transfer) in list {
            match tallies.last_mut() {
                Some(last) if at_us - last.ended_at_us <= rule.gap_us() => last.ended_at_us = at_us,
                _ => tallies.push(Tally {
                    started_at_us: at_us,
                    ended_at_us: at_us,
                    ..Tally::default()
                }),
            }
            let (Some(t), Some(tally)) = (transfer, tallies.last_mut()) else {
                continue;
            };
            if let Some(round) = t.round_id {
                tally.rounds.insert(round);
            }
            if let Some(bet) = t
                .bet_id
                .filter(|_| t.kind == "bet_stake")
                .and_then(|id| settled_bets.get(id))
            {
                tally.theo_minor += Decimal::from(bet.stake_minor) * bet.house_edge;
            }
            if let Some(theo) = t
                .round_id
                .filter(|_| t.kind == LOBO_ESCROW_KIND && t.out_of_wallet)
                .and_then(|id| lobo_theo_minor.get(id))
            {
                tally.theo_minor += theo;
            }
            tally.fees_minor += t.fee_minor;
            if t.out_of_wallet {
                tally.staked_minor += t.amount_minor;
                tally.result_minor -= t.amount_minor;
            } else {
                tally.result_minor += t.amount_minor;
                if crate::game_registry::returns_unrisked(t.kind) {
                    tally.staked_minor -= t.amount_minor;
                }
            }
        }
        for tally in tallies {
            out.push(session(rule, gaming_day, player_id, table_id, &tally));
        }
    }
    out
}

fn session(
    rule: &RatingRule,
    gaming_day: NaiveDate,
    player_id: &str,
    table_id: &str,
    tally: &Tally<'_>,
) -> RatingSession {
    let rounds = tally.rounds.len() as i64;
    let theo_minor = tally.theo_minor + Decimal::from(tally.fees_minor);
    let unit = Decimal::from(10i64.pow(MINOR_DIGITS));
    let points = (theo_minor / unit * rule.points_per_theo_unit).floor();
    RatingSession {
        gaming_day: gaming_day.to_string(),
        player_id: player_id.to_owned(),
        username: None,
        table_id: table_id.to_owned(),
        table_name: None,
        started_at_us: tally.started_at_us,
        ended_at_us: tally.ended_at_us,
        seconds_played: (tally.ended_at_us - tally.started_at_us) / MICROS_PER_SECOND,
        rounds,
        staked: format_minor(tally.staked_minor),
        average_bet: (rounds > 0).then(|| money(Decimal::from(tally.staked_minor) / Decimal::from(rounds))),
        actual_result: format_minor(tally.result_minor),
        theo_loss: money(theo_minor),
        points: points.to_i64().unwrap_or(i64::MAX),
    }
}

/// The sessions as CSV, a header first.
pub fn to_csv(sessions: &[RatingSession]) -> String {
    let mut out = String::from(
        "gaming_day,player_id,username,table_id,table_name,started_at_us,ended_at_us,seconds_played,rounds,staked,average_bet,actual_result,theo_loss,points\n",
    );
    for s in sessions {
        let text = |v: &Option<String>| csv_field(v.as_deref().unwrap_or(""));
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            s.gaming_day,
            s.player_id,
            text(&s.username),
            s.table_id,
            text(&s.table_name),
            s.started_at_us,
            s.ended_at_us,
            s.seconds_played,
            s.rounds,
            s.staked,
            s.average_bet.as_deref().unwrap_or(""),
            s.actual_result,
            s.theo_loss,
            s.points
        ));
    }
    out
}

#[cfg(test)]
mod tests;
