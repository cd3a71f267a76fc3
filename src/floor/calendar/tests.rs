use super::*;
use proptest::prelude::*;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("an RFC 3339 instant")
        .with_timezone(&Utc)
}

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a date")
}

fn calendar(timezone: &str, day_starts_at: &str, shifts: &[(&str, &str)]) -> Result<CalendarRule, CalendarError> {
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
}

fn lisbon(day_starts_at: &str) -> CalendarRule {
    calendar("Europe/Lisbon", day_starts_at, &[("only", day_starts_at)]).unwrap()
}

fn shift_name(c: &CalendarRule, p: &Placement) -> String {
    c.shift_names().nth(p.shift).unwrap().to_owned()
}

#[test]
fn the_cut_off_divides_gaming_days_and_shifts_divide_them() {
    let c = CalendarRule::default();
    for (at, gaming_day, shift) in [
        ("2026-11-24T05:59:59.999999Z", "2026-11-23", "graveyard"),
        ("2026-11-24T06:00:00Z", "2026-11-24", "day"),
        ("2026-11-24T13:59:59Z", "2026-11-24", "day"),
        ("2026-11-24T14:00:00Z", "2026-11-24", "swing"),
        ("2026-11-24T22:00:00Z", "2026-11-24", "graveyard"),
        ("2026-11-25T00:30:00Z", "2026-11-24", "graveyard"),
    ] {
        let p = c.place(utc(at));
        assert_eq!(
            (p.gaming_day, shift_name(&c, &p).as_str()),
            (day(gaming_day), shift),
            "{at}"
        );
    }
    let (start, end) = c.day_bounds(day("2026-11-24"));
    assert_eq!((start, end), (utc("2026-11-24T06:00:00Z"), utc("2026-11-25T06:00:00Z")));
    assert_eq!(c.shift_bounds(day("2026-11-24"), 2), (utc("2026-11-24T22:00:00Z"), end));
}

#[test]
fn gaming_days_follow_the_local_clock_across_changes_of_clocks() {
    // Lisbon: clocks go forward at 01:00 UTC on 29 March 2026, back at 01:00 UTC on 25 October.
    let c = lisbon("06:00");
    assert_eq!(
        c.day_bounds(day("2026-03-28")),
        (utc("2026-03-28T06:00:00Z"), utc("2026-03-29T05:00:00Z")),
        "23 hours"
    );
    assert_eq!(
        c.day_bounds(day("2026-10-24")),
        (utc("2026-10-24T05:00:00Z"), utc("2026-10-25T06:00:00Z")),
        "25 hours"
    );
    assert_eq!(c.place(utc("2026-03-29T05:30:00Z")).gaming_day, day("2026-03-29"));
    assert_eq!(c.place(utc("2026-10-25T05:30:00Z")).gaming_day, day("2026-10-24"));
}

#[test]
fn a_cut_off_the_clocks_skip_or_repeat_is_the_first_instant_it_names() {
    // 01:30 does not exist in Lisbon on 29 March 2026 (01:00 → 02:00): the day starts at 02:00.
    assert_eq!(
        lisbon("01:30").day_start(day("2026-03-29")),
        utc("2026-03-29T01:00:00Z")
    );
    // 01:30 happens twice on 25 October 2026 (02:00 → 01:00): the day starts at the first.
    assert_eq!(
        lisbon("01:30").day_start(day("2026-10-25")),
        utc("2026-10-25T00:30:00Z")
    );
}

#[test]
fn a_shift_after_midnight_belongs_to_the_day_that_started_before_it() {
    let c = calendar("America/New_York", "10:00", &[("open", "10:00"), ("late", "02:00")]).unwrap();
    // 03:00 local on 1 July is 07:00 UTC, in the late shift of the gaming day of 30 June.
    let p = c.place(utc("2026-07-01T07:00:00Z"));
    assert_eq!(
        (p.gaming_day, shift_name(&c, &p)),
        (day("2026-06-30"), "late".to_owned())
    );
    assert_eq!(
        c.shift_bounds(day("2026-06-30"), 1),
        (utc("2026-07-01T06:00:00Z"), utc("2026-07-01T14:00:00Z"))
    );
}

#[test]
fn a_bad_calendar_is_refused_with_the_reason() {
    let three = [("a", "06:00"), ("b", "14:00"), ("c", "22:00")];
    assert_eq!(
        calendar("Mars/Olympus", "06:00", &three),
        Err(CalendarError::UnknownTimeZone("Mars/Olympus".into()))
    );
    for bad in [
        "6:00",
        "24:00",
        "06:60",
        "06:00:60",
        "0600",
        "06:00:00:00",
        " 06:00",
        "+6:00",
    ] {
        assert!(
            matches!(calendar("UTC", bad, &[("a", bad)]), Err(CalendarError::BadTime { .. })),
            "{bad}"
        );
    }
    assert_eq!(calendar("UTC", "06:00", &[]), Err(CalendarError::ShiftCount(0)));
    let nine: Vec<(String, String)> = (0..9).map(|i| (format!("s{i}"), format!("{:02}:00", 6 + i))).collect();
    let nine: Vec<(&str, &str)> = nine.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    assert_eq!(calendar("UTC", "06:00", &nine), Err(CalendarError::ShiftCount(9)));
    assert_eq!(
        calendar("UTC", "06:00", &[("a", "07:00")]),
        Err(CalendarError::FirstShiftStart("06:00:00".into()))
    );
    assert_eq!(
        calendar("UTC", "06:00", &[("a", "06:00"), ("b", "22:00"), ("c", "14:00")]),
        Err(CalendarError::ShiftOrder(2, "c".into()))
    );
    assert_eq!(
        calendar("UTC", "06:00", &[("a", "06:00"), ("a", "14:00")]),
        Err(CalendarError::DuplicateShiftName(1, "a".into()))
    );
    assert_eq!(
        calendar("UTC", "06:00", &[("", "06:00")]),
        Err(CalendarError::BadShiftName(0))
    );
    assert_eq!(
        calendar("UTC", "06:00", &[("a\nb", "06:00")]),
        Err(CalendarError::BadShiftName(0))
    );
    let c = calendar("Europe/Lisbon", "06:00", &three).unwrap();
    assert_eq!(CalendarRule::new(&c.spec()), Ok(c));
}

const ZONES: [&str; 5] = [
    "UTC",
    "Europe/Lisbon",
    "America/New_York",
    // Half-hour changes of clocks.
    "Australia/Lord_Howe",
    // Changes of clocks at midnight.
    "America/Santiago",
];

pub(super) fn any_calendar() -> impl Strategy<Value = CalendarRule> {
    (
        0..ZONES.len(),
        0u32..24 * 4,
        proptest::collection::btree_set(1u32..24 * 4, 0..4),
    )
        .prop_map(|(zone, start_quarter, later)| {
            let at = |q: u32| format!("{:02}:{:02}", (q / 4) % 24, (q % 4) * 15);
            let mut shifts = vec![("s0".to_owned(), at(start_quarter))];
            shifts.extend(
                later
                    .iter()
                    .enumerate()
                    .map(|(i, q)| (format!("s{}", i + 1), at(start_quarter + q))),
            );
            let shifts: Vec<(&str, &str)> = shifts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
            calendar(ZONES[zone], &at(start_quarter), &shifts).expect("shifts in order")
        })
}

proptest! {
    /// Every instant lies in its gaming day and its shift; consecutive days
    /// abut; a day lasts 24 hours give or take a change of clocks.
    #[test]
    fn every_instant_has_one_gaming_day_and_one_shift(
        c in any_calendar(),
        seconds in 1_577_836_800i64..1_893_456_000,
    ) {
        let at = DateTime::from_timestamp(seconds, 0).unwrap();
        let p = c.place(at);
        let (start, end) = c.day_bounds(p.gaming_day);
        prop_assert!(start <= at && at < end, "{at} outside {start}..{end}");
        let next = p.gaming_day.succ_opt().unwrap();
        prop_assert_eq!(end, c.day_bounds(next).0);
        let hours = (end - start).num_minutes() as f64 / 60.0;
        prop_assert!((22.0..=26.0).contains(&hours), "{} hours", hours);
        let (s, e) = c.shift_bounds(p.gaming_day, p.shift);
        prop_assert!(s <= at && at < e, "{at} outside shift {s}..{e}");
        let last = c.shift_names().count() - 1;
        prop_assert_eq!(c.shift_bounds(p.gaming_day, 0).0, start);
        prop_assert_eq!(c.shift_bounds(p.gaming_day, last).1, end);
    }
}
