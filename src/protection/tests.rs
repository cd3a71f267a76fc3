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
        session: None,
    }
}

const MINUTE: i64 = MINUTE_US;

/// A move to play of `amount` at `at_us`.
fn staked(at_us: i64, amount: i64) -> PlayMove {
    PlayMove {
        at_us,
        deposited: 0,
        staked: amount,
        lost: amount,
    }
}

/// A standing with only a session limit of `minutes`, under a 30-minute gap, counted at `now_us`
/// from `moves`.
fn with_session_limit(minutes: u32, moves: &[PlayMove], now_us: i64) -> Standing {
    let mut s = Standing {
        session: Some(SessionClock {
            limit_minutes: minutes,
            gap_us: 30 * MINUTE,
            now_us: 0,
            span_us: None,
        }),
        ..Standing::default()
    };
    s.count(moves, now_us);
    s
}

#[test]
fn a_session_runs_back_while_no_pause_is_longer_than_the_gap() {
    let gap = 30 * MINUTE;
    let times = [100 * MINUTE, 80 * MINUTE, 50 * MINUTE, 10 * MINUTE];
    let session: Vec<i64> = current_session(times.iter().map(|&t| (t, ())), 110 * MINUTE, gap)
        .map(|(t, ())| t)
        .collect();
    assert_eq!(
        session,
        [100 * MINUTE, 80 * MINUTE, 50 * MINUTE],
        "40 minutes before 50 ends it"
    );
    // Since the last play, too: 31 minutes after it, no session runs.
    assert_eq!(
        current_session(times.iter().map(|&t| (t, ())), 131 * MINUTE, gap).count(),
        0
    );
    assert_eq!(
        current_session(times.iter().map(|&t| (t, ())), 130 * MINUTE, gap).count(),
        3
    );
}

#[test]
fn a_session_limit_refuses_stakes_once_the_session_has_run_its_length_and_not_deposits() {
    // Plays at 0, 6 and 9 minutes; a cage deposit at 20 is no play.
    let mut moves = vec![staked(0, 100), staked(6 * MINUTE, 100), staked(9 * MINUTE, 100)];
    moves.push(PlayMove {
        at_us: 20 * MINUTE,
        deposited: 500,
        staked: 0,
        lost: 0,
    });
    let mut s = with_session_limit(10, &moves, 9 * MINUTE + 59_999_999);
    admit(&mut s, Play::Stake(1)).unwrap();
    let mut s = with_session_limit(10, &moves, 10 * MINUTE);
    let refused = admit(&mut s, Play::Stake(1)).unwrap_err();
    assert_eq!(
        refused,
        Refusal::SessionLength {
            limit_minutes: 10,
            started_at_us: 0,
            resumes_at_us: 39 * MINUTE,
        }
    );
    assert_eq!(refused.code(), "session_limit_reached");
    admit(&mut s, Play::Deposit(1_000)).unwrap();
    // After a pause longer than the gap, a new session starts with the next stake.
    let mut s = with_session_limit(10, &moves, 39 * MINUTE + 1);
    admit(&mut s, Play::Stake(1)).unwrap();
    assert_eq!(s.session.unwrap().span_us, Some((39 * MINUTE + 1, 39 * MINUTE + 1)));
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
    /// A session limit admits a stake exactly when the session, as the ledger's plays and the
    /// stakes admitted so far make it, has run less than its length.
    #[test]
    fn a_session_limit_admits_exactly_the_stakes_inside_the_length(
        minutes in 10u32..120,
        gaps in proptest::collection::vec(0i64..50, 1..30),
    ) {
        let gap_us = 30 * MINUTE;
        let limit_us = i64::from(minutes) * MINUTE;
        let mut admitted: Vec<PlayMove> = Vec::new();
        let mut now = 0;
        for g in gaps {
            now += g * MINUTE;
            let mut s = with_session_limit(minutes, &admitted, now);
            // The session by hand: the admitted plays back from now with no pause over the gap.
            let mut start = None;
            let mut later = now;
            for m in admitted.iter().rev() {
                if later - m.at_us > gap_us { break; }
                start = Some(m.at_us);
                later = m.at_us;
            }
            let within = start.is_none_or(|st| now - st < limit_us);
            prop_assert_eq!(admit(&mut s, Play::Stake(1)).is_ok(), within);
            if within {
                admitted.push(staked(now, 1));
            }
        }
    }

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
