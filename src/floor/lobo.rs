//! Lobo's part of the theoretical win (docs/floor.md, "Lobo's theoretical win"): on the play of
//! each settled round the house expects at least `−unit × U`, `U` the embedded upper bound on
//! the perfect player's value at the round's loss cap; its fee is counted with the fees. Read
//! from the round's configuration, fixed when it started, and its ledger transfers.

use diesel::prelude::*;
use rust_decimal::Decimal;
use std::collections::HashMap;

use super::performance::HOUSE_ACCOUNTS;
use super::{FloorError, MAX_IDS_PER_QUERY};
use crate::games::lobo::{max_win_points, upper_bound};
use crate::rounds::lobo::LoboRoundConfig;
use crate::store::AnyConnection;

/// The transfer that starts a round: the player's escrow, whatever the fee.
pub(super) const ESCROW_KIND: &str = "lobo_escrow";
/// The transfers that settle a Lobo round's play (its escrow's release is the player's own money).
const PLAY_KINDS: [&str; 2] = ["lobo_loss", "lobo_win"];

/// A settled Lobo round whose loss cap has an upper bound on perfect play.
#[derive(Clone, Debug, PartialEq)]
pub struct LoboRound {
    pub round_id: String,
    pub table_id: String,
    pub player_id: String,
    pub ended_at_us: i64,
    /// What the house's accounts won on the play (`lobo_loss` in, `lobo_win` out), the fee apart.
    pub play_win_minor: i64,
    /// `−unit × U`: the least the house expects to win on the play against any player
    /// (negative: a perfect player's edge, which the fee more than pays for).
    pub theo_play_minor: Decimal,
    /// The largest standard deviation the play's result can have, whoever plays:
    /// `unit × (loss cap + most a hand wins) / 2`, half its range.
    pub sd_bound_minor: f64,
}

/// The Lobo rounds settled in `[from_us, to_us)` with an upper bound at their loss cap, with
/// what the house won on each one's play. A round whose cap is below every computed bound has
/// no theoretical win on its play and is left out.
pub(super) fn settled_between(
    conn: &mut AnyConnection,
    from_us: i64,
    to_us: i64,
) -> Result<Vec<LoboRound>, FloorError> {
    use crate::store::schema::rounds as r;
    let rows: Vec<RoundRow> = r::table
        .filter(r::game.eq("lobo").and(r::status.eq("settled")))
        .filter(r::updated_at_us.ge(from_us).and(r::updated_at_us.lt(to_us)))
        .select((r::id, r::table_id, r::config, r::updated_at_us))
        .load(conn)?;
    with_play(conn, rows)
}

/// The same for the Lobo rounds among `ids` that are settled, whenever.
pub(super) fn settled_among(conn: &mut AnyConnection, ids: &[&str]) -> Result<Vec<LoboRound>, FloorError> {
    use crate::store::schema::rounds as r;
    let mut rows: Vec<RoundRow> = Vec::new();
    for chunk in ids.chunks(MAX_IDS_PER_QUERY) {
        rows.extend(
            r::table
                .filter(r::id.eq_any(chunk))
                .filter(r::game.eq("lobo").and(r::status.eq("settled")))
                .select((r::id, r::table_id, r::config, r::updated_at_us))
                .load::<RoundRow>(conn)?,
        );
    }
    with_play(conn, rows)
}

/// id, table, configuration, instant it ended.
type RoundRow = (String, String, String, i64);

fn with_play(conn: &mut AnyConnection, rows: Vec<RoundRow>) -> Result<Vec<LoboRound>, FloorError> {
    use crate::store::schema::transfers as t;
    let mut rounds = Vec::with_capacity(rows.len());
    for (round_id, table_id, config, ended_at_us) in rows {
        let stored = |why: String| FloorError::StoredRound(round_id.clone(), why);
        let config: LoboRoundConfig = serde_json::from_str(&config).map_err(|e| stored(e.to_string()))?;
        let mode = config.mode();
        let cap = config.table.loss_cap_points;
        let Some(bound) = upper_bound(mode, Some(cap)) else {
            continue;
        };
        let bound_points = Decimal::try_from(bound.value_points)
            .map_err(|e| stored(format!("the bound {}: {e}", bound.value_points)))?;
        let unit_minor = config.unit.minor();
        rounds.push(LoboRound {
            table_id,
            player_id: config.player_id,
            ended_at_us,
            play_win_minor: 0,
            theo_play_minor: -Decimal::from(unit_minor) * bound_points,
            sd_bound_minor: unit_minor as f64 * f64::from(cap + max_win_points(mode)) / 2.0,
            round_id,
        });
    }
    for chunk in rounds.chunks_mut(MAX_IDS_PER_QUERY) {
        let ids: Vec<&str> = chunk.iter().map(|r| r.round_id.as_str()).collect();
        let transfers: Vec<(Option<String>, String, String, i64)> = t::table
            .filter(t::round_id.eq_any(&ids))
            .filter(t::kind.eq_any(PLAY_KINDS))
            .select((t::round_id, t::debit_account, t::credit_account, t::amount_minor))
            .load(conn)?;
        let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(k, id)| (*id, k)).collect();
        let mut wins = vec![0i64; chunk.len()];
        for (round_id, debit, credit, amount) in &transfers {
            let Some(&k) = round_id.as_deref().and_then(|id| index.get(id)) else {
                continue;
            };
            let sign = i64::from(HOUSE_ACCOUNTS.contains(&credit.as_str()))
                - i64::from(HOUSE_ACCOUNTS.contains(&debit.as_str()));
            wins[k] += sign * amount;
        }
        for (round, win) in chunk.iter_mut().zip(wins) {
            round.play_win_minor = win;
        }
    }
    Ok(rounds)
}
