use super::*;
use proptest::prelude::*;

const MINUTE_US: i64 = 60_000_000;
const DAY: NaiveDate = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();

#[allow(clippy::too_many_arguments)]
fn movement<'a>(
    player_id: &'a str,
    table_id: &'a str,
    round_id: &'a str,
    bet_id: Option<&'a str>,
    kind: &'a str,
    out_of_wallet: bool,
    amount_minor: i64,
    at_us: i64,
) -> WalletTransfer<'a> {
    WalletTransfer {
        player_id,
        table_id,
        round_id: Some(round_id),
        bet_id,
        kind,
        out_of_wallet,
        amount_minor,
        // These movements' fees are paid, never given back.
        fee_minor: if out_of_wallet && crate::floor::performance::FEE_KINDS.contains(&kind) {
            amount_minor
        } else {
            0
        },
        at_us,
    }
}

fn rule(gap_minutes: u32, points: &str) -> RatingRule {
    RatingRule::new(&RatingRuleSpec {
        session_gap_minutes: gap_minutes,
        points_per_theo_unit: points.into(),
    })
    .unwrap()
}

/// Two rounds 10 minutes apart, then one after an hour's pause, worked by hand.
#[test]
fn sessions_by_hand() {
    let transfers = [
        // Round 1 at minute 0: a spiga, a seat fee and a side bet of 10.00 that lost.
        movement("p", "t1", "r1", None, "spiga", true, 500, 0),
        movement("p", "t1", "r1", None, "seat_fee", true, 25, 0),
        movement("p", "t1", "r1", Some("b1"), "bet_stake", true, 1000, MINUTE_US),
        // Round 2 at minute 10: a spiga, won: the pot of 12.00 paid.
        movement("p", "t1", "r2", None, "spiga", true, 500, 10 * MINUTE_US),
        movement("p", "t1", "r2", None, "pot_payout", false, 1200, 14 * MINUTE_US),
        // Round 3 at minute 80, voided: the spiga refunded.
        movement("p", "t1", "r3", None, "spiga", true, 500, 80 * MINUTE_US),
        movement("p", "t1", "r3", None, "refund", false, 500, 81 * MINUTE_US),
    ];
    let ends = HashMap::from([("r1", 5 * MINUTE_US), ("r2", 14 * MINUTE_US), ("r3", 81 * MINUTE_US)]);
    let bets = HashMap::from([(
        "b1",
        RatedBet {
            stake_minor: 1000,
            house_edge: Decimal::new(5, 2),
        },
    )]);
    let sessions = sessions(&rule(30, "2"), DAY, &transfers, &ends, &bets, &HashMap::new());
    assert_eq!(sessions.len(), 2, "{sessions:#?}");
    let first = &sessions[0];
    assert_eq!(
        (first.started_at_us, first.ended_at_us, first.seconds_played),
        (0, 14 * MINUTE_US, 14 * 60)
    );
    assert_eq!(first.rounds, 2);
    assert_eq!(first.staked, "20.25"); // 5.00 + 0.25 + 10.00 + 5.00
    assert_eq!(first.average_bet.as_deref(), Some("10.12")); // 20.25 / 2 = 10.125, half to even
    assert_eq!(first.actual_result, "-8.25"); // 12.00 − 20.25
    assert_eq!(first.theo_loss, "0.75"); // 10.00 × 5% + the fee 0.25
    assert_eq!(first.points, 1); // ⌊0.75 × 2⌋
    let second = &sessions[1];
    assert_eq!(
        (second.rounds, second.staked.as_str(), second.actual_result.as_str()),
        (1, "0.00", "0.00")
    );
    assert_eq!((second.seconds_played, second.points), (60, 0));
    // With a two-hour gap it is one session.
    let one = super::sessions(&rule(120, "1"), DAY, &transfers, &ends, &bets, &HashMap::new());
    assert_eq!(one.len(), 1);
    assert_eq!(
        (one[0].rounds, one[0].staked.as_str(), one[0].seconds_played),
        (3, "20.25", 81 * 60)
    );
}

#[test]
fn a_rule_out_of_range_is_refused() {
    let spec = |gap, points: &str| RatingRuleSpec {
        session_gap_minutes: gap,
        points_per_theo_unit: points.into(),
    };
    for (gap, points) in [
        (0, "1"),
        (1441, "1"),
        (30, ""),
        (30, "-1"),
        (30, "1e3"),
        (30, "0.00001"),
        (30, "1001"),
        (30, "1."),
        (30, ".5"),
        (30, "1.2.3"),
    ] {
        assert!(RatingRule::new(&spec(gap, points)).is_err(), "{gap} {points:?}");
    }
    for (gap, points) in [(1, "0"), (1440, "1000"), (30, "0.0001"), (45, "1.50")] {
        assert!(RatingRule::new(&spec(gap, points)).is_ok(), "{gap} {points:?}");
    }
    assert_eq!(
        RatingRule::new(&spec(45, "1.50")).unwrap().spec().points_per_theo_unit,
        "1.5"
    );
}

proptest! {
    /// However movements fall, sessions partition them: the totals of the
    /// sessions are the totals of the movements, each player and table's
    /// sessions do not overlap, and the pause between two is longer than the gap.
    #[test]
    fn sessions_partition_the_movements(
        moves in proptest::collection::vec((0usize..3, 0usize..2, 0i64..600, 1i64..5_000, any::<bool>()), 0..60),
        gap in 1u32..90,
    ) {
        let players = ["p", "q", "r"];
        let tables = ["t1", "t2"];
        let rounds: Vec<String> = (0..600).map(|m| format!("r{}", m / 7)).collect();
        let transfers: Vec<WalletTransfer> = moves
            .iter()
            .map(|&(p, t, minute, amount, out)| {
                let kind = if out { "spiga" } else { "pot_payout" };
                movement(players[p], tables[t], &rounds[minute as usize], None, kind, out, amount, minute * MINUTE_US)
            })
            .collect();
        let sessions = sessions(&rule(gap, "1"), DAY, &transfers, &HashMap::new(), &HashMap::new(), &HashMap::new());
        let minor = |s: &str| -> i64 { Decimal::from_str_exact(s).unwrap().checked_mul(Decimal::ONE_HUNDRED).unwrap().try_into().unwrap() };
        for p in players {
            for t in tables {
                let mine: Vec<&RatingSession> = sessions.iter().filter(|s| s.player_id == p && s.table_id == t).collect();
                let moved: Vec<&WalletTransfer> = transfers.iter().filter(|m| m.player_id == p && m.table_id == t).collect();
                let staked: i64 = moved.iter().filter(|m| m.out_of_wallet).map(|m| m.amount_minor).sum();
                let result: i64 = moved.iter().map(|m| if m.out_of_wallet { -m.amount_minor } else { m.amount_minor }).sum();
                prop_assert_eq!(mine.iter().map(|s| minor(&s.staked)).sum::<i64>(), staked);
                prop_assert_eq!(mine.iter().map(|s| minor(&s.actual_result)).sum::<i64>(), result);
                prop_assert_eq!(mine.is_empty(), moved.is_empty());
                for pair in mine.windows(2) {
                    prop_assert!(pair[1].started_at_us - pair[0].ended_at_us > i64::from(gap) * MINUTE_US);
                }
                for s in &mine {
                    prop_assert!(s.started_at_us <= s.ended_at_us);
                    let inside = moved.iter().filter(|m| s.started_at_us <= m.at_us && m.at_us <= s.ended_at_us).count();
                    prop_assert!(inside > 0);
                }
            }
        }
    }
}
