//! Simulation of N through the production path: the real `Shuffler`
//! (shuffle-v1) and the engine's `first_pass_count`.
//!
//! Reproducibility: the stated `seed: u64` becomes a server seed (its 8
//! little-endian bytes followed by 24 zero bytes). Deals are cut into chunks of
//! `CHUNK_DEALS`; chunk `k` uses `deck_seed(server_seed, prima_carta,
//! "sim-chunk-{k}", "")` and shuffles a fresh ordered deck per deal with one
//! continuing ChaCha20 stream. Counts add up the same whatever the number of
//! threads, so the result depends only on (seed, deals, code version).

use super::n_distribution::NDistribution;
use crate::cards::shuffle::{deck_seed, Game, ServerSeed, Shuffler};
use crate::cards::{ordered_deck, Card};
use crate::games::prima_carta::first_pass_count;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub const SIM_ALGORITHM: &str = "first-pass-sim-v1 (shuffle-v1, chunks of 65536)";
pub const CHUNK_DEALS: u64 = 65_536;
pub const CODE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The server seed a simulation seed stands for.
pub fn simulation_server_seed(seed: u64) -> ServerSeed {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    ServerSeed::from_bytes(bytes)
}

/// Tallies N over deals `[chunk * CHUNK_DEALS, ...)` of one chunk.
fn run_chunk(server: &ServerSeed, chunk: u64, deals: u64, counts: &mut [u64; 51]) {
    let seed = deck_seed(server, Game::PrimaCarta, &format!("sim-chunk-{chunk}"), "");
    let mut shuffler = Shuffler::from_deck_seed(seed);
    let ordered: Vec<Card> = ordered_deck(10);
    let mut deck = [ordered[0]; Card::DECK_SIZE];
    for _ in 0..deals {
        deck.copy_from_slice(&ordered);
        shuffler.shuffle(&mut deck);
        let n = first_pass_count(&deck) as usize;
        counts[n.min(50)] += 1;
    }
}

/// Simulates `deals` first passes with `threads` worker threads (at least 1),
/// calling `progress(deals_done_so_far)` after each chunk.
pub fn simulate_first_pass(deals: u64, seed: u64, threads: usize, progress: &(dyn Fn(u64) + Sync)) -> NDistribution {
    let mut dist = NDistribution::empty(SIM_ALGORITHM, CODE_VERSION, seed);
    dist.merge_counts(&simulate_deals(seed, 0, deals, threads, progress)[10..]);
    dist
}

/// Continues a simulation: adds `more_deals` deals, starting at the chunk after
/// the last one `dist` holds, so the result equals one run of the total size.
/// `dist` must be this code's simulation and hold whole chunks only.
pub fn extend_simulation(
    dist: &mut NDistribution,
    more_deals: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), String> {
    if dist.algorithm != SIM_ALGORITHM || dist.code_version != CODE_VERSION {
        return Err(format!(
            "cannot extend a distribution made by {} (code {})",
            dist.algorithm, dist.code_version
        ));
    }
    if dist.total % CHUNK_DEALS != 0 {
        return Err(format!(
            "cannot extend: {} deals is not a whole number of {CHUNK_DEALS}-deal chunks",
            dist.total
        ));
    }
    let counts = simulate_deals(dist.seed, dist.total / CHUNK_DEALS, more_deals, threads, progress);
    dist.merge_counts(&counts[10..]);
    Ok(())
}

/// Counts per N (index = N) over `deals` deals starting at chunk `first_chunk`.
fn simulate_deals(
    seed: u64,
    first_chunk: u64,
    deals: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> [u64; 51] {
    let server = simulation_server_seed(seed);
    let chunks = deals.div_ceil(CHUNK_DEALS);
    let next_chunk = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let total_counts = Mutex::new([0u64; 51]);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut counts = [0u64; 51];
                loop {
                    let chunk = next_chunk.fetch_add(1, Ordering::Relaxed);
                    if chunk >= chunks {
                        break;
                    }
                    let in_chunk = CHUNK_DEALS.min(deals - chunk * CHUNK_DEALS);
                    run_chunk(&server, first_chunk + chunk, in_chunk, &mut counts);
                    let so_far = done.fetch_add(in_chunk, Ordering::Relaxed) + in_chunk;
                    progress(so_far);
                }
                let mut total = total_counts.lock().unwrap_or_else(|e| e.into_inner());
                for (t, c) in total.iter_mut().zip(counts.iter()) {
                    *t += c;
                }
            });
        }
    });
    let counts = total_counts.into_inner().unwrap_or_else(|e| e.into_inner());
    debug_assert!(counts[..10].iter().all(|&c| c == 0), "N below 10 is impossible");
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_does_not_depend_on_thread_count() {
        let a = simulate_first_pass(3 * CHUNK_DEALS / 2, 7, 1, &|_| {});
        let b = simulate_first_pass(3 * CHUNK_DEALS / 2, 7, 2, &|_| {});
        assert_eq!(a, b);
        assert_eq!(a.total, 3 * CHUNK_DEALS / 2);
        let c = simulate_first_pass(3 * CHUNK_DEALS / 2, 8, 2, &|_| {});
        assert_ne!(a.counts, c.counts);
    }

    #[test]
    fn extending_equals_one_longer_run() {
        let whole = simulate_first_pass(3 * CHUNK_DEALS, 9, 2, &|_| {});
        let mut part = simulate_first_pass(CHUNK_DEALS, 9, 2, &|_| {});
        extend_simulation(&mut part, 2 * CHUNK_DEALS, 2, &|_| {}).unwrap();
        assert_eq!(part, whole);
        let mut odd = simulate_first_pass(100, 9, 1, &|_| {});
        assert!(extend_simulation(&mut odd, 100, 1, &|_| {}).is_err());
    }
}
