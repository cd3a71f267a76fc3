//! Speed of the simulation hot loop on one thread: shuffle only, count only,
//! and both (what `simulate_first_pass` does per deal).
//! cargo run --release --example bench_n -- [deals]
use djego::cards::shuffle::{deck_seed, Game, ServerSeed, Shuffler};
use djego::cards::{ordered_deck, Card};
use djego::games::prima_carta::first_pass_count;
use djego::math::simulate_first_pass;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let deals: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000_000);
    let seed = deck_seed(&ServerSeed::from_bytes([7; 32]), Game::PrimaCarta, "bench", "");
    let ordered = ordered_deck(10);
    let mut deck = [ordered[0]; Card::DECK_SIZE];
    deck.copy_from_slice(&ordered);

    let mut sh = Shuffler::from_deck_seed(seed);
    let t = Instant::now();
    for _ in 0..deals {
        deck.copy_from_slice(&ordered);
        sh.shuffle(&mut deck);
        black_box(&deck);
    }
    let shuffle_s = t.elapsed().as_secs_f64();

    // count on a fixed set of pre-shuffled decks
    let decks: Vec<[Card; 50]> = (0..1024)
        .map(|_| {
            let mut d = [ordered[0]; 50];
            d.copy_from_slice(&ordered);
            sh.shuffle(&mut d);
            d
        })
        .collect();
    let t = Instant::now();
    let mut sum = 0u64;
    for i in 0..deals {
        sum += first_pass_count(black_box(&decks[(i & 1023) as usize])) as u64;
    }
    black_box(sum);
    let count_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let d = simulate_first_pass(deals, 1, 1, &|_| {});
    let both_1 = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let _ = simulate_first_pass(deals, 1, 2, &|_| {});
    let both_2 = t.elapsed().as_secs_f64();
    assert_eq!(d.total, deals);
    // certification on the embedded distribution (what installing a pay table costs)
    let table = djego::bets::PayTable::default_table();
    let cached = djego::math::cached_n_distribution();
    let _ = djego::math::certify_pay_table(&table, cached, Default::default());
    let t = Instant::now();
    for _ in 0..100 {
        black_box(djego::math::certify_pay_table(&table, cached, Default::default()));
    }
    let certify_ms = t.elapsed().as_secs_f64() * 1000.0 / 100.0;
    println!("certify_pay_table on the embedded distribution: {certify_ms:.3} ms");
    let rate = |s: f64| deals as f64 / s / 1e6;
    println!("deals: {deals}");
    println!(
        "shuffle only, 1 thread:          {:.2} M/s ({:.0} ns/deal)",
        rate(shuffle_s),
        shuffle_s * 1e9 / deals as f64
    );
    println!(
        "first_pass_count only, 1 thread: {:.2} M/s ({:.0} ns/deal)",
        rate(count_s),
        count_s * 1e9 / deals as f64
    );
    println!("simulate_first_pass, 1 thread:   {:.2} M deals/s", rate(both_1));
    println!(
        "simulate_first_pass, 2 threads:  {:.2} M deals/s ({:.2} M/s per thread)",
        rate(both_2),
        rate(both_2) / 2.0
    );
}
