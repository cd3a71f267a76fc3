//! Running the floor (docs/floor.md): the casino's calendar of gaming days
//! and shifts, its rating rule and its pits, kept as settings (`settings`)
//! and changed by a pit boss as significant events; dealers signing in and
//! out of tables, as significant events; each gaming day's table performance,
//! dealer performance and player ratings, read from the ledger, the rounds,
//! the bets and those events.

pub mod calendar;
pub mod close;
mod dealer_box;
mod dealer_report;
pub mod dealers;
pub mod fuerza;
pub mod lobo;
pub mod meters;
pub mod peg_leg;
pub mod performance;
pub mod pits;
pub mod plots;
pub mod priced;
mod rating_report;
pub mod ratings;

use chrono::NaiveDate;
use diesel::prelude::*;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::ToSchema;

use crate::settings::{self, SettingError};
use crate::significant_events::{self, EventKind};
use crate::store::schema::{bets as b, transfers as t};
use crate::store::AnyConnection;
pub use calendar::{CalendarChange, CalendarError, CalendarRule, CalendarSpec, FloorCalendar, Placement, ShiftSpec};
pub use dealer_box::{dealer_in_box, sign_in, sign_out, DealerInBox};
use dealer_report::dealer_report_of;
pub use dealer_report::{
    dealer_csv, dealer_csv_record, dealer_lines_csv, dealer_report, DealerLine, DealerReport, DEALER_CSV_HEADER,
};
pub use performance::PerformanceLine;
pub use pits::{Pits, PitsError, PitsSpec};
pub use rating_report::{rating_report, RatingReport};
pub use ratings::{RatingRule, RatingRuleError, RatingRuleSpec, RatingSession};

/// The `settings` row holding the calendar (a [`CalendarSpec`] as JSON).
const CALENDAR_SETTING: &str = "floor.calendar";
/// The `settings` row holding the rating rule (a [`RatingRuleSpec`] as JSON).
const RATING_RULE_SETTING: &str = "floor.rating_rule";
/// The `settings` row holding the pits (a [`PitsSpec`] as JSON).
const PITS_SETTING: &str = "floor.pits";
/// Ids bound in one `IN (…)`: far under either database's limit on parameters.
const MAX_IDS_PER_QUERY: usize = 1000;

#[derive(Debug, thiserror::Error)]
pub enum FloorError {
    #[error(transparent)]
    Calendar(#[from] CalendarError),
    #[error(transparent)]
    RatingRule(#[from] RatingRuleError),
    #[error(transparent)]
    Pits(#[from] PitsError),
    #[error("drawing the plot: {0}")]
    Plot(String),
    #[error("the table is closed: a dealer signs in at an open table")]
    TableClosed,
    #[error("no such table")]
    NoSuchTable,
    #[error("this dealer is not assigned to this table")]
    NotAssigned,
    #[error("this dealer is not signed in at this table")]
    NotSignedIn,
    #[error("the stored setting {0} does not read: {1}")]
    StoredSetting(&'static str, String),
    #[error("round {0}: its stored configuration does not read: {1}")]
    StoredRound(String, String),
    #[error("pay table {0}: its stored certificate does not read: {1}")]
    StoredCertificate(String, String),
    #[error(transparent)]
    Database(#[from] diesel::result::Error),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

impl From<SettingError> for FloorError {
    fn from(e: SettingError) -> FloorError {
        match e {
            SettingError::Stored(name, why) => FloorError::StoredSetting(name, why),
            SettingError::Database(e) => FloorError::Database(e),
        }
    }
}

/// The calendar: the stored versions, or [`FloorCalendar::default`] until a
/// pit boss sets one. A calendar stored as one rule (before versions) is
/// that rule since ever.
pub fn calendar(conn: &mut AnyConnection) -> Result<FloorCalendar, FloorError> {
    match settings::read::<StoredCalendar>(conn, CALENDAR_SETTING)? {
        None => Ok(FloorCalendar::default()),
        Some(stored) => stored
            .calendar()
            .map_err(|e| FloorError::StoredSetting(CALENDAR_SETTING, e)),
    }
}

/// The calendar as the `settings` row holds it.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum StoredCalendar {
    Versions {
        versions: Vec<StoredVersion>,
    },
    /// One rule since ever, as stored before the calendar had versions.
    Rule(CalendarSpec),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredVersion {
    /// Null for the first rule, in force since ever.
    effective_from_us: Option<i64>,
    calendar: CalendarSpec,
}

impl StoredCalendar {
    fn of(calendar: &FloorCalendar) -> StoredCalendar {
        StoredCalendar::Versions {
            versions: calendar
                .versions()
                .into_iter()
                .map(|v| StoredVersion {
                    effective_from_us: v.effective_from.map(|t| t.timestamp_micros()),
                    calendar: v.rule.spec(),
                })
                .collect(),
        }
    }

    fn calendar(self) -> Result<FloorCalendar, String> {
        let versions = match self {
            StoredCalendar::Rule(spec) => vec![StoredVersion {
                effective_from_us: None,
                calendar: spec,
            }],
            StoredCalendar::Versions { versions } => versions,
        };
        let versions = versions
            .into_iter()
            .map(|v| {
                let effective_from = v
                    .effective_from_us
                    .map(|us| chrono::DateTime::from_timestamp_micros(us).ok_or(format!("instant {us} out of range")))
                    .transpose()?;
                let rule = CalendarRule::new(&v.calendar).map_err(|e| e.to_string())?;
                Ok(calendar::Version { effective_from, rule })
            })
            .collect::<Result<Vec<_>, String>>()?;
        FloorCalendar::from_versions(versions).map_err(|e| e.to_string())
    }
}

/// The gaming day asked for, or the present one under the calendar in force.
pub fn day_or_today(conn: &mut AnyConnection, day: Option<NaiveDate>) -> Result<NaiveDate, FloorError> {
    match day {
        Some(day) => Ok(day),
        None => Ok(calendar(conn)?.place(crate::store::now()).gaming_day),
    }
}

/// The period asked for, or the present gaming day under the calendar in force.
pub fn period_or_today(conn: &mut AnyConnection, period: Option<Period>) -> Result<Period, FloorError> {
    match period {
        Some(period) => Ok(period),
        None => Ok(Period::day(day_or_today(conn, None)?)),
    }
}

/// Changes the calendar from the next gaming day not yet begun: the end of
/// the present day under the calendar in force, so that no day that has
/// begun (or been closed) ever changes its bounds. A change made while an
/// earlier one waits to take effect replaces it. Recorded as the significant
/// event `floor_calendar_changed` with the rule it replaces, the new one, and
/// when it takes effect. Returns the calendar with the change.
pub fn set_calendar(
    conn: &mut AnyConnection,
    actor_id: &str,
    spec: &CalendarSpec,
) -> Result<FloorCalendar, FloorError> {
    let rule = CalendarRule::new(spec)?;
    // Two changes at once: one after the other, the second replacing the first.
    crate::store::lock_for_update(
        conn,
        &format!("SELECT name FROM settings WHERE name = '{CALENDAR_SETTING}' FOR UPDATE"),
    )?;
    let change = calendar(conn)?.with_change(crate::store::now(), rule);
    settings::replace_recording(
        conn,
        CALENDAR_SETTING,
        actor_id,
        EventKind::FloorCalendarChanged,
        &StoredCalendar::of(&change.calendar),
        serde_json::json!({
            "old": change.replaced.spec(),
            "new": change.calendar.spec_of_day(change.first_gaming_day),
            "effective_from_us": change.effective_from.timestamp_micros(),
            "first_gaming_day": change.first_gaming_day.to_string(),
            "replaces_pending": change.replaced_pending,
        }),
    )?;
    Ok(change.calendar)
}

/// Replaces the whole calendar history with one rule in force since ever:
/// for tests that need a calendar before anything happened (a change made
/// now takes effect only from the next gaming day). Records nothing.
#[doc(hidden)]
pub fn install_calendar_since_ever_for_tests(conn: &mut AnyConnection, spec: &CalendarSpec) -> Result<(), FloorError> {
    let calendar = FloorCalendar::new(spec)?;
    let value = serde_json::to_string(&StoredCalendar::of(&calendar)).expect("a calendar serialises");
    settings::write(conn, CALENDAR_SETTING, &value)?;
    Ok(())
}

/// The rating rule in force: the stored one, or [`RatingRule::default`].
pub fn rating_rule(conn: &mut AnyConnection) -> Result<RatingRule, FloorError> {
    match settings::read::<RatingRuleSpec>(conn, RATING_RULE_SETTING)? {
        None => Ok(RatingRule::default()),
        Some(spec) => RatingRule::new(&spec).map_err(|e| FloorError::StoredSetting(RATING_RULE_SETTING, e.to_string())),
    }
}

/// Replaces the rating rule and records who did it, with the old and the new.
pub fn set_rating_rule(
    conn: &mut AnyConnection,
    actor_id: &str,
    spec: &RatingRuleSpec,
) -> Result<RatingRule, FloorError> {
    let new = RatingRule::new(spec)?;
    let old = rating_rule(conn)?;
    settings::replace(
        conn,
        RATING_RULE_SETTING,
        actor_id,
        EventKind::FloorRatingRuleChanged,
        &old.spec(),
        &new.spec(),
    )?;
    Ok(new)
}

/// The pits in force: the stored ones, or none until a pit boss sets them.
pub fn pits(conn: &mut AnyConnection) -> Result<Pits, FloorError> {
    match settings::read::<PitsSpec>(conn, PITS_SETTING)? {
        None => Ok(Pits::default()),
        Some(spec) => Pits::new(&spec).map_err(|e| FloorError::StoredSetting(PITS_SETTING, e.to_string())),
    }
}

/// Replaces the pits and records who did it, with the old and the new. Every
/// table named must exist.
pub fn set_pits(conn: &mut AnyConnection, actor_id: &str, spec: &PitsSpec) -> Result<Pits, FloorError> {
    use crate::store::schema::casino_tables as ct;
    let new = Pits::new(spec)?;
    let named: Vec<&str> = new.table_ids().collect();
    let mut known: Vec<String> = Vec::with_capacity(named.len());
    for chunk in named.chunks(MAX_IDS_PER_QUERY) {
        known.extend(
            ct::table
                .filter(ct::id.eq_any(chunk))
                .select(ct::id)
                .load::<String>(conn)?,
        );
    }
    if let Some(unknown) = named.iter().find(|id| !known.iter().any(|k| k == *id)) {
        return Err(PitsError::UnknownTable(unknown.to_string()).into());
    }
    let old = pits(conn)?;
    settings::replace(
        conn,
        PITS_SETTING,
        actor_id,
        EventKind::FloorPitsChanged,
        old.spec(),
        new.spec(),
    )?;
    Ok(new)
}

/// The certified figures of each bet, read once per pay table.
#[derive(Default)]
struct Certificates(HashMap<String, crate::math::Certificate>);

impl Certificates {
    /// The certificate's entry for a bet of `kind` with `selection` (JSON, as stored) under `pay_table_id`.
    fn bet(
        &mut self,
        conn: &mut AnyConnection,
        pay_table_id: &str,
        kind: &str,
        selection: &str,
    ) -> Result<&crate::math::BetCertificate, FloorError> {
        let number = match serde_json::from_str::<crate::bets::Selection>(selection) {
            Ok(crate::bets::Selection::Number(n)) => Some(n),
            _ => None,
        };
        self.certificate(conn, pay_table_id)?
            .bets
            .iter()
            .find(|c| c.kind.name() == kind && c.number == number)
            .ok_or_else(|| FloorError::StoredCertificate(pay_table_id.to_owned(), format!("no {kind} bet certified")))
    }

    /// The certificate's entry for the certified bet named `bet` ("prima", "cartas 12", …).
    fn certified(
        &mut self,
        conn: &mut AnyConnection,
        pay_table_id: &str,
        bet: &str,
    ) -> Result<&crate::math::BetCertificate, FloorError> {
        self.certificate(conn, pay_table_id)?
            .bets
            .iter()
            .find(|c| c.bet == bet)
            .ok_or_else(|| FloorError::StoredCertificate(pay_table_id.to_owned(), format!("no bet {bet:?} certified")))
    }

    fn certificate(
        &mut self,
        conn: &mut AnyConnection,
        pay_table_id: &str,
    ) -> Result<&crate::math::Certificate, FloorError> {
        use crate::store::schema::pay_tables as pt;
        if !self.0.contains_key(pay_table_id) {
            let text: String = pt::table.find(pay_table_id).select(pt::certificate).first(conn)?;
            let certificate = serde_json::from_str(&text)
                .map_err(|e| FloorError::StoredCertificate(pay_table_id.to_owned(), e.to_string()))?;
            self.0.insert(pay_table_id.to_owned(), certificate);
        }
        Ok(&self.0[pay_table_id])
    }
}

/// Most gaming days a report covers.
pub const MAX_PERIOD_DAYS: i64 = 366;

/// One or more consecutive gaming days, `first` to `last` inclusive, at most
/// [`MAX_PERIOD_DAYS`] of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    first: NaiveDate,
    last: NaiveDate,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("a period runs from a gaming day to the same or a later one, at most {MAX_PERIOD_DAYS} days")]
pub struct PeriodError;

impl Period {
    pub fn day(day: NaiveDate) -> Period {
        Period { first: day, last: day }
    }

    pub fn new(first: NaiveDate, last: NaiveDate) -> Result<Period, PeriodError> {
        let days = (last - first).num_days() + 1;
        if (1..=MAX_PERIOD_DAYS).contains(&days) {
            Ok(Period { first, last })
        } else {
            Err(PeriodError)
        }
    }

    fn days(self) -> impl Iterator<Item = NaiveDate> {
        self.first.iter_days().take_while(move |d| *d <= self.last)
    }
}

/// A period's table performance (`GET /api/v1/floor/tables`).
#[derive(Serialize, ToSchema)]
pub struct DayReport {
    /// "YYYY-MM-DD": the (first) gaming day, named by the local date it starts on.
    pub gaming_day: String,
    /// The last gaming day of the period: the same as `gaming_day` for one day.
    pub last_gaming_day: String,
    pub timezone: String,
    /// The period's first instant and the next day's, microseconds since the Unix epoch.
    pub from_us: i64,
    pub to_us: i64,
    /// Per table: a line per shift with activity, then the period; then each
    /// pit's the same way; then the floor's.
    pub lines: Vec<PerformanceLine>,
}

/// The table performance of a period under the calendar in force.
/// Read from the minute meters and the rows they do not yet cover, in one
/// snapshot (docs/floor.md, "How fast the reports are").
pub fn day_report(conn: &mut AnyConnection, period: Period) -> Result<DayReport, FloorError> {
    meters::in_snapshot(conn, |conn| {
        let rows = meters::load(conn, period)?;
        let pits = pits(conn)?;
        day_report_of(conn, &rows, period, &pits)
    })
}

/// The same report read from every transfer and bet of the period: what the
/// day close freezes, and checks the meters against.
pub fn day_report_from_ledger(conn: &mut AnyConnection, period: Period) -> Result<DayReport, FloorError> {
    let (rows, _) = DayRows::load(conn, period)?;
    let pits = pits(conn)?;
    day_report_of(conn, &rows, period, &pits)
}

/// The table report of `rows`, with `pits` grouping the tables.
fn day_report_of(
    conn: &mut AnyConnection,
    rows: &DayRows,
    period: Period,
    pits: &Pits,
) -> Result<DayReport, FloorError> {
    let until_us = rows.until_us;
    let open_spells = open_spells(conn, rows.from_us, until_us)?;
    let open: Vec<performance::OpenSpell> = open_spells
        .iter()
        .map(|(table_id, from_us, to_us)| performance::OpenSpell {
            table_id,
            from_us: *from_us,
            to_us: *to_us,
        })
        .collect();
    let tables: Vec<performance::TableInfo> = rows
        .tables
        .iter()
        .map(|(id, name, game)| performance::TableInfo { id, name, game })
        .collect();
    let mut lines = rows.lines(&tables, &open, |table_id, _| Some(table_id));
    for line in &mut lines {
        line.pit = line
            .table_id
            .as_deref()
            .and_then(|id| pits.pit_of(id))
            .map(str::to_owned);
    }
    // Each pit's lines, as if its tables were one: before the floor's.
    let pit_infos: Vec<performance::TableInfo> = pits
        .names()
        .map(|name| performance::TableInfo {
            id: name,
            name,
            game: "",
        })
        .collect();
    let pit_open: Vec<performance::OpenSpell> = open
        .iter()
        .filter_map(|o| {
            Some(performance::OpenSpell {
                table_id: pits.pit_of(o.table_id)?,
                from_us: o.from_us,
                to_us: o.to_us,
            })
        })
        .collect();
    let pit_lines = rows
        .lines(&pit_infos, &pit_open, |table_id, _| pits.pit_of(table_id))
        .into_iter()
        .filter(|l| l.table_id.is_some()) // the floor's lines are already there
        .map(|l| PerformanceLine {
            pit: l.table_id,
            table_id: None,
            table_name: None,
            game: None,
            ..l
        });
    let floor_at = lines.iter().position(|l| l.table_id.is_none()).unwrap_or(lines.len());
    lines.splice(floor_at..floor_at, pit_lines);
    Ok(DayReport {
        gaming_day: period.first.to_string(),
        last_gaming_day: period.last.to_string(),
        timezone: rows.timezone.clone(),
        from_us: rows.from_us,
        to_us: rows.to_us,
        lines,
    })
}

/// Each gaming day's table report lines over a period, day by day: what the
/// plots draw (docs/floor.md, "Plots").
pub fn daily_lines(conn: &mut AnyConnection, period: Period) -> Result<plots::Days, FloorError> {
    period
        .days()
        .map(|day| Ok((day, day_report(conn, Period::day(day))?.lines)))
        .collect()
}

/// What a day's performance is computed from: the money of the ledger's
/// transfers of the tables, the rounds that ended and the side bets settled
/// that day with each bet's certified figures; each money and bet row is one
/// transfer and one round's bets, or, read from the minute meters, one minute's.
struct DayRows {
    timezone: String,
    from_us: i64,
    to_us: i64,
    /// Where time open and time dealt are counted to: the period's end, or the present
    /// while it lasts.
    until_us: i64,
    /// The day's shifts: name, start, end.
    shifts: Vec<(String, i64, i64)>,
    money: Vec<MoneyRow>,
    bets: Vec<BetsRow>,
    /// table, status, instant it ended.
    rounds: Vec<(String, String, i64)>,
    /// The Lobo rounds settled, with their play's result and theoretical win.
    lobo_rounds: Vec<lobo::LoboRound>,
    /// The priced bets closed (Peg Leg's, the house's Fuerza), per round and instant, with what
    /// the house won and expected to.
    priced_rounds: Vec<priced::PricedRoundFact>,
    /// id, name, game.
    tables: Vec<(String, String, String)>,
}

/// What a transfer, or a minute of a table's transfers, adds to its money figures.
struct MoneyRow {
    table_id: String,
    at_us: i64,
    drop_minor: i64,
    win_minor: i64,
    fees_minor: i64,
}

impl MoneyRow {
    fn of(t: &TransferRow) -> Option<MoneyRow> {
        let (table_id, kind, debit, credit, amount, at_us) = t;
        let m = performance::TransferFact {
            table_id: table_id.as_deref()?,
            kind,
            debit_account: debit,
            credit_account: credit,
            amount_minor: *amount,
            at_us: *at_us,
        }
        .money();
        Some(MoneyRow {
            table_id: m.table_id.to_owned(),
            at_us: m.at_us,
            drop_minor: m.drop_minor,
            win_minor: m.win_minor,
            fees_minor: m.fees_minor,
        })
    }
}

/// A round's side bets of one certified bet, or a minute's, summed.
struct BetsRow {
    table_id: String,
    at_us: i64,
    pay_table_id: String,
    /// The certified bet ("prima", "cartas 12", …).
    bet: String,
    house_edge: Decimal,
    sd_per_unit: f64,
    sums: crate::math::observed_rtp::RtpSums,
}

/// A transfer of a table: table, kind, debit, credit, amount, instant.
type TransferRow = (Option<String>, String, String, String, i64, i64);
/// A settled side bet: table, round, pay table, kind, selection, stake, returned, settled at.
type SettledBetRow = (String, String, String, String, String, i64, i64, Option<i64>);

fn transfer_columns() -> (
    t::table_id,
    t::kind,
    t::debit_account,
    t::credit_account,
    t::amount_minor,
    t::created_at_us,
) {
    (
        t::table_id,
        t::kind,
        t::debit_account,
        t::credit_account,
        t::amount_minor,
        t::created_at_us,
    )
}

fn settled_bet_columns() -> (
    b::table_id,
    b::round_id,
    b::pay_table_id,
    b::kind,
    b::selection,
    b::amount_minor,
    b::returned_minor,
    b::settled_at_us,
) {
    (
        b::table_id,
        b::round_id,
        b::pay_table_id,
        b::kind,
        b::selection,
        b::amount_minor,
        b::returned_minor,
        b::settled_at_us,
    )
}

/// The bet statuses of a settled side bet.
const SETTLED: [&str; 3] = ["won", "lost", "pushed"];

/// Settled side bets summed per round and certified bet (a round's bets share its deal and
/// settle at one instant).
fn bets_rows(
    conn: &mut AnyConnection,
    certificates: &mut Certificates,
    bets: Vec<SettledBetRow>,
) -> Result<Vec<BetsRow>, FloorError> {
    type Key = (String, String, String, String, i64);
    let mut rounds: std::collections::BTreeMap<Key, (Decimal, f64, Vec<(i64, i64)>)> = Default::default();
    for (table_id, round_id, pay_table_id, kind, selection, stake, returned, settled_at_us) in bets {
        let c = certificates.bet(conn, &pay_table_id, &kind, &selection)?;
        let (bet, edge, sd) = (c.bet.clone(), house_edge(&c.rtp), c.std_dev_per_unit);
        // A settled bet always has its instant; 0 only for a row written otherwise.
        let at_us = settled_at_us.unwrap_or(0);
        rounds
            .entry((table_id, round_id, pay_table_id, bet, at_us))
            .or_insert((edge, sd, Vec::new()))
            .2
            .push((stake, returned));
    }
    Ok(rounds
        .into_iter()
        .map(
            |((table_id, _, pay_table_id, bet, at_us), (house_edge, sd_per_unit, bets))| BetsRow {
                table_id,
                at_us,
                pay_table_id,
                bet,
                house_edge,
                sd_per_unit,
                sums: crate::math::observed_rtp::RtpSums::of_round(bets),
            },
        )
        .collect())
}

impl DayRows {
    /// Everything but the money and the bets: the calendar's frame, the rounds that ended, the
    /// Lobo rounds settled and the tables.
    fn frame(conn: &mut AnyConnection, period: Period) -> Result<DayRows, FloorError> {
        use crate::store::schema::casino_tables as ct;
        let calendar = calendar(conn)?;
        let from_us = calendar.day_bounds(period.first).0.timestamp_micros();
        let to_us = calendar.day_bounds(period.last).1.timestamp_micros();
        let shifts = period
            .days()
            .flat_map(|day| {
                calendar
                    .shifts(day)
                    .into_iter()
                    .map(|(name, s, e)| (name.to_owned(), s.timestamp_micros(), e.timestamp_micros()))
                    .collect::<Vec<_>>()
            })
            .collect();
        // Every game's rounds that ended in the period (a Lobo contest counts as one).
        let rounds = crate::game_registry::ended_between(conn, from_us, to_us)?
            .into_iter()
            .map(|r| (r.table_id, r.status, r.updated_at_us))
            .collect();
        Ok(DayRows {
            timezone: calendar.spec_of_day(period.first).timezone,
            from_us,
            to_us,
            until_us: to_us.min(crate::store::now_us()),
            shifts,
            money: Vec::new(),
            bets: Vec::new(),
            rounds,
            lobo_rounds: lobo::settled_between(conn, from_us, to_us)?,
            priced_rounds: priced::by_round(
                &[
                    peg_leg::closed_between(conn, from_us, to_us)?,
                    fuerza::closed_between(conn, from_us, to_us)?,
                ]
                .concat(),
            ),
            tables: ct::table.select((ct::id, ct::name, ct::game)).load(conn)?,
        })
    }

    /// From every transfer and bet of the period (what the day close counts, and the dealer
    /// report, which places each at its instant); with the transfers.
    fn load(conn: &mut AnyConnection, period: Period) -> Result<(DayRows, Vec<TransferRow>), FloorError> {
        let mut rows = DayRows::frame(conn, period)?;
        let transfers: Vec<TransferRow> = t::table
            .filter(t::created_at_us.ge(rows.from_us).and(t::created_at_us.lt(rows.to_us)))
            .filter(t::table_id.is_not_null())
            .select(transfer_columns())
            .load(conn)?;
        let bets: Vec<SettledBetRow> = b::table
            .filter(b::settled_at_us.ge(rows.from_us).and(b::settled_at_us.lt(rows.to_us)))
            .filter(b::status.eq_any(SETTLED))
            .select(settled_bet_columns())
            .load(conn)?;
        rows.money = transfers.iter().filter_map(MoneyRow::of).collect();
        rows.bets = bets_rows(conn, &mut Certificates::default(), bets)?;
        Ok((rows, transfers))
    }

    /// The day's lines, each fact counted for `subject(table, instant)`: the
    /// table itself, or whoever was dealing there then (None: not counted).
    fn lines<'a>(
        &'a self,
        subjects: &[performance::TableInfo<'_>],
        open: &[performance::OpenSpell<'a>],
        subject: impl Fn(&'a str, i64) -> Option<&'a str>,
    ) -> Vec<PerformanceLine> {
        let money: Vec<performance::MoneyFact> = self
            .money
            .iter()
            .filter_map(|m| {
                Some(performance::MoneyFact {
                    table_id: subject(&m.table_id, m.at_us)?,
                    at_us: m.at_us,
                    drop_minor: m.drop_minor,
                    win_minor: m.win_minor,
                    fees_minor: m.fees_minor,
                })
            })
            .collect();
        let rounds: Vec<performance::RoundFact> = self
            .rounds
            .iter()
            .filter_map(|(table_id, status, at)| {
                Some(performance::RoundFact {
                    table_id: subject(table_id, *at)?,
                    voided: status == "voided",
                    at_us: *at,
                })
            })
            .collect();
        let bets: Vec<performance::BetsFact> = self
            .bets
            .iter()
            .filter_map(|b| {
                Some(performance::BetsFact {
                    table_id: subject(&b.table_id, b.at_us)?,
                    at_us: b.at_us,
                    certified_as: (&b.pay_table_id, &b.bet),
                    house_edge: b.house_edge,
                    sd_per_unit: b.sd_per_unit,
                    sums: b.sums,
                })
            })
            .collect();
        let lobo_plays: Vec<performance::LoboPlayFact> = self
            .lobo_rounds
            .iter()
            .filter_map(|r| {
                Some(performance::LoboPlayFact {
                    table_id: subject(&r.table_id, r.ended_at_us)?,
                    at_us: r.ended_at_us,
                    play_win_minor: r.play_win_minor,
                    theo_play_minor: r.theo_play_minor,
                    sd_bound_minor: r.sd_bound_minor,
                })
            })
            .collect();
        let priced: Vec<performance::PricedBetsFact> = self
            .priced_rounds
            .iter()
            .filter_map(|r| {
                Some(performance::PricedBetsFact {
                    table_id: subject(&r.table_id, r.at_us)?,
                    at_us: r.at_us,
                    win_minor: r.win_minor,
                    theo_minor: r.theo_minor,
                    sd_bound_minor: r.sd_bound_minor,
                })
            })
            .collect();
        let shifts: Vec<(&str, i64, i64)> = self.shifts.iter().map(|(n, s, e)| (n.as_str(), *s, *e)).collect();
        performance::day_lines(&shifts, subjects, open, &money, &rounds, &bets, &lobo_plays, &priced)
    }
}

/// The spans each table was open within `[from_us, to_us)`, from its
/// `table_opened` and `table_closed` events: (table, from, to).
fn open_spells(conn: &mut AnyConnection, from_us: i64, to_us: i64) -> Result<Vec<(String, i64, i64)>, FloorError> {
    use crate::store::schema::significant_events as se;
    let (opened, closed) = (EventKind::TableOpened.as_str(), EventKind::TableClosed.as_str());
    // Every opening and closing before the end: a table opened last month and
    // still open is open all day.
    let events: Vec<(Option<String>, String, i64)> = se::table
        .filter(se::kind.eq_any([opened, closed]))
        .filter(se::at_us.lt(to_us))
        .order(se::at_us.asc())
        .select((se::subject, se::kind, se::at_us))
        .load(conn)?;
    let mut open_since: HashMap<String, i64> = HashMap::new();
    let mut spells = Vec::new();
    for (table_id, kind, at_us) in events {
        let Some(table_id) = table_id else { continue };
        if kind == opened {
            open_since.entry(table_id).or_insert(at_us);
        } else if let Some(since) = open_since.remove(&table_id) {
            if at_us > from_us {
                spells.push((table_id, since.max(from_us), at_us));
            }
        }
    }
    spells.extend(
        open_since
            .into_iter()
            .map(|(table_id, since)| (table_id, since.max(from_us), to_us)),
    );
    spells.retain(|(_, from, to)| from < to);
    Ok(spells)
}

/// 1 − the certified RTP: exact where the certificate is.
fn house_edge(rtp: &crate::math::Rtp) -> Decimal {
    use crate::math::Rtp;
    let rtp = match rtp {
        Rtp::Exact { decimal, .. } => decimal.parse().ok(),
        Rtp::Estimate { value, .. } => Decimal::from_f64(*value),
    };
    Decimal::ONE - rtp.unwrap_or(Decimal::ONE)
}

/// The period a report covers, as its CSV names it: "YYYY-MM-DD", or
/// "YYYY-MM-DD/YYYY-MM-DD" for more than one gaming day.
pub fn period_label(first: &str, last: &str) -> String {
    if first == last {
        first.to_owned()
    } else {
        format!("{first}/{last}")
    }
}
