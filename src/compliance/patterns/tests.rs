use super::*;
use proptest::prelude::*;

const HOUR: i64 = crate::protection::HOUR_US;

fn entry(amount_minor: i64, at_hours: i64, cashier: &str, day: &str, direction: CashDirection) -> CashEntry {
    CashEntry {
        transfer_id: Some(format!("t{at_hours}-{amount_minor}")),
        player_id: "p".into(),
        direction,
        amount_minor,
        gaming_day: day.into(),
        cashier_id: cashier.into(),
        location: None,
        at_us: at_hours * HOUR,
    }
}

fn deposit(amount_minor: i64, at_hours: i64, cashier: &str) -> CashEntry {
    entry(amount_minor, at_hours, cashier, "2026-11-28", CashDirection::Deposit)
}

#[test]
fn three_deposits_just_under_the_report_threshold_make_a_run() {
    let rules = ComplianceRules::default();
    let recent = [deposit(950_000, 0, "a"), deposit(950_000, 30, "a")];
    let found = near_threshold(&rules, &recent, &deposit(950_000, 60, "a")).expect("a run of three");
    assert_eq!(found.pattern, Pattern::NearThreshold);
    assert_eq!(found.transactions.len(), 3);
    // Two are not enough; nor is a third outside the window.
    assert!(near_threshold(&rules, &recent[..1], &deposit(950_000, 60, "a")).is_none());
    assert!(near_threshold(&rules, &recent, &deposit(950_000, 73, "a")).is_none());
    // Nor one at or above the threshold, nor one more than 10% below it.
    assert!(near_threshold(&rules, &recent, &deposit(1_000_000, 60, "a")).is_none());
    assert!(near_threshold(&rules, &recent, &deposit(899_999, 60, "a")).is_none());
}

#[test]
fn deposits_just_under_the_log_threshold_count_too() {
    let rules = ComplianceRules::default();
    let recent = [deposit(290_000, 0, "a"), deposit(299_999, 1, "b")];
    assert!(near_threshold(&rules, &recent, &deposit(270_000, 2, "c")).is_some());
    assert!(near_threshold(&rules, &recent, &deposit(269_999, 2, "c")).is_none());
}

#[test]
fn pieces_past_the_report_threshold_through_several_cashiers_are_split() {
    let rules = ComplianceRules::default();
    let recent = [deposit(400_000, 0, "a"), deposit(400_000, 1, "b")];
    let found = split_transactions(&rules, &recent, &deposit(400_000, 2, "c")).expect("split");
    assert_eq!(found.transactions.len(), 3);
    // The same pieces through one cashier and place in one day are no split (the day's report
    // covers them).
    let one = [deposit(400_000, 0, "a"), deposit(400_000, 1, "a")];
    assert!(split_transactions(&rules, &one, &deposit(400_000, 2, "a")).is_none());
    // Across the gaming day's end they are.
    let late = [entry(600_000, 0, "a", "2026-11-27", CashDirection::Deposit)];
    assert!(split_transactions(&rules, &late, &deposit(500_000, 5, "a")).is_some());
    // Withdrawals do not add to deposits.
    let mixed = [entry(900_000, 0, "a", "2026-11-28", CashDirection::Withdrawal)];
    assert!(split_transactions(&rules, &mixed, &deposit(500_000, 1, "b")).is_none());
}

#[test]
fn cash_through_the_wallet_with_little_play_is_minimal_play() {
    let rules = ComplianceRules::default();
    let recent = [deposit(500_000, 0, "a")];
    let out = entry(490_000, 3, "b", "2026-11-28", CashDirection::Withdrawal);
    let cash_in = minimal_play_cash_in(&rules, &recent, &out).expect("both ways past the log threshold");
    assert_eq!(cash_in, 500_000);
    assert!(minimal_play(&rules, &recent, &out, cash_in, 49_999).is_some());
    assert!(minimal_play(&rules, &recent, &out, cash_in, 50_000).is_none());
    // A small withdrawal, or one a day later, is not the pattern.
    let small = entry(100_000, 3, "b", "2026-11-28", CashDirection::Withdrawal);
    assert!(minimal_play_cash_in(&rules, &recent, &small).is_none());
    let later = entry(490_000, 25, "b", "2026-11-29", CashDirection::Withdrawal);
    assert!(minimal_play_cash_in(&rules, &recent, &later).is_none());
}

proptest! {
    /// A finding's evidence always holds its newest transaction, and only transactions of the
    /// look-back; the near-threshold run is exactly those just under a threshold.
    #[test]
    fn evidence_is_what_the_pattern_names(
        pieces in proptest::collection::vec((1i64..2_000_000, 0i64..200, 0usize..3), 0..12),
        newest in (1i64..2_000_000, 0usize..3),
    ) {
        let rules = ComplianceRules::default();
        let cashiers = ["a", "b", "c"];
        let mut recent: Vec<CashEntry> = pieces
            .iter()
            .map(|&(amount, at, c)| deposit(amount, at, cashiers[c]))
            .collect();
        recent.sort_by_key(|e| e.at_us);
        let last = deposit(newest.0, 200, cashiers[newest.1]);
        if let Some(f) = near_threshold(&rules, &recent, &last) {
            prop_assert_eq!(f.transactions.last(), Some(&last));
            prop_assert!(f.transactions.len() >= rules.near_threshold_count as usize);
            for e in &f.transactions {
                prop_assert!(e.at_us >= last.at_us - rules.window_us());
                prop_assert!(
                    rules.just_under(e.amount_minor, rules.log_threshold.minor())
                        || rules.just_under(e.amount_minor, rules.report_threshold.minor())
                );
            }
        }
        if let Some(f) = split_transactions(&rules, &recent, &last) {
            let total: i64 = f.transactions.iter().map(|e| e.amount_minor).sum();
            prop_assert!(total > rules.report_threshold.minor());
            prop_assert!(f.transactions.iter().all(|e| e.amount_minor <= rules.report_threshold.minor()));
            prop_assert!(f.transactions.iter().all(|e| e.at_us >= last.at_us - DAY_US));
        }
    }
}
