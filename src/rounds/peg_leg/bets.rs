//! Peg Leg's bets: placed on the quote in force, surrendered for their cash-out value.

use super::*;

/// The current quote, checked against the one the player saw, and that its window is open
/// at `now_us`.
fn in_force<'q>(
    row: &PegLegRoundRow,
    current: Option<&'q QuoteRow>,
    quote_id: &str,
    now_us: i64,
) -> Result<&'q QuoteRow> {
    let current = current.ok_or_else(|| PegLegRoundError::WrongState {
        action: "bet or surrender",
        status: row.status.clone(),
    })?;
    if current.id != quote_id {
        return Err(PegLegRoundError::StaleQuote {
            given: quote_id.to_string(),
            current: current.id.clone(),
        });
    }
    if row.window_closes_at_us.is_some_and(|closes| now_us >= closes) {
        return Err(PegLegRoundError::WindowClosed);
    }
    Ok(current)
}

/// The current quote as [`in_force`] checks it, read from the database.
pub(super) fn quote_in_force(conn: &mut AnyConnection, row: &PegLegRoundRow, quote_id: &str) -> Result<QuoteRow> {
    let current = current_quote(conn, row)?;
    in_force(row, current.as_ref(), quote_id, now_us())?;
    Ok(current.expect("in force, so present"))
}

/// A bet as asked for: on `count` at the price of the quote `quote_id`, `stake` staked.
#[derive(Clone, Debug)]
pub struct BetAsked<'a> {
    pub player_id: &'a str,
    pub quote_id: &'a str,
    pub count: u8,
    pub stake: Amount,
}

/// Whether a bet may be placed on the round as it stands at `now_us`: the round dealing, the
/// quote the player saw still the one in force (`current`, read with the round) and its window
/// open, the count offered, the stake within the table's limits, and the player's stakes on
/// the round (`staked_minor`, every bet and rebet so far) within its exposure limit. Answers
/// the multiplier, in hundredths. The wager path calls it inside its batch, with what the
/// batch has read and placed so far.
pub fn check_bet(
    row: &PegLegRoundRow,
    current: Option<&QuoteRow>,
    quote: Option<&Quote>,
    asked: &BetAsked<'_>,
    staked_minor: i64,
    now_us: i64,
) -> Result<u64> {
    row.require(&[PegLegStatus::Dealing], "bet")?;
    in_force(row, current, asked.quote_id, now_us)?;
    let count = asked.count;
    let multiplier = quote
        .and_then(|q| q.counts.get(count as usize))
        .and_then(|c| c.multiplier_cents)
        .ok_or(PegLegRoundError::CountNotOffered { count })?;
    let config = row.config()?;
    if asked.stake < config.min_bet || asked.stake > config.max_bet {
        return Err(PegLegRoundError::StakeOutOfRange {
            min: format_minor(config.min_bet.minor()),
            max: format_minor(config.max_bet.minor()),
        });
    }
    if staked_minor + asked.stake.minor() > config.max_exposure_per_round.minor() {
        return Err(PegLegRoundError::ExposureExceeded {
            limit: format_minor(config.max_exposure_per_round.minor()),
            staked: format_minor(staked_minor),
        });
    }
    Ok(multiplier)
}

/// The stake of a bet checked by [`check_bet`]: wallet → the round's escrow.
pub fn stake_transfer(
    row: &PegLegRoundRow,
    asked: &BetAsked<'_>,
    bet_id: &str,
    idempotency_key: Option<&str>,
) -> TransferSpec {
    TransferSpec::new(
        AccountId::wallet(asked.player_id),
        AccountId::escrow(&row.id),
        asked.stake,
        TransferKind::BetStake,
    )
    .refs(refs(row, asked.player_id, bet_id))
    .idempotency_key(idempotency_key)
    .memo(format!("Peg Leg bet on a count of {}", asked.count))
}

/// The bet's row as placed by [`check_bet`] and [`stake_transfer`].
pub fn placed_bet(
    row: &PegLegRoundRow,
    asked: &BetAsked<'_>,
    bet_id: &str,
    multiplier_cents: u64,
    now_us: i64,
) -> BetRow {
    BetRow {
        id: bet_id.to_string(),
        round_id: row.id.clone(),
        player_id: asked.player_id.to_string(),
        count: i32::from(asked.count),
        stake_minor: asked.stake.minor(),
        multiplier_cents: multiplier_cents as i64,
        quote_id: asked.quote_id.to_string(),
        status: BetStatus::Open.as_str().to_string(),
        surrender_quote_id: None,
        returned_minor: None,
        placed_at_us: now_us,
        closed_at_us: None,
    }
}

pub(super) fn find_bet(conn: &mut AnyConnection, bet_id: &str) -> Result<BetRow> {
    b::table
        .find(bet_id)
        .select(BetRow::as_select())
        .first(conn)
        .optional()?
        .ok_or(PegLegRoundError::BetNotFound)
}

/// What surrendering a bet on `count` of `stake_minor` at `multiplier_cents` pays under
/// `quote`, in minor units.
pub fn cash_out_minor(quote: &Quote, count: i32, stake_minor: i64, multiplier_cents: i64) -> i64 {
    engine::surrender_cents(
        quote,
        u8::try_from(count).unwrap_or(u8::MAX),
        u64::try_from(stake_minor).unwrap_or(0),
        u64::try_from(multiplier_cents).unwrap_or(0),
    ) as i64
}

/// Surrenders an open bet of the player's for its cash-out value under the current quote:
/// the stake leaves escrow, the player gets the value, and the house takes or pays the
/// difference.
pub fn surrender(
    conn: &mut AnyConnection,
    round_id: &str,
    player_id: &str,
    bet_id: &str,
    quote_id: &str,
) -> Result<BetRow> {
    let row = lock(conn, round_id)?;
    row.require(&[PegLegStatus::Dealing], "surrender")?;
    let bet = find_bet(conn, bet_id)?;
    // Someone else's bet is as good as absent.
    if bet.round_id != round_id || bet.player_id != player_id {
        return Err(PegLegRoundError::BetNotFound);
    }
    let status = BetStatus::parse(&bet.status)?;
    if status != BetStatus::Open {
        return Err(PegLegRoundError::BetClosed {
            status: bet.status.clone(),
        });
    }
    let current = quote_in_force(conn, &row, quote_id)?;
    let value = cash_out_minor(&current.quote()?, bet.count, bet.stake_minor, bet.multiplier_cents);
    let r = refs(&row, player_id, bet_id);
    let wallet = AccountId::wallet(player_id);
    let escrow = AccountId::escrow(&row.id);
    let mut specs = Vec::new();
    let back = value.min(bet.stake_minor);
    if back > 0 {
        specs.push(
            TransferSpec::new(escrow.clone(), wallet.clone(), amount(back)?, TransferKind::BetReturned)
                .refs(r.clone())
                .memo("surrendered"),
        );
    }
    if bet.stake_minor > value {
        specs.push(
            TransferSpec::new(
                escrow,
                AccountId::house_bankroll(),
                amount(bet.stake_minor - value)?,
                TransferKind::BetCollected,
            )
            .refs(r.clone())
            .memo("surrendered"),
        );
    }
    if value > bet.stake_minor {
        specs.push(
            TransferSpec::new(
                AccountId::house_bankroll(),
                wallet,
                amount(value - bet.stake_minor)?,
                TransferKind::BetPayout,
            )
            .refs(r)
            .memo("surrendered"),
        );
    }
    ledger::post(conn, &specs)?;
    close_bet(conn, bet_id, BetStatus::Surrendered, Some(&current.id), value, now_us())?;
    find_bet(conn, bet_id)
}
