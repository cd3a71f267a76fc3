//! Experiment (not production code): shuffle-v1 with the two divisions per draw
//! replaced by precomputed thresholds and Lemire's fastmod. Checks that every
//! deck equals the production `Shuffler`'s, then times both.
//! cargo run --release --example bench_fastmod -- [deals]
use djego::cards::shuffle::{deck_seed, Game, ServerSeed, Shuffler};
use djego::cards::{ordered_deck, Card};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

struct Fast {
    rng: ChaCha20Rng,
    thresh: [u32; 51],
    magic: [u64; 51],
}

impl Fast {
    fn new(seed: [u8; 32]) -> Fast {
        let mut thresh = [0u32; 51];
        let mut magic = [0u64; 51];
        for n in 1..=50u32 {
            thresh[n as usize] = (u32::MAX - n + 1) % n;
            magic[n as usize] = u64::MAX / n as u64 + 1;
        }
        Fast {
            rng: ChaCha20Rng::from_seed(seed),
            thresh,
            magic,
        }
    }
    #[inline]
    fn uniform(&mut self, n: u32) -> u32 {
        let t = self.thresh[n as usize];
        loop {
            let x = self.rng.next_u32();
            if x >= t {
                let lowbits = self.magic[n as usize].wrapping_mul(x as u64);
                return ((lowbits as u128 * n as u128) >> 64) as u32;
            }
        }
    }
    fn shuffle(&mut self, deck: &mut [Card]) {
        for i in (1..deck.len()).rev() {
            let j = self.uniform(i as u32 + 1) as usize;
            deck.swap(i, j);
        }
    }
}

fn main() {
    let deals: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000_000);
    let seed = deck_seed(&ServerSeed::from_bytes([7; 32]), Game::PrimaCarta, "bench", "");
    let ordered = ordered_deck(10);
    let (mut a, mut b) = (Shuffler::from_deck_seed(seed), Fast::new(seed));
    let (mut da, mut db) = ([ordered[0]; 50], [ordered[0]; 50]);
    for _ in 0..200_000 {
        da.copy_from_slice(&ordered);
        db.copy_from_slice(&ordered);
        a.shuffle(&mut da);
        b.shuffle(&mut db);
        assert_eq!(da, db);
    }
    println!("200000 decks identical to the production Shuffler");
    let time = |f: &mut dyn FnMut(&mut [Card; 50])| {
        let mut d = [ordered[0]; 50];
        let t = Instant::now();
        for _ in 0..deals {
            d.copy_from_slice(&ordered);
            f(&mut d);
            black_box(&d);
        }
        t.elapsed().as_secs_f64() * 1e9 / deals as f64
    };
    let prod = time(&mut |d| a.shuffle(d));
    let fast = time(&mut |d| b.shuffle(d));
    println!("production shuffle: {prod:.0} ns/deal; reciprocal-multiply shuffle: {fast:.0} ns/deal");
}
