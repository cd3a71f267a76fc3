use super::*;

/// The lines of the facts as the raw report reads them: each transfer's money, the bets summed per round.
fn report_lines(
    shifts: &[(&str, i64, i64)],
    tables: &[TableInfo<'_>],
    open: &[OpenSpell<'_>],
    transfers: &[TransferFact<'_>],
    rounds: &[RoundFact<'_>],
    bets: &[BetFact<'_>],
    lobo_plays: &[LoboPlayFact<'_>],
) -> Vec<PerformanceLine> {
    let money: Vec<MoneyFact> = transfers.iter().map(TransferFact::money).collect();
    let bets = bets_by_round(bets);
    day_lines(shifts, tables, open, &money, rounds, &bets, lobo_plays, &[])
}

fn transfer<'a>(kind: &'a str, from: &'a str, to: &'a str, amount_minor: i64, at_us: i64) -> TransferFact<'a> {
    TransferFact {
        table_id: "t1",
        kind,
        debit_account: from,
        credit_account: to,
        amount_minor,
        at_us,
    }
}

fn bet(stake_minor: i64, returned_minor: i64) -> BetFact<'static> {
    BetFact {
        table_id: "t1",
        round_id: "r1",
        certified_as: ("pt", "prima"),
        stake_minor,
        returned_minor,
        settled_at_us: 150,
        house_edge: Decimal::new(5, 2),
        sd_per_unit: 1.0,
    }
}

/// A day of two shifts, worked by hand: stakes, a fee and a spiga in the
/// first; the settlement (a lost bet of 10.00, a won bet of 2.00 paying
/// 4.00, the spiga refunded) in the second.
#[test]
fn a_day_by_hand() {
    let shifts = [("a", 0, 100), ("b", 100, 200)];
    let tables = [TableInfo {
        id: "t1",
        name: "Mesa, 1",
        game: "prima_carta",
    }];
    let transfers = [
        transfer("bet_stake", "wallet:p", "escrow:r1", 1000, 10),
        transfer("bet_stake", "wallet:q", "escrow:r1", 200, 10),
        transfer("seat_fee", "wallet:p", "house:revenue", 50, 10),
        transfer("spiga", "wallet:p", "pot:r1", 250, 20),
        transfer("bet_collected", "escrow:r1", "house:bankroll", 1000, 150),
        transfer("bet_returned", "escrow:r1", "wallet:q", 200, 150),
        transfer("bet_payout", "house:bankroll", "wallet:q", 400, 150),
        transfer("refund", "pot:r1", "wallet:p", 250, 150),
        // After the day: not counted.
        transfer("seat_fee", "wallet:p", "house:revenue", 50, 200),
    ];
    let rounds = [
        RoundFact {
            table_id: "t1",
            voided: true,
            at_us: 50,
        },
        RoundFact {
            table_id: "t1",
            voided: false,
            at_us: 150,
        },
    ];
    let bets = [bet(1000, 0), bet(200, 600)];
    // Open from 50 to 200 (after the day too): 0.5 of the first shift, all the second.
    let open = [OpenSpell {
        table_id: "t1",
        from_us: 50,
        to_us: 200,
    }];
    let lines = report_lines(&shifts, &tables, &open, &transfers, &rounds, &bets, &[]);
    let shown: Vec<(Option<&str>, Option<&str>)> = lines
        .iter()
        .map(|l| (l.table_id.as_deref(), l.shift.as_deref()))
        .collect();
    assert_eq!(
        shown,
        [
            (Some("t1"), Some("a")),
            (Some("t1"), Some("b")),
            (Some("t1"), None),
            (None, Some("a")),
            (None, Some("b")),
            (None, None)
        ]
    );
    let figures = |l: &PerformanceLine| {
        (
            l.rounds,
            l.voided_rounds,
            l.drop.clone(),
            l.house_win.clone(),
            l.hold_percent.clone(),
            l.covered_win.clone(),
            l.theo_win.clone(),
            l.actual_minus_theo.clone(),
        )
    };
    let s = |x: &str| x.to_owned();
    assert_eq!(
        figures(&lines[0]),
        (
            0,
            1,
            s("15.00"),
            s("0.50"),
            Some(s("3.33")),
            s("0.50"),
            s("0.50"),
            s("0.00")
        )
    );
    assert_eq!(
        figures(&lines[1]),
        (
            1,
            0,
            s("-2.50"),
            s("6.00"),
            Some(s("-240.00")),
            s("6.00"),
            s("0.60"),
            s("5.40")
        )
    );
    // The day: drop 15.00 − 2.50; win 0.50 + 10.00 − 4.00; theo 5% of 12.00 plus the fee.
    assert_eq!(
        figures(&lines[2]),
        (
            1,
            1,
            s("12.50"),
            s("6.50"),
            Some(s("52.00")),
            s("6.50"),
            s("1.10"),
            s("5.40")
        )
    );
    assert_eq!(figures(&lines[5]), figures(&lines[2]));
    // σ √(10² + 2²) with σ = 1 per unit: 10.20; the band 2.5758 × that.
    assert_eq!(
        (lines[2].theo_sd.as_str(), lines[2].band_99.as_str()),
        ("10.20", "26.27")
    );
    assert!(!lines[2].outside_band);
    let csv = to_csv("2026-11-24", &lines);
    let mut rows = csv.lines();
    assert!(rows.next().unwrap().starts_with("gaming_day,table_id,table_name,"));
    assert_eq!(
        rows.nth(2).unwrap(),
        "2026-11-24,t1,\"Mesa, 1\",prima_carta,,,1,1,0.00,24000000.0,12.50,6.50,52.00,6.50,1.10,10.20,5.40,26.27,false"
    );
    assert_eq!(csv.lines().count(), 7);
}

#[test]
fn a_table_far_from_its_theoretical_win_is_flagged() {
    let shifts = [("all", 0, 1000)];
    // 100 lost bets of 1.00 on 100 rounds, where 5% is expected: the house won 100.00 against 5.00.
    let round_ids: Vec<String> = (0..100).map(|i| format!("r{i}")).collect();
    let bets: Vec<BetFact> = round_ids
        .iter()
        .map(|r| BetFact {
            round_id: r,
            ..bet(100, 0)
        })
        .collect();
    let lines = report_lines(&shifts, &[], &[], &[], &[], &bets, &[]);
    let day = lines
        .iter()
        .find(|l| l.table_id.is_some() && l.shift.is_none())
        .unwrap();
    assert_eq!(
        (day.theo_win.as_str(), day.actual_minus_theo.as_str()),
        ("5.00", "95.00")
    );
    assert!(day.outside_band, "{day:?}");
}

/// A table open from 07:00 to 16:30 on shifts 06:00–14:00 and 14:00–22:00,
/// closed for an hour at 10:00, dealing 60 rounds in each shift.
#[test]
fn rounds_per_hour_count_the_hours_open() {
    const HOUR: i64 = 3_600_000_000;
    let shifts = [("day", 6 * HOUR, 14 * HOUR), ("swing", 14 * HOUR, 22 * HOUR)];
    let open = [
        OpenSpell {
            table_id: "t1",
            from_us: 7 * HOUR,
            to_us: 10 * HOUR,
        },
        OpenSpell {
            table_id: "t1",
            from_us: 11 * HOUR,
            to_us: 16 * HOUR + HOUR / 2,
        },
    ];
    let rounds: Vec<RoundFact> = (0..120)
        .map(|i| RoundFact {
            table_id: "t1",
            voided: false,
            at_us: if i < 60 { 8 * HOUR } else { 15 * HOUR },
        })
        .collect();
    let lines = report_lines(&shifts, &[], &open, &[], &rounds, &[], &[]);
    let figures: Vec<(Option<&str>, Option<&str>, &str, Option<&str>)> = lines
        .iter()
        .map(|l| {
            (
                l.table_id.as_deref(),
                l.shift.as_deref(),
                l.open_hours.as_str(),
                l.rounds_per_hour.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        figures,
        [
            (Some("t1"), Some("day"), "6.00", Some("10.0")),
            (Some("t1"), Some("swing"), "2.50", Some("24.0")),
            (Some("t1"), None, "8.50", Some("14.1")),
            (None, Some("day"), "6.00", Some("10.0")),
            (None, Some("swing"), "2.50", Some("24.0")),
            (None, None, "8.50", Some("14.1")),
        ]
    );
    // A table open with nothing dealt has a line of zero rounds.
    let idle = report_lines(&shifts, &[], &open[..1], &[], &[], &[], &[]);
    assert_eq!((idle[0].rounds, idle[0].rounds_per_hour.as_deref()), (0, Some("0.0")));
}

/// Two days of two shifts: each shift's line counts both days under its name.
#[test]
fn a_period_counts_each_shift_by_name_across_days() {
    let shifts = [("early", 0, 10), ("late", 10, 20), ("early", 20, 30), ("late", 30, 40)];
    let rounds: Vec<RoundFact> = [1, 11, 12, 21, 39, 40]
        .into_iter()
        .map(|at_us| RoundFact {
            table_id: "t1",
            voided: false,
            at_us,
        })
        .collect();
    let lines = report_lines(&shifts, &[], &[], &[], &rounds, &[], &[]);
    let shown: Vec<(Option<&str>, Option<&str>, i64)> = lines
        .iter()
        .map(|l| (l.table_id.as_deref(), l.shift.as_deref(), l.rounds))
        .collect();
    // The round at 40 is after the period.
    assert_eq!(
        shown,
        [
            (Some("t1"), Some("early"), 2),
            (Some("t1"), Some("late"), 3),
            (Some("t1"), None, 5),
            (None, Some("early"), 2),
            (None, Some("late"), 3),
            (None, None, 5)
        ]
    );
}

fn lobo_play(play_win_minor: i64) -> LoboPlayFact<'static> {
    // Unit 1.00 in easy mode at cap 40: U = 4.2781 points, results within [−32, 40] points.
    LoboPlayFact {
        table_id: "t1",
        at_us: 150,
        play_win_minor,
        theo_play_minor: Decimal::new(-42781, 2),
        sd_bound_minor: 100.0 * 72.0 / 2.0,
    }
}

/// Two Lobo rounds at unit 1.00 with a fee of 4.72: one folded for 12 points, one the player
/// won for 20. The house's least expected win is 2 × (4.72 − 4.2781) = 0.8838.
#[test]
fn lobo_counts_its_proven_edge_as_theoretical_win() {
    let shifts = [("all", 0, 1000)];
    let transfers = [
        transfer("lobo_fee", "wallet:p", "house:revenue", 472, 10),
        transfer("lobo_fee", "wallet:p", "house:revenue", 472, 20),
        transfer("lobo_loss", "escrow:r1", "house:bankroll", 1200, 150),
        transfer("lobo_win", "house:bankroll", "wallet:p", 2000, 150),
    ];
    let plays = [lobo_play(1200), lobo_play(-2000)];
    let lines = report_lines(&shifts, &[], &[], &transfers, &[], &[], &plays);
    let day = lines
        .iter()
        .find(|l| l.table_id.is_some() && l.shift.is_none())
        .unwrap();
    // house win = covered: 9.44 + 12.00 − 20.00.
    assert_eq!((day.house_win.as_str(), day.covered_win.as_str()), ("1.44", "1.44"));
    assert_eq!(day.theo_win, "0.88");
    // 1.44 − 0.8838, rounded half to even.
    assert_eq!(day.actual_minus_theo, "0.56");
    // Under 30 rounds the spread is each round's bound, 36.00: √2 × 36.00.
    assert_eq!(day.theo_sd, "50.91");
    assert!(!day.outside_band);
}

/// The house's least expected win is a floor: winning far more than it (players who play
/// badly) is no alarm; winning far less is.
#[test]
fn a_lobo_table_is_flagged_only_below_its_proven_edge() {
    let shifts = [("all", 0, 1000)];
    let far_above: Vec<LoboPlayFact> = (0..100).map(|_| lobo_play(3000)).collect();
    let far_below: Vec<LoboPlayFact> = (0..100)
        .map(|i| lobo_play(if i % 2 == 0 { -3000 } else { -2000 }))
        .collect();
    for (plays, flagged) in [(&far_above, false), (&far_below, true)] {
        let lines = report_lines(&shifts, &[], &[], &[], &[], &[], plays);
        let day = lines
            .iter()
            .find(|l| l.table_id.is_some() && l.shift.is_none())
            .unwrap();
        assert_eq!(day.outside_band, flagged, "{day:?}");
    }
    // From 30 rounds on the spread is the sample's: 100 alike rounds have none.
    let lines = report_lines(&shifts, &[], &[], &[], &[], &[], &far_above);
    assert_eq!(lines[0].theo_sd, "0.00");
}

/// The cobre the house takes is theoretical win as it falls, like a fee; a cobre the table
/// carries to the next winner is nobody's win yet.
#[test]
fn the_cobre_taken_by_the_house_is_theoretical_win_as_it_falls() {
    let shifts = [("all", 0, 1000)];
    let transfers = [
        transfer("spiga", "wallet:p", "pot:r1", 500, 10),
        transfer("cobre", "pot:r1", "house:revenue", 50, 150),
        transfer("pot_payout", "pot:r1", "wallet:q", 450, 150),
        transfer("spiga", "wallet:p", "pot:r2", 500, 200),
        transfer("cobre", "pot:r2", "cobre:t1", 50, 250),
        transfer("pot_payout", "pot:r2", "wallet:q", 450, 250),
    ];
    let lines = report_lines(&shifts, &[], &[], &transfers, &[], &[], &[]);
    let day = lines
        .iter()
        .find(|l| l.table_id.is_some() && l.shift.is_none())
        .unwrap();
    assert_eq!(
        (day.house_win.as_str(), day.covered_win.as_str(), day.theo_win.as_str()),
        ("0.50", "0.50", "0.50")
    );
    assert_eq!((day.actual_minus_theo.as_str(), day.outside_band), ("0.00", false));
}
