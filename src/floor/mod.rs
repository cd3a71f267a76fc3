//! Running the floor (docs/floor.md): the casino's calendar of gaming days
//! and shifts, its rating rule and its pits, kept as settings (`settings`)
//! and changed by a pit boss as significant events; dealers signing in and
//! out of tables, as significant events; each gaming day's table performance,
//! dealer performance and player ratings, read from the ledger, the rounds,
//! the bets and those events.

pub mod calendar;
pub mod close;
pub mod dealers;
pub mod lobo;
pub mod meters;
pub mod performance;
pub mod pits;
pub mod plots;
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
pub use calendar::{CalendarError, CalendarSpec, FloorCalendar, Placement, ShiftSpec};
pub use performance::PerformanceLine;
pub use pits::{Pits, PitsError, PitsSpec};
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

/// The calendar in force: the stored one, or [`FloorCalendar::default`] until
/// a pit boss sets one.
pub fn calendar(conn: &mut AnyConnection) -> Result<FloorCalendar, FloorError> {
    match settings::read::<CalendarSpec>(conn, CALENDAR_SETTING)? {
        None => Ok(FloorCalendar::default()),
        Some(spec) => FloorCalendar::new(&spec).map_err(|e| FloorError::StoredSetting(CALENDAR_SETTING, e.to_string())),
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

/// Replaces the calendar and records who did it, with the old and the new.
pub fn set_calendar(
    conn: &mut AnyConnection,
    actor_id: &str,
    spec: &CalendarSpec,
) -> Result<FloorCalendar, FloorError> {
    let new = FloorCalendar::new(spec)?;
    let old = calendar(conn)?;
    settings::replace(
        conn,
        CALENDAR_SETTING,
        actor_id,
        EventKind::FloorCalendarChanged,
        &old.spec(),
        &new.spec(),
    )?;
    Ok(new)
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
        day_report_of(conn, &rows, period)
    })
}

/// The same report read from every transfer and bet of the period: what the
/// day close freezes, and checks the meters against.
pub fn day_report_from_ledger(conn: &mut AnyConnection, period: Period) -> Result<DayReport, FloorError> {
    let (rows, _) = DayRows::load(conn, period)?;
    day_report_of(conn, &rows, period)
}

fn day_report_of(conn: &mut AnyConnection, rows: &DayRows, period: Period) -> Result<DayReport, FloorError> {
    let until_us = rows.to_us.min(crate::store::now_us());
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
    let pits = pits(conn)?;
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
    /// The day's shifts: name, start, end.
    shifts: Vec<(String, i64, i64)>,
    money: Vec<MoneyRow>,
    bets: Vec<BetsRow>,
    /// table, status, instant it ended.
    rounds: Vec<(String, String, i64)>,
    /// The Lobo rounds settled, with their play's result and theoretical win.
    lobo_rounds: Vec<lobo::LoboRound>,
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
                let calendar = &calendar;
                calendar.shift_names().enumerate().map(move |(k, name)| {
                    let (s, e) = calendar.shift_bounds(day, k);
                    (name.to_owned(), s.timestamp_micros(), e.timestamp_micros())
                })
            })
            .collect();
        // Every game's rounds that ended in the period (a Lobo contest counts as one).
        let rounds = crate::game_registry::ended_between(conn, from_us, to_us)?
            .into_iter()
            .map(|r| (r.table_id, r.status, r.updated_at_us))
            .collect();
        Ok(DayRows {
            timezone: calendar.spec().timezone,
            from_us,
            to_us,
            shifts,
            money: Vec::new(),
            bets: Vec::new(),
            rounds,
            lobo_rounds: lobo::settled_between(conn, from_us, to_us)?,
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
        let shifts: Vec<(&str, i64, i64)> = self.shifts.iter().map(|(n, s, e)| (n.as_str(), *s, *e)).collect();
        performance::day_lines(&shifts, subjects, open, &money, &rounds, &bets, &lobo_plays)
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
        timezone: calendar.spec().timezone,
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

/// The dealer in the box at a table: who, and since when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct DealerInBox {
    pub dealer_id: String,
    pub username: String,
    /// Microseconds since the Unix epoch.
    pub since_us: i64,
}

/// The latest sign-in, sign-out or closing of a table before `before_us`:
/// (kind, dealer, instant).
fn latest_box_event(
    conn: &mut AnyConnection,
    table_id: &str,
    before_us: i64,
) -> Result<Option<(String, Option<String>, i64)>, FloorError> {
    use crate::store::schema::significant_events as se;
    let kinds = [
        EventKind::DealerSignedIn,
        EventKind::DealerSignedOut,
        EventKind::TableClosed,
    ]
    .map(EventKind::as_str);
    let row: Option<(String, String, i64)> = se::table
        .filter(se::kind.eq_any(kinds))
        .filter(se::subject.eq(table_id))
        .filter(se::at_us.lt(before_us))
        .order((se::at_us.desc(), se::id.desc()))
        .select((se::kind, se::details, se::at_us))
        .first(conn)
        .optional()?;
    Ok(row.map(|(kind, details, at_us)| (kind, dealer_of(&details), at_us)))
}

/// The `dealer_id` a sign-in or sign-out event names.
fn dealer_of(details: &str) -> Option<String> {
    let details: serde_json::Value = serde_json::from_str(details).ok()?;
    details["dealer_id"].as_str().map(str::to_owned)
}

/// Who is dealing at a table now. Every end of a spell is written as its own
/// `dealer_signed_out` (a relief, a move, a break), or is the table's closing,
/// so the table's latest such event tells.
pub fn dealer_in_box(conn: &mut AnyConnection, table_id: &str) -> Result<Option<DealerInBox>, FloorError> {
    use crate::store::schema::users as u;
    let Some((kind, Some(dealer_id), since_us)) = latest_box_event(conn, table_id, i64::MAX)? else {
        return Ok(None);
    };
    if kind != EventKind::DealerSignedIn.as_str() {
        return Ok(None);
    }
    let username: String = u::table.find(&dealer_id).select(u::username).first(conn)?;
    Ok(Some(DealerInBox {
        dealer_id,
        username,
        since_us,
    }))
}

/// Signs a dealer in at an open table they are assigned to, signing out
/// whoever was dealing there (a relief) and the dealer from any other table
/// (one box at a time), each as its own event. Signing in the dealer already
/// there changes nothing.
pub fn sign_in(
    conn: &mut AnyConnection,
    table_id: &str,
    dealer_id: &str,
    actor_id: &str,
) -> Result<DealerInBox, FloorError> {
    use crate::store::schema::{casino_tables as ct, table_dealers as td};
    let status: Option<String> = ct::table.find(table_id).select(ct::status).first(conn).optional()?;
    match status.as_deref() {
        None => return Err(FloorError::NoSuchTable),
        Some("open") => {}
        Some(_) => return Err(FloorError::TableClosed),
    }
    let assigned: i64 = td::table
        .filter(td::table_id.eq(table_id).and(td::dealer_id.eq(dealer_id)))
        .count()
        .get_result(conn)?;
    if assigned == 0 {
        return Err(FloorError::NotAssigned);
    }
    if let Some(current) = dealer_in_box(conn, table_id)? {
        if current.dealer_id == dealer_id {
            return Ok(current);
        }
        record_box(
            conn,
            EventKind::DealerSignedOut,
            table_id,
            &current.dealer_id,
            actor_id,
            "relieved",
        )?;
    }
    let open_tables: Vec<String> = ct::table.filter(ct::status.eq("open")).select(ct::id).load(conn)?;
    for other in open_tables.iter().filter(|t| t.as_str() != table_id) {
        if dealer_in_box(conn, other)?.is_some_and(|d| d.dealer_id == dealer_id) {
            record_box(conn, EventKind::DealerSignedOut, other, dealer_id, actor_id, "moved")?;
        }
    }
    record_box(
        conn,
        EventKind::DealerSignedIn,
        table_id,
        dealer_id,
        actor_id,
        "signed in",
    )?;
    dealer_in_box(conn, table_id)?.ok_or(FloorError::NotSignedIn)
}

/// Signs the dealer out of the table (a break, the end of a shift).
pub fn sign_out(conn: &mut AnyConnection, table_id: &str, dealer_id: &str, actor_id: &str) -> Result<(), FloorError> {
    match dealer_in_box(conn, table_id)? {
        Some(current) if current.dealer_id == dealer_id => record_box(
            conn,
            EventKind::DealerSignedOut,
            table_id,
            dealer_id,
            actor_id,
            "signed out",
        ),
        _ => Err(FloorError::NotSignedIn),
    }
}

fn record_box(
    conn: &mut AnyConnection,
    kind: EventKind,
    table_id: &str,
    dealer_id: &str,
    actor_id: &str,
    reason: &str,
) -> Result<(), FloorError> {
    let details = serde_json::json!({ "dealer_id": dealer_id, "reason": reason });
    significant_events::record(conn, kind, Some(actor_id), Some(table_id), details)?;
    Ok(())
}

/// A gaming day's dealer performance (`GET /api/v1/floor/dealers`).
#[derive(Serialize, ToSchema)]
pub struct DealerReport {
    /// "YYYY-MM-DD": the (first) gaming day, named by the local date it starts on.
    pub gaming_day: String,
    /// The last gaming day of the period: the same as `gaming_day` for one day.
    pub last_gaming_day: String,
    pub timezone: String,
    /// The period's first instant and the next day's, microseconds since the Unix epoch.
    pub from_us: i64,
    pub to_us: i64,
    /// Per dealer: a line per shift they dealt in, then the period, then
    /// their period in each pit they dealt in.
    pub lines: Vec<DealerLine>,
}

/// One dealer over one shift (or the whole day): the figures of the table
/// performance, of the play at whatever table they were dealing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DealerLine {
    pub dealer_id: String,
    pub username: String,
    /// On a line of the dealer's play in one pit (its tables, for the whole
    /// period), the pit; null on the dealer's own lines.
    pub pit: Option<String>,
    /// Null on a whole-day line.
    pub shift: Option<String>,
    pub rounds: i64,
    pub voided_rounds: i64,
    /// Hours in the box, to 2 places.
    #[schema(value_type = String, example = "6.50")]
    pub hours_dealt: String,
    /// rounds / hours_dealt, to 1 place.
    #[schema(value_type = Option<String>, example = "48.0")]
    pub rounds_per_hour: Option<String>,
    #[schema(value_type = String)]
    pub drop: String,
    #[schema(value_type = String)]
    pub house_win: String,
    #[schema(value_type = Option<String>)]
    pub hold_percent: Option<String>,
    #[schema(value_type = String)]
    pub covered_win: String,
    #[schema(value_type = String)]
    pub theo_win: String,
    #[schema(value_type = String)]
    pub theo_sd: String,
    #[schema(value_type = String)]
    pub actual_minus_theo: String,
    #[schema(value_type = String)]
    pub band_99: String,
    /// The dealer's side bets paid this far from their certificates on one day in a hundred by chance.
    pub outside_band: bool,
}

/// Each dealer's performance over a period: the play at each table
/// counted for whoever was in its box at the instant.
pub fn dealer_report(conn: &mut AnyConnection, period: Period) -> Result<DealerReport, FloorError> {
    let (rows, _) = DayRows::load(conn, period)?;
    dealer_report_of(conn, &rows, period)
}

fn dealer_report_of(conn: &mut AnyConnection, rows: &DayRows, period: Period) -> Result<DealerReport, FloorError> {
    use crate::store::schema::{significant_events as se, users as u};
    let until_us = rows.to_us.min(crate::store::now_us());
    // Who was in each box as the day started, then what happened during it.
    let mut starting: Vec<(String, String, i64)> = Vec::new();
    for (table_id, ..) in &rows.tables {
        if let Some((kind, Some(dealer_id), at_us)) = latest_box_event(conn, table_id, rows.from_us)? {
            if kind == EventKind::DealerSignedIn.as_str() {
                starting.push((table_id.clone(), dealer_id, at_us));
            }
        }
    }
    starting.sort_by_key(|(.., at_us)| *at_us);
    let kinds = [
        EventKind::DealerSignedIn,
        EventKind::DealerSignedOut,
        EventKind::TableClosed,
    ]
    .map(EventKind::as_str);
    let during: Vec<(Option<String>, String, String, i64)> = se::table
        .filter(se::kind.eq_any(kinds))
        .filter(se::at_us.ge(rows.from_us).and(se::at_us.lt(until_us)))
        .order((se::at_us.asc(), se::id.asc()))
        .select((se::subject, se::kind, se::details, se::at_us))
        .load(conn)?;
    let during: Vec<(String, String, Option<String>, i64)> = during
        .into_iter()
        .filter_map(|(table, kind, details, at)| Some((table?, kind, dealer_of(&details), at)))
        .collect();
    let mut events: Vec<dealers::BoxEvent> = starting
        .iter()
        .map(|(table_id, dealer_id, _)| dealers::BoxEvent::SignedIn {
            table_id,
            dealer_id,
            at_us: rows.from_us,
        })
        .collect();
    for (table_id, kind, dealer_id, at_us) in &during {
        let at_us = *at_us;
        events.push(match (kind.as_str(), dealer_id.as_deref()) {
            ("dealer_signed_in", Some(dealer_id)) => dealers::BoxEvent::SignedIn {
                table_id,
                dealer_id,
                at_us,
            },
            ("dealer_signed_out", Some(dealer_id)) => dealers::BoxEvent::SignedOut {
                table_id,
                dealer_id,
                at_us,
            },
            _ => dealers::BoxEvent::TableClosed { table_id, at_us },
        });
    }
    let spells = dealers::spells(&events, until_us);
    let dealer_ids: std::collections::BTreeSet<&str> = spells.iter().map(|s| s.dealer_id).collect();
    let dealer_ids: Vec<&str> = dealer_ids.into_iter().collect();
    let mut names: Vec<(String, String)> = Vec::with_capacity(dealer_ids.len());
    for chunk in dealer_ids.chunks(MAX_IDS_PER_QUERY) {
        names.extend(
            u::table
                .filter(u::id.eq_any(chunk))
                .select((u::id, u::username))
                .load::<(String, String)>(conn)?,
        );
    }
    let subjects: Vec<performance::TableInfo> = names
        .iter()
        .map(|(id, name)| performance::TableInfo { id, name, game: "" })
        .collect();
    let open: Vec<performance::OpenSpell> = spells
        .iter()
        .map(|s| performance::OpenSpell {
            table_id: s.dealer_id,
            from_us: s.from_us,
            to_us: s.to_us,
        })
        .collect();
    let as_dealer_line = |l: PerformanceLine, pit: Option<String>| {
        Some(DealerLine {
            dealer_id: l.table_id?,
            username: l.table_name.unwrap_or_default(),
            pit,
            shift: l.shift,
            rounds: l.rounds,
            voided_rounds: l.voided_rounds,
            hours_dealt: l.open_hours,
            rounds_per_hour: l.rounds_per_hour,
            drop: l.drop,
            house_win: l.house_win,
            hold_percent: l.hold_percent,
            covered_win: l.covered_win,
            theo_win: l.theo_win,
            theo_sd: l.theo_sd,
            actual_minus_theo: l.actual_minus_theo,
            band_99: l.band_99,
            outside_band: l.outside_band,
        })
    };
    let mut lines: Vec<DealerLine> = rows
        .lines(&subjects, &open, |table_id, at_us| {
            dealers::dealer_at(&spells, table_id, at_us)
        })
        .into_iter()
        .filter_map(|l| as_dealer_line(l, None))
        .collect();

    // Each dealer's period in each pit they dealt in: the play at that pit's
    // tables while they were in the box, placed after the dealer's own lines.
    let pits = pits(conn)?;
    let pairs: std::collections::BTreeSet<(&str, &str)> = spells
        .iter()
        .filter_map(|s| Some((s.dealer_id, pits.pit_of(s.table_id)?)))
        .collect();
    // A subject key for each (dealer, pit).
    let in_pit: std::collections::BTreeMap<(&str, &str), String> = pairs
        .into_iter()
        .enumerate()
        .map(|(k, pair)| (pair, k.to_string()))
        .collect();
    let pit_subjects: Vec<performance::TableInfo> = in_pit
        .iter()
        .map(|((dealer_id, _), key)| performance::TableInfo {
            id: key,
            name: names
                .iter()
                .find(|(id, _)| id == dealer_id)
                .map_or(dealer_id, |(_, username)| username.as_str()),
            game: "",
        })
        .collect();
    let pit_open: Vec<performance::OpenSpell> = spells
        .iter()
        .filter_map(|s| {
            Some(performance::OpenSpell {
                table_id: in_pit.get(&(s.dealer_id, pits.pit_of(s.table_id)?))?,
                from_us: s.from_us,
                to_us: s.to_us,
            })
        })
        .collect();
    let of_key: HashMap<&str, (&str, &str)> = in_pit.iter().map(|(k, key)| (key.as_str(), *k)).collect();
    let pit_lines = rows
        .lines(&pit_subjects, &pit_open, |table_id, at_us| {
            let dealer_id = dealers::dealer_at(&spells, table_id, at_us)?;
            Some(in_pit.get(&(dealer_id, pits.pit_of(table_id)?))?.as_str())
        })
        .into_iter()
        .filter(|l| l.shift.is_none());
    for l in pit_lines {
        let Some(&(dealer_id, pit)) = l.table_id.as_deref().and_then(|key| of_key.get(key)) else {
            continue; // the floor's line
        };
        let at = lines
            .iter()
            .rposition(|d| d.dealer_id == dealer_id)
            .map_or(lines.len(), |k| k + 1);
        let line = as_dealer_line(
            PerformanceLine {
                table_id: Some(dealer_id.to_owned()),
                ..l
            },
            Some(pit.to_owned()),
        );
        lines.splice(at..at, line);
    }
    Ok(DealerReport {
        gaming_day: period.first.to_string(),
        last_gaming_day: period.last.to_string(),
        timezone: rows.timezone.clone(),
        from_us: rows.from_us,
        to_us: rows.to_us,
        lines,
    })
}

/// The dealer report as CSV, a header first.
pub fn dealer_csv(report: &DealerReport) -> String {
    dealer_lines_csv(
        &period_label(&report.gaming_day, &report.last_gaming_day),
        &report.lines,
    )
}

/// The columns of a dealer line in CSV.
pub const DEALER_CSV_HEADER: &[&str] = &[
    "gaming_day",
    "dealer_id",
    "username",
    "pit",
    "shift",
    "rounds",
    "voided_rounds",
    "hours_dealt",
    "rounds_per_hour",
    "drop",
    "house_win",
    "hold_percent",
    "covered_win",
    "theo_win",
    "theo_sd",
    "actual_minus_theo",
    "band_99",
    "outside_band",
];

/// Dealer lines as CSV under a period's label, a header first.
pub fn dealer_lines_csv(label: &str, lines: &[DealerLine]) -> String {
    performance::csv_text(DEALER_CSV_HEADER, lines.iter().map(|l| dealer_csv_record(label, l)))
}

/// One dealer line's CSV fields (quoted where needed), under a period's label.
pub fn dealer_csv_record(label: &str, l: &DealerLine) -> Vec<String> {
    vec![
        performance::csv_field(label),
        performance::csv_field(&l.dealer_id),
        performance::csv_field(&l.username),
        performance::csv_field(l.pit.as_deref().unwrap_or("")),
        performance::csv_field(l.shift.as_deref().unwrap_or("")),
        l.rounds.to_string(),
        l.voided_rounds.to_string(),
        l.hours_dealt.clone(),
        l.rounds_per_hour.clone().unwrap_or_default(),
        l.drop.clone(),
        l.house_win.clone(),
        l.hold_percent.clone().unwrap_or_default(),
        l.covered_win.clone(),
        l.theo_win.clone(),
        l.theo_sd.clone(),
        l.actual_minus_theo.clone(),
        l.band_99.clone(),
        l.outside_band.to_string(),
    ]
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
