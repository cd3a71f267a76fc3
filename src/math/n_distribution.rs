//! The distribution of N, the first-pass count (cards on all five stacks at the
//! end of the first pass), as counted by a simulation: counts per N with the
//! seed, size and code version that reproduce it.

use serde::{Deserialize, Serialize};

/// Smallest possible N: every suit's foundation is followed on its stack by the
/// next rank, because that card can only be dealt after the foundation (the
/// foundation is the suit's first card) and nothing else can cover the stack.
pub const N_MIN: u8 = 10;
/// Largest possible N: the whole deck.
pub const N_MAX: u8 = 50;
/// z for a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A probability with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub low_95: f64,
    pub high_95: f64,
}

impl Estimate {
    pub fn exact(value: f64) -> Estimate {
        Estimate {
            value,
            low_95: value,
            high_95: value,
        }
    }

    /// Half the interval's width.
    pub fn half_width(&self) -> f64 {
        (self.high_95 - self.low_95) / 2.0
    }
}

/// Wilson score interval (95%) for `hits` successes in `trials` trials; well
/// behaved for probabilities near 0, unlike the normal approximation.
pub fn wilson_95(hits: u64, trials: u64) -> Estimate {
    if trials == 0 {
        return Estimate {
            value: 0.0,
            low_95: 0.0,
            high_95: 1.0,
        };
    }
    let n = trials as f64;
    let p = hits as f64 / n;
    let z2 = Z_95 * Z_95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z_95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Estimate {
        value: p,
        low_95: (centre - half).max(0.0),
        high_95: (centre + half).min(1.0),
    }
}

/// Counts of N over a number of simulated deals.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NDistribution {
    /// What produced it, e.g. "first-pass-sim-v1".
    pub algorithm: String,
    /// The code version (crate version) that produced it.
    pub code_version: String,
    /// The stated simulation seed.
    pub seed: u64,
    /// Deals simulated; equals the sum of `counts`.
    pub total: u64,
    /// `counts[i]` deals had N = `N_MIN + i`, for N in N_MIN..=N_MAX.
    pub counts: Vec<u64>,
}

impl NDistribution {
    pub fn empty(algorithm: &str, code_version: &str, seed: u64) -> NDistribution {
        NDistribution {
            algorithm: algorithm.to_string(),
            code_version: code_version.to_string(),
            seed,
            total: 0,
            counts: vec![0; (N_MAX - N_MIN + 1) as usize],
        }
    }

    /// Deals with this N (0 outside N_MIN..=N_MAX).
    pub fn count(&self, n: u8) -> u64 {
        if (N_MIN..=N_MAX).contains(&n) {
            self.counts.get((n - N_MIN) as usize).copied().unwrap_or(0)
        } else {
            0
        }
    }

    /// Adds one deal with count `n`; counts outside the possible range are
    /// rejected (they would mean a broken engine).
    pub fn record(&mut self, n: u8) -> Result<(), String> {
        if !(N_MIN..=N_MAX).contains(&n) {
            return Err(format!("first-pass count {n} is outside {N_MIN}..={N_MAX}"));
        }
        self.counts[(n - N_MIN) as usize] += 1;
        self.total += 1;
        Ok(())
    }

    /// Merges another tally of the same simulation (counts add).
    pub fn merge_counts(&mut self, counts: &[u64]) {
        for (mine, theirs) in self.counts.iter_mut().zip(counts) {
            *mine += theirs;
            self.total += theirs;
        }
    }

    /// Checks the invariants a deserialized distribution must hold.
    pub fn validate(&self) -> Result<(), String> {
        if self.counts.len() != (N_MAX - N_MIN + 1) as usize {
            return Err(format!(
                "expected {} counts, got {}",
                N_MAX - N_MIN + 1,
                self.counts.len()
            ));
        }
        if self.counts.iter().sum::<u64>() != self.total {
            return Err("counts do not add up to total".into());
        }
        if self.total == 0 {
            return Err("empty distribution".into());
        }
        Ok(())
    }

    /// P(N = n) with its Wilson 95% interval.
    pub fn probability(&self, n: u8) -> Estimate {
        wilson_95(self.count(n), self.total)
    }

    /// P(N in the set) with its Wilson 95% interval.
    pub fn probability_of(&self, mut is_in: impl FnMut(u8) -> bool) -> Estimate {
        let hits = (N_MIN..=N_MAX).filter(|&n| is_in(n)).map(|n| self.count(n)).sum();
        wilson_95(hits, self.total)
    }

    /// Mean of N.
    pub fn mean(&self) -> f64 {
        let s: f64 = (N_MIN..=N_MAX).map(|n| n as f64 * self.count(n) as f64).sum();
        s / self.total.max(1) as f64
    }

    /// Largest N seen.
    pub fn max_seen(&self) -> u8 {
        (N_MIN..=N_MAX).rev().find(|&n| self.count(n) > 0).unwrap_or(N_MIN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_contains_the_point_and_shrinks_with_n() {
        let a = wilson_95(100, 1000);
        let b = wilson_95(10_000, 100_000);
        assert!(a.low_95 < 0.1 && 0.1 < a.high_95);
        assert!(b.half_width() < a.half_width());
        // a textbook value: 0 of 10 gives (0, 0.2775)
        let z = wilson_95(0, 10);
        assert!(z.low_95 == 0.0 && (z.high_95 - 0.2775).abs() < 1e-3);
    }

    #[test]
    fn record_rejects_impossible_counts() {
        let mut d = NDistribution::empty("t", "0", 1);
        assert!(d.record(9).is_err());
        assert!(d.record(51).is_err());
        d.record(10).unwrap();
        d.record(50).unwrap();
        assert_eq!(d.total, 2);
        assert_eq!(d.count(50), 1);
        assert!(d.validate().is_ok());
    }
}
