//! The value of a fresh round: exact over every opening, or estimated over sampled deals.

use super::super::Mode;
use super::clairvoyant::Clairvoyant;
use super::deals::{all_openings, deck_ranks, opening_of, sample_decks};
use super::expectimax::{Expectimax, GameLimits};
use super::penalty::{Penalty, Restricted, Tiered, Tiers};
use super::policy::{play_deck, SimplePolicy};
use super::uniform_draws::UniformDraws;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A progress callback: items done so far (out of the total the caller was told).
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// An estimate of a fresh round's value in points (positive = the player's edge).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FreshValue {
    pub mean_points: f64,
    /// 0 when exact.
    pub std_error_points: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// One-sided 99.9% bounds: the further of mean ∓ 3.09 standard errors and the
    /// 0.1% / 99.9% points of the bootstrap means (see [`bootstrap_means`]), so that a
    /// skewed sample is never trusted to a normal law.
    pub low_999: f64,
    pub high_999: f64,
    /// `None` when every opening was enumerated (an exact weighted average).
    pub samples: Option<usize>,
    pub seed: Option<u64>,
    /// Distinct positions solved (summed over deals for the clairvoyant bound).
    pub states: u64,
}

impl FreshValue {
    fn exact(mean: f64, states: u64) -> FreshValue {
        FreshValue {
            mean_points: mean,
            std_error_points: 0.0,
            ci95_low: mean,
            ci95_high: mean,
            low_999: mean,
            high_999: mean,
            samples: None,
            seed: None,
            states,
        }
    }
    fn sampled(values: &[f64], seed: u64, states: u64) -> FreshValue {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        let se = (var / n).sqrt();
        let means = bootstrap_means(values, seed);
        let percentile = |q: f64| means[((q * means.len() as f64) as usize).min(means.len() - 1)];
        FreshValue {
            mean_points: mean,
            std_error_points: se,
            ci95_low: mean - 1.96 * se,
            ci95_high: mean + 1.96 * se,
            low_999: (mean - 3.09 * se).min(percentile(0.001)),
            high_999: (mean + 3.09 * se).max(percentile(0.999)),
            samples: Some(values.len()),
            seed: Some(seed),
            states,
        }
    }
}

/// Resamples of the mean drawn for the bootstrap limits.
pub const BOOTSTRAP_RESAMPLES: usize = 10_000;

/// The means of [`BOOTSTRAP_RESAMPLES`] resamples of `values` (each `values.len()` draws with
/// replacement, ChaCha8 seeded from `seed`), sorted: the sample's own spread of the mean,
/// skew included, where a normal law assumes symmetry. Deterministic for a seed.
pub fn bootstrap_means(values: &[f64], seed: u64) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    if values.is_empty() {
        return vec![f64::NAN];
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0xb007_57a9);
    let n = values.len();
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| (0..n).map(|_| values[rng.gen_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    means
}

/// Runs `f` on items 0..n over `threads` threads; progress counts finished items.
fn par_map(n: usize, threads: usize, progress: Progress, f: &(dyn Fn(usize) -> f64 + Sync)) -> Vec<f64> {
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let out = Mutex::new(vec![0.0; n]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let v = f(i);
                out.lock().unwrap()[i] = v;
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    out.into_inner().unwrap()
}

/// Exact value of the game with `limits` over every opening (weighted). Progress counts openings
/// (see `all_openings(mode).len()` for the total). Feasible only with small Over limits.
pub fn exact_value(mode: Mode, limits: GameLimits, threads: usize, progress: Progress) -> FreshValue {
    let openings = all_openings(mode);
    // Openings come Wolf hand by Wolf hand; a fresh memo at a Wolf hand's boundary, once the
    // memo holds `EXACT_MEMO_LIMIT_STATES`, caps memory (an all-openings solve of the larger decks
    // would not fit in memory otherwise) and loses only the positions openings with different
    // Wolf hands share.
    let mut solver = Expectimax::new(limits, None);
    let mut states_before = 0;
    let mut values = Vec::with_capacity(openings.len());
    let mut start = 0;
    while start < openings.len() {
        let wolf = openings[start].0.wolf;
        let end = start + openings[start..].iter().take_while(|(p, _)| p.wolf == wolf).count();
        if solver.states() > EXACT_MEMO_LIMIT_STATES {
            states_before += solver.states();
            solver = Expectimax::new(limits, None);
        }
        let offset = start as u64;
        let group = &openings[start..end];
        values.extend(par_map(group.len(), threads, &|n| progress(offset + n), &|i| {
            solver.value(&group[i].0).expect("no budget")
        }));
        start = end;
    }
    let mean = values.iter().zip(&openings).map(|(v, (_, w))| v * w).sum();
    FreshValue::exact(mean, states_before + solver.states())
}

/// Positions an all-openings solve keeps in its memo before it starts a fresh one at the next
/// Wolf hand (about 65 bytes each: some 4 GB).
pub const EXACT_MEMO_LIMIT_STATES: u64 = 60_000_000;

/// Exact value of the game with `limits` at the openings of `samples` seeded deals, averaged.
/// A lower bound on perfect play when `limits` restricts Overs (the restricted player is a policy).
pub fn sampled_value(
    mode: Mode,
    limits: GameLimits,
    samples: usize,
    seed: u64,
    threads: usize,
    progress: Progress,
) -> FreshValue {
    let decks = sample_decks(mode, samples, seed);
    let solver = Expectimax::new(limits, None);
    let values = par_map(samples, threads, progress, &|i| {
        solver.value(&opening_of(&deck_ranks(&decks[i]))).expect("no budget")
    });
    FreshValue::sampled(&values, seed, solver.states())
}

/// Tries the exact value of the game with `limits` at the openings of `samples` seeded deals
/// within `state_budget` stored positions; `Err(states stored)` when the budget ran out first.
pub fn sampled_value_within(
    mode: Mode,
    limits: GameLimits,
    samples: usize,
    seed: u64,
    state_budget: u64,
    threads: usize,
    progress: Progress,
) -> Result<FreshValue, u64> {
    let decks = sample_decks(mode, samples, seed);
    let solver = Expectimax::new(limits, Some(state_budget));
    let values = par_map(samples, threads, progress, &|i| {
        solver.value(&opening_of(&deck_ranks(&decks[i]))).unwrap_or(f64::NAN)
    });
    if values.iter().any(|v| v.is_nan()) {
        return Err(solver.states());
    }
    Ok(FreshValue::sampled(&values, seed, solver.states()))
}

/// The clairvoyant upper bound over `samples` seeded deals, for the game with `limits`.
/// With `penalty_over_limit = Some(k)` each deal's clairvoyant player is charged the
/// information penalty built from the exact value of the game with Overs limited to `k`
/// (see [`Clairvoyant`]): still a valid upper bound, and far tighter. Returns the bound and,
/// when penalised, the lower bound `V̂(opening)` on the same deals (paired).
pub fn clairvoyant_value(
    mode: Mode,
    limits: GameLimits,
    penalty: PenaltyChoice,
    samples: usize,
    seed: u64,
    threads: usize,
    progress: Progress,
) -> (FreshValue, Option<Bracket>) {
    let decks = sample_decks(mode, samples, seed);
    let states = AtomicU64::new(0);
    let cap = limits.loss_cap_points;
    let (restricted, tiered) = match penalty {
        PenaltyChoice::None => (None, None),
        PenaltyChoice::Restricted { k, max_over_charged } => (
            Some(Restricted {
                values: Expectimax::new(
                    GameLimits {
                        max_over_difference: k,
                        loss_cap_points: cap,
                    },
                    None,
                ),
                max_over_charged,
            }),
            None,
        ),
        PenaltyChoice::Tiered(tiers) => (None, Some(tiers)),
    };
    let uniform_draws = Arc::new(UniformDraws::new(mode, cap));
    // Each deal's Overs-≤-1 (or restricted) value, for the bracket's width deal by deal.
    let lows = Mutex::new(vec![f64::NAN; samples]);
    let values = par_map(samples, threads, progress, &|i| {
        let ranks = deck_ranks(&decks[i]);
        // The tiered values a deal needs reach positions no other deal does: solved per deal,
        // so memory stays that of one deal per thread (and one uniform-draws table for the run).
        let own = tiered.map(|tiers| Tiered::with_tiers(tiers, uniform_draws.clone()));
        let vhat = restricted
            .as_ref()
            .map(|r| r as &dyn Penalty)
            .or(own.as_ref().map(|t| t as &dyn Penalty));
        let (v, n) = Clairvoyant::solve(&ranks, limits, vhat);
        if let Some(p) = vhat {
            lows.lock().unwrap()[i] = p.restricted_value(&opening_of(&ranks));
        }
        states.fetch_add(n + own.as_ref().map_or(0, |t| t.states()), Ordering::Relaxed);
        v
    });
    let extra = restricted.as_ref().map_or(0, |p| p.states()) + uniform_draws.states();
    let upper = FreshValue::sampled(&values, seed, states.into_inner() + extra);
    let lows = lows.into_inner().unwrap();
    let bracket = (penalty != PenaltyChoice::None).then(|| {
        let gaps: Vec<f64> = values.iter().zip(&lows).map(|(u, l)| u - l).collect();
        Bracket {
            lower: FreshValue::sampled(&lows, seed, 0),
            width: FreshValue::sampled(&gaps, seed, 0),
        }
    });
    (upper, bracket)
}

/// The lower bound on the same deals as an upper bound, and the width between them deal by deal
/// (paired: its interval is far narrower than either bound's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bracket {
    /// Best play with Overs limited (to 1 for the tiered penalty, to `k` for the restricted one).
    pub lower: FreshValue,
    /// Upper − lower, deal by deal.
    pub width: FreshValue,
}

/// The information penalty charged to the clairvoyant player (`super::penalty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PenaltyChoice {
    /// None: the plain clairvoyant bound.
    None,
    /// The exact values of the game with Overs limited to `k`, charged on Overs up to `max_over_charged`.
    Restricted { k: u8, max_over_charged: u8 },
    /// The tiered estimate, every play charged.
    Tiered(Tiers),
}

/// A simple strategy's value over `samples` seeded deals (exact for `FoldAtOnce`).
pub fn policy_value(
    mode: Mode,
    policy: SimplePolicy,
    limits: GameLimits,
    samples: usize,
    seed: u64,
    threads: usize,
    progress: Progress,
) -> FreshValue {
    if policy == SimplePolicy::FoldAtOnce {
        return FreshValue::exact(-super::deals::expected_opening_loss(mode, limits.loss_cap_points), 0);
    }
    let decks = sample_decks(mode, samples, seed);
    let values = par_map(samples, threads, progress, &|i| {
        play_deck(&deck_ranks(&decks[i]), policy, limits)
    });
    FreshValue::sampled(&values, seed, 0)
}

/// What a player who always plays the hint gets over `samples` seeded deals: the hint solved
/// afresh at every decision with `state_budget` positions per attempt, as the service solves it.
/// Returns the value (its `states` summed over every hint) and how many hints came from each
/// basis: exact, restricted Overs, heuristic.
pub fn hint_player_value(
    mode: Mode,
    loss_cap_points: Option<u32>,
    samples: usize,
    seed: u64,
    state_budget: u64,
    threads: usize,
    progress: Progress,
) -> (FreshValue, [u64; 3]) {
    use super::hint::{hint, HintBasis};
    let decks = sample_decks(mode, samples, seed);
    let states = AtomicU64::new(0);
    let bases: [AtomicU64; 3] = Default::default();
    let values = par_map(samples, threads, progress, &|i| {
        let mut state = super::super::LoboState::deal(mode, &decks[i]).expect("a whole deck");
        while let Some(h) = hint(&state, loss_cap_points, state_budget) {
            states.fetch_add(h.states, Ordering::Relaxed);
            let basis = match h.basis {
                HintBasis::Exact => 0,
                HintBasis::RestrictedOvers { .. } => 1,
                HintBasis::Heuristic => 2,
            };
            bases[basis].fetch_add(1, Ordering::Relaxed);
            state = state.apply(&h.play).expect("a hint is a legal play");
        }
        let outcome = state.outcome().expect("no hint once the round is over");
        outcome.player_net_points(loss_cap_points) as f64
    });
    let counts = bases.map(|b| b.into_inner());
    (FreshValue::sampled(&values, seed, states.into_inner()), counts)
}

#[cfg(test)]
mod tests {
    use super::FreshValue;

    #[test]
    fn the_999_limits_follow_a_skewed_sample_not_a_normal_law() {
        // Mostly nothing, now and then a lot: the shape of the bracket's width.
        let skewed: Vec<f64> = (0..400).map(|i| if i % 40 == 0 { 18.0 } else { 0.0 }).collect();
        let v = FreshValue::sampled(&skewed, 1, 0);
        let normal_high = v.mean_points + 3.09 * v.std_error_points;
        assert!(v.high_999 > normal_high, "{} ≤ {normal_high}", v.high_999);
        assert!(v.low_999 <= v.mean_points - 3.09 * v.std_error_points);
        assert_eq!(v, FreshValue::sampled(&skewed, 1, 0), "seeded, so reproducible");

        // A symmetric sample: both laws agree closely, and the further one is kept.
        let symmetric: Vec<f64> = (0..2000).map(|i| (i % 21) as f64 - 10.0).collect();
        let v = FreshValue::sampled(&symmetric, 1, 0);
        let normal_high = v.mean_points + 3.09 * v.std_error_points;
        assert!(v.high_999 >= normal_high && v.high_999 < normal_high + 0.1 * v.std_error_points.max(0.01) + 0.05);
    }
}
