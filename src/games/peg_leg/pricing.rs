//! Quotes: after every card, the distribution of the final key-suit count
//! given the cards dealt (the rest in a uniformly random order), a multiplier
//! per count whose RTP is at most the table's target, and the surrender value
//! of a bet already placed (docs/peg-leg.md).
//!
//! Every offered multiplier m for count k satisfies P(k | now) · m ≤ target,
//! exactly (integer arithmetic) when the distribution is exact, and with
//! P(k | now) replaced by its upper confidence bound when it is simulated.
//! A bet's surrender value is at most target · stake · m · P(k | now) (the
//! lower confidence bound when simulated). The bet's fair value,
//! stake · m · P(k | now), is a martingale as the cards fall, so no way of
//! placing, keeping and surrendering bets returns more than the target.

use super::engine::{reachable_max, reachable_min, PegLegPass, DECK_MASK, MAX_COUNT};
use super::exact::{exact_order_counts, exact_order_counts_in, ExactMemo, OrderCounts, MAX_EXACT_UNDEALT};
use super::simulate::{kl_lower, kl_upper, sample_counts, SampleCounts};
use crate::cards::Suit;
use crate::math::RtpBounds;
use num_bigint::BigInt;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Number of final counts, 0..=10 (0 never happens: the first card is the
/// key suit's foundation).
pub const COUNTS: usize = MAX_COUNT as usize + 1;

/// How a table prices Peg Leg.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PricingConfig {
    /// The target RTP in basis points (9500 = 95.00%); every offered
    /// multiplier's RTP is at most this.
    pub target_rtp_bp: u32,
    /// Simulated deals per quote when the exact search is abandoned.
    pub samples: u64,
    /// The chance, per quote, that a simulated probability lies outside its
    /// bounds (split over the 11 counts and both sides).
    pub delta: f64,
    /// The most states the exact search may store before it gives way to
    /// simulation (with more than `exact_undealt` cards undealt).
    pub exact_budget: usize,
    /// With at most this many cards undealt the exact search always runs to the end,
    /// whatever its size (measured: docs/peg-leg.md), its memo carried from card to card.
    #[serde(default = "default_exact_undealt")]
    pub exact_undealt: u32,
    /// The largest multiplier offered, in hundredths.
    pub max_multiplier_cents: u64,
    /// The smallest multiplier worth offering, in hundredths (a lower one
    /// would return less than the stake on a win).
    pub min_multiplier_cents: u64,
}

impl Default for PricingConfig {
    fn default() -> Self {
        PricingConfig {
            target_rtp_bp: 9500,
            samples: 30_000,
            delta: 1e-9,
            exact_budget: 3_000,
            exact_undealt: default_exact_undealt(),
            max_multiplier_cents: 100_000,
            min_multiplier_cents: 101,
        }
    }
}

fn default_exact_undealt() -> u32 {
    EXACT_UNDEALT
}

/// Undealt cards from which every quote is exact (the search's size there: docs/peg-leg.md).
pub const EXACT_UNDEALT: u32 = 13;

impl PricingConfig {
    /// Checks the target against the certification bounds and the rest for sense.
    pub fn validate(&self, bounds: &RtpBounds) -> Result<(), String> {
        let target = self.target_rtp_bp as f64 / 10_000.0;
        if target < bounds.min_rtp - 1e-12 || target > bounds.max_rtp + 1e-12 {
            return Err(format!(
                "target RTP {:.2}% is outside the certification bounds {:.2}%–{:.2}%",
                target * 100.0,
                bounds.min_rtp * 100.0,
                bounds.max_rtp * 100.0
            ));
        }
        if self.samples == 0 || !(self.delta > 0.0 && self.delta < 1.0) {
            return Err("samples must be positive and delta in (0, 1)".into());
        }
        if self.min_multiplier_cents < 100 || self.max_multiplier_cents < self.min_multiplier_cents {
            return Err("multipliers: need 1.00 ≤ min ≤ max".into());
        }
        Ok(())
    }
}

/// The distribution of the final key-suit count given the cards dealt.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    /// `orders[k]` of the `total` orders of the undealt cards end at count k
    /// (`total` is 1 when the count is already settled).
    Exact {
        orders: OrderCounts,
        total: u128,
        states: usize,
    },
    /// `hits[k]` of `samples` simulated ends were at count k; each
    /// probability lies in [lower, upper] except with probability `delta`
    /// for the eleven counts together.
    Simulated {
        hits: SampleCounts,
        samples: u64,
        delta: f64,
        lower: [f64; COUNTS],
        upper: [f64; COUNTS],
    },
}

impl Distribution {
    pub fn is_exact(&self) -> bool {
        matches!(self, Distribution::Exact { .. })
    }

    /// The probability of final count k (the estimate when simulated).
    pub fn probability(&self, k: usize) -> f64 {
        match self {
            Distribution::Exact { orders, total, .. } => orders[k] as f64 / *total as f64,
            Distribution::Simulated { hits, samples, .. } => hits[k] as f64 / *samples as f64,
        }
    }

    /// A value at or above the probability of count k (proven when exact:
    /// rounded up; with confidence 1 − delta when simulated).
    pub fn upper(&self, k: usize) -> f64 {
        match self {
            Distribution::Exact { .. } => (self.probability(k) * (1.0 + 1e-12)).min(1.0),
            Distribution::Simulated { upper, .. } => upper[k],
        }
    }

    /// A value at or below the probability of count k.
    pub fn lower(&self, k: usize) -> f64 {
        match self {
            Distribution::Exact { .. } => self.probability(k) * (1.0 - 1e-12),
            Distribution::Simulated { lower, .. } => lower[k],
        }
    }
}

/// The distribution of the key suit's final count after the cards dealt so
/// far: exact when the memoised search finishes within `config.exact_budget`
/// states, otherwise `config.samples` simulated ends of the pass drawn with
/// `rng`. `None` before the first card (there is no key suit yet).
pub fn distribution<R: Rng + ?Sized>(pass: &PegLegPass, config: &PricingConfig, rng: &mut R) -> Option<Distribution> {
    distribution_in(&mut ExactMemo::new(), pass, config, rng)
}

/// As `distribution`, with the exact search's memo kept in `memo` from one card of the
/// pass to the next (the same distribution as without it, found sooner). With at most
/// `config.exact_undealt` cards undealt the search always runs to the end; with more it
/// gets a fresh memo and `config.exact_budget` states, so whether a quote is exact
/// depends on its position alone.
pub fn distribution_in<R: Rng + ?Sized>(
    memo: &mut ExactMemo,
    pass: &PegLegPass,
    config: &PricingConfig,
    rng: &mut R,
) -> Option<Distribution> {
    let key = pass.key_suit()?;
    let undealt = !pass.dealt_mask() & DECK_MASK;
    let search = if undealt.count_ones() <= config.exact_undealt.min(MAX_EXACT_UNDEALT) {
        exact_order_counts_in(memo, pass.cursor(), key, undealt, usize::MAX)
    } else {
        exact_order_counts(pass.cursor(), key, undealt, config.exact_budget)
    };
    if let Some(orders) = search.counts {
        return Some(Distribution::Exact {
            orders,
            total: search.total,
            states: search.states,
        });
    }
    Some(simulated(pass, key, config, rng))
}

/// The simulated distribution alone (also the benchmark's and the tests' reference).
pub fn simulated<R: Rng + ?Sized>(pass: &PegLegPass, key: Suit, config: &PricingConfig, rng: &mut R) -> Distribution {
    let hits = sample_counts(pass.cursor(), key, &pass.undealt(), config.samples, rng);
    // Union bound: 11 counts, two sides each.
    let log_inv = (2.0 * COUNTS as f64 / config.delta).ln();
    let mut lower = [0.0; COUNTS];
    let mut upper = [0.0; COUNTS];
    let undealt = !pass.dealt_mask() & DECK_MASK;
    let least = reachable_min(pass.cursor(), key, undealt) as usize;
    let reachable = reachable_max(pass.cursor(), key, undealt) as usize;
    for k in 0..COUNTS {
        if k < least || k > reachable {
            // The stack never shrinks, grows the moment the card it needs next is dealt, and never
            // grows past a frozen card: impossible, not estimated.
            continue;
        }
        lower[k] = kl_lower(hits[k], config.samples, log_inv);
        upper[k] = kl_upper(hits[k], config.samples, log_inv);
    }
    Distribution::Simulated {
        hits,
        samples: config.samples,
        delta: config.delta,
        lower,
        upper,
    }
}

/// The price of one final count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CountQuote {
    pub count: u8,
    /// The probability (estimated when simulated).
    pub probability: f64,
    /// When exact: the probability as a reduced fraction "p/q".
    pub exact: Option<String>,
    /// Bounds on the probability used for the prices.
    pub lower: f64,
    pub upper: f64,
    /// What a winning bet returns per unit staked, stake included, in
    /// hundredths; `None` when the count is not offered (impossible, or its
    /// fair multiplier is below the table's minimum).
    pub multiplier_cents: Option<u64>,
}

/// How the quote's probabilities were found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    Exact { states: usize },
    Simulated { samples: u64, delta: f64 },
}

/// All prices after one card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// Cards dealt when the quote was made (1 after the first card).
    pub cards_dealt: u8,
    pub key_suit: Suit,
    pub key_count: u8,
    pub target_rtp_bp: u32,
    pub method: Method,
    /// Counts 0..=10, in order.
    pub counts: Vec<CountQuote>,
    #[serde(skip)]
    pub distribution: Option<Distribution>,
}

/// Quotes every count after the cards dealt so far. `None` before the first card.
pub fn quote<R: Rng + ?Sized>(pass: &PegLegPass, config: &PricingConfig, rng: &mut R) -> Option<Quote> {
    quote_in(&mut ExactMemo::new(), pass, config, rng)
}

/// As `quote`, the exact search's memo kept in `memo` for the pass's next card.
pub fn quote_in<R: Rng + ?Sized>(
    memo: &mut ExactMemo,
    pass: &PegLegPass,
    config: &PricingConfig,
    rng: &mut R,
) -> Option<Quote> {
    let dist = distribution_in(memo, pass, config, rng)?;
    Some(quote_from(pass, config, dist))
}

/// The quote for a distribution already found.
pub fn quote_from(pass: &PegLegPass, config: &PricingConfig, dist: Distribution) -> Quote {
    let counts = (0..COUNTS)
        .map(|k| {
            let (exact, multiplier) = match &dist {
                Distribution::Exact { orders, total, .. } => {
                    let exact = (orders[k] > 0).then(|| {
                        let g = gcd(orders[k], *total);
                        format!("{}/{}", orders[k] / g, total / g)
                    });
                    (exact, exact_multiplier(orders[k], *total, config))
                }
                // Only a count seen in the simulation is offered: it can happen. One never seen is
                // either impossible or too rare for the samples to price (its bound would be the
                // samples' resolution, not its probability).
                Distribution::Simulated { hits, upper, .. } => (
                    None,
                    (hits[k] > 0).then(|| simulated_multiplier(upper[k], config)).flatten(),
                ),
            };
            CountQuote {
                count: k as u8,
                probability: dist.probability(k),
                exact,
                lower: dist.lower(k),
                upper: dist.upper(k),
                multiplier_cents: multiplier,
            }
        })
        .collect();
    Quote {
        cards_dealt: pass.dealt().len() as u8,
        key_suit: pass.key_suit().expect("a distribution needs a key suit"),
        key_count: pass.key_count(),
        target_rtp_bp: config.target_rtp_bp,
        method: match &dist {
            Distribution::Exact { states, .. } => Method::Exact { states: *states },
            Distribution::Simulated { samples, delta, .. } => Method::Simulated {
                samples: *samples,
                delta: *delta,
            },
        },
        counts,
        distribution: Some(dist),
    }
}

fn offered(cents: u64, config: &PricingConfig) -> Option<u64> {
    let cents = cents.min(config.max_multiplier_cents);
    (cents >= config.min_multiplier_cents).then_some(cents)
}

/// The largest m (in hundredths) with (orders/total) · m/100 ≤ target.
fn exact_multiplier(orders: u128, total: u128, config: &PricingConfig) -> Option<u64> {
    if orders == 0 {
        return None;
    }
    // m ≤ target_bp · total / (100 · orders), in integers.
    let num = BigInt::from(config.target_rtp_bp) * BigInt::from(total);
    let den = BigInt::from(100u32) * BigInt::from(orders);
    // Both non-negative: integer division rounds down.
    let cents = &num / &den;
    let cents = u64::try_from(cents).unwrap_or(u64::MAX);
    offered(cents, config)
}

/// The largest m (in hundredths) with upper · m/100 ≤ target, rounded down.
fn simulated_multiplier(upper: f64, config: &PricingConfig) -> Option<u64> {
    if upper <= 0.0 {
        return None;
    }
    let cents = (config.target_rtp_bp as f64 / 100.0 / upper * (1.0 - 1e-12)).floor();
    offered(
        if cents >= u64::MAX as f64 {
            u64::MAX
        } else {
            cents as u64
        },
        config,
    )
}

/// What surrendering a bet on `count`, placed at `multiplier_cents` with
/// `stake_cents`, pays now, in cents, rounded down: target × stake ×
/// multiplier × P(count | now), the lower bound when simulated.
pub fn surrender_cents(quote: &Quote, count: u8, stake_cents: u64, multiplier_cents: u64) -> u64 {
    let k = count as usize;
    let Some(dist) = &quote.distribution else { return 0 };
    if k >= COUNTS {
        return 0;
    }
    match dist {
        Distribution::Exact { orders, total, .. } => {
            // stake · (m/100) · (target_bp/10000) · orders/total
            let num = BigInt::from(stake_cents)
                * BigInt::from(multiplier_cents)
                * BigInt::from(quote.target_rtp_bp)
                * BigInt::from(orders[k]);
            let den = BigInt::from(1_000_000u64) * BigInt::from(*total);
            u64::try_from(&num / &den).unwrap_or(0)
        }
        Distribution::Simulated { lower, .. } => {
            let value = stake_cents as f64 * multiplier_cents as f64 / 100.0 * quote.target_rtp_bp as f64 / 10_000.0
                * lower[k]
                * (1.0 - 1e-12);
            value.floor().max(0.0) as u64
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
