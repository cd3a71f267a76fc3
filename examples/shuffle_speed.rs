//! `cargo run --release --example shuffle_speed [-- N]`: shuffle-v1 throughput on one core,
//! the full production path (HMAC deck seed, ChaCha20, Fisher–Yates of 50 cards).

use djego::cards::shuffle::{combined_client_seed, shuffled_deck, Game, ServerSeed};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let client_seed = combined_client_seed(&[]);
    let mut checksum = 0u64;
    let started = std::time::Instant::now();
    for i in 0..n {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&i.to_le_bytes());
        let round_id = i.to_string();
        let (deck, _) = shuffled_deck(
            &ServerSeed::from_bytes(bytes),
            Game::PrimaCarta,
            &round_id,
            &client_seed,
            10,
        );
        checksum = checksum.wrapping_mul(31).wrapping_add(u64::from(deck[0].id()));
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{n} shuffles in {secs:.3} s on one thread: {:.0} shuffles/s (checksum {checksum})",
        n as f64 / secs
    );
}
