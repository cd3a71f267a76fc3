//! The standing's arithmetic: a request fits or is refused whole, and counts only when admitted.

use super::*;
use proptest::prelude::*;

/// Checks `play` and counts it when it fits, as the wager path does.
fn admit(s: &mut Standing, play: Play) -> Result<(), Refusal> {
    s.check(play)?;
    s.record(play);
    Ok(())
}

fn limited(limits: &[(LimitKind, Period, i64)], totals: Totals) -> Standing {
    Standing {
        excluded: None,
        limits: limits
            .iter()
            .map(|&(kind, period, amount_minor)| Limit {
                kind,
                period,
                amount_minor,
            })
            .collect(),
        totals,
    }
}

#[test]
fn a_stake_counts_against_stake_and_loss_limits_a_deposit_against_deposit_limits() {
    let mut s = limited(
        &[
            (LimitKind::Loss, Period::Day, 10_000),
            (LimitKind::Deposit, Period::Week, 50_000),
        ],
        Totals::default(),
    );
    admit(&mut s, Play::Stake(6_000)).unwrap();
    let refused = admit(&mut s, Play::Stake(4_001)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "a stake of 40.01 would take the player's losses over the last 24 hours to 100.01, over the daily loss \
         limit they set of 100.00 (40.00 left)"
    );
    admit(&mut s, Play::Stake(4_000)).unwrap();
    assert_eq!(s.totals.lost, [10_000; 3]);
    admit(&mut s, Play::Deposit(50_000)).unwrap();
    assert!(matches!(
        admit(&mut s, Play::Deposit(1)),
        Err(Refusal::Limit {
            kind: LimitKind::Deposit,
            period: Period::Week,
            ..
        })
    ));
}

#[test]
fn an_exclusion_refuses_everything_until_it_ends() {
    let mut s = Standing {
        excluded: Some((ExclusionKind::TimeOut, Some(1_800_000_000_000_000))),
        ..Standing::default()
    };
    let refused = admit(&mut s, Play::Deposit(100)).unwrap_err();
    assert_eq!(refused.code(), "excluded_from_play");
    assert!(refused.to_string().contains("until 2027-01-15 08:00 UTC"), "{refused}");
    s.excluded = Some((ExclusionKind::SelfExclusion, None));
    assert!(admit(&mut s, Play::Stake(1))
        .unwrap_err()
        .to_string()
        .contains("for good"));
    assert_eq!(s.totals, Totals::default(), "nothing refused is counted");
}

proptest! {
    /// Whatever the requests, those admitted never take any total over its limit, and a
    /// request is refused only when it would.
    #[test]
    fn admitted_requests_stay_within_every_limit(
        limits in proptest::collection::vec((0usize..3, 0usize..3, 0i64..20_000), 0..5),
        plays in proptest::collection::vec((any::<bool>(), 1i64..5_000), 0..40),
    ) {
        let limits: Vec<(LimitKind, Period, i64)> = limits
            .into_iter()
            .map(|(k, p, a)| (LimitKind::ALL[k], Period::ALL[p], a))
            .collect();
        let mut s = limited(&limits, Totals::default());
        for (deposit, amount) in plays {
            let play = if deposit { Play::Deposit(amount) } else { Play::Stake(amount) };
            let before = s.totals;
            let would_exceed = limits.iter().any(|&(kind, period, limit)| {
                let adds = matches!((play, kind), (Play::Deposit(_), LimitKind::Deposit))
                    || matches!((play, kind), (Play::Stake(_), LimitKind::Stake | LimitKind::Loss));
                adds && before.of(kind, period) + amount > limit
            });
            prop_assert_eq!(admit(&mut s, play).is_err(), would_exceed);
            if would_exceed {
                prop_assert_eq!(s.totals, before);
            }
            for &(kind, period, limit) in &limits {
                prop_assert!(s.totals.of(kind, period) <= limit);
            }
        }
    }
}
