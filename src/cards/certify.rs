//! Statistical certification of shuffle-v1 (docs/shuffle.md).
//!
//! Runs the production shuffle path N times with server seeds derived from a
//! stated seed, split over threads, and tests the dealt decks and the raw
//! ChaCha20 words they consumed. Every tally is an integer and chunks are
//! merged in index order, so a report depends only on (shuffles, seed), never
//! on the thread count.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use statrs::distribution::{ChiSquared, ContinuousCDF};
use statrs::function::erf::erfc;
use std::fmt::Write as _;

use crate::cards::shuffle::{combined_client_seed, deck_seed, shuffled_deck, Game, ServerSeed, Shuffler, ALGORITHM};
use crate::cards::{ordered_deck, Card, Suit};

const DECK: usize = Card::DECK_SIZE;
/// Progress is reported after this many shuffles per thread.
const PROGRESS_BATCH: u64 = 1024;

/// What to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CertifyConfig {
    pub shuffles: u64,
    /// Round i uses server seed SHA-256(seed as 8 bytes big-endian ‖ i as 8 bytes big-endian).
    pub seed: u64,
    /// Family-wise significance level: each of the tests is judged at significance / tests.
    pub significance: f64,
    /// Worker threads (at least 1 is used).
    pub threads: usize,
}

/// One statistical test's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub name: String,
    pub description: String,
    pub statistic: f64,
    /// Degrees of freedom for a chi-square statistic; None for a normal z statistic.
    pub degrees_of_freedom: Option<f64>,
    pub p_value: f64,
    /// The p-value below which this test fails (significance / number of tests).
    pub threshold: f64,
    pub passed: bool,
    /// Smallest expected cell count (chi-square tests); below 5 the p-value is approximate.
    pub min_expected: Option<f64>,
}

/// One pooled bin of the first-pass count distribution: counts from..=to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstPassBin {
    pub from: u8,
    pub to: u8,
    pub observed: u64,
    pub expected: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CertificationReport {
    pub algorithm: String,
    pub shuffles: u64,
    pub seed: u64,
    pub seed_derivation: String,
    pub significance: f64,
    pub per_test_threshold: f64,
    pub tests: Vec<TestResult>,
    pub first_pass_bins: Vec<FirstPassBin>,
    /// How many raw 32-bit words the shuffles consumed (the raw-output sample).
    pub raw_words: u64,
    pub passed: bool,
}

impl CertificationReport {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "djego shuffle certification: {}", self.algorithm);
        let _ = writeln!(
            out,
            "shuffles: {}   seed: {}   ({})",
            self.shuffles, self.seed, self.seed_derivation
        );
        let _ = writeln!(
            out,
            "significance: {} family-wise; each of {} tests fails below p = {:.3e}",
            self.significance,
            self.tests.len(),
            self.per_test_threshold
        );
        let _ = writeln!(out, "raw 32-bit words tested: {}", self.raw_words);
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<22} {:>14} {:>8} {:>12} {:>10}  result",
            "test", "statistic", "df", "p-value", "min E"
        );
        for t in &self.tests {
            let df = t.degrees_of_freedom.map_or_else(|| "z".to_owned(), |d| format!("{d}"));
            let min_e = t.min_expected.map_or_else(|| "-".to_owned(), |e| format!("{e:.1}"));
            let _ = writeln!(
                out,
                "{:<22} {:>14.4} {:>8} {:>12.6} {:>10}  {}",
                t.name,
                t.statistic,
                df,
                t.p_value,
                min_e,
                if t.passed { "PASS" } else { "FAIL" }
            );
        }
        let _ = writeln!(out);
        for t in &self.tests {
            let _ = writeln!(out, "{}: {}", t.name, t.description);
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "first-pass count N (pooled bins)");
        let _ = writeln!(out, "{:>7} {:>12} {:>14}", "N", "observed", "expected");
        for b in &self.first_pass_bins {
            let range = if b.from == b.to {
                format!("{}", b.from)
            } else {
                format!("{}-{}", b.from, b.to)
            };
            let _ = writeln!(out, "{:>7} {:>12} {:>14.1}", range, b.observed, b.expected);
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "overall: {}", if self.passed { "PASS" } else { "FAIL" });
        out
    }
}

/// The server seed of certification round `index`.
pub fn certification_server_seed(seed: u64, index: u64) -> ServerSeed {
    let mut h = Sha256::new();
    h.update(seed.to_be_bytes());
    h.update(index.to_be_bytes());
    ServerSeed::from_bytes(h.finalize().into())
}

/// The round id of certification round `index`.
pub fn certification_round_id(index: u64) -> String {
    format!("certify-{index}")
}

/// Certifies the production path: `shuffled_deck` for Prima Carta with no client seeds.
pub fn certify_shuffles(
    config: &CertifyConfig,
    first_pass_count: &(dyn Fn(&[Card]) -> u8 + Sync),
    expected_first_pass: &[f64; 51],
    progress: &(dyn Fn(u64) + Sync),
) -> CertificationReport {
    let client_seed = combined_client_seed(&[]);
    let deal = |index: u64| {
        let server_seed = certification_server_seed(config.seed, index);
        let round_id = certification_round_id(index);
        let (deck, shuffler) = shuffled_deck(&server_seed, Game::PrimaCarta, &round_id, &client_seed, 10);
        (deck, shuffler.words_drawn())
    };
    run(config, &deal, first_pass_count, expected_first_pass, progress)
}

/// The same certification with another shuffle in place of `Shuffler::shuffle`
/// (seeds, deck and Shuffler as in production), so that a deliberately biased
/// shuffle can be shown to fail.
pub fn certify_shuffle_fn(
    config: &CertifyConfig,
    shuffle: &(dyn Fn(&mut Shuffler, &mut [Card]) + Sync),
    first_pass_count: &(dyn Fn(&[Card]) -> u8 + Sync),
    expected_first_pass: &[f64; 51],
    progress: &(dyn Fn(u64) + Sync),
) -> CertificationReport {
    let client_seed = combined_client_seed(&[]);
    let deal = |index: u64| {
        let server_seed = certification_server_seed(config.seed, index);
        let round_id = certification_round_id(index);
        let mut shuffler = Shuffler::from_deck_seed(deck_seed(&server_seed, Game::PrimaCarta, &round_id, &client_seed));
        let mut deck = ordered_deck(10);
        shuffle(&mut shuffler, &mut deck);
        (deck, shuffler.words_drawn())
    };
    run(config, &deal, first_pass_count, expected_first_pass, progress)
}

/// Integer tallies of a contiguous range of rounds.
struct Tally {
    position_card: Vec<[u64; DECK]>,
    first_suit: [u64; Suit::COUNT],
    pair: Vec<[u64; DECK]>,
    first_pass: [u64; 51],
    raw: RawTally,
}

/// Raw-output tallies; bits are read least significant first within a word.
#[derive(Default)]
struct RawTally {
    words: u64,
    ones: u64,
    ones_by_bit: [u64; 32],
    /// Adjacent bit pairs that differ (runs = transitions + 1).
    transitions: u64,
    /// Sum of c(x_i) c(x_{i+1}) with c(x) = 2x - (2^32 - 1), exact.
    lag1_sum: i128,
    lag1_terms: u64,
    first: Option<u32>,
    last: Option<u32>,
}

fn centred(x: u32) -> i128 {
    2 * i128::from(x) - i128::from(u32::MAX)
}

impl RawTally {
    fn push(&mut self, x: u32) {
        self.words += 1;
        self.ones += u64::from(x.count_ones());
        for (b, count) in self.ones_by_bit.iter_mut().enumerate() {
            *count += u64::from((x >> b) & 1);
        }
        self.transitions += u64::from(((x ^ (x >> 1)) & 0x7FFF_FFFF).count_ones());
        if let Some(prev) = self.last {
            self.transitions += u64::from((prev >> 31) != (x & 1));
            self.lag1_sum += centred(prev) * centred(x);
            self.lag1_terms += 1;
        }
        self.first.get_or_insert(x);
        self.last = Some(x);
    }

    /// Appends `next`, which followed `self` in the stream.
    fn append(&mut self, next: RawTally) {
        if let (Some(prev), Some(first)) = (self.last, next.first) {
            self.transitions += u64::from((prev >> 31) != (first & 1));
            self.lag1_sum += centred(prev) * centred(first);
            self.lag1_terms += 1;
        }
        self.words += next.words;
        self.ones += next.ones;
        for (a, b) in self.ones_by_bit.iter_mut().zip(next.ones_by_bit) {
            *a += b;
        }
        self.transitions += next.transitions;
        self.lag1_sum += next.lag1_sum;
        self.lag1_terms += next.lag1_terms;
        if self.first.is_none() {
            self.first = next.first;
        }
        if next.last.is_some() {
            self.last = next.last;
        }
    }
}

impl Tally {
    fn new() -> Tally {
        Tally {
            position_card: vec![[0; DECK]; DECK],
            first_suit: [0; Suit::COUNT],
            pair: vec![[0; DECK]; DECK],
            first_pass: [0; 51],
            raw: RawTally::default(),
        }
    }

    fn append(&mut self, next: Tally) {
        for (a, b) in self.position_card.iter_mut().zip(&next.position_card) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        for (a, b) in self.pair.iter_mut().zip(&next.pair) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        self.first_suit
            .iter_mut()
            .zip(next.first_suit)
            .for_each(|(x, y)| *x += y);
        self.first_pass
            .iter_mut()
            .zip(next.first_pass)
            .for_each(|(x, y)| *x += y);
        self.raw.append(next.raw);
    }
}

type Deal<'a> = dyn Fn(u64) -> (Vec<Card>, u64) + Sync + 'a;

fn tally_range(
    config: &CertifyConfig,
    range: std::ops::Range<u64>,
    deal: &Deal<'_>,
    first_pass_count: &(dyn Fn(&[Card]) -> u8 + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Tally {
    let client_seed = combined_client_seed(&[]);
    let mut t = Tally::new();
    let mut unreported = 0;
    for index in range {
        let (deck, words_drawn) = deal(index);
        for (position, card) in deck.iter().enumerate().take(DECK) {
            t.position_card[position][card.id() as usize] += 1;
        }
        if let Some(top) = deck.first() {
            t.first_suit[top.suit().index()] += 1;
        }
        // One adjacent pair per round, at a position rotating with the index, so the
        // pairs are independent and the statistic is exactly chi-square.
        let k = (index % (DECK as u64 - 1)) as usize;
        if let (Some(a), Some(b)) = (deck.get(k), deck.get(k + 1)) {
            t.pair[a.id() as usize][b.id() as usize] += 1;
        }
        t.first_pass[usize::from(first_pass_count(&deck).min(50))] += 1;
        // The raw words this round consumed: the same stream, replayed.
        let server_seed = certification_server_seed(config.seed, index);
        let mut replay = Shuffler::from_deck_seed(deck_seed(
            &server_seed,
            Game::PrimaCarta,
            &certification_round_id(index),
            &client_seed,
        ));
        for _ in 0..words_drawn {
            t.raw.push(replay.next_u32());
        }
        unreported += 1;
        if unreported == PROGRESS_BATCH {
            progress(unreported);
            unreported = 0;
        }
    }
    if unreported > 0 {
        progress(unreported);
    }
    t
}

fn run(
    config: &CertifyConfig,
    deal: &Deal<'_>,
    first_pass_count: &(dyn Fn(&[Card]) -> u8 + Sync),
    expected_first_pass: &[f64; 51],
    progress: &(dyn Fn(u64) + Sync),
) -> CertificationReport {
    let threads = config.threads.max(1) as u64;
    let n = config.shuffles;
    let bounds: Vec<u64> = (0..=threads)
        .map(|i| ((u128::from(n) * u128::from(i)) / u128::from(threads)) as u64)
        .collect();
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let range = w[0]..w[1];
                scope.spawn(move || tally_range(config, range, deal, first_pass_count, progress))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a certification worker panicked"))
            .collect()
    });
    let mut total = Tally::new();
    for t in tallies {
        total.append(t);
    }
    report(config, &total, expected_first_pass)
}

fn chi_square_sf(statistic: f64, df: f64) -> f64 {
    if !statistic.is_finite() {
        return 0.0;
    }
    match ChiSquared::new(df) {
        Ok(d) => d.sf(statistic),
        Err(_) => f64::NAN,
    }
}

fn two_sided_normal_p(z: f64) -> f64 {
    if z.is_finite() {
        erfc(z.abs() / std::f64::consts::SQRT_2)
    } else {
        0.0
    }
}

/// Pearson's sum over cells; a cell with expected 0 and observations makes it infinite.
fn pearson(cells: impl Iterator<Item = (u64, f64)>) -> (f64, f64) {
    let mut q = 0.0;
    let mut min_expected = f64::INFINITY;
    for (observed, expected) in cells {
        if expected > 0.0 {
            let d = observed as f64 - expected;
            q += d * d / expected;
            min_expected = min_expected.min(expected);
        } else if observed > 0 {
            q = f64::INFINITY;
        }
    }
    (q, min_expected)
}

/// Merges adjacent first-pass bins, low to high, until each expects at least 5;
/// a short remainder joins the last bin.
pub fn pool_first_pass_bins(
    observed: &[u64; 51],
    expected_probability: &[f64; 51],
    shuffles: u64,
) -> Vec<FirstPassBin> {
    let total: f64 = expected_probability.iter().filter(|p| p.is_finite() && **p > 0.0).sum();
    let scale = if total > 0.0 { shuffles as f64 / total } else { 0.0 };
    let mut bins: Vec<FirstPassBin> = Vec::new();
    let mut current: Option<FirstPassBin> = None;
    for count in 0..=50u8 {
        let p = expected_probability[count as usize];
        let e = if p.is_finite() && p > 0.0 { p * scale } else { 0.0 };
        let bin = current.get_or_insert(FirstPassBin {
            from: count,
            to: count,
            observed: 0,
            expected: 0.0,
        });
        bin.to = count;
        bin.observed += observed[count as usize];
        bin.expected += e;
        if bin.expected >= 5.0 {
            bins.extend(current.take());
        }
    }
    if let Some(rest) = current {
        match bins.last_mut() {
            Some(last) => {
                last.to = rest.to;
                last.observed += rest.observed;
                last.expected += rest.expected;
            }
            None => bins.push(rest),
        }
    }
    bins
}

fn report(config: &CertifyConfig, t: &Tally, expected_first_pass: &[f64; 51]) -> CertificationReport {
    let n = config.shuffles as f64;
    let deck = DECK as f64;
    let mut tests = Vec::new();

    // Position by card: each round is a permutation matrix, so Pearson's Q is
    // distributed as (n/(n-1)) chi-square((n-1)^2); scale it back.
    let e = n / deck;
    let (q, min_e) = pearson(t.position_card.iter().flat_map(|row| row.iter().map(move |&o| (o, e))));
    let statistic = q * (deck - 1.0) / deck;
    let df = (deck - 1.0) * (deck - 1.0);
    tests.push(chi(
        "position_by_card",
        "50x50 counts of card c at position p; Pearson Q x 49/50 against chi-square(49^2) (the exact scale for permutation matrices)",
        statistic,
        df,
        min_e,
    ));

    let e = n / Suit::COUNT as f64;
    let (q, min_e) = pearson(t.first_suit.iter().map(|&o| (o, e)));
    tests.push(chi(
        "first_card_suit",
        "suit of the top card, 5 equally likely suits",
        q,
        4.0,
        min_e,
    ));

    let e = n / (deck * (deck - 1.0));
    let (q, min_e) = pearson(t.pair.iter().enumerate().flat_map(|(a, row)| {
        row.iter()
            .enumerate()
            .map(move |(b, &o)| (o, if a == b { 0.0 } else { e }))
    }));
    tests.push(chi(
        "adjacent_pair",
        "ordered pair (card at k, card at k+1) with k = round index mod 49, one pair per round; 2450 equally likely pairs",
        q,
        deck * (deck - 1.0) - 1.0,
        min_e,
    ));

    let bins = pool_first_pass_bins(&t.first_pass, expected_first_pass, config.shuffles);
    let (q, min_e) = pearson(bins.iter().map(|b| (b.observed, b.expected)));
    tests.push(chi(
        "first_pass_count",
        "cards on the stacks after the first pass, against the supplied distribution, tail bins pooled to expect >= 5",
        q,
        (bins.len().max(2) - 1) as f64,
        min_e,
    ));

    let raw = &t.raw;
    let bits = raw.words as f64 * 32.0;
    let z = (2.0 * raw.ones as f64 - bits) / bits.sqrt();
    tests.push(normal(
        "raw_monobit",
        "share of one bits in the raw words (frequency test)",
        z,
    ));

    let words = raw.words as f64;
    let q: f64 = raw
        .ones_by_bit
        .iter()
        .map(|&o| (2.0 * o as f64 - words).powi(2) / words)
        .sum();
    tests.push(chi(
        "raw_bit_positions",
        "one bits at each of the 32 bit positions (frequency by position)",
        q,
        32.0,
        words / 2.0,
    ));

    // NIST SP 800-22 runs test over the bit stream (least significant bit first).
    let pi = raw.ones as f64 / bits;
    let runs = raw.transitions as f64 + 1.0;
    let expected_runs = 2.0 * bits * pi * (1.0 - pi);
    let z = (runs - expected_runs) / (2.0 * (2.0 * bits).sqrt() * pi * (1.0 - pi));
    let p = erfc(z.abs()).max(0.0);
    tests.push(TestResult {
        name: "raw_runs".into(),
        description: "runs of equal bits in the raw stream (NIST SP 800-22 runs test)".into(),
        statistic: runs,
        degrees_of_freedom: None,
        p_value: if p.is_finite() { p } else { 0.0 },
        threshold: 0.0,
        passed: false,
        min_expected: None,
    });

    // Lag-1 serial correlation of consecutive words: sum c_i c_{i+1} with
    // c = 2x - (2^32-1) has mean 0 and variance m ((2^64-1)/3)^2 under independence.
    let variance = (2f64.powi(64) - 1.0) / 3.0;
    let m = raw.lag1_terms as f64;
    let z = raw.lag1_sum as f64 / (m.sqrt() * variance);
    tests.push(normal(
        "raw_serial_correlation",
        "lag-1 correlation of consecutive raw words",
        z,
    ));

    let threshold = config.significance / tests.len() as f64;
    for test in &mut tests {
        test.threshold = threshold;
        test.passed = test.p_value >= threshold;
    }
    CertificationReport {
        algorithm: ALGORITHM.to_owned(),
        shuffles: config.shuffles,
        seed: config.seed,
        seed_derivation: "server_seed = SHA-256(seed u64 BE || index u64 BE), round_id = \"certify-<index>\", game prima_carta, no client seeds".to_owned(),
        significance: config.significance,
        per_test_threshold: threshold,
        passed: tests.iter().all(|t| t.passed),
        tests,
        first_pass_bins: bins,
        raw_words: raw.words,
    }
}

fn chi(name: &str, description: &str, statistic: f64, df: f64, min_expected: f64) -> TestResult {
    TestResult {
        name: name.to_owned(),
        description: description.to_owned(),
        statistic,
        degrees_of_freedom: Some(df),
        p_value: chi_square_sf(statistic, df),
        threshold: 0.0,
        passed: false,
        min_expected: min_expected.is_finite().then_some(min_expected),
    }
}

fn normal(name: &str, description: &str, z: f64) -> TestResult {
    TestResult {
        name: name.to_owned(),
        description: description.to_owned(),
        statistic: z,
        degrees_of_freedom: None,
        p_value: two_sided_normal_p(z),
        threshold: 0.0,
        passed: false,
        min_expected: None,
    }
}

#[cfg(test)]
#[path = "certify_tests.rs"]
mod tests;
