//! Player ratings over a gaming day or a period (docs/floor.md, "Player ratings"): each day's
//! sessions read from the wallets' transfers, the rounds' ends and the bets' theoretical loss.

use super::*;

/// Player ratings over a gaming day or a period (`GET /api/v1/floor/players`).
#[derive(Serialize, ToSchema)]
pub struct RatingReport {
    /// "YYYY-MM-DD": the (first) gaming day, named by the local date it starts on.
    pub gaming_day: String,
    /// The last gaming day of the period: the same as `gaming_day` for one day.
    pub last_gaming_day: String,
    pub timezone: String,
    /// The period's first instant and the next day's, microseconds since the Unix epoch.
    pub from_us: i64,
    pub to_us: i64,
    /// The rating rule the sessions were cut and the points counted by.
    pub rule: RatingRuleSpec,
    /// By gaming day, then player, then table, then start: a session never spans two gaming days.
    pub sessions: Vec<RatingSession>,
}

/// The player ratings of a gaming day or a period (of one player, or of all)
/// under the calendar and the rating rule in force: each day's sessions, one
/// day after the other, since the cut-off ends every session.
pub fn rating_report(
    conn: &mut AnyConnection,
    period: Period,
    player_id: Option<&str>,
) -> Result<RatingReport, FloorError> {
    let calendar = calendar(conn)?;
    let rule = rating_rule(conn)?;
    let mut sessions = Vec::new();
    for day in period.days() {
        sessions.extend(day_sessions(conn, &calendar, &rule, day, player_id)?);
    }
    name_sessions(conn, &mut sessions)?;
    Ok(RatingReport {
        gaming_day: period.first.to_string(),
        last_gaming_day: period.last.to_string(),
        timezone: calendar.spec_of_day(period.first).timezone,
        from_us: calendar.day_bounds(period.first).0.timestamp_micros(),
        to_us: calendar.day_bounds(period.last).1.timestamp_micros(),
        rule: rule.spec(),
        sessions,
    })
}

/// Fills in each session's username and table name, once for the whole report.
fn name_sessions(conn: &mut AnyConnection, sessions: &mut [RatingSession]) -> Result<(), FloorError> {
    use crate::store::schema::{casino_tables as ct, users as u};
    let tables: HashMap<String, String> = ct::table.select((ct::id, ct::name)).load(conn)?.into_iter().collect();
    let player_ids: Vec<&str> = sessions
        .iter()
        .map(|s| s.player_id.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut usernames: HashMap<String, String> = HashMap::with_capacity(player_ids.len());
    for chunk in player_ids.chunks(MAX_IDS_PER_QUERY) {
        usernames.extend(
            u::table
                .filter(u::id.eq_any(chunk))
                .select((u::id, u::username))
                .load::<(String, String)>(conn)?,
        );
    }
    for s in sessions.iter_mut() {
        s.username = usernames.get(&s.player_id).cloned();
        s.table_name = tables.get(&s.table_id).cloned();
    }
    Ok(())
}

/// One gaming day's sessions, by player, table and start.
fn day_sessions(
    conn: &mut AnyConnection,
    calendar: &FloorCalendar,
    rule: &RatingRule,
    day: NaiveDate,
    player_id: Option<&str>,
) -> Result<Vec<RatingSession>, FloorError> {
    use crate::ledger::AccountId;
    use crate::store::schema::{bets as b, transfers as t};
    let (from, to) = calendar.day_bounds(day);
    let (from_us, to_us) = (from.timestamp_micros(), to.timestamp_micros());

    type TransferRow = (
        Option<String>,
        Option<String>,
        Option<String>,
        String,
        String,
        String,
        i64,
        i64,
    );
    let mut query = t::table
        .filter(t::created_at_us.ge(from_us).and(t::created_at_us.lt(to_us)))
        .filter(t::table_id.is_not_null())
        .select((
            t::table_id,
            t::round_id,
            t::bet_id,
            t::kind,
            t::debit_account,
            t::credit_account,
            t::amount_minor,
            t::created_at_us,
        ))
        .into_boxed();
    query = match player_id {
        Some(p) => {
            let wallet = AccountId::wallet(p).to_string();
            query.filter(t::debit_account.eq(wallet.clone()).or(t::credit_account.eq(wallet)))
        }
        None => query.filter(t::debit_account.like("wallet:%").or(t::credit_account.like("wallet:%"))),
    };
    let transfers: Vec<TransferRow> = query.load(conn)?;
    // A session ends with the end of its last round, of whatever game.
    let round_ends: Vec<(String, i64)> = crate::game_registry::ended_between(conn, from_us, to_us)?
        .into_iter()
        .map(|r| (r.round_id, r.updated_at_us))
        .collect();
    // The side bets staked that day and settled (won, lost or pushed), whenever.
    let staked_bets: Vec<&str> = transfers
        .iter()
        .filter(|row| row.3 == "bet_stake")
        .filter_map(|row| row.2.as_deref())
        .collect();
    let mut bet_rows: Vec<(String, String, String, String, i64)> = Vec::with_capacity(staked_bets.len());
    for chunk in staked_bets.chunks(MAX_IDS_PER_QUERY) {
        bet_rows.extend(
            b::table
                .filter(b::id.eq_any(chunk))
                .filter(b::status.eq_any(["won", "lost", "pushed"]))
                .select((b::id, b::pay_table_id, b::kind, b::selection, b::amount_minor))
                .load::<(String, String, String, String, i64)>(conn)?,
        );
    }
    let mut certificates = Certificates::default();
    let mut priced_bets: Vec<(String, i64, Decimal)> = Vec::new();
    let mut settled_bets = HashMap::with_capacity(bet_rows.len());
    for (id, pay_table_id, kind, selection, stake) in &bet_rows {
        let certified = certificates.bet(conn, pay_table_id, kind, selection)?;
        settled_bets.insert(
            id.as_str(),
            ratings::RatedBet {
                stake_minor: *stake,
                house_edge: house_edge(&certified.rtp),
            },
        );
    }
    // Peg Leg's bets and the house's Fuerza, each with the house edge its quote gives it (its
    // theoretical win / stake).
    let priced = [
        peg_leg::closed_among(conn, &staked_bets)?,
        super::fuerza::closed_among(conn, &staked_bets)?,
    ]
    .concat();
    for bet in priced {
        if bet.stake_minor > 0 {
            let house_edge = bet.theo_minor / Decimal::from(bet.stake_minor);
            priced_bets.push((bet.bet_id, bet.stake_minor, house_edge));
        }
    }
    for (id, stake_minor, house_edge) in &priced_bets {
        settled_bets.insert(
            id.as_str(),
            ratings::RatedBet {
                stake_minor: *stake_minor,
                house_edge: *house_edge,
            },
        );
    }
    let facts: Vec<ratings::WalletTransfer> = transfers
        .iter()
        .flat_map(|(table_id, round_id, bet_id, kind, debit, credit, amount, at)| {
            let table_id = table_id.as_deref()?;
            let fact = |player_id, out_of_wallet| ratings::WalletTransfer {
                player_id,
                table_id,
                round_id: round_id.as_deref(),
                bet_id: bet_id.as_deref(),
                kind,
                out_of_wallet,
                amount_minor: *amount,
                // A fee, or its refund, moves one wallet only: it is that wallet's.
                fee_minor: performance::fee_minor(kind, debit, credit, *amount),
                at_us: *at,
            };
            // A transfer between two wallets is a movement of each.
            let out = debit.strip_prefix("wallet:").map(|p| fact(p, true));
            let into = credit.strip_prefix("wallet:").map(|p| fact(p, false));
            Some(
                [out, into]
                    .into_iter()
                    .flatten()
                    .filter(|f| player_id.is_none_or(|p| p == f.player_id)),
            )
        })
        .flatten()
        .collect();
    let round_ends_us: HashMap<&str, i64> = round_ends.iter().map(|(id, at)| (id.as_str(), *at)).collect();
    // The Lobo rounds started that day (their escrow) and settled, whenever.
    let started_lobo: Vec<&str> = transfers
        .iter()
        .filter(|row| row.3 == lobo::ESCROW_KIND)
        .filter_map(|row| row.1.as_deref())
        .collect();
    let lobo_rounds = lobo::settled_among(conn, &started_lobo)?;
    let lobo_theo_minor: HashMap<&str, Decimal> = lobo_rounds
        .iter()
        .map(|r| (r.round_id.as_str(), r.theo_play_minor))
        .collect();
    Ok(ratings::sessions(
        rule,
        day,
        &facts,
        &round_ends_us,
        &settled_bets,
        &lobo_theo_minor,
    ))
}
