//! The floor's minute meters (docs/floor.md, "How fast the reports are"): per table and minute,
//! the money and side-bet sums the table report adds up, so that a day's report reads a few
//! thousand meter rows instead of the day's millions of transfers and bets.
//!
//! The meters are derived, never original: a step of [`catch_up`] reads the ledger's transfers
//! after the mark (`floor_meter_mark.through_seq`) up to the committed head, and the side bets
//! those transfers settled, and appends their sums with the new mark. The ledger is appended in
//! `seq` order under its head's lock, so once `seq` S is visible every transfer up to S is, and
//! the rows after the mark are exactly what the meters have not read. A report then adds, in one
//! snapshot, the meters of the minutes wholly inside one shift of its period, and the rows the
//! meters do not cover: transfers after the mark, bets settled by them, and every row of a
//! minute a shift or the period starts or ends inside. So it equals the report read from every
//! row (tested), whatever the meters have reached.

use diesel::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::{bets_rows, Certificates, DayRows, FloorError, MoneyRow, Period, SettledBetRow, TransferRow};
use super::{settled_bet_columns, transfer_columns, MAX_IDS_PER_QUERY, SETTLED};
use crate::math::observed_rtp::RtpSums;
use crate::store::schema::{
    bets as b, floor_bet_minutes as fb, floor_meter_mark as fm, floor_money_minutes as fmm, ledger_head, transfers as t,
};
use crate::store::{AnyConnection, Database};

pub const MINUTE_US: i64 = 60_000_000;

/// Most transfers one step reads: bounds its memory and the rows one write appends.
pub const TRANSFERS_PER_STEP: i64 = 100_000;

/// The transfers that settle a side bet: exactly one per settled bet (a lost stake collected,
/// a won or pushed one returned; winnings are a further `bet_payout`).
const SETTLEMENT_KINDS: [&str; 2] = ["bet_collected", "bet_returned"];

fn minute_of(at_us: i64) -> i64 {
    at_us.div_euclid(MINUTE_US) * MINUTE_US
}

/// Brings the meters up to the ledger's committed head, a step at a time; returns the `seq` they
/// have read through. Each step sums in a read-only snapshot, outside any write: on SQLite the
/// writer's turn is the wager path's, and a step's read of up to [`TRANSFERS_PER_STEP`]
/// transfers held it for 100 ms and more (every wager waited). Only appending the sums and
/// moving the mark is a write, and it checks the mark has not moved since the snapshot:
/// instances may run this at once, and the one that finds the mark moved sums again from there.
pub fn catch_up(db: &Database) -> Result<i64, FloorError> {
    loop {
        let summed = {
            let mut conn = db.conn()?;
            in_snapshot(&mut conn, sum_after_mark)?
        };
        let summed = match summed {
            Summed::UpToDate { through_seq } => return Ok(through_seq),
            Summed::Step(step) => step,
        };
        match db.write(|conn| append(conn, &summed))? {
            Appended::MarkMoved => continue,
            Appended::Through { through_seq, more } => {
                if !more {
                    return Ok(through_seq);
                }
            }
        }
    }
}

/// A thread that catches the meters up every interval, so that a report finds little left to
/// read row by row. Stops when dropped.
pub struct MeterSchedule {
    _thread: crate::periodic::Periodic,
}

impl MeterSchedule {
    /// Starts the thread, or nothing when `interval` is zero.
    pub fn start(db: Database, interval: std::time::Duration) -> Option<MeterSchedule> {
        crate::periodic::Periodic::start("djego-floor-meters", interval, move || {
            if let Err(e) = catch_up(&db) {
                tracing::warn!(error = %e, "the floor's minute meters were not brought up to the ledger");
            }
        })
        .map(|thread| MeterSchedule { _thread: thread })
    }
}

/// What a snapshot found after the mark.
enum Summed {
    /// Nothing after the mark.
    UpToDate {
        through_seq: i64,
    },
    Step(Step),
}

/// One step's sums: of the transfers in `(mark, through_seq]` and the side bets they settled.
struct Step {
    /// The mark the sums start from.
    mark: i64,
    through_seq: i64,
    /// The committed head when summed: more remains when `through_seq` is below it.
    head: i64,
    /// (table, minute) → transfers, drop, win, fees.
    money: BTreeMap<(String, i64), [i64; 4]>,
    /// (table, minute, pay table, bet) → sums.
    bets: BTreeMap<(String, i64, String, String), RtpSums>,
}

enum Appended {
    /// Another step moved the mark since the snapshot: nothing written.
    MarkMoved,
    Through {
        through_seq: i64,
        more: bool,
    },
}

/// Sums the transfers after the mark up to the committed head (at most [`TRANSFERS_PER_STEP`]),
/// and the side bets they settled. Run in one snapshot: committed transfers and settled bets
/// never change, so the sums stay true after it.
fn sum_after_mark(conn: &mut AnyConnection) -> Result<Summed, FloorError> {
    let mark: i64 = fm::table.find(1).select(fm::through_seq).first(conn)?;
    let head: i64 = ledger_head::table.find(1).select(ledger_head::seq).first(conn)?;
    if head <= mark {
        return Ok(Summed::UpToDate { through_seq: mark });
    }
    // seq, round, bet, and the transfer as the report reads it.
    let mut rows: Vec<(i64, Option<String>, Option<String>, TransferRow)> = t::table
        .filter(t::seq.gt(mark).and(t::seq.le(head)))
        .order(t::seq.asc())
        .limit(TRANSFERS_PER_STEP)
        .select((t::seq, t::round_id, t::bet_id, transfer_columns()))
        .load(conn)?;
    let mut through_seq = head;
    if rows.len() as i64 == TRANSFERS_PER_STEP {
        // Stop before the last round's run of transfers, so that a round's settlement (one
        // transaction, so consecutive) is summed in one step: its bets share a deal.
        let last_round = rows.last().and_then(|r| r.1.clone());
        if let Some(keep) = rows.iter().rposition(|r| r.1 != last_round) {
            rows.truncate(keep + 1);
        }
        through_seq = rows.last().map_or(head, |r| r.0);
    }

    let mut money: BTreeMap<(String, i64), [i64; 4]> = BTreeMap::new();
    let mut settled: Vec<&str> = Vec::new();
    for (_, _, bet_id, transfer) in &rows {
        if let Some(m) = MoneyRow::of(transfer) {
            let sum = money.entry((m.table_id, minute_of(m.at_us))).or_default();
            sum[0] += 1;
            sum[1] += m.drop_minor;
            sum[2] += m.win_minor;
            sum[3] += m.fees_minor;
        }
        if SETTLEMENT_KINDS.contains(&transfer.1.as_str()) {
            settled.extend(bet_id.as_deref());
        }
    }
    let settled = settled_bets(conn, &settled, None)?;
    let mut bets: BTreeMap<(String, i64, String, String), RtpSums> = BTreeMap::new();
    for b in bets_rows(conn, &mut Certificates::default(), settled)? {
        bets.entry((b.table_id, minute_of(b.at_us), b.pay_table_id, b.bet))
            .or_default()
            .add(&b.sums);
    }
    Ok(Summed::Step(Step {
        mark,
        through_seq,
        head,
        money,
        bets,
    }))
}

/// Appends a step's sums and moves the mark, if the mark is still where the step started.
fn append(conn: &mut AnyConnection, step: &Step) -> Result<Appended, FloorError> {
    let mark: i64 = match conn {
        AnyConnection::Postgresql(c) => fm::table.find(1).select(fm::through_seq).for_update().first(c)?,
        AnyConnection::Sqlite(c) => fm::table.find(1).select(fm::through_seq).first(c)?,
    };
    if mark != step.mark {
        return Ok(Appended::MarkMoved);
    }
    let through_seq = step.through_seq;
    let money_rows: Vec<_> = step
        .money
        .iter()
        .map(|((table_id, minute_us), [count, drop_minor, win_minor, fees_minor])| {
            (
                fmm::table_id.eq(table_id),
                fmm::minute_us.eq(minute_us),
                fmm::through_seq.eq(through_seq),
                fmm::transfers.eq(count),
                fmm::drop_minor.eq(drop_minor),
                fmm::win_minor.eq(win_minor),
                fmm::fees_minor.eq(fees_minor),
            )
        })
        .collect();
    // Many rows to an INSERT needs the backend's own connection.
    for chunk in money_rows.chunks(MAX_ROWS_PER_INSERT) {
        match conn {
            AnyConnection::Postgresql(c) => diesel::insert_into(fmm::table).values(chunk).execute(c)?,
            AnyConnection::Sqlite(c) => diesel::insert_into(fmm::table).values(chunk).execute(c)?,
        };
    }
    let bet_rows: Vec<_> = step
        .bets
        .iter()
        .map(|((table_id, minute_us, pay_table_id, bet), s)| {
            (
                fb::table_id.eq(table_id),
                fb::minute_us.eq(minute_us),
                fb::through_seq.eq(through_seq),
                fb::pay_table_id.eq(pay_table_id),
                fb::bet.eq(bet),
                fb::bets.eq(s.bets),
                fb::rounds.eq(s.rounds),
                fb::staked_minor.eq(s.staked_minor),
                fb::returned_minor.eq(s.returned_minor),
                fb::staked_sq.eq(s.staked_sq),
                fb::round_staked_sq.eq(s.round_staked_sq),
                fb::round_cross.eq(s.round_cross),
                fb::round_returned_sq.eq(s.round_returned_sq),
            )
        })
        .collect();
    for chunk in bet_rows.chunks(MAX_ROWS_PER_INSERT) {
        match conn {
            AnyConnection::Postgresql(c) => diesel::insert_into(fb::table).values(chunk).execute(c)?,
            AnyConnection::Sqlite(c) => diesel::insert_into(fb::table).values(chunk).execute(c)?,
        };
    }
    diesel::update(fm::table.find(1))
        .set(fm::through_seq.eq(through_seq))
        .execute(conn)?;
    Ok(Appended::Through {
        through_seq,
        more: through_seq < step.head,
    })
}

/// Rows per multi-row insert: under SQLite's limit on bound parameters (13 a bet row).
const MAX_ROWS_PER_INSERT: usize = 500;

/// The settled side bets among `ids` (settled within `[from, to)` when given).
fn settled_bets(
    conn: &mut AnyConnection,
    ids: &[&str],
    within_us: Option<(i64, i64)>,
) -> Result<Vec<SettledBetRow>, FloorError> {
    let mut rows = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(MAX_IDS_PER_QUERY) {
        let mut query = b::table
            .filter(b::id.eq_any(chunk))
            .filter(b::status.eq_any(SETTLED))
            .select(settled_bet_columns())
            .into_boxed();
        if let Some((from_us, to_us)) = within_us {
            query = query.filter(b::settled_at_us.ge(from_us).and(b::settled_at_us.lt(to_us)));
        }
        rows.extend(query.load::<SettledBetRow>(conn)?);
    }
    Ok(rows)
}

/// Runs `f` in one read-only snapshot: the mark, the meters and the rows after the mark must
/// be read as of one instant, or a step between them would count its rows twice.
pub fn in_snapshot<T>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, FloorError>,
) -> Result<T, FloorError> {
    conn.transaction(|conn| {
        if let AnyConnection::Postgresql(c) = conn {
            diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(c)?;
        }
        // SQLite: a read transaction sees one snapshot from its first read on.
        f(conn)
    })
}

/// The minutes of `[from_us, to_us)` the meters may not answer for: those a boundary (the
/// period's, a shift's) falls strictly inside, clipped to the period; in order.
fn split_minutes(from_us: i64, to_us: i64, shifts: &[(String, i64, i64)]) -> Vec<(i64, i64)> {
    let mut minutes: Vec<i64> = std::iter::once(from_us)
        .chain(std::iter::once(to_us))
        .chain(shifts.iter().flat_map(|(_, s, e)| [*s, *e]))
        .filter(|at| at % MINUTE_US != 0 && (from_us..=to_us).contains(at))
        .map(minute_of)
        .collect();
    minutes.sort_unstable();
    minutes.dedup();
    minutes
        .into_iter()
        .map(|m| (m.max(from_us), (m + MINUTE_US).min(to_us)))
        .filter(|(a, b)| a < b)
        .collect()
}

/// The period's rows as the table report adds them up, from the meters and the rows they do
/// not cover (the module's docs). Call it inside [`in_snapshot`].
pub(super) fn load(conn: &mut AnyConnection, period: Period) -> Result<DayRows, FloorError> {
    let mut rows = DayRows::frame(conn, period)?;
    let (from_us, to_us) = (rows.from_us, rows.to_us);
    let mark: i64 = fm::table.find(1).select(fm::through_seq).first(conn)?;
    let split = split_minutes(from_us, to_us, &rows.shifts);
    let split_starts: HashSet<i64> = split.iter().map(|(a, _)| minute_of(*a)).collect();
    // A metered minute lies wholly inside the period and no boundary falls inside it.
    let metered =
        |minute_us: i64| minute_us >= from_us && minute_us + MINUTE_US <= to_us && !split_starts.contains(&minute_us);

    // Money: the meters' minutes, then the transfers after the mark, then the split minutes'.
    let meters: Vec<(String, i64, i64, i64, i64)> = fmm::table
        .filter(fmm::minute_us.ge(from_us).and(fmm::minute_us.lt(to_us)))
        .select((
            fmm::table_id,
            fmm::minute_us,
            fmm::drop_minor,
            fmm::win_minor,
            fmm::fees_minor,
        ))
        .load(conn)?;
    for (table_id, minute_us, drop_minor, win_minor, fees_minor) in meters {
        if metered(minute_us) {
            rows.money.push(MoneyRow {
                table_id,
                at_us: minute_us,
                drop_minor,
                win_minor,
                fees_minor,
            });
        }
    }
    let mut transfers: Vec<TransferRow> = t::table
        .filter(t::seq.gt(mark))
        .filter(t::created_at_us.ge(from_us).and(t::created_at_us.lt(to_us)))
        .filter(t::table_id.is_not_null())
        .select(transfer_columns())
        .load(conn)?;
    for &(start_us, end_us) in &split {
        transfers.extend(
            t::table
                .filter(t::seq.le(mark))
                .filter(t::created_at_us.ge(start_us).and(t::created_at_us.lt(end_us)))
                .filter(t::table_id.is_not_null())
                .select(transfer_columns())
                .load::<TransferRow>(conn)?,
        );
    }
    rows.money.extend(transfers.iter().filter_map(MoneyRow::of));

    // Bets: likewise, a bet being the meters' once the transfer that settled it is.
    let mut certificates = Certificates::default();
    let meters: Vec<(String, i64, String, String, RtpSums)> = fb::table
        .filter(fb::minute_us.ge(from_us).and(fb::minute_us.lt(to_us)))
        .select((
            fb::table_id,
            fb::minute_us,
            fb::pay_table_id,
            fb::bet,
            (
                fb::bets,
                fb::rounds,
                fb::staked_minor,
                fb::returned_minor,
                fb::staked_sq,
                fb::round_staked_sq,
                fb::round_cross,
                fb::round_returned_sq,
            ),
        ))
        .load::<(String, i64, String, String, (i64, i64, i64, i64, f64, f64, f64, f64))>(conn)?
        .into_iter()
        .map(|(table_id, minute_us, pay_table_id, bet, s)| {
            let sums = RtpSums {
                bets: s.0,
                rounds: s.1,
                staked_minor: s.2,
                returned_minor: s.3,
                staked_sq: s.4,
                round_staked_sq: s.5,
                round_cross: s.6,
                round_returned_sq: s.7,
            };
            (table_id, minute_us, pay_table_id, bet, sums)
        })
        .collect();
    for (table_id, minute_us, pay_table_id, bet, sums) in meters {
        if !metered(minute_us) {
            continue;
        }
        let c = certificates.certified(conn, &pay_table_id, &bet)?;
        let (house_edge, sd_per_unit) = (super::house_edge(&c.rtp), c.std_dev_per_unit);
        rows.bets.push(super::BetsRow {
            table_id,
            at_us: minute_us,
            pay_table_id,
            bet,
            house_edge,
            sd_per_unit,
            sums,
        });
    }
    let after_mark: Vec<Option<String>> = t::table
        .filter(t::seq.gt(mark))
        .filter(t::kind.eq_any(SETTLEMENT_KINDS))
        .select(t::bet_id)
        .load(conn)?;
    let after_mark: Vec<&str> = after_mark.iter().flatten().map(String::as_str).collect();
    let mut bets = settled_bets(conn, &after_mark, Some((from_us, to_us)))?;
    for &(start_us, end_us) in &split {
        bets.extend(settled_by_mark(conn, mark, start_us, end_us)?);
    }
    rows.bets.extend(bets_rows(conn, &mut certificates, bets)?);
    Ok(rows)
}

/// The table report read from the meters, to set beside `from_ledger`, the lines read from every
/// row: the day close's check that nothing changed the meters or the ledger behind djego's back
/// (docs/floor.md). Holds the mark's lock (PostgreSQL) so that no step lands between the two reads.
pub(super) fn metered_lines(
    conn: &mut AnyConnection,
    period: Period,
    pits: &super::Pits,
) -> Result<Vec<super::PerformanceLine>, FloorError> {
    conn.transaction(|conn| {
        if let AnyConnection::Postgresql(c) = conn {
            fm::table.find(1).select(fm::through_seq).for_update().first::<i64>(c)?;
        }
        let rows = load(conn, period)?;
        Ok(super::day_report_of(conn, &rows, period, pits)?.lines)
    })
}

/// Forgets the meters and reads the whole ledger again: after the day close found them changed.
/// Needs the right to delete their rows (the schema owner's, on PostgreSQL).
pub fn rebuild(db: &Database) -> Result<i64, FloorError> {
    db.write(|conn| -> Result<(), FloorError> {
        diesel::delete(fb::table).execute(conn)?;
        diesel::delete(fmm::table).execute(conn)?;
        diesel::update(fm::table.find(1))
            .set(fm::through_seq.eq(0))
            .execute(conn)?;
        Ok(())
    })?;
    catch_up(db)
}

/// The side bets settled within `[from_us, to_us)` by a transfer at or before the mark.
fn settled_by_mark(
    conn: &mut AnyConnection,
    mark: i64,
    from_us: i64,
    to_us: i64,
) -> Result<Vec<SettledBetRow>, FloorError> {
    let bets: Vec<(String, SettledBetRow)> = b::table
        .filter(b::settled_at_us.ge(from_us).and(b::settled_at_us.lt(to_us)))
        .filter(b::status.eq_any(SETTLED))
        .select((b::id, settled_bet_columns()))
        .load(conn)?;
    let rounds: Vec<&str> = bets
        .iter()
        .map(|(_, row)| row.1.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    // Their settling transfers, found by round (indexed), not by bet.
    let mut settled_at_seq: HashMap<String, i64> = HashMap::new();
    for chunk in rounds.chunks(MAX_IDS_PER_QUERY) {
        let found: Vec<(Option<String>, i64)> = t::table
            .filter(t::round_id.eq_any(chunk))
            .filter(t::kind.eq_any(SETTLEMENT_KINDS))
            .select((t::bet_id, t::seq))
            .load(conn)?;
        settled_at_seq.extend(found.into_iter().filter_map(|(bet, seq)| Some((bet?, seq))));
    }
    Ok(bets
        .into_iter()
        .filter(|(id, _)| settled_at_seq.get(id).is_some_and(|seq| *seq <= mark))
        .map(|(_, row)| row)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_split_by_a_boundary_are_read_row_by_row() {
        let m = MINUTE_US;
        let shifts = vec![
            ("a".to_owned(), 10 * m + 5, 20 * m),
            ("b".to_owned(), 20 * m, 30 * m + 7),
        ];
        // The period from 10:05 in to 30:07 in: its first and last minutes are partial, the
        // shift change at 20 is on a minute.
        assert_eq!(
            split_minutes(10 * m + 5, 30 * m + 7, &shifts),
            vec![(10 * m + 5, 11 * m), (30 * m, 30 * m + 7)]
        );
        // All on minutes: nothing to split.
        let aligned = vec![("a".to_owned(), 0, 60 * m)];
        assert!(split_minutes(0, 60 * m, &aligned).is_empty());
        // Negative instants (before 1970) floor to their minute too.
        assert_eq!(minute_of(-1), -m);
    }
}
