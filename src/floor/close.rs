//! Closing a gaming day (docs/floor.md, "Closing a gaming day"): once the
//! day is over and every round of it has ended, a pit boss freezes its
//! report — tables, pits and floor per shift, dealers, meters per table and
//! per bet, corrections, and its reconciliation to the ledger — stores it
//! with its SHA-256, and records that hash in the `gaming_day_closed`
//! significant event, which the signed checkpoints chain. The stored row is
//! insert-only; a later correction belongs to a later day and names the day
//! it corrects.

mod check;

use chrono::NaiveDate;
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use utoipa::ToSchema;

use super::performance::{money, HOUSE_ACCOUNTS};
use super::{calendar, DayRows, DealerLine, FloorError, PerformanceLine, Period, TransferRow};
use crate::domain::format_minor;
use crate::ledger::GENESIS_HASH;
use crate::significant_events::{self, EventKind};
use crate::store::schema::{gaming_day_closes as gdc, ledger_head, significant_events as se, transfers as t};
use crate::store::{now_us, AnyConnection};

/// Most unfinished rounds a refusal names in its message (the day's view lists them all).
const MAX_ROUNDS_NAMED: usize = 20;

/// Why a day cannot be closed.
#[derive(Debug, thiserror::Error)]
pub enum CloseError {
    #[error("gaming day {0} is not over yet: it ends at its cut-off")]
    NotOver(NaiveDate),
    #[error("gaming day {0} is already closed")]
    AlreadyClosed(NaiveDate),
    #[error("gaming day {day} has {count} unfinished round(s); settle or void them first: {named}")]
    UnfinishedRounds {
        day: NaiveDate,
        count: usize,
        named: String,
    },
    #[error(
        "gaming day {day} does not reconcile: the tables' house win is {table_wins} but the house's accounts \
         changed by {house_change}, and the trial balance is {trial_balance}"
    )]
    NotReconciled {
        day: NaiveDate,
        table_wins: String,
        house_change: String,
        trial_balance: String,
    },
    #[error(
        "gaming day {day}: the table report read from the floor's minute meters is not the one read from the \
         ledger's transfers ({}); find what changed them, then `djego meters rebuild`",
        differences.join("; ")
    )]
    MetersDisagree { day: NaiveDate, differences: Vec<String> },
    #[error(
        "a transfer stamped inside gaming day {0} was booked while the day was being closed (a server's clock \
         is behind): close it again"
    )]
    BookedWhileClosing(NaiveDate),
    #[error(transparent)]
    Floor(#[from] FloorError),
    #[error("signing the close: {0}")]
    Checkpoint(String),
}

impl From<crate::checkpoints::CheckpointError> for CloseError {
    fn from(e: crate::checkpoints::CheckpointError) -> CloseError {
        match e {
            crate::checkpoints::CheckpointError::Db(d) => d.into(),
            other => CloseError::Checkpoint(other.to_string()),
        }
    }
}

impl From<diesel::result::Error> for CloseError {
    fn from(e: diesel::result::Error) -> CloseError {
        CloseError::Floor(e.into())
    }
}

/// A round of the day that has not ended (neither settled nor voided).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct UnfinishedRound {
    pub round_id: String,
    pub table_id: String,
    pub game: String,
    pub status: String,
    pub created_at_us: i64,
}

/// What moved at one table over the day, as its meters count it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TableMeters {
    pub table_id: String,
    /// Every transfer from a player's wallet to the table (stakes, copas, fees).
    #[schema(value_type = String)]
    pub stakes_in: String,
    /// Every transfer from the table to a player's wallet, refunds and untouched escrow aside.
    #[schema(value_type = String)]
    pub payouts_out: String,
    /// Money handed back to players' wallets that was held but not risked: voided rounds'
    /// refunds, the corte returned, a game's untouched escrow (Lobo's loss cap).
    #[schema(value_type = String)]
    pub refunds: String,
    /// Rounds that ended settled, and voided, that day.
    pub rounds: i64,
    pub voided_rounds: i64,
}

/// The side bets settled over the day, per certified bet (kind, and number for Cartas).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BetMeters {
    #[schema(example = "prima")]
    pub bet: String,
    pub bets: i64,
    #[schema(value_type = String)]
    pub staked: String,
    #[schema(value_type = String)]
    pub returned: String,
    /// staked − returned.
    #[schema(value_type = String)]
    pub house_win: String,
    /// Σ stake × the house edge of each bet's certificate.
    #[schema(value_type = String)]
    pub theo_win: String,
}

/// A cage correction, with the earlier gaming day it corrects if it names one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CorrectionNote {
    pub transfer_id: String,
    pub player_id: Option<String>,
    pub at_us: i64,
    #[schema(value_type = String)]
    pub amount: String,
    /// `credit` (to the wallet) or `debit`.
    pub direction: String,
    pub reason: String,
    #[schema(value_type = Option<String>, format = Date)]
    pub corrects_gaming_day: Option<String>,
}

/// The day checked against the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Reconciliation {
    /// The house win of the floor's whole-day line: Σ over the tables.
    #[schema(value_type = String)]
    pub table_wins: String,
    /// What every transfer of the day into and out of the house's accounts
    /// (bankroll, revenue) changed them by, with or without a table.
    #[schema(value_type = String)]
    pub house_change: String,
    /// The sum of every account's balance when the report was made: 0.00.
    #[schema(value_type = String)]
    pub trial_balance: String,
    /// `table_wins = house_change` and the trial balance is zero.
    pub reconciled: bool,
    /// At the close: whether the table report read from the floor's minute meters was this
    /// one, read from every row (null in a report not made at a close, or closed before them).
    #[serde(default)]
    pub meters_agree: Option<bool>,
    /// The day's last ledger transfer (0 and the genesis hash when the ledger
    /// was empty): the day's money is the chain up to here.
    pub last_seq: i64,
    pub last_hash: String,
}

/// A gaming day's closing report.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct CloseReport {
    #[schema(value_type = String, format = Date)]
    pub gaming_day: String,
    pub timezone: String,
    /// The day's bounds, microseconds since the Unix epoch.
    pub from_us: i64,
    pub to_us: i64,
    /// The calendar the day was read with.
    pub calendar: super::CalendarSpec,
    /// The pits the tables were grouped by (absent from a report closed before they were kept).
    #[serde(default)]
    pub pits: Option<super::PitsSpec>,
    /// The table performance: per table, pit and the floor, per shift and whole day.
    pub tables: Vec<PerformanceLine>,
    /// The dealer performance, per dealer and shift.
    pub dealers: Vec<DealerLine>,
    pub meters: Vec<TableMeters>,
    pub bets: Vec<BetMeters>,
    /// Corrections made during the day (each names the earlier day it corrects, if any).
    pub corrections: Vec<CorrectionNote>,
    pub reconciliation: Reconciliation,
}

/// Where a gaming day stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DayStatus {
    /// Its cut-off has not come yet.
    InProgress,
    /// Over and not closed.
    Ended,
    Closed,
}

/// Who closed the day, when, and what was frozen.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CloseRecord {
    pub closed_at_us: i64,
    pub closed_by: String,
    /// SHA-256 of the stored report's exact text.
    pub report_sha256: String,
    pub last_seq: i64,
    pub last_hash: String,
    /// Every check below holds: the stored report hashes to `report_sha256`;
    /// the day's one `gaming_day_closed` event names that hash and the same
    /// `last_seq` and `last_hash`; that event is covered by a checkpoint whose
    /// signature verifies and whose events chain recomputes from the events
    /// as stored; and the report recomputed now from the ledger is the one
    /// frozen.
    pub intact: bool,
    /// The checkpoint that covers the close (its `seq`), and the key that signed
    /// it: compare it with the keys the casino published.
    pub checkpoint: Option<i64>,
    pub checkpoint_key_id: Option<String>,
    /// What does not hold, each in a sentence (empty when intact).
    pub problems: Vec<String>,
}

/// A gaming day: its report (frozen when closed; as it reads now otherwise).
#[derive(Serialize, ToSchema)]
pub struct GamingDayView {
    #[schema(value_type = String, format = Date)]
    pub gaming_day: String,
    pub status: DayStatus,
    pub close: Option<CloseRecord>,
    /// Rounds of the day not yet ended (none once closed).
    pub unfinished_rounds: Vec<UnfinishedRound>,
    #[schema(value_type = CloseReport)]
    pub report: Box<RawValue>,
    /// Corrections made on later days that name this day.
    pub later_corrections: Vec<CorrectionNote>,
}

/// The day's report as it reads now, with the pits in force.
fn report(conn: &mut AnyConnection, day: NaiveDate) -> Result<CloseReport, FloorError> {
    let pits = super::pits(conn)?;
    report_with(conn, day, &pits, Until::Present)
}

/// How far a report counts time open and time dealt.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    /// To the present, while the day lasts.
    Present,
    /// To the day's end: a day closed is over, whatever a reader's clock says.
    DayEnd,
}

/// The day's report as it reads now, with `pits` grouping the tables.
fn report_with(
    conn: &mut AnyConnection,
    day: NaiveDate,
    pits: &super::Pits,
    until: Until,
) -> Result<CloseReport, FloorError> {
    let period = Period::day(day);
    let (mut rows, transfers) = DayRows::load(conn, period)?;
    if until == Until::DayEnd {
        rows.until_us = rows.to_us;
    }
    let tables = super::day_report_of(conn, &rows, period, pits)?.lines;
    let dealers = super::dealer_report_of(conn, &rows, period, pits)?.lines;
    let floor_win = tables
        .iter()
        .find(|l| l.table_id.is_none() && l.pit.is_none() && l.shift.is_none())
        .map(|l| l.house_win.clone())
        .unwrap_or_else(|| format_minor(0));
    let reconciliation = reconcile(conn, &rows, floor_win)?;
    Ok(CloseReport {
        gaming_day: day.to_string(),
        timezone: rows.timezone.clone(),
        from_us: rows.from_us,
        to_us: rows.to_us,
        calendar: calendar(conn)?.spec_of_day(day),
        pits: Some(pits.spec().clone()),
        tables,
        dealers,
        meters: table_meters(&rows, &transfers),
        bets: bet_meters(&rows),
        corrections: corrections(conn, Corrections::MadeWithin(rows.from_us, rows.to_us))?,
        reconciliation,
    })
}

fn table_meters(rows: &DayRows, transfers: &[TransferRow]) -> Vec<TableMeters> {
    #[derive(Default)]
    struct Tally {
        stakes_in: i64,
        payouts_out: i64,
        refunds: i64,
        rounds: i64,
        voided_rounds: i64,
    }
    let mut by_table: BTreeMap<&str, Tally> = BTreeMap::new();
    let is_wallet = |account: &str| account.starts_with("wallet:");
    for (table_id, kind, debit, credit, amount, _) in transfers {
        let Some(table_id) = table_id.as_deref() else { continue };
        let tally = by_table.entry(table_id).or_default();
        match (is_wallet(debit), is_wallet(credit)) {
            (true, false) => tally.stakes_in += amount,
            (false, true) if crate::game_registry::returns_unrisked(kind) => tally.refunds += amount,
            (false, true) => tally.payouts_out += amount,
            _ => {}
        }
    }
    for (table_id, status, _) in &rows.rounds {
        let tally = by_table.entry(table_id).or_default();
        if status == "voided" {
            tally.voided_rounds += 1;
        } else {
            tally.rounds += 1;
        }
    }
    by_table
        .into_iter()
        .map(|(table_id, t)| TableMeters {
            table_id: table_id.to_owned(),
            stakes_in: format_minor(t.stakes_in),
            payouts_out: format_minor(t.payouts_out),
            refunds: format_minor(t.refunds),
            rounds: t.rounds,
            voided_rounds: t.voided_rounds,
        })
        .collect()
}

fn bet_meters(rows: &DayRows) -> Vec<BetMeters> {
    let mut by_bet: BTreeMap<&str, (i64, i64, i64, rust_decimal::Decimal)> = BTreeMap::new();
    for b in &rows.bets {
        let m = by_bet.entry(&b.bet).or_default();
        m.0 += b.sums.bets;
        m.1 += b.sums.staked_minor;
        m.2 += b.sums.returned_minor;
        m.3 += rust_decimal::Decimal::from(b.sums.staked_minor) * b.house_edge;
    }
    by_bet
        .into_iter()
        .map(|(bet, (bets, staked, returned, theo))| BetMeters {
            bet: bet.to_owned(),
            bets,
            staked: format_minor(staked),
            returned: format_minor(returned),
            house_win: format_minor(staked - returned),
            theo_win: money(theo),
        })
        .collect()
}

fn reconcile(conn: &mut AnyConnection, rows: &DayRows, table_wins: String) -> Result<Reconciliation, FloorError> {
    let house: Vec<(String, String, i64)> = t::table
        .filter(t::created_at_us.ge(rows.from_us).and(t::created_at_us.lt(rows.to_us)))
        .filter(
            t::debit_account
                .eq_any(HOUSE_ACCOUNTS)
                .or(t::credit_account.eq_any(HOUSE_ACCOUNTS)),
        )
        .select((t::debit_account, t::credit_account, t::amount_minor))
        .load(conn)?;
    let in_house = |account: &str| HOUSE_ACCOUNTS.contains(&account);
    let house_change: i64 = house
        .iter()
        .map(|(debit, credit, amount)| match (in_house(debit), in_house(credit)) {
            (false, true) => *amount,
            (true, false) => -amount,
            _ => 0,
        })
        .sum();
    let trial = crate::ledger::read::trial_balance(conn)?;
    let last: Option<(i64, String)> = t::table
        .filter(t::created_at_us.lt(rows.to_us))
        .order(t::seq.desc())
        .select((t::seq, t::hash))
        .first(conn)
        .optional()?;
    let (last_seq, last_hash) = last.unwrap_or((0, GENESIS_HASH.to_owned()));
    let house_change = format_minor(house_change);
    Ok(Reconciliation {
        reconciled: table_wins == house_change && trial.balanced,
        meters_agree: None,
        table_wins,
        house_change,
        trial_balance: trial.total,
        last_seq,
        last_hash,
    })
}

/// Which corrections to read.
enum Corrections {
    /// Made within `[from_us, to_us)`.
    MadeWithin(i64, i64),
    /// Naming this gaming day as the one they correct (made on a later day).
    Naming(NaiveDate),
}

/// The cage's corrections, oldest first.
fn corrections(conn: &mut AnyConnection, which: Corrections) -> Result<Vec<CorrectionNote>, FloorError> {
    let mut query = se::table
        .filter(se::kind.eq(EventKind::Correction.as_str()))
        .into_boxed();
    query = match which {
        Corrections::MadeWithin(from_us, to_us) => query.filter(se::at_us.ge(from_us).and(se::at_us.lt(to_us))),
        // The details are compact JSON: narrow in the database, confirm below.
        Corrections::Naming(day) => query.filter(se::details.like(format!("%\"corrects_gaming_day\":\"{day}\"%"))),
    };
    let events: Vec<(Option<String>, String, i64)> = query
        .order((se::at_us.asc(), se::id.asc()))
        .select((se::subject, se::details, se::at_us))
        .load(conn)?;
    Ok(events
        .into_iter()
        .filter_map(|(player_id, details, at_us)| {
            let d: serde_json::Value = serde_json::from_str(&details).ok()?;
            let text = |k: &str| d[k].as_str().map(str::to_owned);
            Some(CorrectionNote {
                transfer_id: text("transfer_id")?,
                player_id,
                at_us,
                amount: text("amount")?,
                direction: text("direction")?,
                reason: text("reason").unwrap_or_default(),
                corrects_gaming_day: text("corrects_gaming_day"),
            })
        })
        .collect())
}

/// The rounds of every game created before the day's end that have not ended: each may hold
/// money in escrow.
fn unfinished_rounds(conn: &mut AnyConnection, to_us: i64) -> Result<Vec<UnfinishedRound>, FloorError> {
    Ok(crate::game_registry::unfinished_before(conn, to_us)?
        .into_iter()
        .map(|r| UnfinishedRound {
            round_id: r.round_id,
            table_id: r.table_id,
            game: r.game.id().to_owned(),
            status: r.status,
            created_at_us: r.created_at_us,
        })
        .collect())
}

/// A stored close: closed at, by, the report's text, its SHA-256, last seq, last hash.
type StoredClose = (i64, String, String, String, i64, String);

fn stored(conn: &mut AnyConnection, day: NaiveDate) -> Result<Option<StoredClose>, FloorError> {
    Ok(gdc::table
        .find(day.to_string())
        .select((
            gdc::closed_at_us,
            gdc::closed_by,
            gdc::report,
            gdc::report_sha256,
            gdc::last_seq,
            gdc::last_hash,
        ))
        .first(conn)
        .optional()?)
}

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn raw(text: String) -> Result<Box<RawValue>, FloorError> {
    RawValue::from_string(text).map_err(|e| FloorError::StoredSetting("gaming_day_closes.report", e.to_string()))
}

/// A gaming day as it stands: frozen if closed (and checked against the
/// checkpoints in the database, see [`CloseRecord::intact`]), read now if not.
pub fn view(conn: &mut AnyConnection, day: NaiveDate) -> Result<GamingDayView, FloorError> {
    let checkpoints = crate::checkpoints::all(conn)?;
    view_checked(conn, day, &checkpoints, &[])
}

/// [`view`], a close checked against `checkpoints` (an exported file's, say),
/// each required to be signed by one of `pinned` (by the key it carries when
/// none are given).
pub fn view_checked(
    conn: &mut AnyConnection,
    day: NaiveDate,
    checkpoints: &[crate::checkpoints::Checkpoint],
    pinned: &[crate::checkpoints::PublicKey],
) -> Result<GamingDayView, FloorError> {
    let later_corrections = later_corrections(conn, day)?;
    if let Some(stored) = stored(conn, day)? {
        let checked = check::check(conn, day, &stored, checkpoints, pinned)?;
        let (closed_at_us, closed_by, text, sha, last_seq, last_hash) = stored;
        return Ok(GamingDayView {
            gaming_day: day.to_string(),
            status: DayStatus::Closed,
            close: Some(CloseRecord {
                closed_at_us,
                closed_by,
                report_sha256: sha,
                last_seq,
                last_hash,
                intact: checked.problems.is_empty(),
                checkpoint: checked.checkpoint.as_ref().map(|c| c.0),
                checkpoint_key_id: checked.checkpoint.map(|c| c.1),
                problems: checked.problems,
            }),
            unfinished_rounds: Vec::new(),
            report: raw(text)?,
            later_corrections,
        });
    }
    let report = report(conn, day)?;
    let status = if now_us() >= report.to_us {
        DayStatus::Ended
    } else {
        DayStatus::InProgress
    };
    Ok(GamingDayView {
        gaming_day: day.to_string(),
        status,
        close: None,
        unfinished_rounds: unfinished_rounds(conn, report.to_us)?,
        report: raw(serde_json::to_string(&report).expect("a report serialises"))?,
        later_corrections,
    })
}

fn later_corrections(conn: &mut AnyConnection, day: NaiveDate) -> Result<Vec<CorrectionNote>, FloorError> {
    Ok(corrections(conn, Corrections::Naming(day))?
        .into_iter()
        .filter(|c| c.corrects_gaming_day.as_deref() == Some(&day.to_string()))
        .collect())
}

/// The day as CSV for a spreadsheet: one section per part of the view — the
/// day and its close, then the report's tables, dealers, meters, bets,
/// corrections and reconciliation, then the unfinished rounds and the later
/// corrections. Each section is its header row and then its rows, the first
/// field of every one (header included) the section's name, so that an
/// empty section is still named; a blank line parts them.
/// A closed day's sections are read from the report frozen at its close.
pub fn to_csv(view: &GamingDayView) -> Result<String, FloorError> {
    use super::performance::{csv_field as q, csv_record, CSV_HEADER};
    let report: CloseReport = serde_json::from_str(view.report.get())
        .map_err(|e| FloorError::StoredSetting("gaming_day_closes.report", e.to_string()))?;
    let day = view.gaming_day.as_str();
    let close = view.close.as_ref();
    let status = serde_json::to_value(view.status).expect("a status serialises");
    let mut out = String::new();
    section(
        &mut out,
        "day",
        &[
            "gaming_day",
            "status",
            "timezone",
            "from_us",
            "to_us",
            "closed_by",
            "closed_at_us",
            "report_sha256",
            "last_seq",
            "last_hash",
            "intact",
            "checkpoint",
            "problems",
        ],
        [vec![
            q(day),
            status.as_str().unwrap_or_default().to_string(),
            q(&report.timezone),
            report.from_us.to_string(),
            report.to_us.to_string(),
            close.map(|c| q(&c.closed_by)).unwrap_or_default(),
            close.map(|c| c.closed_at_us.to_string()).unwrap_or_default(),
            close.map(|c| c.report_sha256.clone()).unwrap_or_default(),
            close.map(|c| c.last_seq.to_string()).unwrap_or_default(),
            close.map(|c| c.last_hash.clone()).unwrap_or_default(),
            close.map(|c| c.intact.to_string()).unwrap_or_default(),
            close
                .and_then(|c| c.checkpoint)
                .map(|seq| seq.to_string())
                .unwrap_or_default(),
            close.map(|c| q(&c.problems.join(" | "))).unwrap_or_default(),
        ]],
    );
    section(
        &mut out,
        "tables",
        CSV_HEADER,
        report.tables.iter().map(|l| csv_record(day, l)),
    );
    section(
        &mut out,
        "dealers",
        super::DEALER_CSV_HEADER,
        report.dealers.iter().map(|l| super::dealer_csv_record(day, l)),
    );
    section(
        &mut out,
        "meters",
        &[
            "gaming_day",
            "table_id",
            "stakes_in",
            "payouts_out",
            "refunds",
            "rounds",
            "voided_rounds",
        ],
        report.meters.iter().map(|m| {
            vec![
                q(day),
                q(&m.table_id),
                m.stakes_in.clone(),
                m.payouts_out.clone(),
                m.refunds.clone(),
                m.rounds.to_string(),
                m.voided_rounds.to_string(),
            ]
        }),
    );
    section(
        &mut out,
        "bets",
        &[
            "gaming_day",
            "bet",
            "bets",
            "staked",
            "returned",
            "house_win",
            "theo_win",
        ],
        report.bets.iter().map(|b| {
            vec![
                q(day),
                q(&b.bet),
                b.bets.to_string(),
                b.staked.clone(),
                b.returned.clone(),
                b.house_win.clone(),
                b.theo_win.clone(),
            ]
        }),
    );
    section(
        &mut out,
        "corrections",
        CORRECTION_HEADER,
        report.corrections.iter().map(|c| correction_record(day, c)),
    );
    let r = &report.reconciliation;
    section(
        &mut out,
        "reconciliation",
        &[
            "gaming_day",
            "table_wins",
            "house_change",
            "trial_balance",
            "reconciled",
            "meters_agree",
            "last_seq",
            "last_hash",
        ],
        [vec![
            q(day),
            r.table_wins.clone(),
            r.house_change.clone(),
            r.trial_balance.clone(),
            r.reconciled.to_string(),
            r.meters_agree.map(|a| a.to_string()).unwrap_or_default(),
            r.last_seq.to_string(),
            r.last_hash.clone(),
        ]],
    );
    section(
        &mut out,
        "unfinished_rounds",
        &["gaming_day", "round_id", "table_id", "game", "status", "created_at_us"],
        view.unfinished_rounds.iter().map(|u| {
            vec![
                q(day),
                q(&u.round_id),
                q(&u.table_id),
                q(&u.game),
                q(&u.status),
                u.created_at_us.to_string(),
            ]
        }),
    );
    section(
        &mut out,
        "later_corrections",
        CORRECTION_HEADER,
        view.later_corrections.iter().map(|c| correction_record(day, c)),
    );
    Ok(out)
}

const CORRECTION_HEADER: &[&str] = &[
    "gaming_day",
    "transfer_id",
    "player_id",
    "at_us",
    "amount",
    "direction",
    "reason",
    "corrects_gaming_day",
];

fn correction_record(day: &str, c: &CorrectionNote) -> Vec<String> {
    use super::performance::csv_field as q;
    vec![
        q(day),
        q(&c.transfer_id),
        q(c.player_id.as_deref().unwrap_or("")),
        c.at_us.to_string(),
        c.amount.clone(),
        q(&c.direction),
        q(&c.reason),
        q(c.corrects_gaming_day.as_deref().unwrap_or("")),
    ]
}

/// Appends a CSV section: its header and each record, after its name.
fn section(out: &mut String, name: &str, header: &[&str], records: impl IntoIterator<Item = Vec<String>>) {
    if !out.is_empty() {
        out.push('\n');
    }
    let named = records.into_iter().map(|record| {
        let mut with_name = Vec::with_capacity(record.len() + 1);
        with_name.push(name.to_string());
        with_name.extend(record);
        with_name
    });
    let header: Vec<&str> = std::iter::once(name).chain(header.iter().copied()).collect();
    out.push_str(&super::performance::csv_text(&header, named));
}

/// Closes a gaming day: refused before its cut-off, while a round of it is
/// unfinished, when it does not reconcile (its minute meters against its
/// transfers included), or when it is closed already. Moves where the ledger
/// is closed to the day's end, under the ledger head's lock, so that no
/// transfer is booked into the day after it is read; records the close and
/// signs it at once with a checkpoint. Call inside a write transaction.
pub fn close(
    conn: &mut AnyConnection,
    day: NaiveDate,
    actor_id: &str,
    key: &crate::checkpoints::CheckpointKey,
) -> Result<GamingDayView, CloseError> {
    if stored(conn, day)?.is_some() {
        return Err(CloseError::AlreadyClosed(day));
    }
    let (_, day_end) = calendar(conn)?.day_bounds(day);
    let day_end_us = day_end.timestamp_micros();
    if now_us() < day_end_us {
        return Err(CloseError::NotOver(day));
    }
    let unfinished = unfinished_rounds(conn, day_end_us)?;
    if !unfinished.is_empty() {
        let mut named: Vec<String> = unfinished
            .iter()
            .take(MAX_ROUNDS_NAMED)
            .map(|r| format!("round {} at table {} ({})", r.round_id, r.table_id, r.status))
            .collect();
        if unfinished.len() > MAX_ROUNDS_NAMED {
            named.push(format!("and {} more", unfinished.len() - MAX_ROUNDS_NAMED));
        }
        return Err(CloseError::UnfinishedRounds {
            day,
            count: unfinished.len(),
            named: named.join("; "),
        });
    }
    // The head before the day is read: a transfer into the day committed after this (a clock
    // behind) is found below, once no other can commit.
    let head_before: i64 = ledger_head::table.find(1).select(ledger_head::seq).first(conn)?;
    let pits = super::pits(conn)?;
    let mut report = report_with(conn, day, &pits, Until::DayEnd)?;
    let metered = super::meters::metered_lines(conn, Period::day(day), &pits)?;
    if metered != report.tables {
        let mut differences = Vec::new();
        check::differences(
            "tables",
            &serde_json::to_value(&report.tables).expect("lines serialise"),
            &serde_json::to_value(&metered).expect("lines serialise"),
            ("ledger", "meters"),
            &mut differences,
        );
        tracing::warn!(%day, "the floor's minute meters disagree with the ledger");
        return Err(CloseError::MetersDisagree { day, differences });
    }
    report.reconciliation.meters_agree = Some(true);
    let r = &report.reconciliation;
    if !r.reconciled {
        return Err(CloseError::NotReconciled {
            day,
            table_wins: r.table_wins.clone(),
            house_change: r.house_change.clone(),
            trial_balance: r.trial_balance.clone(),
        });
    }
    // From here until this transaction commits no transfer commits; after it, none stamped
    // before the day's end can.
    crate::ledger::lock_head_row(conn)?;
    let booked_meanwhile: Option<i64> = t::table
        .filter(t::seq.gt(head_before))
        .filter(t::created_at_us.lt(day_end_us))
        .select(t::seq)
        .first(conn)
        .optional()?;
    if booked_meanwhile.is_some() {
        return Err(CloseError::BookedWhileClosing(day));
    }
    crate::ledger::close_until(conn, day_end_us)?;
    let text = serde_json::to_string(&report).expect("a report serialises");
    let sha = sha256_hex(&text);
    let closed_at_us = now_us();
    let inserted = diesel::insert_into(gdc::table)
        .values((
            gdc::gaming_day.eq(day.to_string()),
            gdc::closed_at_us.eq(closed_at_us),
            gdc::closed_by.eq(actor_id),
            gdc::report.eq(&text),
            gdc::report_sha256.eq(&sha),
            gdc::last_seq.eq(r.last_seq),
            gdc::last_hash.eq(&r.last_hash),
        ))
        .execute(conn);
    match inserted {
        Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)) => {
            return Err(CloseError::AlreadyClosed(day))
        }
        other => other?,
    };
    significant_events::record(
        conn,
        EventKind::GamingDayClosed,
        Some(actor_id),
        Some(&day.to_string()),
        serde_json::json!({
            "gaming_day": day.to_string(),
            "report_sha256": sha,
            "last_seq": r.last_seq,
            "last_hash": r.last_hash,
            "table_wins": r.table_wins,
        }),
    )?;
    // Signed now, so the close is covered by a checkpoint from the start.
    let signed = crate::checkpoints::take(conn, key, Some(actor_id), crate::checkpoints::Trigger::DayClose)?;
    Ok(GamingDayView {
        gaming_day: day.to_string(),
        status: DayStatus::Closed,
        close: Some(CloseRecord {
            closed_at_us,
            closed_by: actor_id.to_owned(),
            report_sha256: sha,
            last_seq: r.last_seq,
            last_hash: r.last_hash.clone(),
            intact: true,
            checkpoint: Some(signed.seq),
            checkpoint_key_id: Some(signed.key_id),
            problems: Vec::new(),
        }),
        unfinished_rounds: Vec::new(),
        report: raw(text)?,
        later_corrections: later_corrections(conn, day)?,
    })
}
