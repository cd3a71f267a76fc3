//! The calendar over time: the rules a casino has had, each in force from an
//! instant (docs/floor.md, "Changing the calendar").
//!
//! A change takes effect at the end of the gaming day in which it is made,
//! never earlier, so it never moves the bounds of a day that has begun (or
//! been closed). The first gaming day under a new rule starts exactly there
//! and is named by the new rule's day containing that instant, or the day
//! after the previous rule's last day if that is later (names only ever
//! increase); it runs to the new rule's end of that day, so it may be a little
//! longer or shorter than usual, and its first shift starts with it. After it
//! the new rule's days follow as usual. Every instant still belongs to exactly
//! one gaming day and one shift; days abut, and their names increase (a name
//! may be skipped when a change moves the clock of the days forward, and such
//! a day is empty).

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::{CalendarRule, CalendarSpec, Placement};

/// A rule and the instant it is in force from: `None` for the first rule,
/// in force since before anything was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub effective_from: Option<DateTime<Utc>>,
    pub rule: CalendarRule,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionsError {
    #[error("a calendar has a first rule, in force since ever, and only that one")]
    FirstVersion,
    #[error("the calendar's changes must take effect at instants in increasing order")]
    Order,
}

/// The versioned calendar: where each instant falls, and each gaming day's
/// bounds and shifts, under the rule in force then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloorCalendar {
    eras: Vec<Era>,
}

/// A rule's time: from its `from` to the next rule's.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Era {
    from: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    rule: CalendarRule,
    /// The era's first day (None for the first era, whose days are its rule's):
    /// its name and its end.
    first_day: Option<(NaiveDate, DateTime<Utc>)>,
    /// The name of the era's last day (None while it has no end).
    last_day: Option<NaiveDate>,
}

/// A change applied: the calendar with it, when it takes effect and the first gaming day it
/// governs, and what it replaced (a change not yet in force, or the rule it follows).
#[derive(Clone, Debug)]
pub struct CalendarChange {
    pub calendar: FloorCalendar,
    pub effective_from: DateTime<Utc>,
    pub first_gaming_day: NaiveDate,
    /// The rule that would have governed from `effective_from` without this change.
    pub replaced: CalendarRule,
    /// The change replaced another not yet in force.
    pub replaced_pending: bool,
}

impl Default for FloorCalendar {
    fn default() -> FloorCalendar {
        FloorCalendar::from_rule(CalendarRule::default())
    }
}

impl FloorCalendar {
    /// One rule, in force since ever.
    pub fn new(spec: &CalendarSpec) -> Result<FloorCalendar, super::CalendarError> {
        Ok(FloorCalendar::from_rule(CalendarRule::new(spec)?))
    }

    pub fn from_rule(rule: CalendarRule) -> FloorCalendar {
        FloorCalendar::from_versions(vec![Version {
            effective_from: None,
            rule,
        }])
        .expect("one version since ever")
    }

    /// The calendar of these versions: the first in force since ever, the
    /// others from increasing instants.
    pub fn from_versions(versions: Vec<Version>) -> Result<FloorCalendar, VersionsError> {
        let mut eras: Vec<Era> = Vec::with_capacity(versions.len());
        for (i, v) in versions.into_iter().enumerate() {
            match (i, v.effective_from) {
                (0, None) => eras.push(Era {
                    from: None,
                    until: None,
                    rule: v.rule,
                    first_day: None,
                    last_day: None,
                }),
                (0, Some(_)) | (_, None) => return Err(VersionsError::FirstVersion),
                (_, Some(from)) => {
                    let before = eras.last_mut().expect("the first era");
                    if before.from.is_some_and(|f| f >= from) {
                        return Err(VersionsError::Order);
                    }
                    before.until = Some(from);
                    let just_before = from.checked_sub_signed(Duration::microseconds(1)).unwrap_or(from);
                    let last_before = era_place(before, just_before).gaming_day;
                    before.last_day = Some(last_before);
                    let own = v.rule.place(from).gaming_day;
                    let name = own.max(last_before.succ_opt().unwrap_or(last_before));
                    let end = v.rule.day_bounds(name).1;
                    eras.push(Era {
                        from: Some(from),
                        until: None,
                        rule: v.rule,
                        first_day: Some((name, end.max(from))),
                        last_day: None,
                    });
                }
            }
        }
        if eras.is_empty() {
            return Err(VersionsError::FirstVersion);
        }
        Ok(FloorCalendar { eras })
    }

    /// The versions, oldest first.
    pub fn versions(&self) -> Vec<Version> {
        self.eras
            .iter()
            .map(|e| Version {
                effective_from: e.from,
                rule: e.rule.clone(),
            })
            .collect()
    }

    /// The calendar with `rule` taking effect from the next gaming day not yet
    /// begun at `now`, under the rules in force at `now`: a change not yet in
    /// force is replaced. A rule equal to the one in force cancels any pending
    /// change and adds nothing.
    pub fn with_change(&self, now: DateTime<Utc>, rule: CalendarRule) -> CalendarChange {
        let in_force: Vec<Version> = self
            .versions()
            .into_iter()
            .filter(|v| v.effective_from.is_none_or(|f| f <= now))
            .collect();
        let pending = self.eras.len() > in_force.len();
        let replaced = self.eras.last().map(|e| e.rule.clone()).expect("a calendar has a rule");
        let current = FloorCalendar::from_versions(in_force.clone()).expect("a prefix of valid versions");
        let today = current.place(now).gaming_day;
        let effective_from = current.day_bounds(today).1;
        let unchanged = current.rule_at(now) == &rule;
        let mut versions = in_force;
        if !unchanged {
            versions.push(Version {
                effective_from: Some(effective_from),
                rule,
            });
        }
        let calendar = FloorCalendar::from_versions(versions).expect("a change after every version in force");
        let first_gaming_day = calendar.place(effective_from).gaming_day;
        CalendarChange {
            calendar,
            effective_from,
            first_gaming_day,
            replaced,
            replaced_pending: pending,
        }
    }

    /// The change not yet in force at `now`, if any: when it takes effect, the
    /// first gaming day it governs, and its rule.
    pub fn pending(&self, now: DateTime<Utc>) -> Option<(DateTime<Utc>, NaiveDate, &CalendarRule)> {
        let era = self.eras.last()?;
        let from = era.from.filter(|f| *f > now)?;
        Some((
            from,
            era.first_day.map_or(era.rule.place(from).gaming_day, |d| d.0),
            &era.rule,
        ))
    }

    /// When the rule in force at `at` took effect (None: since ever).
    pub fn in_force_since(&self, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.era_at(at).from
    }

    /// The rule in force at an instant.
    pub fn rule_at(&self, at: DateTime<Utc>) -> &CalendarRule {
        &self.era_at(at).rule
    }

    /// The rule a gaming day is reckoned by (for a name no day has, the rule
    /// after it).
    pub fn rule_of_day(&self, day: NaiveDate) -> &CalendarRule {
        let (era, skipped) = self.era_of_day(day);
        match skipped {
            true => &self.eras[era + 1].rule,
            false => &self.eras[era].rule,
        }
    }

    /// The spec of the rule a gaming day is reckoned by.
    pub fn spec_of_day(&self, day: NaiveDate) -> CalendarSpec {
        self.rule_of_day(day).spec()
    }

    /// The gaming day and shift an instant belongs to; the shift indexes the
    /// shifts of that day's rule.
    pub fn place(&self, at: DateTime<Utc>) -> Placement {
        let era = self.era_at(at);
        let gaming_day = era_place(era, at).gaming_day;
        let starts = shift_starts(era, gaming_day);
        let shift = starts.iter().rposition(|s| *s <= at).unwrap_or(0);
        Placement { gaming_day, shift }
    }

    /// The gaming day's bounds: from its first instant to the next day's. A
    /// name no day has (skipped by a change) is empty, where it would lie.
    pub fn day_bounds(&self, day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
        let (i, skipped) = self.era_of_day(day);
        let era = &self.eras[i];
        if skipped {
            let at = era.until.expect("only a day between two eras is skipped");
            return (at, at);
        }
        era_day_bounds(era, day)
    }

    /// The gaming day's first instant.
    pub fn day_start(&self, day: NaiveDate) -> DateTime<Utc> {
        self.day_bounds(day).0
    }

    /// A shift's bounds on a gaming day (empty when a jump of the clocks or a
    /// change of calendar swallows it, or the shift is not the day's rule's).
    pub fn shift_bounds(&self, day: NaiveDate, shift: usize) -> (DateTime<Utc>, DateTime<Utc>) {
        let (i, skipped) = self.era_of_day(day);
        let (start, end) = self.day_bounds(day);
        if skipped {
            return (start, end);
        }
        let starts = shift_starts(&self.eras[i], day);
        match starts.get(shift) {
            None => (end, end),
            Some(s) => (*s, starts.get(shift + 1).copied().unwrap_or(end)),
        }
    }

    /// A gaming day's shifts in order: name, start, end.
    pub fn shifts(&self, day: NaiveDate) -> Vec<(&str, DateTime<Utc>, DateTime<Utc>)> {
        let rule = self.rule_of_day(day);
        rule.shift_names()
            .enumerate()
            .map(|(k, name)| {
                let (s, e) = self.shift_bounds(day, k);
                (name, s, e)
            })
            .collect()
    }

    fn era_at(&self, at: DateTime<Utc>) -> &Era {
        let i = self
            .eras
            .iter()
            .rposition(|e| e.from.is_none_or(|f| f <= at))
            .unwrap_or(0);
        &self.eras[i]
    }

    /// The era whose days a name belongs to, and whether the name was skipped
    /// (it lies after that era's last day and before the next era's first).
    fn era_of_day(&self, day: NaiveDate) -> (usize, bool) {
        let i = self
            .eras
            .iter()
            .rposition(|e| e.first_day.is_none_or(|(first, _)| first <= day))
            .unwrap_or(0);
        let skipped = self.eras[i].last_day.is_some_and(|last| day > last);
        (i, skipped)
    }
}

/// Where an instant of the era falls (the shift as the rule alone has it).
fn era_place(era: &Era, at: DateTime<Utc>) -> Placement {
    match era.first_day {
        Some((name, end)) if at < end => Placement {
            gaming_day: name,
            shift: 0,
        },
        _ => era.rule.place(at),
    }
}

/// A day of the era: its rule's, clipped to the era, or the era's first day.
fn era_day_bounds(era: &Era, day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let (mut start, mut end) = match (era.first_day, era.from) {
        (Some((name, end)), Some(from)) if name == day => (from, end),
        _ => era.rule.day_bounds(day),
    };
    if let Some(from) = era.from {
        start = start.max(from);
        end = end.max(start);
    }
    if let Some(until) = era.until {
        end = end.min(until);
        start = start.min(end);
    }
    (start, end)
}

/// Each shift's start on a day of the era: the first at the day's start, the
/// others where the rule puts them, held within the day and in order.
fn shift_starts(era: &Era, day: NaiveDate) -> Vec<DateTime<Utc>> {
    let (start, end) = era_day_bounds(era, day);
    let mut starts = Vec::with_capacity(era.rule.shift_names().count());
    let mut previous = start;
    for k in 0..era.rule.shift_names().count() {
        let s = if k == 0 {
            start
        } else {
            era.rule.shift_start(day, k).clamp(previous, end)
        };
        starts.push(s);
        previous = s;
    }
    starts
}

#[cfg(test)]
mod tests;
