//! The calibration of the house's Fuerza (docs/confidence-bets.md, "The house's Fuerza"):
//! random Jasper rounds dealt by the real engine, each quoted as the service quotes it, then
//! finished by a reshuffle drawn apart from the quote's draws. Quotes are grouped in bands of
//! their stated chance; in each band the share of quotes that won must match the mean chance
//! quoted within the outcomes' own sampling error. Quotes made while players were still to
//! decide are checked to bracket the outcome (the chance if they all fold above it, the chance
//! if they all pay below it). On every `reference_every`-th position the quote is set against a
//! reference drawn with sixteen times the draws, which measures each quote's own error and the
//! return its price gives against the (near-)true chance.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::cards::{ordered_deck, Card, Rank, Suit};
use crate::games::prima_carta::fuerza::{self as quote, Position};
use crate::games::prima_carta::{first_pass, play, CopaDecision, Phase, TableRules, Variant};

/// Width of a band of quoted chance.
pub const BAND_WIDTH: f64 = 0.05;
/// Draws of a reference quote: sixteen times a quote's, so its error is a quarter (the
/// service's quotes; a test's smaller quotes are referenced at sixteen times theirs).
pub const REFERENCE_SAMPLES: u32 = quote::QUOTE_SAMPLES * 16;
/// A seated player pays the copa with this chance in the calibration's rounds.
const PAY_CHANCE: f64 = 0.7;

/// One band of quoted chance.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub quotes: u64,
    /// Σ quoted chance, and Σ p(1 − p) (the variance of the number of wins).
    pub chance_sum: f64,
    pub variance_sum: f64,
    pub wins: u64,
}

impl Band {
    pub fn mean_chance(&self) -> f64 {
        self.chance_sum / self.quotes.max(1) as f64
    }
    pub fn observed(&self) -> f64 {
        self.wins as f64 / self.quotes.max(1) as f64
    }
    /// (wins − Σp) / √Σp(1−p): how many standard errors of the outcomes apart.
    pub fn z(&self) -> f64 {
        if self.variance_sum == 0.0 {
            0.0
        } else {
            (self.wins as f64 - self.chance_sum) / self.variance_sum.sqrt()
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FuerzaCalibration {
    pub positions: u64,
    pub seed: u64,
    /// Positions whose first pass completed a suit (no copa, nothing to quote).
    pub ended_in_first_pass: u64,
    /// Exact quotes (the copa over, two or more live), banded.
    pub bands: Vec<Band>,
    /// Quotes with players still to decide: how often the outcome fell outside the bracket
    /// [chance if all pay, chance if all fold], summed as expected wins below and above.
    pub pending_quotes: u64,
    pub pending_low_sum: f64,
    pub pending_high_sum: f64,
    pub pending_wins: u64,
    /// Quotes set against a reference: how many, the largest error in the quote's standard
    /// errors, how many beyond 4 of them, and the return of each priced quote at the
    /// reference chance (price × p_ref), sorted.
    pub referenced: u64,
    pub max_error_in_se: f64,
    pub beyond_4_se: u64,
    pub returns_at_reference: Vec<f64>,
}

impl FuerzaCalibration {
    fn new(positions: u64, seed: u64) -> FuerzaCalibration {
        let n = (1.0 / BAND_WIDTH).round() as usize;
        FuerzaCalibration {
            positions,
            seed,
            bands: (0..n)
                .map(|i| Band {
                    from: i as f64 * BAND_WIDTH,
                    to: (i + 1) as f64 * BAND_WIDTH,
                    ..Band::default()
                })
                .collect(),
            ..FuerzaCalibration::default()
        }
    }

    fn merge(&mut self, other: FuerzaCalibration) {
        self.ended_in_first_pass += other.ended_in_first_pass;
        for (a, b) in self.bands.iter_mut().zip(other.bands) {
            a.quotes += b.quotes;
            a.chance_sum += b.chance_sum;
            a.variance_sum += b.variance_sum;
            a.wins += b.wins;
        }
        self.pending_quotes += other.pending_quotes;
        self.pending_low_sum += other.pending_low_sum;
        self.pending_high_sum += other.pending_high_sum;
        self.pending_wins += other.pending_wins;
        self.referenced += other.referenced;
        self.max_error_in_se = self.max_error_in_se.max(other.max_error_in_se);
        self.beyond_4_se += other.beyond_4_se;
        self.returns_at_reference.extend(other.returns_at_reference);
    }

    /// Bands whose observed share is more than `z` standard errors from the mean quoted chance.
    pub fn bands_beyond(&self, z: f64) -> Vec<&Band> {
        self.bands.iter().filter(|b| b.quotes > 0 && b.z().abs() > z).collect()
    }

    /// min, median, max of the returns at the reference chance.
    pub fn return_spread(&self) -> Option<(f64, f64, f64)> {
        let r = &self.returns_at_reference;
        (!r.is_empty()).then(|| (r[0], r[r.len() / 2], r[r.len() - 1]))
    }

    /// The mean return of the priced quotes at the reference chance.
    pub fn mean_return(&self) -> Option<f64> {
        let r = &self.returns_at_reference;
        (!r.is_empty()).then(|| r.iter().sum::<f64>() / r.len() as f64)
    }
}

/// Calibrates `positions` random Jasper rounds from `seed` on `threads` threads, quoting with
/// `samples` draws (the service's `QUOTE_SAMPLES`; fewer only in tests) and referencing every
/// `reference_every`-th position (0: none).
pub fn calibrate(
    positions: u64,
    seed: u64,
    samples: u32,
    reference_every: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> FuerzaCalibration {
    let threads = threads.max(1) as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    let parts: Vec<FuerzaCalibration> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let done = &done;
                scope.spawn(move || {
                    let mut part = FuerzaCalibration::new(positions, seed);
                    let mut i = t;
                    while i < positions {
                        position(&mut part, seed, i, samples, reference_every);
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if n % 64 == 0 {
                            progress(n);
                        }
                        i += threads;
                    }
                    part
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a calibration thread"))
            .collect()
    });
    let mut total = FuerzaCalibration::new(positions, seed);
    for part in parts {
        total.merge(part);
    }
    total
        .returns_at_reference
        .sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    total
}

const JASPER: TableRules = TableRules {
    variant: Variant::Jasper,
    ..TableRules::CLASSIC
};

/// Deals position `i`, quotes it at one random point of the copa and once it is over, and
/// finishes it with its own reshuffle.
fn position(out: &mut FuerzaCalibration, seed: u64, i: u64, samples: u32, reference_every: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(i);
    let mut deck = ordered_deck(Rank::MAX);
    deck.shuffle(&mut rng);
    let Some(position) = first_pass(&deck).ok().as_ref().and_then(Position::after) else {
        out.ended_in_first_pass += 1;
        return;
    };
    let mut suits = Suit::ALL.to_vec();
    suits.shuffle(&mut rng);
    let mut seated: Vec<Suit> = suits[..rng.gen_range(2..=Suit::COUNT)].to_vec();
    seated.sort();
    // The copa in turn, by the engine; the reshuffle is never reached before it ends.
    let mut decisions: Vec<CopaDecision> = Vec::new();
    let mut never = |_: &mut [Card]| {};
    while let Ok(p) = play(&deck, &JASPER, &seated, &decisions, &mut never) {
        match p.phase {
            Phase::AwaitingCopa(turn) => decisions.push(CopaDecision {
                suit: turn.turn,
                pay: rng.gen_bool(PAY_CHANCE),
            }),
            Phase::Finished(_) => break,
        }
    }
    let live: Vec<Suit> = seated
        .iter()
        .copied()
        .filter(|s| !decisions.iter().any(|d| d.suit == *s && !d.pay))
        .collect();
    if live.len() < 2 {
        return; // the copa left one player: no repasso, nothing chance decides
    }
    // The real reshuffle, drawn apart from every quote's draws.
    let mut pile = position.pile().to_vec();
    pile.shuffle(&mut rng);
    let Some(winner) = position.repasso_winner(&pile, &live) else {
        return;
    };
    let paid: Vec<Suit> = decisions.iter().filter(|d| d.pay).map(|d| d.suit).collect();

    // Once the copa is over: exact, banded.
    let key = format!("calibration-{seed}-{i}");
    let exact = quote::quotes(&position, &paid, &[], samples, quote::quote_seed(&key, decisions.len()));
    for q in &exact {
        let p = q.wins as f64 / q.samples as f64;
        let band = ((p / BAND_WIDTH) as usize).min(out.bands.len() - 1);
        let b = &mut out.bands[band];
        b.quotes += 1;
        b.chance_sum += p;
        b.variance_sum += p * (1.0 - p);
        b.wins += u64::from(q.suit == winner);
    }
    if reference_every > 0 && i % reference_every == 0 {
        let reference = quote::quotes(&position, &paid, &[], samples * 16, quote::quote_seed(&key, 99));
        for (q, r) in exact.iter().zip(&reference) {
            let (p, p_ref) = (q.wins as f64 / q.samples as f64, r.wins as f64 / r.samples as f64);
            let se = (p_ref * (1.0 - p_ref) * (1.0 / q.samples as f64 + 1.0 / r.samples as f64)).sqrt();
            let error = if se > 0.0 { (p - p_ref).abs() / se } else { 0.0 };
            out.referenced += 1;
            out.max_error_in_se = out.max_error_in_se.max(error);
            out.beyond_4_se += u64::from(error > 4.0);
            if let Some(price) = q.price_hundredths {
                out.returns_at_reference.push(price as f64 / 100.0 * p_ref);
            }
        }
    }

    // At a random point while some were still to decide (at least one paid).
    let points: Vec<usize> = (1..decisions.len())
        .filter(|&k| decisions[..k].iter().any(|d| d.pay))
        .collect();
    if let Some(&k) = points.choose(&mut rng) {
        let before = &decisions[..k];
        let paid_k: Vec<Suit> = before.iter().filter(|d| d.pay).map(|d| d.suit).collect();
        let undecided: Vec<Suit> = seated
            .iter()
            .copied()
            .filter(|s| !before.iter().any(|d| d.suit == *s))
            .collect();
        let pending = quote::quotes(&position, &paid_k, &undecided, samples, quote::quote_seed(&key, k));
        for q in &pending {
            out.pending_quotes += 1;
            out.pending_high_sum += q.wins as f64 / q.samples as f64;
            out.pending_low_sum += q.wins_if_all_pay as f64 / q.samples as f64;
            out.pending_wins += u64::from(q.suit == winner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small run: the bands agree with the outcomes, pending quotes bracket them, and the
    /// reference finds each quote within its error.
    #[test]
    fn a_small_calibration_agrees_with_the_outcomes() {
        let c = calibrate(600, 7, 4_096, 50, 2, &|_| {});
        let quoted: u64 = c.bands.iter().map(|b| b.quotes).sum();
        assert!(quoted > 500, "{quoted} exact quotes from 600 positions");
        assert!(c.bands_beyond(4.0).is_empty(), "{:?}", c.bands_beyond(4.0));
        assert!(c.pending_quotes > 100);
        let wins = c.pending_wins as f64;
        assert!(c.pending_low_sum <= wins + 4.0 * wins.sqrt() && wins <= c.pending_high_sum + 4.0 * wins.sqrt());
        assert!(c.referenced > 0 && c.beyond_4_se == 0, "{c:?}");
        // A quote's price returns 95% of its own chance, so about that at the reference.
        let mean = c.mean_return().expect("priced quotes");
        assert!((0.90..1.0).contains(&mean), "mean return {mean}");
    }
}
