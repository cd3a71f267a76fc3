use super::*;
use crate::cards::Rank;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// The first pass only (docs/prima-carta.md): N = cards on the five stacks afterwards.
/// A local stand-in for the Prima Carta engine's count.
fn first_pass_count(deck: &[Card]) -> u8 {
    let mut tops: [Option<Rank>; 5] = [None; 5];
    let mut heights = [0u8; 5];
    let mut discard: Vec<Card> = Vec::new();
    let playable = |c: Card, tops: &[Option<Rank>; 5], heights: &[u8; 5]| match tops[c.suit().index()] {
        None => true,
        Some(top) => heights[c.suit().index()] < 10 && top.successor() == c.rank(),
    };
    let play = |c: Card, tops: &mut [Option<Rank>; 5], heights: &mut [u8; 5]| {
        tops[c.suit().index()] = Some(c.rank());
        heights[c.suit().index()] += 1;
    };
    for &card in deck {
        while let Some(&top) = discard.last() {
            if !playable(top, &tops, &heights) {
                break;
            }
            discard.pop();
            play(top, &mut tops, &mut heights);
        }
        if playable(card, &tops, &heights) {
            play(card, &mut tops, &mut heights);
        } else {
            discard.push(card);
        }
    }
    while let Some(&top) = discard.last() {
        if !playable(top, &tops, &heights) {
            break;
        }
        discard.pop();
        play(top, &mut tops, &mut heights);
    }
    heights.iter().sum()
}

/// P(N = k) estimated once from 4,000,000 shuffles by rand's StdRng and
/// `SliceRandom::shuffle` (independent of shuffle-v1); see `estimate_first_pass_table`.
#[rustfmt::skip]
const EXPECTED_FIRST_PASS: [f64; 51] = [
    0e0, 0e0, 0e0, 0e0, 0e0, 0e0,
    0e0, 0e0, 0e0, 0e0, 2.409775e-2, 8.347575e-2,
    1.50737e-1, 1.882195e-1, 1.8250675e-1, 1.4585425e-1, 1.0038675e-1, 6.0982e-2,
    3.338975e-2, 1.684e-2, 7.7415e-3, 3.425e-3, 1.4315e-3, 5.89e-4,
    2.12e-4, 7.1e-5, 2.8e-5, 8e-6, 3.75e-6, 5e-7,
    0e0, 2.5e-7, 0e0, 0e0, 0e0, 0e0,
    0e0, 0e0, 0e0, 0e0, 0e0, 0e0,
    0e0, 0e0, 0e0, 0e0, 0e0, 0e0,
    0e0, 0e0, 0e0,
];

fn no_progress(_: u64) {}

fn config(shuffles: u64, seed: u64) -> CertifyConfig {
    CertifyConfig {
        shuffles,
        seed,
        significance: 0.01,
        threads: 2,
    }
}

#[test]
fn first_pass_count_follows_the_rules() {
    let c = |suit: Suit, rank: u8| Card::new(suit, Rank::new(rank).unwrap());
    // Ordered deck: each suit's foundation is its 1, then 2..10 follow at once.
    assert_eq!(first_pass_count(&ordered_deck(10)), 50);
    // 5 foundations, then a 7 of crowns is discarded, the 2 of crowns plays... no 3..6: N = 6.
    let deck = [
        c(Suit::Crowns, 1),
        c(Suit::Locks, 1),
        c(Suit::Fruit, 1),
        c(Suit::Swords, 1),
        c(Suit::Cups, 1),
        c(Suit::Crowns, 7),
        c(Suit::Crowns, 2),
    ];
    assert_eq!(first_pass_count(&deck), 6);
    // Play-up from the discard: the 3 waits under nothing, then plays after the 2.
    let deck = [
        c(Suit::Crowns, 1),
        c(Suit::Crowns, 3),
        c(Suit::Crowns, 2),
        c(Suit::Locks, 5),
    ];
    assert_eq!(first_pass_count(&deck), 4);
    // The 1 follows the 10, but a stack holds at most ten cards.
    let mut deck: Vec<Card> = (1..=10).map(|r| c(Suit::Cups, r)).collect();
    deck.insert(0, c(Suit::Cups, 10));
    let deck: Vec<Card> = deck.into_iter().skip(1).collect();
    assert_eq!(first_pass_count(&deck), 10);
}

#[test]
#[ignore = "prints the expected first-pass table; run once in release"]
fn estimate_first_pass_table() {
    let mut rng = StdRng::seed_from_u64(0x5eed_f125);
    let mut counts = [0u64; 51];
    let trials = 4_000_000u64;
    let mut deck = ordered_deck(10);
    for _ in 0..trials {
        deck.shuffle(&mut rng);
        counts[first_pass_count(&deck) as usize] += 1;
    }
    let table: Vec<String> = counts
        .iter()
        .map(|&c| format!("{:e}", c as f64 / trials as f64))
        .collect();
    println!("[{}]", table.join(", "));
}

#[test]
fn a_small_certification_of_the_production_path_passes() {
    let report = certify_shuffles(
        &config(25_000, 7),
        &first_pass_count,
        &EXPECTED_FIRST_PASS,
        &no_progress,
    );
    assert!(report.passed, "{}", report.to_text());
    assert_eq!(report.tests.len(), 8);
    assert!(report.tests.iter().all(|t| (0.0..=1.0).contains(&t.p_value)));
    assert!(report.raw_words >= 25_000 * 49, "49 draws a deck, plus rare rejections");
    assert!(report.first_pass_bins.iter().all(|b| b.expected >= 5.0));
    let text = report.to_text();
    assert!(text.contains("overall: PASS") && text.contains("position_by_card"));
    let json = serde_json::to_string(&report).unwrap();
    let back: CertificationReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back.shuffles, 25_000);
}

#[test]
fn the_report_depends_on_the_seed_not_the_thread_count() {
    let progress_total = std::sync::atomic::AtomicU64::new(0);
    let progress = |k: u64| {
        progress_total.fetch_add(k, std::sync::atomic::Ordering::Relaxed);
    };
    let one = certify_shuffles(
        &CertifyConfig {
            threads: 1,
            ..config(3_001, 11)
        },
        &first_pass_count,
        &EXPECTED_FIRST_PASS,
        &progress,
    );
    let three = certify_shuffles(
        &CertifyConfig {
            threads: 3,
            ..config(3_001, 11)
        },
        &first_pass_count,
        &EXPECTED_FIRST_PASS,
        &progress,
    );
    assert_eq!(one, three);
    assert_eq!(progress_total.into_inner(), 6_002);
    let other = certify_shuffles(
        &config(3_001, 12),
        &first_pass_count,
        &EXPECTED_FIRST_PASS,
        &no_progress,
    );
    assert_ne!(one.tests, other.tests);
}

#[test]
fn a_naive_swap_shuffle_fails_certification() {
    // The classic mistake: j drawn from the whole deck for every i (n^n paths, not n!).
    let naive = |s: &mut Shuffler, deck: &mut [Card]| {
        let n = deck.len() as u32;
        for i in (0..deck.len()).rev() {
            let j = s.uniform(n) as usize;
            deck.swap(i, j);
        }
    };
    let report = certify_shuffle_fn(
        &config(25_000, 7),
        &naive,
        &first_pass_count,
        &EXPECTED_FIRST_PASS,
        &no_progress,
    );
    println!("{}", report.to_text());
    assert!(!report.passed, "{}", report.to_text());
    let position = report.tests.iter().find(|t| t.name == "position_by_card").unwrap();
    assert!(!position.passed, "{}", report.to_text());
}

#[test]
fn a_first_pass_count_off_its_distribution_fails() {
    // The shuffle is fine but the claimed distribution is wrong (shifted by one).
    let mut shifted = [0.0; 51];
    shifted[1..].copy_from_slice(&EXPECTED_FIRST_PASS[..50]);
    let report = certify_shuffles(&config(5_000, 3), &first_pass_count, &shifted, &no_progress);
    let t = report.tests.iter().find(|t| t.name == "first_pass_count").unwrap();
    assert!(!t.passed && !report.passed);
}

#[test]
fn a_stuck_bit_fails_the_raw_output_tests() {
    // Raw words with bit 0 always set, fed straight to the report.
    let mut raw = RawTally::default();
    for i in 0..100_000u32 {
        raw.push(i.wrapping_mul(2_654_435_761) | 1);
    }
    let mut t = Tally::new();
    t.raw = raw;
    let r = report(&config(0, 0), &t, &EXPECTED_FIRST_PASS);
    for name in ["raw_monobit", "raw_bit_positions"] {
        assert!(!r.tests.iter().find(|x| x.name == name).unwrap().passed, "{name}");
    }
}

#[test]
fn the_raw_tally_merges_chunks_exactly() {
    let mut s = Shuffler::from_deck_seed([5; 32]);
    let words: Vec<u32> = (0..1000).map(|_| s.next_u32()).collect();
    let mut whole = RawTally::default();
    words.iter().for_each(|&w| whole.push(w));
    let mut a = RawTally::default();
    let mut b = RawTally::default();
    words[..377].iter().for_each(|&w| a.push(w));
    words[377..].iter().for_each(|&w| b.push(w));
    a.append(b);
    assert_eq!(
        (a.words, a.ones, a.transitions, a.lag1_sum, a.lag1_terms),
        (
            whole.words,
            whole.ones,
            whole.transitions,
            whole.lag1_sum,
            whole.lag1_terms
        )
    );
    // Runs counted by hand on the bit string.
    let bits: Vec<u32> = words.iter().flat_map(|w| (0..32).map(move |b| (w >> b) & 1)).collect();
    let transitions = bits.windows(2).filter(|p| p[0] != p[1]).count() as u64;
    assert_eq!(whole.transitions, transitions);
}

#[test]
fn sparse_first_pass_bins_are_pooled() {
    let mut observed = [0u64; 51];
    observed[10] = 30;
    observed[12] = 70;
    let bins = pool_first_pass_bins(&observed, &EXPECTED_FIRST_PASS, 1000);
    assert!(bins.iter().all(|b| b.expected >= 5.0));
    assert_eq!(bins.iter().map(|b| b.observed).sum::<u64>(), 100);
    assert_eq!(bins.first().unwrap().from, 0);
    assert_eq!(bins.last().unwrap().to, 50);
    let total: f64 = bins.iter().map(|b| b.expected).sum();
    assert!((total - 1000.0).abs() < 1e-6);
}

#[test]
#[ignore = "calibration: prints each test's p-values over many seeds; run in release"]
fn p_values_are_uniform_under_the_null() {
    let runs = 40;
    let mut below = [0usize; 8];
    let mut mean_position = 0.0;
    for seed in 0..runs {
        let r = certify_shuffles(
            &config(10_000, 1000 + seed),
            &first_pass_count,
            &EXPECTED_FIRST_PASS,
            &no_progress,
        );
        mean_position += r.tests[0].statistic / runs as f64;
        for (k, t) in r.tests.iter().enumerate() {
            below[k] += usize::from(t.p_value < 0.1);
        }
    }
    println!(
        "mean position_by_card statistic {mean_position:.1} (df 2401); runs with p < 0.1 per test: {below:?} of {runs}"
    );
}
