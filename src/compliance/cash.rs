//! The cage's cash transactions as the wager path watches them (docs/compliance.md): each
//! batch loads, under the ledger head's lock, the running day totals of the patrons it moves
//! cash for, then checks each deposit or withdrawal against the patron's running totals
//! for the gaming day — one that would take a direction past the report threshold needs the
//! patron's identity on file — and, once the money moved, records it, opens the day's currency
//! transaction report when it crosses, and raises the structuring alerts it completes.

use chrono::{DateTime, NaiveDate};
use diesel::prelude::*;
use std::collections::{HashMap, HashSet};

use super::patterns::{self, CashEntry, Finding};
use super::rules::ComplianceRules;
use super::{identity, CashDirection};
use crate::domain::format_minor;
use crate::floor::calendar::FloorCalendar;
use crate::protection::{Period, DAY_US};
use crate::store::schema::{
    cash_day_totals as cdt, cash_transactions as ct, compliance_alerts as ca, currency_transaction_reports as ctr,
};
use crate::store::{new_id, AnyConnection};

/// What the identity needs that is missing, as a refusal names it.
pub const IDENTITY_FIELDS: [&str; 5] = [
    "full_name",
    "date_of_birth",
    "address",
    "document_type",
    "document_number",
];

/// A deposit or withdrawal refused until the patron's identity is on file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "this {} would bring the patron's {} this gaming day to {}, over {}: record the patron's identity \
     (full name, date of birth, address and an identity document) first",
    direction.as_str(), direction.plural(), format_minor(*total_minor), format_minor(*threshold_minor)
)]
pub struct IdentityRequired {
    pub direction: CashDirection,
    pub gaming_day: NaiveDate,
    /// The day's total in this direction before the transaction.
    pub before_minor: i64,
    pub total_minor: i64,
    pub threshold_minor: i64,
}

/// A cash movement asked of the cage.
pub struct CashRequest<'a> {
    pub player_id: &'a str,
    pub direction: CashDirection,
    pub amount_minor: i64,
    pub cashier_id: &'a str,
    pub location: Option<&'a str>,
}

/// What a batch writes for the cage's compliance.
#[derive(Default)]
pub struct CashWrites {
    entries: Vec<CashEntry>,
    /// (patron, gaming day) of the reports the batch opens.
    reports: Vec<(String, String)>,
    alerts: Vec<(Finding, String)>,
}

/// (patron, direction, gaming day).
type DayKey = (String, CashDirection, String);

/// A patron's day in one direction: its total, and its largest transaction and when.
#[derive(Clone, Copy, Default)]
struct DayTotal {
    total_minor: i64,
    largest_minor: i64,
    largest_at_us: i64,
}

/// One batch's view of its patrons' cash: their running day totals (today's and yesterday's,
/// one row each, whatever their history), and, only when a pattern could apply, their recent
/// transactions as evidence.
pub struct CashWatch {
    rules: ComplianceRules,
    today: NaiveDate,
    today_text: String,
    yesterday_text: String,
    now_us: i64,
    /// Whether each patron asked about has an identity on file (read on first need: only a
    /// transaction past the report threshold asks).
    identity: HashMap<String, bool>,
    totals: HashMap<DayKey, DayTotal>,
    /// Today's totals this batch changed.
    touched: HashSet<(String, CashDirection)>,
    /// Each patron's cash transactions since the look-back began, oldest first, read on first
    /// need (with this batch's own appended).
    recent: HashMap<String, Vec<CashEntry>>,
    /// This batch's transactions per patron, for a look-back read after them.
    added: HashMap<String, Vec<CashEntry>>,
    /// Whether each patron asked about has today's report open (read on first need, and kept
    /// by the caller across batches once open: a report is never removed).
    reported: HashMap<String, bool>,
    /// Patrons whose report for today this batch found committed (safe to keep across batches,
    /// unlike one it opens itself, which a failed commit would undo).
    found_open: Vec<String>,
    /// Whether each (patron, pattern) asked about was raised today already (read on first need).
    alerted: HashMap<(String, patterns::Pattern), bool>,
    pub writes: CashWrites,
}

impl CashWatch {
    /// Loads what `players` need: call under the ledger head's lock (the totals move with it).
    /// `open_reports` are (patron, gaming day) reports known open from earlier batches.
    pub fn load(
        conn: &mut AnyConnection,
        rules: ComplianceRules,
        calendar: &FloorCalendar,
        players: &[&str],
        now_us: i64,
        open_reports: &HashSet<(String, String)>,
    ) -> QueryResult<CashWatch> {
        let now = DateTime::from_timestamp_micros(now_us).unwrap_or_default();
        let today = calendar.place(now).gaming_day;
        let today_text = today.to_string();
        let yesterday_text = today.pred_opt().unwrap_or(today).to_string();
        let mut totals = HashMap::new();
        if !players.is_empty() {
            let rows: Vec<(String, String, String, i64, i64, i64)> = cdt::table
                .filter(cdt::player_id.eq_any(players))
                .filter(cdt::gaming_day.eq_any([&today_text, &yesterday_text]))
                .select((
                    cdt::player_id,
                    cdt::gaming_day,
                    cdt::direction,
                    cdt::total_minor,
                    cdt::largest_minor,
                    cdt::largest_at_us,
                ))
                .load(conn)?;
            for (player, day, direction, total_minor, largest_minor, largest_at_us) in rows {
                if let Some(direction) = CashDirection::parse(&direction) {
                    let day_total = DayTotal {
                        total_minor,
                        largest_minor,
                        largest_at_us,
                    };
                    totals.insert((player, direction, day), day_total);
                }
            }
        }
        Ok(CashWatch {
            rules,
            today,
            today_text,
            yesterday_text,
            now_us,
            identity: HashMap::new(),
            totals,
            touched: HashSet::new(),
            recent: HashMap::new(),
            added: HashMap::new(),
            reported: players
                .iter()
                .filter(|p| open_reports.contains(&((**p).to_owned(), today.to_string())))
                .map(|p| ((*p).to_owned(), true))
                .collect(),
            found_open: Vec::new(),
            alerted: HashMap::new(),
            writes: CashWrites::default(),
        })
    }

    fn day(&self, player_id: &str, direction: CashDirection, day: &str) -> DayTotal {
        self.totals
            .get(&(player_id.to_owned(), direction, day.to_owned()))
            .copied()
            .unwrap_or_default()
    }

    fn total(&self, player_id: &str, direction: CashDirection, day: &str) -> i64 {
        self.day(player_id, direction, day).total_minor
    }

    /// Whether a transaction past the report threshold was made in `direction` within the last
    /// 24 hours: then no split of the last 24 hours is possible (every piece must be under it).
    fn whole_piece_past_threshold(&self, player_id: &str, direction: CashDirection) -> bool {
        let threshold = self.rules.report_threshold.minor();
        [&self.today_text, &self.yesterday_text].into_iter().any(|day| {
            let d = self.day(player_id, direction, day);
            d.largest_minor > threshold && d.largest_at_us >= self.now_us - DAY_US
        })
    }

    /// The patron's total in `direction` for today so far.
    fn day_total(&self, player_id: &str, direction: CashDirection) -> i64 {
        self.total(player_id, direction, &self.today_text)
    }

    /// At least what the patron moved in `direction` over the last 24 hours (today's and
    /// yesterday's totals): a pattern on the last 24 hours cannot apply below it.
    fn last_day_bound(&self, player_id: &str, direction: CashDirection) -> i64 {
        self.day_total(player_id, direction) + self.total(player_id, direction, &self.yesterday_text)
    }

    fn has_identity(&mut self, conn: &mut AnyConnection, player_id: &str) -> QueryResult<bool> {
        if let Some(known) = self.identity.get(player_id) {
            return Ok(*known);
        }
        let on_file = !identity::on_file(conn, &[player_id])?.is_empty();
        self.identity.insert(player_id.to_owned(), on_file);
        Ok(on_file)
    }

    /// Opens today's report for the patron unless it is open.
    fn report(&mut self, conn: &mut AnyConnection, player_id: &str) -> QueryResult<()> {
        let open = match self.reported.get(player_id) {
            Some(open) => *open,
            None => {
                let found: i64 = ctr::table
                    .filter(ctr::player_id.eq(player_id).and(ctr::gaming_day.eq(&self.today_text)))
                    .count()
                    .get_result(conn)?;
                if found > 0 {
                    self.found_open.push(player_id.to_owned());
                }
                found > 0
            }
        };
        if !open {
            self.writes
                .reports
                .push((player_id.to_owned(), self.today_text.clone()));
        }
        self.reported.insert(player_id.to_owned(), true);
        Ok(())
    }

    /// The patron's cash transactions in the look-back, oldest first (read once per batch).
    fn recent(&mut self, conn: &mut AnyConnection, player_id: &str) -> QueryResult<Vec<CashEntry>> {
        if !self.recent.contains_key(player_id) {
            let since = self.now_us - self.rules.window_us().max(DAY_US);
            let mut entries = entries(
                conn,
                &Selection {
                    player_id: Some(player_id),
                    since_us: Some(since),
                    ..Selection::default()
                },
            )?;
            entries.extend(self.added.get(player_id).cloned().unwrap_or_default());
            self.recent.insert(player_id.to_owned(), entries);
        }
        Ok(self.recent[player_id].clone())
    }

    fn entry(&self, request: &CashRequest, transfer_id: Option<String>) -> CashEntry {
        CashEntry {
            transfer_id,
            player_id: request.player_id.to_owned(),
            direction: request.direction,
            amount_minor: request.amount_minor,
            gaming_day: self.today_text.clone(),
            cashier_id: request.cashier_id.to_owned(),
            location: request.location.map(str::to_owned),
            at_us: self.now_us,
        }
    }

    /// Whether the request may move money: refused when it would take the patron's day past
    /// the report threshold in its direction without their identity on file. A refused
    /// attempt is still evidence for the split-transactions pattern.
    pub fn check(
        &mut self,
        conn: &mut AnyConnection,
        request: &CashRequest,
    ) -> QueryResult<Result<(), IdentityRequired>> {
        let before = self.day_total(request.player_id, request.direction);
        let total = before + request.amount_minor;
        let threshold = self.rules.report_threshold.minor();
        if total <= threshold || self.has_identity(conn, request.player_id)? {
            return Ok(Ok(()));
        }
        let attempt = self.entry(request, None);
        let recent = self.recent(conn, request.player_id)?;
        if let Some(finding) = patterns::split_transactions(&self.rules, &recent, &attempt) {
            self.raise(conn, finding)?;
        }
        Ok(Err(IdentityRequired {
            direction: request.direction,
            gaming_day: self.today,
            before_minor: before,
            total_minor: total,
            threshold_minor: threshold,
        }))
    }

    /// Records a movement that was made: the log, the day's total and its report when it
    /// crosses, and the alerts it completes. Its recent transactions are read only when a
    /// pattern could apply; `staked` (what the patron staked over the last 24 hours) only when
    /// the minimal-play pattern could.
    pub fn record(
        &mut self,
        conn: &mut AnyConnection,
        request: &CashRequest,
        transfer_id: &str,
        staked: impl FnOnce(&mut AnyConnection) -> QueryResult<i64>,
    ) -> QueryResult<()> {
        let (player, direction, amount) = (request.player_id, request.direction, request.amount_minor);
        let before = self.day_total(player, direction);
        let rules = &self.rules;
        let (log, report) = (rules.log_threshold.minor(), rules.report_threshold.minor());
        let newest = self.entry(request, Some(transfer_id.to_owned()));
        let near = rules.just_under(amount, log) || rules.just_under(amount, report);
        let may_split = self.last_day_bound(player, direction) + amount > report
            && amount <= report
            && !self.whole_piece_past_threshold(player, direction);
        let may_walk = direction == CashDirection::Withdrawal
            && self.last_day_bound(player, CashDirection::Deposit) >= log
            && self.last_day_bound(player, CashDirection::Withdrawal) + amount >= log;
        let mut findings: Vec<Finding> = Vec::new();
        if near || may_split || may_walk {
            let recent = self.recent(conn, player)?;
            let rules = &self.rules;
            findings.extend(patterns::near_threshold(rules, &recent, &newest));
            findings.extend(patterns::split_transactions(rules, &recent, &newest));
            if let Some(cash_in) = patterns::minimal_play_cash_in(rules, &recent, &newest) {
                findings.extend(patterns::minimal_play(rules, &recent, &newest, cash_in, staked(conn)?));
            }
        }
        for finding in findings {
            self.raise(conn, finding)?;
        }
        if before + amount > report {
            self.report(conn, player)?;
        }
        let mut today = self.day(player, direction, &self.today_text);
        today.total_minor = before + amount;
        if amount > today.largest_minor {
            today.largest_minor = amount;
            today.largest_at_us = self.now_us;
        }
        self.totals
            .insert((player.to_owned(), direction, self.today_text.clone()), today);
        self.touched.insert((player.to_owned(), direction));
        self.writes.entries.push(newest.clone());
        self.added.entry(player.to_owned()).or_default().push(newest.clone());
        if let Some(entries) = self.recent.get_mut(player) {
            entries.push(newest);
        }
        Ok(())
    }

    /// Raises an alert unless the patron has one of its pattern today.
    fn raise(&mut self, conn: &mut AnyConnection, finding: Finding) -> QueryResult<()> {
        let player = finding
            .transactions
            .last()
            .map(|e| e.player_id.clone())
            .unwrap_or_default();
        let key = (player.clone(), finding.pattern);
        let raised = match self.alerted.get(&key) {
            Some(raised) => *raised,
            None => {
                let found: i64 = ca::table
                    .filter(ca::player_id.eq(&player))
                    .filter(ca::pattern.eq(finding.pattern.as_str()))
                    .filter(ca::gaming_day.eq(&self.today_text))
                    .count()
                    .get_result(conn)?;
                found > 0
            }
        };
        if !raised {
            self.writes.alerts.push((finding, player));
        }
        self.alerted.insert(key, true);
        Ok(())
    }

    /// The (patron, gaming day) reports this batch found committed, for the next batches.
    pub fn open_reports(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.found_open.iter().map(|p| (p.clone(), self.today_text.clone()))
    }

    /// Writes what the batch recorded, inside its transaction. The day's totals, reports and
    /// alerts were read under the head lock that every batch takes before writing them, so
    /// none is written twice or lost (the tables' keys stand behind that).
    pub fn write(self, conn: &mut AnyConnection) -> QueryResult<()> {
        let CashWrites {
            entries,
            reports,
            alerts,
        } = self.writes;
        if !entries.is_empty() {
            let rows: Vec<_> = entries
                .iter()
                .map(|e| {
                    (
                        ct::transfer_id.eq(e.transfer_id.clone().unwrap_or_default()),
                        ct::player_id.eq(&e.player_id),
                        ct::direction.eq(e.direction.as_str()),
                        ct::amount_minor.eq(e.amount_minor),
                        ct::gaming_day.eq(&e.gaming_day),
                        ct::cashier_id.eq(&e.cashier_id),
                        ct::location.eq(e.location.as_deref()),
                        ct::at_us.eq(e.at_us),
                    )
                })
                .collect();
            crate::store::on_backend!(conn, |c| diesel::insert_into(ct::table).values(&rows).execute(c))?;
        }
        if !self.touched.is_empty() {
            let rows: Vec<_> = self
                .touched
                .iter()
                .map(|(player, direction)| {
                    let day = self.totals[&(player.clone(), *direction, self.today_text.clone())];
                    (
                        cdt::player_id.eq(player.clone()),
                        cdt::gaming_day.eq(self.today_text.clone()),
                        cdt::direction.eq(direction.as_str()),
                        cdt::total_minor.eq(day.total_minor),
                        cdt::largest_minor.eq(day.largest_minor),
                        cdt::largest_at_us.eq(day.largest_at_us),
                    )
                })
                .collect();
            crate::store::on_backend!(conn, |c| diesel::insert_into(cdt::table)
                .values(&rows)
                .on_conflict((cdt::player_id, cdt::gaming_day, cdt::direction))
                .do_update()
                .set((
                    cdt::total_minor.eq(diesel::upsert::excluded(cdt::total_minor)),
                    cdt::largest_minor.eq(diesel::upsert::excluded(cdt::largest_minor)),
                    cdt::largest_at_us.eq(diesel::upsert::excluded(cdt::largest_at_us)),
                ))
                .execute(c))?;
        }
        for (player, day) in reports {
            diesel::insert_into(ctr::table)
                .values((
                    ctr::id.eq(new_id()),
                    ctr::player_id.eq(&player),
                    ctr::gaming_day.eq(&day),
                    ctr::created_at_us.eq(self.now_us),
                ))
                .execute(conn)?;
        }
        for (finding, player) in alerts {
            diesel::insert_into(ca::table)
                .values((
                    ca::id.eq(new_id()),
                    ca::player_id.eq(&player),
                    ca::pattern.eq(finding.pattern.as_str()),
                    ca::gaming_day.eq(&self.today_text),
                    ca::raised_at_us.eq(self.now_us),
                    ca::evidence.eq(serde_json::to_string(&finding).expect("a finding serialises")),
                    ca::status.eq("open"),
                ))
                .execute(conn)?;
        }
        Ok(())
    }
}

/// Which cash transactions to read; every field left None selects all.
#[derive(Default)]
pub(super) struct Selection<'a> {
    pub player_id: Option<&'a str>,
    pub gaming_day: Option<&'a str>,
    pub since_us: Option<i64>,
    pub min_amount_minor: Option<i64>,
}

/// The cash transactions `selection` names, oldest first.
pub(super) fn entries(conn: &mut AnyConnection, selection: &Selection) -> QueryResult<Vec<CashEntry>> {
    let mut query = ct::table
        .select((
            ct::transfer_id,
            ct::player_id,
            ct::direction,
            ct::amount_minor,
            ct::gaming_day,
            ct::cashier_id,
            ct::location,
            ct::at_us,
        ))
        .into_boxed();
    if let Some(player) = selection.player_id {
        query = query.filter(ct::player_id.eq(player));
    }
    if let Some(day) = selection.gaming_day {
        query = query.filter(ct::gaming_day.eq(day));
    }
    if let Some(since) = selection.since_us {
        query = query.filter(ct::at_us.ge(since));
    }
    if let Some(min) = selection.min_amount_minor {
        query = query.filter(ct::amount_minor.ge(min));
    }
    let rows: Vec<(String, String, String, i64, String, String, Option<String>, i64)> =
        query.order((ct::at_us.asc(), ct::transfer_id.asc())).load(conn)?;
    Ok(rows
        .into_iter()
        .map(
            |(transfer_id, player_id, direction, amount_minor, gaming_day, cashier_id, location, at_us)| CashEntry {
                transfer_id: Some(transfer_id),
                player_id,
                direction: CashDirection::parse(&direction).unwrap_or(CashDirection::Deposit),
                amount_minor,
                gaming_day,
                cashier_id,
                location,
                at_us,
            },
        )
        .collect())
}

/// What `player` staked over the last 24 hours, as player protection counts it.
pub fn staked_last_day(conn: &mut AnyConnection, player: &str, now_us: i64) -> QueryResult<i64> {
    Ok(crate::protection::totals(conn, &[player], now_us)?
        .get(player)
        .map_or(0, |t| t.staked[Period::Day as usize]))
}

/// A patron's gaming day at `now_us` and their deposits and withdrawals in it so far.
pub fn day_totals(
    conn: &mut AnyConnection,
    calendar: &FloorCalendar,
    player: &str,
    now_us: i64,
) -> QueryResult<(NaiveDate, i64, i64)> {
    let day = calendar
        .place(DateTime::from_timestamp_micros(now_us).unwrap_or_default())
        .gaming_day;
    let rows: Vec<(String, i64)> = cdt::table
        .filter(cdt::player_id.eq(player))
        .filter(cdt::gaming_day.eq(day.to_string()))
        .select((cdt::direction, cdt::total_minor))
        .load(conn)?;
    let of = |direction: CashDirection| {
        rows.iter()
            .find(|(d, _)| d == direction.as_str())
            .map_or(0, |(_, total)| *total)
    };
    Ok((day, of(CashDirection::Deposit), of(CashDirection::Withdrawal)))
}
