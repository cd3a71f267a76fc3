//! Measures `first_pass_count` throughput on one core: deals per second,
//! deck shuffling excluded (decks are shuffled beforehand).
//!
//! `cargo run --release --example prima_first_pass_speed [decks] [rounds]`

use djego::cards::{ordered_deck, Card};
use djego::games::prima_carta::{first_pass_count, first_pass_counts};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let decks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut base = ordered_deck(10);
    let pool: Vec<Vec<Card>> = (0..decks)
        .map(|_| {
            base.shuffle(&mut rng);
            base.clone()
        })
        .collect();

    let mut histogram = [0u64; 51];
    let start = Instant::now();
    for _ in 0..rounds {
        for deck in &pool {
            histogram[first_pass_count(black_box(deck)) as usize] += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let deals = (decks * rounds) as f64;
    println!(
        "first_pass_count: {:.0} deals in {secs:.2} s = {:.2} M deals/s on one core",
        deals,
        deals / secs / 1e6
    );

    let start = Instant::now();
    let mut total = 0u64;
    for _ in 0..rounds {
        for deck in &pool {
            total += first_pass_counts(black_box(deck))[0] as u64;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(total);
    println!("first_pass_counts: {:.2} M deals/s on one core", deals / secs / 1e6);

    let mean: f64 = histogram
        .iter()
        .enumerate()
        .map(|(n, &c)| n as f64 * c as f64)
        .sum::<f64>()
        / deals;
    println!(
        "(check) mean N over the pool = {mean:.4}; N range {}..={}",
        histogram.iter().position(|&c| c > 0).unwrap_or(0),
        histogram.iter().rposition(|&c| c > 0).unwrap_or(0)
    );
}
