//! Peg Leg's part of the theoretical win (docs/floor.md, "Peg Leg's theoretical win"). Every
//! Peg Leg bet is priced from a quote that states the probability of its count, exact or
//! estimated, so the house's expected win on it is known when it is placed:
//! `stake × (1 − m × p)`, `m` the multiplier and `p` the count's probability in that quote.
//! A surrender trades what the bet was then worth, `stake × m × p_now` under the quote it
//! surrendered on, for the cash-out paid, so it adds `stake × m × p_now − paid` to the house's
//! expected win. A bet counts once closed (settled or surrendered), with its round's other bets
//! closed in the period; a refunded bet (a void) counts for nothing.

use diesel::prelude::*;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use std::collections::HashMap;

use super::priced::PricedBet;
use super::{FloorError, MAX_IDS_PER_QUERY};
use crate::games::peg_leg::{Distribution, Quote};
use crate::rounds::peg_leg::QuoteRow;
use crate::store::schema::{peg_leg_bets as b, peg_leg_quotes as q, peg_leg_rounds as r};
use crate::store::AnyConnection;

/// The statuses of a bet that closed with the house's result known.
const CLOSED: [&str; 3] = ["won", "lost", "surrendered"];

/// The bets closed in `[from_us, to_us)`.
pub(super) fn closed_between(conn: &mut AnyConnection, from_us: i64, to_us: i64) -> Result<Vec<PricedBet>, FloorError> {
    let rows: Vec<BetRow> = b::table
        .inner_join(r::table.on(r::id.eq(b::round_id)))
        .filter(b::status.eq_any(CLOSED))
        .filter(b::closed_at_us.ge(from_us).and(b::closed_at_us.lt(to_us)))
        .select(bet_columns())
        .load(conn)?;
    with_theo(conn, rows)
}

/// The bets among `ids` that are closed, whenever (a rating's bets, by their stakes).
pub(super) fn closed_among(conn: &mut AnyConnection, ids: &[&str]) -> Result<Vec<PricedBet>, FloorError> {
    let mut rows: Vec<BetRow> = Vec::new();
    for chunk in ids.chunks(MAX_IDS_PER_QUERY) {
        rows.extend(
            b::table
                .inner_join(r::table.on(r::id.eq(b::round_id)))
                .filter(b::id.eq_any(chunk))
                .filter(b::status.eq_any(CLOSED))
                .select(bet_columns())
                .load::<BetRow>(conn)?,
        );
    }
    with_theo(conn, rows)
}

/// id, round, player, count, stake, multiplier (hundredths), quote, surrender quote, returned,
/// closed at, table.
type BetRow = (
    String,
    String,
    String,
    i32,
    i64,
    i64,
    String,
    Option<String>,
    Option<i64>,
    Option<i64>,
    String,
);

#[allow(clippy::type_complexity)]
fn bet_columns() -> (
    b::id,
    b::round_id,
    b::player_id,
    b::count,
    b::stake_minor,
    b::multiplier_cents,
    b::quote_id,
    b::surrender_quote_id,
    b::returned_minor,
    b::closed_at_us,
    r::table_id,
) {
    (
        b::id,
        b::round_id,
        b::player_id,
        b::count,
        b::stake_minor,
        b::multiplier_cents,
        b::quote_id,
        b::surrender_quote_id,
        b::returned_minor,
        b::closed_at_us,
        r::table_id,
    )
}

fn with_theo(conn: &mut AnyConnection, rows: Vec<BetRow>) -> Result<Vec<PricedBet>, FloorError> {
    let mut quote_ids: Vec<&str> = rows
        .iter()
        .flat_map(|row| [Some(row.6.as_str()), row.7.as_deref()])
        .flatten()
        .collect();
    quote_ids.sort_unstable();
    quote_ids.dedup();
    let mut quotes: HashMap<String, Quote> = HashMap::with_capacity(quote_ids.len());
    for chunk in quote_ids.chunks(MAX_IDS_PER_QUERY) {
        let found: Vec<QuoteRow> = q::table
            .filter(q::id.eq_any(chunk))
            .select(QuoteRow::as_select())
            .load(conn)?;
        for row in found {
            let quote = row
                .quote()
                .map_err(|e| FloorError::StoredRound(row.round_id.clone(), e.to_string()))?;
            quotes.insert(row.id, quote);
        }
    }
    let mut bets = Vec::with_capacity(rows.len());
    for (
        bet_id,
        round_id,
        player_id,
        count,
        stake,
        multiplier_cents,
        quote_id,
        surrender_id,
        returned,
        closed,
        table_id,
    ) in rows
    {
        let stored = |why: String| FloorError::StoredRound(round_id.clone(), why);
        let count = usize::try_from(count).map_err(|_| stored(format!("bet {bet_id}: count {count}")))?;
        let probability = |id: &str| -> Result<Decimal, FloorError> {
            let quote = quotes
                .get(id)
                .ok_or_else(|| stored(format!("bet {bet_id}: no quote {id}")))?;
            count_probability(quote, count)
                .ok_or_else(|| stored(format!("bet {bet_id}: quote {id} has no count {count}")))
        };
        let multiplier = Decimal::new(multiplier_cents, 2);
        let stake_d = Decimal::from(stake);
        let p = probability(&quote_id)?;
        let returned = returned.unwrap_or(0);
        let mut theo_minor = stake_d - stake_d * multiplier * p;
        if let Some(surrender_id) = &surrender_id {
            let p_now = probability(surrender_id)?;
            theo_minor += stake_d * multiplier * p_now - Decimal::from(returned);
        }
        let p_f64 = f64::try_from(p).unwrap_or(0.0);
        bets.push(PricedBet {
            sd_minor: stake as f64 * multiplier_cents as f64 / 100.0 * (p_f64 * (1.0 - p_f64)).max(0.0).sqrt(),
            bet_id,
            round_id,
            table_id,
            player_id,
            closed_at_us: closed.unwrap_or(0),
            stake_minor: stake,
            win_minor: stake - returned,
            theo_minor,
        });
    }
    Ok(bets)
}

/// The probability of `count` in the quote: exact when the quote is (its fraction, to
/// Decimal's 28 digits), the simulation's estimate otherwise.
fn count_probability(quote: &Quote, count: usize) -> Option<Decimal> {
    let line = quote.counts.get(count)?;
    if let Some(Distribution::Exact { orders, total, .. }) = &quote.distribution {
        let (orders, total) = (Decimal::from_u128(*orders.get(count)?), Decimal::from_u128(*total));
        if let (Some(orders), Some(total)) = (orders, total) {
            if !total.is_zero() {
                return orders.checked_div(total);
            }
        }
    }
    Decimal::from_f64(line.probability)
}
