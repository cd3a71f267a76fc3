//! A table's Peg Leg bets' observed RTP against what their prices promised.

use super::*;

/// What a table's Peg Leg bets returned against what their prices promised.
#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct PegLegRtp {
    pub table_id: String,
    /// Settled or voided rounds the bets were on.
    pub rounds: i64,
    /// Bets won, lost or surrendered (refunded and open ones are left out).
    pub bets: i64,
    #[schema(value_type = String)]
    pub staked: String,
    #[schema(value_type = String)]
    pub returned: String,
    /// returned / staked (0 with nothing staked).
    pub observed_rtp: f64,
    /// What the prices promised: the sum over bets of stake × multiplier × the probability
    /// of the count in the quote the bet was placed on, over the stakes. Each is at most the
    /// table's target; a surrender does not change it (a bet's value is a martingale).
    pub expected_rtp: f64,
    /// A bound on the observed RTP's standard error: each bet's spread as if held to the
    /// end, bets on one round taken as perfectly correlated (they share its deal).
    pub standard_error: f64,
    /// |observed − expected| exceeds 2.576 standard errors (the 99% band).
    pub outside_99_band: bool,
}

/// Observed RTP of a table's Peg Leg bets placed in [from_us, to_us).
pub fn observed_rtp(
    conn: &mut AnyConnection,
    table_id: &str,
    from_us: Option<i64>,
    to_us: Option<i64>,
) -> Result<PegLegRtp> {
    let rounds_of_table = r::table.filter(r::table_id.eq(table_id)).select(r::id);
    let mut query = b::table
        .filter(b::round_id.eq_any(rounds_of_table))
        .filter(b::status.eq_any([
            BetStatus::Won.as_str(),
            BetStatus::Lost.as_str(),
            BetStatus::Surrendered.as_str(),
        ]))
        .select(BetRow::as_select())
        .into_boxed();
    if let Some(f) = from_us {
        query = query.filter(b::placed_at_us.ge(f));
    }
    if let Some(t) = to_us {
        query = query.filter(b::placed_at_us.lt(t));
    }
    let rows: Vec<BetRow> = query.load(conn)?;
    let mut quote_ids: Vec<&str> = rows.iter().map(|bet| bet.quote_id.as_str()).collect();
    quote_ids.sort_unstable();
    quote_ids.dedup();
    let mut probability = std::collections::HashMap::new();
    for chunk in quote_ids.chunks(500) {
        for qr in q::table
            .filter(q::id.eq_any(chunk))
            .select(QuoteRow::as_select())
            .load(conn)?
        {
            let quote = qr.quote()?;
            probability.insert(qr.id, quote.counts.iter().map(|c| c.probability).collect::<Vec<_>>());
        }
    }
    let (mut staked, mut returned, mut promised) = (0i64, 0i64, 0f64);
    // Per round: the sum of its bets' standard deviations, in minor units.
    let mut spread_by_round: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    for bet in &rows {
        let p = probability
            .get(&bet.quote_id)
            .and_then(|ps| ps.get(usize::try_from(bet.count).unwrap_or(usize::MAX)))
            .copied()
            .ok_or_else(|| PegLegRoundError::Corrupt(format!("bet {} without its quote", bet.id)))?;
        let win = win_minor(bet.stake_minor, bet.multiplier_cents) as f64;
        staked += bet.stake_minor;
        returned += bet.returned_minor.unwrap_or(0);
        promised += win * p;
        *spread_by_round.entry(bet.round_id.as_str()).or_default() += win * (p * (1.0 - p)).sqrt();
    }
    let stakes = staked as f64;
    let ratio = |x: f64| if staked > 0 { x / stakes } else { 0.0 };
    let observed_rtp = ratio(returned as f64);
    let expected_rtp = ratio(promised);
    let standard_error = ratio(spread_by_round.values().map(|s| s * s).sum::<f64>().sqrt());
    Ok(PegLegRtp {
        table_id: table_id.to_string(),
        rounds: spread_by_round.len() as i64,
        bets: rows.len() as i64,
        staked: format_minor(staked),
        returned: format_minor(returned),
        observed_rtp,
        expected_rtp,
        standard_error,
        outside_99_band: staked > 0 && (observed_rtp - expected_rtp).abs() > 2.576 * standard_error,
    })
}
