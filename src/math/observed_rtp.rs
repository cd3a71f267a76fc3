//! Is a bet paying what its certificate says? The observed RTP of a group of
//! settled bets against the certified one, with a standard error that holds
//! when bets share a deal (docs/math.md, "Observed RTP").
//!
//! Bets on one round are not independent: every Conto bet on a round shares
//! its N, every Prima bet on a suit shares the first card. Treating them as
//! independent understates the variance by up to the number of bets per
//! round, and flags honest tables. So the error is also estimated with
//! rounds as clusters (the sandwich estimator for a ratio), and the band uses
//! the larger of the two.

/// One settled bet: the round it was on, its stake and what it returned, in
/// minor units.
#[derive(Clone, Copy, Debug)]
pub struct SettledBet<'a> {
    pub round_id: &'a str,
    pub staked_minor: i64,
    pub returned_minor: i64,
}

/// The 99% two-sided normal quantile.
pub const Z_99: f64 = 2.5758;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObservedRtp {
    pub staked_minor: i64,
    pub returned_minor: i64,
    /// returned / staked.
    pub observed: f64,
    /// Standard error if every bet were independent: σ √(Σ s²) / Σ s, with σ
    /// the certified standard deviation per unit staked.
    pub independent_error: f64,
    /// Standard error with each round a cluster: √(C/(C−1) Σ_c (Σ_{i∈c} r_i −
    /// R̂ s_i)²) / Σ s, over C rounds (0 with fewer than two rounds).
    pub clustered_error: f64,
}

impl ObservedRtp {
    /// The standard error the band uses: the larger estimate, so that the
    /// band is right both for independent bets and for bets sharing a deal.
    pub fn standard_error(&self) -> f64 {
        self.independent_error.max(self.clustered_error)
    }

    /// True when the observed RTP is outside the 99% band around `theoretical`.
    pub fn outside_99_band(&self, theoretical: f64) -> bool {
        (self.observed - theoretical).abs() > Z_99 * self.standard_error()
    }
}

/// The observed RTP of `bets` (sorted or not), given the certified standard
/// deviation per unit staked. `None` for no stake.
pub fn observed_rtp(bets: &[SettledBet<'_>], sd_per_unit: f64) -> Option<ObservedRtp> {
    let staked: i64 = bets.iter().map(|b| b.staked_minor).sum();
    if staked <= 0 {
        return None;
    }
    let returned: i64 = bets.iter().map(|b| b.returned_minor).sum();
    let observed = returned as f64 / staked as f64;
    let sum_sq: f64 = bets.iter().map(|b| (b.staked_minor as f64).powi(2)).sum();
    let independent_error = sd_per_unit * sum_sq.sqrt() / staked as f64;

    // Residual of each round around the observed ratio.
    let mut by_round: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    for b in bets {
        *by_round.entry(b.round_id).or_default() += b.returned_minor as f64 - observed * b.staked_minor as f64;
    }
    let clusters = by_round.len() as f64;
    let clustered_error = if by_round.len() < 2 {
        0.0
    } else {
        let sum: f64 = by_round.values().map(|e| e * e).sum();
        (clusters / (clusters - 1.0) * sum).sqrt() / staked as f64
    };
    Some(ObservedRtp {
        staked_minor: staked,
        returned_minor: returned,
        observed,
        independent_error,
        clustered_error,
    })
}

/// What [`observed_rtp`] needs of a set of bets, in sums that add: the sums
/// of one round's bets are taken together (its bets share a deal), and any
/// sets of whole rounds add up field by field. The sums of squares are of
/// integers, so exact in `f64` below 2^53 and the same in any order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RtpSums {
    pub bets: i64,
    pub rounds: i64,
    pub staked_minor: i64,
    pub returned_minor: i64,
    /// Σ stake² over the bets.
    pub staked_sq: f64,
    /// Over the rounds, with S a round's stakes and R its returns: Σ S², Σ R·S, Σ R².
    pub round_staked_sq: f64,
    pub round_cross: f64,
    pub round_returned_sq: f64,
}

impl RtpSums {
    /// The sums of one round's bets, as (stake, returned) in minor units.
    pub fn of_round(bets: impl IntoIterator<Item = (i64, i64)>) -> RtpSums {
        let mut sums = RtpSums {
            rounds: 1,
            ..RtpSums::default()
        };
        for (staked, returned) in bets {
            sums.bets += 1;
            sums.staked_minor += staked;
            sums.returned_minor += returned;
            sums.staked_sq += (staked as f64).powi(2);
        }
        let (s, r) = (sums.staked_minor as f64, sums.returned_minor as f64);
        sums.round_staked_sq = s * s;
        sums.round_cross = r * s;
        sums.round_returned_sq = r * r;
        sums
    }

    pub fn add(&mut self, other: &RtpSums) {
        self.bets += other.bets;
        self.rounds += other.rounds;
        self.staked_minor += other.staked_minor;
        self.returned_minor += other.returned_minor;
        self.staked_sq += other.staked_sq;
        self.round_staked_sq += other.round_staked_sq;
        self.round_cross += other.round_cross;
        self.round_returned_sq += other.round_returned_sq;
    }

    /// The observed RTP of the bets summed, as [`observed_rtp`] computes it
    /// from the bets themselves: Σ (R − ô·S)² = Σ R² − 2ô Σ R·S + ô² Σ S².
    pub fn observed_rtp(&self, sd_per_unit: f64) -> Option<ObservedRtp> {
        if self.staked_minor <= 0 {
            return None;
        }
        let staked = self.staked_minor as f64;
        let observed = self.returned_minor as f64 / staked;
        let independent_error = sd_per_unit * self.staked_sq.sqrt() / staked;
        let clusters = self.rounds as f64;
        let clustered_error = if self.rounds < 2 {
            0.0
        } else {
            let sum = (self.round_returned_sq - 2.0 * observed * self.round_cross
                + observed * observed * self.round_staked_sq)
                .max(0.0);
            (clusters / (clusters - 1.0) * sum).sqrt() / staked
        };
        Some(ObservedRtp {
            staked_minor: self.staked_minor,
            returned_minor: self.returned_minor,
            observed,
            independent_error,
            clustered_error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// An even-money bet that wins 1 in 2 (RTP 1, σ 1), `per_round` players
    /// all backing the same outcome on each round: their returns are one.
    fn shared_deal_rounds(rounds: usize, per_round: usize, seed: u64) -> Vec<(String, i64, i64)> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut bets = Vec::new();
        for r in 0..rounds {
            let won = rng.gen_bool(0.5);
            for _ in 0..per_round {
                bets.push((format!("round-{r}"), 100, if won { 200 } else { 0 }));
            }
        }
        bets
    }

    fn as_bets(rows: &[(String, i64, i64)]) -> Vec<SettledBet<'_>> {
        rows.iter()
            .map(|(r, s, ret)| SettledBet {
                round_id: r,
                staked_minor: *s,
                returned_minor: *ret,
            })
            .collect()
    }

    #[test]
    fn bets_sharing_a_deal_are_flagged_about_one_time_in_a_hundred_not_most_of_the_time() {
        // 200 honest tables of 30 rounds, 20 identical bets per round.
        let (mut flagged_independent, mut flagged) = (0, 0);
        for seed in 0..200 {
            let rows = shared_deal_rounds(30, 20, seed);
            let o = observed_rtp(&as_bets(&rows), 1.0).unwrap();
            if (o.observed - 1.0).abs() > Z_99 * o.independent_error {
                flagged_independent += 1;
            }
            if o.outside_99_band(1.0) {
                flagged += 1;
            }
            // Perfectly correlated within a round: the clustered error is
            // about √20 times the independent one.
            assert!(o.clustered_error > 2.5 * o.independent_error, "{o:?}");
        }
        // The independent formula flags most honest tables; the band should
        // flag about 1% (a few more with only 30 clusters).
        assert!(
            flagged_independent > 100,
            "independent formula flagged {flagged_independent} of 200"
        );
        assert!(flagged <= 8, "the band flagged {flagged} of 200 honest tables");
    }

    #[test]
    fn independent_bets_keep_the_certified_error() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let rows: Vec<(String, i64, i64)> = (0..2_000)
            .map(|i| (format!("round-{i}"), 100, if rng.gen_bool(0.5) { 200 } else { 0 }))
            .collect();
        let o = observed_rtp(&as_bets(&rows), 1.0).unwrap();
        assert!((o.independent_error - 1.0 / 2_000f64.sqrt()).abs() < 1e-12);
        // One bet per round: both estimate the same error.
        let ratio = o.clustered_error / o.independent_error;
        assert!((0.9..1.1).contains(&ratio), "ratio {ratio}");
    }

    #[test]
    fn a_table_that_pays_too_little_is_still_flagged() {
        // Shared deals, but the bet wins 1 in 3 instead of 1 in 2.
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let rows: Vec<(String, i64, i64)> = (0..400)
            .flat_map(|r| {
                let won = rng.gen_bool(1.0 / 3.0);
                (0..10).map(move |_| (format!("round-{r}"), 100, if won { 200 } else { 0 }))
            })
            .collect();
        let o = observed_rtp(&as_bets(&rows), 1.0).unwrap();
        assert!(o.outside_99_band(1.0), "{o:?}");
    }

    #[test]
    fn no_stake_is_no_figure() {
        assert!(observed_rtp(&[], 1.0).is_none());
    }

    #[test]
    fn sums_of_whole_rounds_give_the_same_observed_rtp_as_the_bets() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let rows: Vec<(String, i64, i64)> = (0..3_000)
            .map(|i| {
                let stake = rng.gen_range(1..50_000);
                let returned = if rng.gen_bool(0.3) {
                    stake * rng.gen_range(1..12)
                } else {
                    0
                };
                (format!("round-{}", i / 7), stake, returned)
            })
            .collect();
        let direct = observed_rtp(&as_bets(&rows), 1.3).unwrap();
        let mut sums = RtpSums::default();
        for round in rows.chunk_by(|a, b| a.0 == b.0) {
            sums.add(&RtpSums::of_round(round.iter().map(|(_, s, r)| (*s, *r))));
        }
        let summed = sums.observed_rtp(1.3).unwrap();
        assert_eq!(
            (summed.staked_minor, summed.returned_minor),
            (direct.staked_minor, direct.returned_minor)
        );
        assert_eq!(summed.independent_error, direct.independent_error);
        let relative = (summed.clustered_error - direct.clustered_error).abs() / direct.clustered_error;
        assert!(relative < 1e-9, "{summed:?} against {direct:?}");
        assert_eq!(sums.rounds, 3_000 / 7 + 1);
    }
}
