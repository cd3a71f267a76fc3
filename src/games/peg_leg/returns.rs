//! The return of the prices actually offered, measured against the true
//! probability: per band of true probability, what a bet at the offered
//! multiplier returns (multiplier × true P(count)) and what its cash-out pays
//! against its true value (surrender value ÷ stake × multiplier × true P).
//! The targets: every offered price returns between 0.93 and the target
//! (0.95) for counts with p ≥ 0.01, at least 0.90 for 0.001 ≤ p < 0.01; rarer
//! counts carry no target (they are priced only when exact; the multiplier's
//! cap keeps their return below the target).

use super::pricing::{surrender_cents, Quote, COUNTS};

/// The bands of true probability, from the most likely: [low, high).
pub const BANDS: [(f64, f64); 6] = [
    (0.5, 1.0 + 1e-12),
    (0.2, 0.5),
    (0.05, 0.2),
    (0.01, 0.05),
    (0.001, 0.01),
    (0.0, 0.001),
];

/// The least return each band's offered prices must give (`None`: no target).
pub const BAND_MIN_RETURN: [Option<f64>; 6] = [Some(0.93), Some(0.93), Some(0.93), Some(0.93), Some(0.90), None];

/// The stake cash-outs are valued on, in cents (large, so the cent rounding is negligible).
const STAKE_CENTS: u64 = 1_000_000_000;

/// What the offered prices of one band returned.
#[derive(Clone, Debug, Default)]
pub struct Band {
    /// Multiplier × true probability, per offered price.
    pub returns: Vec<f64>,
    /// Cash-out value ÷ true value of a bet placed at the price, per offered price with p > 0.
    pub cash_outs: Vec<f64>,
}

/// Per band, the offered prices' returns.
#[derive(Clone, Debug, Default)]
pub struct Returns {
    pub bands: [Band; 6],
    /// Prices offered on counts that cannot happen (true probability 0).
    pub offered_impossible: usize,
}

/// The band of a true probability (`None` for 0).
pub fn band_of(p: f64) -> Option<usize> {
    if p <= 0.0 {
        return None;
    }
    BANDS.iter().position(|&(lo, hi)| lo <= p && p < hi)
}

impl Returns {
    /// Records every price `quote` offers against the true probabilities `truth`.
    pub fn record(&mut self, quote: &Quote, truth: &[f64; COUNTS]) {
        for c in &quote.counts {
            let Some(m) = c.multiplier_cents else { continue };
            let p = truth[c.count as usize];
            let Some(band) = band_of(p) else {
                self.offered_impossible += 1;
                continue;
            };
            let ret = m as f64 / 100.0 * p;
            let cash = surrender_cents(quote, c.count, STAKE_CENTS, m) as f64;
            let band = &mut self.bands[band];
            band.returns.push(ret);
            band.cash_outs.push(cash / (STAKE_CENTS as f64 * m as f64 / 100.0 * p));
        }
    }

    /// Bands whose least return misses its target, and any price on an impossible count
    /// or returning more than `target` (by more than `slack`, the reference's own error).
    pub fn misses(&self, target: f64, slack: f64) -> Vec<String> {
        let mut out = Vec::new();
        if self.offered_impossible > 0 {
            out.push(format!(
                "{} price(s) offered on impossible counts",
                self.offered_impossible
            ));
        }
        for (i, band) in self.bands.iter().enumerate() {
            let (lo, hi) = BANDS[i];
            if let Some(min) = BAND_MIN_RETURN[i] {
                if let Some(worst) = band.returns.iter().copied().reduce(f64::min) {
                    if worst < min - slack {
                        out.push(format!("p in [{lo}, {hi}): a price returns {worst:.4} < {min}"));
                    }
                }
            }
            if let Some(best) = band.returns.iter().copied().reduce(f64::max) {
                if best > target + slack {
                    out.push(format!("p in [{lo}, {hi}): a price returns {best:.4} > {target}"));
                }
            }
        }
        out
    }

    /// The band table in Markdown.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| true p of the count | offered prices | return min / median / max | cash-out ÷ true value min / median / max | target |\n|---|---:|---|---|---|\n",
        );
        for (i, band) in self.bands.iter().enumerate() {
            let (lo, hi) = BANDS[i];
            let hi = if hi > 1.0 { 1.0 } else { hi };
            let target = match BAND_MIN_RETURN[i] {
                Some(min) => format!("≥ {min:.2}"),
                None => "none".into(),
            };
            out.push_str(&format!(
                "| {lo}–{hi} | {} | {} | {} | {target} |\n",
                band.returns.len(),
                spread(&band.returns),
                spread(&band.cash_outs)
            ));
        }
        out
    }
}

fn spread(v: &[f64]) -> String {
    if v.is_empty() {
        return "–".into();
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    format!("{:.3} / {:.3} / {:.3}", v[0], v[(v.len() - 1) / 2], v[v.len() - 1])
}
