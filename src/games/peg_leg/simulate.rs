//! The distribution of the final key-suit count by simulation, through the
//! same first-pass cursor, and confidence bounds for its probabilities.
//!
//! The bounds are Chernoff's in their relative-entropy form: if a count has
//! probability p and was seen k times in n independent samples, then
//! P(k/n ≤ a) ≤ exp(−n·KL(a‖p)) for a < p, and likewise above. So
//! `kl_upper(k, n, L)`, the largest p with n·KL(k/n‖p) ≤ L, exceeds the true
//! p except with probability at most e^−L, and `kl_lower` is its mirror.

use super::engine::MAX_COUNT;
use crate::cards::{Card, Suit};
use crate::games::prima_carta::FirstPassCursor;
use rand::Rng;

/// Tallies per final count 0..=10.
pub type SampleCounts = [u64; MAX_COUNT as usize + 1];

/// Plays the rest of the pass `samples` times, the undealt cards in a
/// uniformly random order each time (Fisher–Yates on `rng`), and tallies the
/// key suit's final count.
pub fn sample_counts<R: Rng + ?Sized>(
    cursor: &FirstPassCursor,
    key: Suit,
    undealt: &[Card],
    samples: u64,
    rng: &mut R,
) -> SampleCounts {
    let mut tally = [0u64; MAX_COUNT as usize + 1];
    let mut order = [Card::from_id(0).expect("card 0"); Card::DECK_SIZE];
    let n = undealt.len().min(Card::DECK_SIZE);
    order[..n].copy_from_slice(&undealt[..n]);
    let order = &mut order[..n];
    for _ in 0..samples {
        for i in (1..n).rev() {
            let j = rng.gen_range(0..=i);
            order.swap(i, j);
        }
        let mut pass = *cursor;
        for &card in order.iter() {
            pass.deal(card);
        }
        tally[pass.count(key) as usize] += 1;
    }
    tally
}

/// KL(a‖p) for Bernoulli distributions, in nats.
fn kl(a: f64, p: f64) -> f64 {
    let term = |x: f64, y: f64| if x <= 0.0 { 0.0 } else { x * (x / y).ln() };
    term(a, p) + term(1.0 - a, 1.0 - p)
}

/// The largest p ≥ k/n with n·KL(k/n‖p) ≤ `log_inv_delta`, rounded up.
pub fn kl_upper(k: u64, n: u64, log_inv_delta: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let a = k as f64 / n as f64;
    if k >= n {
        return 1.0;
    }
    let (mut lo, mut hi) = (a, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if n as f64 * kl(a, mid) > log_inv_delta {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // `hi` fails the test (or is 1): above every p that passes. A hair more
    // covers the rounding of the logarithms.
    (hi * (1.0 + 1e-9) + 1e-15).min(1.0)
}

/// The smallest p ≤ k/n with n·KL(k/n‖p) ≤ `log_inv_delta`, rounded down.
pub fn kl_lower(k: u64, n: u64, log_inv_delta: f64) -> f64 {
    if n == 0 || k == 0 {
        return 0.0;
    }
    1.0 - kl_upper(n - k, n, log_inv_delta)
}
