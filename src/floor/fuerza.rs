//! The house's Fuerza in the floor's figures (docs/confidence-bets.md): each bet is priced from
//! a quote that counts its chance, `wins / samples`, so its theoretical win is
//! `stake × (1 − price × wins / samples)`. While players were still to decide, the chance
//! counted is the highest their decisions could make it, so the figure is the least the house
//! expects on that bet.

use diesel::prelude::*;
use rust_decimal::Decimal;

use super::priced::PricedBet;
use super::{FloorError, MAX_IDS_PER_QUERY};
use crate::store::schema::{fuerza_bets as f, rounds as r};
use crate::store::AnyConnection;

/// id, round, player, stake, price (hundredths), wins, samples, returned, settled at, table.
type BetRow = (String, String, String, i64, i32, i32, i32, i64, Option<i64>, String);

#[allow(clippy::type_complexity)]
fn columns() -> (
    f::id,
    f::round_id,
    f::player_id,
    f::stake_minor,
    f::price_hundredths,
    f::quote_wins,
    f::quote_samples,
    f::returned_minor,
    f::settled_at_us,
    r::table_id,
) {
    (
        f::id,
        f::round_id,
        f::player_id,
        f::stake_minor,
        f::price_hundredths,
        f::quote_wins,
        f::quote_samples,
        f::returned_minor,
        f::settled_at_us,
        r::table_id,
    )
}

/// The statuses of a bet settled with the house's result known.
const CLOSED: [&str; 2] = ["won", "lost"];

/// The bets settled in `[from_us, to_us)`.
pub(super) fn closed_between(conn: &mut AnyConnection, from_us: i64, to_us: i64) -> Result<Vec<PricedBet>, FloorError> {
    let rows: Vec<BetRow> = f::table
        .inner_join(r::table.on(r::id.eq(f::round_id)))
        .filter(f::status.eq_any(CLOSED))
        .filter(f::settled_at_us.ge(from_us).and(f::settled_at_us.lt(to_us)))
        .select(columns())
        .load(conn)?;
    Ok(rows.into_iter().map(priced).collect())
}

/// The bets among `ids` that are settled, whenever (a rating's bets, by their stakes).
pub(super) fn closed_among(conn: &mut AnyConnection, ids: &[&str]) -> Result<Vec<PricedBet>, FloorError> {
    let mut rows: Vec<BetRow> = Vec::new();
    for chunk in ids.chunks(MAX_IDS_PER_QUERY) {
        rows.extend(
            f::table
                .inner_join(r::table.on(r::id.eq(f::round_id)))
                .filter(f::id.eq_any(chunk))
                .filter(f::status.eq_any(CLOSED))
                .select(columns())
                .load::<BetRow>(conn)?,
        );
    }
    Ok(rows.into_iter().map(priced).collect())
}

fn priced(
    (bet_id, round_id, player_id, stake, price, wins, samples, returned, settled, table_id): BetRow,
) -> PricedBet {
    let price_d = Decimal::new(price as i64, 2);
    let p = if samples > 0 {
        Decimal::from(wins) / Decimal::from(samples)
    } else {
        Decimal::ZERO
    };
    let stake_d = Decimal::from(stake);
    let p_f64 = wins as f64 / samples.max(1) as f64;
    PricedBet {
        theo_minor: stake_d - stake_d * price_d * p,
        sd_minor: stake as f64 * price as f64 / 100.0 * (p_f64 * (1.0 - p_f64)).max(0.0).sqrt(),
        bet_id,
        round_id,
        table_id,
        player_id,
        closed_at_us: settled.unwrap_or(0),
        stake_minor: stake,
        win_minor: stake - returned,
    }
}
