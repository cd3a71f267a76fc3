use super::*;
use crate::floor::calendar::tests::any_calendar;
use crate::floor::calendar::ShiftSpec;
use proptest::prelude::*;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("an RFC 3339 instant")
        .with_timezone(&Utc)
}

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a date")
}

fn rule(timezone: &str, day_starts_at: &str, shifts: &[(&str, &str)]) -> CalendarRule {
    CalendarRule::new(&CalendarSpec {
        timezone: timezone.into(),
        day_starts_at: day_starts_at.into(),
        shifts: shifts
            .iter()
            .map(|(name, at)| ShiftSpec {
                name: (*name).into(),
                starts_at: (*at).into(),
            })
            .collect(),
    })
    .expect("a valid rule")
}

fn cut_off(at: &str) -> CalendarRule {
    rule("UTC", at, &[("all", at)])
}

#[test]
fn a_later_cut_off_takes_effect_after_the_present_day_and_leaves_no_gap() {
    // The day of 10 March runs 20:57 to 20:57 on 11 March; the pit boss moves the cut-off to
    // 21:32 at 23:00 on 10 March.
    let before = FloorCalendar::from_rule(cut_off("20:57"));
    let now = utc("2026-03-10T23:00:00Z");
    let change = before.with_change(now, cut_off("21:32"));
    let after = &change.calendar;
    assert_eq!(change.effective_from, utc("2026-03-11T20:57:00Z"));
    assert_eq!(change.first_gaming_day, day("2026-03-11"));
    assert!(!change.replaced_pending);
    // The present day keeps its bounds, and the present stays in it.
    assert_eq!(
        after.day_bounds(day("2026-03-10")),
        before.day_bounds(day("2026-03-10"))
    );
    assert_eq!(after.place(now), before.place(now));
    // The 35 minutes between the two cut-offs belong to the next day, which is 24 h 35 min long.
    assert_eq!(
        after.day_bounds(day("2026-03-11")),
        (utc("2026-03-11T20:57:00Z"), utc("2026-03-12T21:32:00Z"))
    );
    assert_eq!(after.place(utc("2026-03-11T21:10:00Z")).gaming_day, day("2026-03-11"));
    assert_eq!(
        after.day_bounds(day("2026-03-12")),
        (utc("2026-03-12T21:32:00Z"), utc("2026-03-13T21:32:00Z"))
    );
    assert_eq!(
        after.pending(now).map(|p| (p.0, p.1)),
        Some((change.effective_from, day("2026-03-11")))
    );
    assert_eq!(after.pending(change.effective_from), None);
    assert_eq!(after.in_force_since(change.effective_from), Some(change.effective_from));
}

#[test]
fn an_earlier_cut_off_makes_the_first_day_shorter() {
    let before = FloorCalendar::from_rule(cut_off("21:32"));
    let change = before.with_change(utc("2026-03-10T22:00:00Z"), cut_off("20:57"));
    assert_eq!(
        change.calendar.day_bounds(day("2026-03-11")),
        (utc("2026-03-11T21:32:00Z"), utc("2026-03-12T20:57:00Z"))
    );
}

#[test]
fn a_second_change_before_the_first_takes_effect_replaces_it() {
    let before = FloorCalendar::from_rule(cut_off("06:00"));
    let first = before.with_change(utc("2026-03-10T08:00:00Z"), cut_off("07:00"));
    let second = first
        .calendar
        .with_change(utc("2026-03-10T09:00:00Z"), cut_off("05:00"));
    assert!(second.replaced_pending);
    assert_eq!(second.replaced, cut_off("07:00"));
    assert_eq!(second.effective_from, first.effective_from);
    assert_eq!(second.calendar.versions().len(), 2);
    assert_eq!(second.calendar.rule_of_day(day("2026-03-11")), &cut_off("05:00"));
    // Back to the rule in force: the pending change is cancelled and nothing is added.
    let back = second
        .calendar
        .with_change(utc("2026-03-10T10:00:00Z"), cut_off("06:00"));
    assert_eq!(back.calendar, before);
    // Once in force, a change follows it.
    let later = first
        .calendar
        .with_change(utc("2026-03-12T10:00:00Z"), cut_off("05:00"));
    assert_eq!(later.calendar.versions().len(), 3);
    assert!(!later.replaced_pending);
    assert_eq!(later.effective_from, utc("2026-03-13T07:00:00Z"));
}

#[test]
fn a_change_that_moves_the_days_forward_skips_a_name_and_shifts_keep_their_clock_times() {
    // From UTC days at 23:00 to Kiritimati (UTC+14) days at 00:00, made on the day of the 10th
    // (23:00 on the 10th to 23:00 on the 11th, UTC): the change takes effect at 23:00 UTC on the
    // 11th, 13:00 on the 12th in Kiritimati, so the first new day is the 12th and no day is the 11th.
    let before = FloorCalendar::from_rule(cut_off("23:00"));
    let kiritimati = rule(
        "Pacific/Kiritimati",
        "00:00",
        &[("night", "00:00"), ("day", "08:00"), ("evening", "16:00")],
    );
    let change = before.with_change(utc("2026-03-11T12:00:00Z"), kiritimati);
    let c = &change.calendar;
    let from = change.effective_from;
    assert_eq!(from, utc("2026-03-11T23:00:00Z"));
    assert_eq!(change.first_gaming_day, day("2026-03-12"));
    assert_eq!(c.day_bounds(day("2026-03-10")).1, from);
    assert_eq!(c.day_bounds(day("2026-03-11")), (from, from));
    assert_eq!(c.place(from - Duration::microseconds(1)).gaming_day, day("2026-03-10"));
    // The 12th runs from the change to midnight in Kiritimati (10:00 UTC).
    assert_eq!(c.day_bounds(day("2026-03-12")), (from, utc("2026-03-12T10:00:00Z")));
    // Its first shift starts with it, and is empty: at 13:00 there the "day" shift is on.
    let shifts = c.shifts(day("2026-03-12"));
    assert_eq!(shifts[0], ("night", from, from));
    assert_eq!(shifts[1], ("day", from, utc("2026-03-12T02:00:00Z")));
    assert_eq!(
        shifts[2],
        ("evening", utc("2026-03-12T02:00:00Z"), utc("2026-03-12T10:00:00Z"))
    );
    assert_eq!(c.place(from).shift, 1);
    assert_eq!(c.spec_of_day(day("2026-03-12")).timezone, "Pacific/Kiritimati");
    assert_eq!(c.spec_of_day(day("2026-03-11")).timezone, "Pacific/Kiritimati");
    assert_eq!(c.spec_of_day(day("2026-03-10")).timezone, "UTC");
}

#[test]
fn versions_are_read_back_as_they_were_written() {
    let c = FloorCalendar::from_rule(cut_off("06:00"))
        .with_change(utc("2026-03-10T08:00:00Z"), cut_off("07:00"))
        .calendar;
    assert_eq!(FloorCalendar::from_versions(c.versions()), Ok(c.clone()));
    let mut wrong = c.versions();
    wrong.swap(0, 1);
    assert_eq!(FloorCalendar::from_versions(wrong), Err(VersionsError::FirstVersion));
    let mut twice = c.versions();
    twice.push(twice[1].clone());
    assert_eq!(FloorCalendar::from_versions(twice), Err(VersionsError::Order));
    assert_eq!(
        FloorCalendar::from_versions(Vec::new()),
        Err(VersionsError::FirstVersion)
    );
}

const MINUTE_S: i64 = 60;

fn instant(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, 0).expect("a representable instant")
}

/// A calendar and a sequence of changes: each made some minutes after the one before.
fn any_changes() -> impl Strategy<Value = (CalendarRule, i64, Vec<(i64, CalendarRule)>)> {
    (
        any_calendar(),
        1_577_836_800i64..1_893_456_000,
        proptest::collection::vec((0i64..4 * 24 * 60, any_calendar()), 1..6),
    )
}

/// The calendar before each change and the change's instant, and the calendar after all.
fn apply(
    first: CalendarRule,
    start_s: i64,
    changes: Vec<(i64, CalendarRule)>,
) -> (Vec<(DateTime<Utc>, FloorCalendar)>, FloorCalendar) {
    let mut calendar = FloorCalendar::from_rule(first);
    let mut now = instant(start_s);
    let mut before = Vec::new();
    for (after_minutes, rule) in changes {
        now += Duration::minutes(after_minutes);
        before.push((now, calendar.clone()));
        let change = calendar.with_change(now, rule);
        let today = calendar.place(now).gaming_day;
        assert!(change.effective_from > now);
        assert_eq!(
            change.effective_from,
            FloorCalendar::from_versions(
                calendar
                    .versions()
                    .into_iter()
                    .filter(|v| v.effective_from.is_none_or(|f| f <= now))
                    .collect()
            )
            .unwrap()
            .day_bounds(today)
            .1
        );
        calendar = change.calendar;
    }
    (before, calendar)
}

/// Every instant lies in its day and shift; the next day starts where it ends, with a later name, and
/// any name between is empty.
fn check_instant(c: &FloorCalendar, at: DateTime<Utc>) -> Result<(), TestCaseError> {
    let p = c.place(at);
    let (start, end) = c.day_bounds(p.gaming_day);
    prop_assert!(start <= at && at < end, "{at} outside {start}..{end}");
    // A change to days reckoned far to the west can make its first day up to three days long.
    prop_assert!(end - start <= Duration::hours(76), "{start}..{end}");
    let (s, e) = c.shift_bounds(p.gaming_day, p.shift);
    prop_assert!(s <= at && at < e, "{at} outside shift {s}..{e}");
    let shifts = c.shifts(p.gaming_day);
    prop_assert_eq!(shifts[0].1, start);
    prop_assert_eq!(shifts[shifts.len() - 1].2, end);
    prop_assert!(shifts.windows(2).all(|w| w[0].2 == w[1].1 && w[0].1 <= w[0].2));
    let next = c.place(end).gaming_day;
    prop_assert!(next > p.gaming_day);
    prop_assert_eq!(c.day_bounds(next).0, end);
    let mut between = p.gaming_day.succ_opt().unwrap();
    while between < next {
        prop_assert_eq!(
            c.day_bounds(between),
            (end, end),
            "{} between {} and {}",
            between,
            p.gaming_day,
            next
        );
        between = between.succ_opt().unwrap();
    }
    Ok(())
}

proptest! {
    /// Over any sequence of changes: every instant belongs to exactly one gaming day and shift,
    /// days abut and their names increase.
    #[test]
    fn every_instant_has_one_day_and_days_follow_each_other(
        (first, start_s, changes) in any_changes(),
        offsets in proptest::collection::vec(-3 * 24 * 60 * MINUTE_S..25 * 24 * 60 * MINUTE_S, 20),
    ) {
        let (_, c) = apply(first, start_s, changes);
        let mut ats: Vec<DateTime<Utc>> = offsets.iter().map(|o| instant(start_s + o)).collect();
        for v in c.versions() {
            if let Some(from) = v.effective_from {
                ats.extend([from - Duration::microseconds(1), from, from + Duration::hours(1)]);
            }
        }
        ats.sort();
        for at in &ats {
            check_instant(&c, *at)?;
        }
        for pair in ats.windows(2) {
            prop_assert!(c.place(pair[0]).gaming_day <= c.place(pair[1]).gaming_day);
        }
    }

    /// A day that has begun when a change is made keeps its bounds and its shifts, whatever
    /// changes follow; and so does every instant's place before the change.
    #[test]
    fn a_begun_day_never_changes(
        (first, start_s, changes) in any_changes(),
        back in proptest::collection::vec(0i64..3 * 24 * 60 * MINUTE_S, 8),
    ) {
        let (before, last) = apply(first, start_s, changes);
        for (now, earlier) in &before {
            for b in &back {
                let at = *now - Duration::seconds(*b);
                let p = earlier.place(at);
                prop_assert_eq!(last.place(at), p.clone());
                prop_assert_eq!(last.day_bounds(p.gaming_day), earlier.day_bounds(p.gaming_day));
                prop_assert_eq!(last.shifts(p.gaming_day), earlier.shifts(p.gaming_day));
                prop_assert_eq!(last.spec_of_day(p.gaming_day), earlier.spec_of_day(p.gaming_day));
            }
            // The present day too, to its end.
            let today = earlier.place(*now).gaming_day;
            prop_assert_eq!(last.day_bounds(today), earlier.day_bounds(today));
        }
    }
}
