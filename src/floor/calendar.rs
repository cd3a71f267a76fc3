//! The floor's calendar (docs/floor.md): gaming days and shifts.
//!
//! A gaming day is named by the local date it starts on and runs from the
//! configured local time (the cut-off, e.g. 06:00) to the same local time on
//! the next date; named shifts split it at local times. Both are reckoned on
//! the casino's clock, so a gaming day lasts 23, 24 or 25 hours around a change
//! of clocks. A local time that does not exist (the clocks jump over it) means
//! the first instant after the jump; one that happens twice (the clocks go
//! back) means the first of the two. Every instant belongs to exactly one
//! gaming day and one shift of it.
//!
//! Pure: instants in, days and shifts out; no clock of its own.

use chrono::{DateTime, Duration, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

mod versions;
pub use versions::{CalendarChange, FloorCalendar, Version, VersionsError};

/// Most shifts a gaming day may have.
pub const MAX_SHIFTS: usize = 8;
/// Longest shift name, in characters.
pub const MAX_SHIFT_NAME_CHARS: usize = 32;
/// Longest jump of the clocks searched past (real ones are at most two hours).
const MAX_CLOCK_JUMP_MINUTES: i64 = 24 * 60;
const SECONDS_PER_DAY: u32 = 24 * 60 * 60;

/// The calendar as JSON carries it (`GET`/`PUT /api/v1/floor/calendar`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CalendarSpec {
    /// The casino's time zone, an IANA name such as "Europe/Lisbon".
    #[schema(example = "Europe/Lisbon")]
    pub timezone: String,
    /// The local time a gaming day starts (the cut-off), "HH:MM" or "HH:MM:SS".
    #[schema(example = "06:00")]
    pub day_starts_at: String,
    /// 1 to 8 shifts in order from the day's start; the first starts when the day does.
    pub shifts: Vec<ShiftSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShiftSpec {
    /// 1 to 32 characters, none of them a control character; unique in the calendar.
    #[schema(example = "day")]
    pub name: String,
    /// The local time the shift starts, "HH:MM" or "HH:MM:SS".
    #[schema(example = "06:00")]
    pub starts_at: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CalendarError {
    #[error("unknown time zone {0:?}: give an IANA name such as \"Europe/Lisbon\"")]
    UnknownTimeZone(String),
    #[error("{field} {value:?} is not a local time \"HH:MM\" or \"HH:MM:SS\"")]
    BadTime { field: String, value: String },
    #[error("a gaming day has 1 to {MAX_SHIFTS} shifts, not {0}")]
    ShiftCount(usize),
    #[error("shift {0}: a name is 1 to {MAX_SHIFT_NAME_CHARS} characters, none of them a control character")]
    BadShiftName(usize),
    #[error("shift {0}: the name {1:?} is already another shift's")]
    DuplicateShiftName(usize, String),
    #[error("the first shift starts when the gaming day does, at {0}")]
    FirstShiftStart(String),
    #[error("shift {0} ({1}) must start after the shift before it, counting from the day's start")]
    ShiftOrder(usize, String),
}

/// One rule of gaming days and shifts: a known time zone, a cut-off, and
/// shifts in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalendarRule {
    timezone: Tz,
    day_starts_at: NaiveTime,
    /// In order from the day's start; `shifts[0].1 == day_starts_at`.
    shifts: Vec<(String, NaiveTime)>,
}

/// Where an instant falls: its gaming day and the shift of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub gaming_day: NaiveDate,
    /// Index into the calendar's shifts.
    pub shift: usize,
}

impl Default for CalendarRule {
    /// UTC, days from 06:00, shifts "day" 06:00, "swing" 14:00, "graveyard" 22:00.
    fn default() -> CalendarRule {
        let at = |h| NaiveTime::from_hms_opt(h, 0, 0).expect("a valid hour");
        CalendarRule {
            timezone: Tz::UTC,
            day_starts_at: at(6),
            shifts: vec![
                ("day".into(), at(6)),
                ("swing".into(), at(14)),
                ("graveyard".into(), at(22)),
            ],
        }
    }
}

impl CalendarRule {
    pub fn new(spec: &CalendarSpec) -> Result<CalendarRule, CalendarError> {
        let timezone: Tz = spec
            .timezone
            .parse()
            .map_err(|_| CalendarError::UnknownTimeZone(spec.timezone.clone()))?;
        let day_starts_at = local_time("day_starts_at", &spec.day_starts_at)?;
        if spec.shifts.is_empty() || spec.shifts.len() > MAX_SHIFTS {
            return Err(CalendarError::ShiftCount(spec.shifts.len()));
        }
        let mut shifts: Vec<(String, NaiveTime)> = Vec::with_capacity(spec.shifts.len());
        for (i, s) in spec.shifts.iter().enumerate() {
            let chars = s.name.chars().count();
            if chars == 0 || chars > MAX_SHIFT_NAME_CHARS || s.name.chars().any(char::is_control) {
                return Err(CalendarError::BadShiftName(i));
            }
            if shifts.iter().any(|(name, _)| *name == s.name) {
                return Err(CalendarError::DuplicateShiftName(i, s.name.clone()));
            }
            let starts_at = local_time(&format!("shifts[{i}].starts_at"), &s.starts_at)?;
            let since_day_start = seconds_after(day_starts_at, starts_at);
            match shifts.last() {
                None if since_day_start != 0 => return Err(CalendarError::FirstShiftStart(hms(day_starts_at))),
                Some((_, before)) if since_day_start <= seconds_after(day_starts_at, *before) => {
                    return Err(CalendarError::ShiftOrder(i, s.name.clone()));
                }
                _ => {}
            }
            shifts.push((s.name.clone(), starts_at));
        }
        Ok(CalendarRule {
            timezone,
            day_starts_at,
            shifts,
        })
    }

    /// The calendar as JSON carries it, times written "HH:MM:SS".
    pub fn spec(&self) -> CalendarSpec {
        CalendarSpec {
            timezone: self.timezone.name().to_owned(),
            day_starts_at: hms(self.day_starts_at),
            shifts: self
                .shifts
                .iter()
                .map(|(name, at)| ShiftSpec {
                    name: name.clone(),
                    starts_at: hms(*at),
                })
                .collect(),
        }
    }

    pub fn shift_names(&self) -> impl Iterator<Item = &str> {
        self.shifts.iter().map(|(name, _)| name.as_str())
    }

    /// The gaming day and shift an instant belongs to.
    pub fn place(&self, at: DateTime<Utc>) -> Placement {
        let local_date = at.with_timezone(&self.timezone).date_naive();
        // The gaming day is the local date or the one before it.
        let gaming_day = if at >= self.day_start(local_date) {
            local_date
        } else {
            local_date.pred_opt().unwrap_or(local_date)
        };
        let shift = (0..self.shifts.len())
            .rev()
            .find(|&k| self.shift_start(gaming_day, k) <= at)
            .unwrap_or(0);
        Placement { gaming_day, shift }
    }

    /// The gaming day's first instant.
    pub fn day_start(&self, day: NaiveDate) -> DateTime<Utc> {
        self.instant(day, self.day_starts_at)
    }

    /// The gaming day's bounds: from its first instant to the next day's.
    pub fn day_bounds(&self, day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
        (self.day_start(day), self.day_start(day.succ_opt().unwrap_or(day)))
    }

    /// A shift's bounds on a gaming day (empty when a jump of the clocks swallows it).
    pub fn shift_bounds(&self, day: NaiveDate, shift: usize) -> (DateTime<Utc>, DateTime<Utc>) {
        let end = if shift + 1 < self.shifts.len() {
            self.shift_start(day, shift + 1)
        } else {
            self.day_bounds(day).1
        };
        (self.shift_start(day, shift), end)
    }

    pub(crate) fn shift_start(&self, day: NaiveDate, shift: usize) -> DateTime<Utc> {
        let starts_at = self.shifts[shift].1;
        // A shift starting before the cut-off's clock time falls on the next date.
        let date = if starts_at >= self.day_starts_at {
            day
        } else {
            day.succ_opt().unwrap_or(day)
        };
        self.instant(date, starts_at)
    }

    /// A local date and time as an instant: the first of two when the clocks go
    /// back over it, the first instant after the jump when they skip it.
    fn instant(&self, date: NaiveDate, time: NaiveTime) -> DateTime<Utc> {
        let local = date.and_time(time);
        if let Some(t) = self.earliest(local) {
            return t;
        }
        let minute = local.with_second(0).unwrap_or(local);
        (1..=MAX_CLOCK_JUMP_MINUTES)
            .find_map(|m| self.earliest(minute + Duration::minutes(m)))
            .unwrap_or_else(|| Utc.from_utc_datetime(&local))
    }

    fn earliest(&self, local: NaiveDateTime) -> Option<DateTime<Utc>> {
        match self.timezone.from_local_datetime(&local) {
            LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => Some(t.with_timezone(&Utc)),
            LocalResult::None => None,
        }
    }
}

/// "HH:MM" or "HH:MM:SS", two digits each.
fn local_time(field: &str, text: &str) -> Result<NaiveTime, CalendarError> {
    let bad = || CalendarError::BadTime {
        field: field.to_owned(),
        value: text.to_owned(),
    };
    let parts: Vec<&str> = text.split(':').collect();
    if !(2..=3).contains(&parts.len())
        || parts
            .iter()
            .any(|p| p.len() != 2 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(bad());
    }
    let number = |i: usize| parts.get(i).map_or(Some(0), |p| p.parse::<u32>().ok());
    match (number(0), number(1), number(2)) {
        (Some(h), Some(m), Some(s)) => NaiveTime::from_hms_opt(h, m, s).ok_or_else(bad),
        _ => Err(bad()),
    }
}

fn hms(t: NaiveTime) -> String {
    t.format("%H:%M:%S").to_string()
}

/// Seconds from `start` forward to `t` on the clock, 0..86,400.
fn seconds_after(start: NaiveTime, t: NaiveTime) -> u32 {
    (t.num_seconds_from_midnight() + SECONDS_PER_DAY - start.num_seconds_from_midnight()) % SECONDS_PER_DAY
}

#[cfg(test)]
mod tests;
