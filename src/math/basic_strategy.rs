//! Stretch analysis: the first player's (the Prima's) expected result per round
//! under the printed basic strategy, never folding, and perfect knowledge.
//!
//! Model (the one the printed strategy assumes): five seats, every suit owned,
//! spiga 1, no corte, no seat fee; every other player always pays the copa.
//! If a suit completes during the first pass it wins at once (no copa). Else
//! the Prima either folds (loses the spiga) or pays a copa equal to its stack;
//! all others pay theirs, so the pot is 5 + N, and the first suit to complete
//! wins it. Perfect knowledge pays exactly when the Prima's suit completes first.
//! Decks come from the production shuffle (same seeding scheme as
//! `simulate_first_pass`, round ids "strategy-chunk-{k}"); the deal-out is the
//! engine's `deal_facts`.

use super::n_distribution::Z_95;
use super::simulate::{simulation_server_seed, CHUNK_DEALS, CODE_VERSION};
use crate::cards::shuffle::{deck_seed, Game, Shuffler};
use crate::cards::{ordered_deck, Card};
use crate::games::prima_carta::{basic_strategy, deal_facts, CopaAdvice, DealFacts, Variant};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Mean net result in units per round, with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeanResult {
    pub mean_units: f64,
    pub low_95: f64,
    pub high_95: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyReport {
    pub deals: u64,
    pub seed: u64,
    pub code_version: String,
    pub basic_strategy: MeanResult,
    pub never_fold: MeanResult,
    pub perfect_knowledge: MeanResult,
    /// Share of rounds where the copa was reached and the basic strategy
    /// decided as perfect knowledge would.
    pub basic_agrees_with_perfect: f64,
    /// Share of rounds that ended during the first pass (no copa).
    pub early_end: f64,
}

/// Net units for the Prima: (basic strategy, never fold, perfect knowledge, copa reached, agreed).
pub fn prima_results(f: &DealFacts) -> (i64, i64, i64, bool, bool) {
    let prima = f.first_card.suit();
    let won = f.first_to_complete == prima;
    if f.first_pass_counts.contains(&10) {
        let r = if won { 4 } else { -1 };
        return (r, r, r, false, false);
    }
    let own = f.first_pass_counts[prima.index()];
    let others: Vec<u8> = (0..5)
        .filter(|&s| s != prima.index())
        .map(|s| f.first_pass_counts[s])
        .collect();
    let pay_net = if won {
        5 + f.first_pass_count as i64 - 1 - own as i64
    } else {
        -1 - own as i64
    };
    let basic_pays = basic_strategy(own, &others) == CopaAdvice::Pay;
    let basic = if basic_pays { pay_net } else { -1 };
    let perfect = if won { pay_net } else { -1 };
    (basic, pay_net, perfect, true, basic_pays == won)
}

#[derive(Default, Clone, Copy)]
struct Sums {
    n: u64,
    s: [i128; 3],
    s2: [i128; 3],
    copa: u64,
    agree: u64,
    early: u64,
}

/// Runs `deals` rounds on `threads` threads; `progress(deals_done)` after each chunk.
pub fn analyse_basic_strategy(
    deals: u64,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> StrategyReport {
    let server = simulation_server_seed(seed);
    let chunks = deals.div_ceil(CHUNK_DEALS);
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let total = Mutex::new(Sums::default());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let ordered: Vec<Card> = ordered_deck(10);
                let mut deck = ordered.clone();
                let mut sums = Sums::default();
                loop {
                    let chunk = next.fetch_add(1, Ordering::Relaxed);
                    if chunk >= chunks {
                        break;
                    }
                    let in_chunk = CHUNK_DEALS.min(deals - chunk * CHUNK_DEALS);
                    let mut shuffler = Shuffler::from_deck_seed(deck_seed(
                        &server,
                        Game::PrimaCarta,
                        &format!("strategy-chunk-{chunk}"),
                        "",
                    ));
                    for _ in 0..in_chunk {
                        deck.copy_from_slice(&ordered);
                        shuffler.shuffle(&mut deck);
                        let Ok(f) = deal_facts(&deck, Variant::Classic, &mut |_| {}) else {
                            continue;
                        };
                        let (b, nf, p, copa, agree) = prima_results(&f);
                        sums.n += 1;
                        for (i, r) in [b, nf, p].into_iter().enumerate() {
                            sums.s[i] += r as i128;
                            sums.s2[i] += (r * r) as i128;
                        }
                        sums.copa += copa as u64;
                        sums.agree += (copa && agree) as u64;
                        sums.early += (!copa) as u64;
                    }
                    progress(done.fetch_add(in_chunk, Ordering::Relaxed) + in_chunk);
                }
                let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
                t.n += sums.n;
                for i in 0..3 {
                    t.s[i] += sums.s[i];
                    t.s2[i] += sums.s2[i];
                }
                t.copa += sums.copa;
                t.agree += sums.agree;
                t.early += sums.early;
            });
        }
    });
    let t = total.into_inner().unwrap_or_else(|e| e.into_inner());
    let n = t.n.max(1) as f64;
    let mean = |i: usize| {
        let m = t.s[i] as f64 / n;
        let var = (t.s2[i] as f64 / n - m * m).max(0.0);
        let h = Z_95 * (var / n).sqrt();
        MeanResult {
            mean_units: m,
            low_95: m - h,
            high_95: m + h,
        }
    };
    StrategyReport {
        deals: t.n,
        seed,
        code_version: CODE_VERSION.to_string(),
        basic_strategy: mean(0),
        never_fold: mean(1),
        perfect_knowledge: mean(2),
        basic_agrees_with_perfect: t.agree as f64 / t.copa.max(1) as f64,
        early_end: t.early as f64 / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{Rank, Suit};

    fn facts(counts: [u8; 5], first: Suit, completes: Suit) -> DealFacts {
        DealFacts {
            first_card: Card::new(first, Rank::new(5).unwrap()),
            foundations: Suit::ALL.map(|s| Card::new(s, Rank::new(5).unwrap())),
            foundation_order: Suit::ALL,
            first_pass_counts: counts,
            first_pass_count: counts.iter().sum(),
            first_to_complete: completes,
        }
    }

    #[test]
    fn worked_rounds() {
        // Prima (Crowns) leads with 4 and wins: pot 5 + 14, pays 1 + 4 → +14.
        assert_eq!(
            prima_results(&facts([4, 2, 3, 3, 2], Suit::Crowns, Suit::Crowns)),
            (14, 14, 14, true, true)
        );
        // Far behind (2 vs 5): basic folds (−1), never-fold loses 1 + 2.
        assert_eq!(
            prima_results(&facts([2, 5, 3, 3, 2], Suit::Crowns, Suit::Locks)),
            (-1, -3, -1, true, true)
        );
        // Early end won by the Prima: +4 for all three.
        assert_eq!(prima_results(&facts([10, 2, 3, 3, 2], Suit::Crowns, Suit::Crowns)).0, 4);
    }

    #[test]
    fn perfect_knowledge_is_best_on_a_small_run() {
        let r = analyse_basic_strategy(20_000, 3, 2, &|_| {});
        assert_eq!(r.deals, 20_000);
        assert!(r.perfect_knowledge.mean_units >= r.basic_strategy.mean_units);
        assert!(r.perfect_knowledge.mean_units >= r.never_fold.mean_units);
    }
}
