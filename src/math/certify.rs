//! Pay-table certification (docs/math.md): every bet's outcome probabilities, RTP
//! (exact, or estimated with a 95% interval from a distribution of N), house
//! edge, standard deviation per unit staked, and pass/fail against the bounds.

use super::exact::*;
use super::n_distribution::{wilson_95, Estimate, NDistribution, N_MAX, N_MIN, Z_95};
use crate::bets::{AcePays, BetKind, PairTieRule, PayTable, PayTableSpec};
use num_rational::BigRational;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// Accepted RTP range, as fractions (0.80 = 80%).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RtpBounds {
    pub min_rtp: f64,
    pub max_rtp: f64,
}

impl Default for RtpBounds {
    fn default() -> Self {
        RtpBounds {
            min_rtp: 0.80,
            max_rtp: 0.995,
        }
    }
}

impl RtpBounds {
    /// Whether an exact RTP lies within the bounds, each bound read as the decimal it is
    /// written as (0.995 is 995/1000, not the nearest binary fraction): a bet whose RTP
    /// sits exactly on a bound passes, in certification and in both verifiers alike.
    pub fn contains(&self, rtp: &BigRational) -> bool {
        let (Some(min), Some(max)) = (decimal_bound(self.min_rtp), decimal_bound(self.max_rtp)) else {
            return false;
        };
        &min <= rtp && rtp <= &max
    }

    /// The bounds as written, in percent: "80%–99.5%".
    pub fn describe(&self) -> String {
        let percent = |x: f64| {
            x.to_string()
                .parse::<Decimal>()
                .map(|d| (d * Decimal::ONE_HUNDRED).normalize().to_string())
                .unwrap_or_else(|_| x.to_string())
        };
        format!("{}%–{}%", percent(self.min_rtp), percent(self.max_rtp))
    }

    pub fn new(min_rtp: f64, max_rtp: f64) -> Result<RtpBounds, String> {
        if min_rtp.is_finite() && max_rtp.is_finite() && 0.0 < min_rtp && min_rtp <= max_rtp {
            Ok(RtpBounds { min_rtp, max_rtp })
        } else {
            Err(format!("bad RTP bounds {min_rtp}..{max_rtp}"))
        }
    }
}

/// A bound as the shortest decimal that reads back as it.
fn decimal_bound(x: f64) -> Option<BigRational> {
    let d: Decimal = x.to_string().parse().ok()?;
    Some(decimal_to_rational(d))
}

/// A bet's RTP as an exact rational: from the closed form for Prima, Escúcha and
/// Máximo, and for the bets settled on N from the distribution's counts (Σ count·return
/// / deals). None for Cartas on a number the table does not offer. Certification and
/// both verifiers judge a pay table on this figure.
pub fn exact_rtp(kind: BetKind, number: Option<u8>, table: &PayTable, dist: &NDistribution) -> Option<BigRational> {
    let t = table.spec();
    let win = |a: Decimal| decimal_to_rational(Decimal::ONE + a);
    let over_n = |pays: &dyn Fn(u8) -> Option<Decimal>| {
        let sum = (N_MIN..=N_MAX).fold(BigRational::from_integer(0.into()), |acc, n| match pays(n) {
            Some(a) => acc + win(a) * BigRational::from_integer(dist.count(n).into()),
            None => acc,
        });
        sum / BigRational::from_integer(dist.total.max(1).into())
    };
    Some(match kind {
        BetKind::Prima | BetKind::Escucha => {
            let (plain, ace, pays) = first_card_bet(kind, t);
            plain * win(pays.pays) + ace * win(pays.ace_pays)
        }
        BetKind::Maximo => {
            let (w, pair, _) = maximo_probabilities();
            match t.maximo.pair_tie {
                PairTieRule::Lose => w * win(t.maximo.pays),
                PairTieRule::Push => w * win(t.maximo.pays) + pair,
            }
        }
        BetKind::ContoAlto => over_n(&|n| (n >= 17).then_some(t.conto_alto)),
        BetKind::ContoBajo => over_n(&|n| (n <= 11).then_some(t.conto_bajo)),
        BetKind::ContoMedio => over_n(&|n| (n == 14 || n == 15).then_some(t.conto_medio)),
        BetKind::Cartas => {
            let x = number?;
            let a = table.cartas_pays(x)?;
            over_n(&|n| (n == x).then_some(a))
        }
        BetKind::Comeco => over_n(&|n| table.comeco_pays(n)),
    })
}

/// The first bet of the table (in certificate order) whose exact RTP lies outside the
/// bounds: its name ("cartas 12"), its RTP, and the reason in plain words.
pub fn first_uncertified_bet(
    table: &PayTable,
    dist: &NDistribution,
    bounds: RtpBounds,
) -> Option<(String, BigRational, String)> {
    let mut bets: Vec<(BetKind, Option<u8>)> = Vec::new();
    for kind in BetKind::ALL {
        if kind == BetKind::Cartas {
            bets.extend(table.cartas_numbers().into_iter().map(|x| (kind, Some(x))));
        } else {
            bets.push((kind, None));
        }
    }
    bets.into_iter().find_map(|(kind, number)| {
        let rtp = exact_rtp(kind, number, table, dist)?;
        if bounds.contains(&rtp) {
            return None;
        }
        let name = match number {
            Some(x) => format!("{} {x}", kind.name()),
            None => kind.name().to_owned(),
        };
        let percent = rational_to_decimal_string(&(&rtp * ratio(100, 1)), 3);
        let message = format!(
            "{name} returns {percent}% of the stakes (its RTP), outside the certified bounds {}",
            bounds.describe()
        );
        Some((name, rtp, message))
    })
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Probability {
    Exact { fraction: String, value: f64 },
    Estimate { value: f64, low_95: f64, high_95: f64 },
}

impl Probability {
    pub fn value(&self) -> f64 {
        match self {
            Probability::Exact { value, .. } | Probability::Estimate { value, .. } => *value,
        }
    }
    fn exact(r: &BigRational) -> Probability {
        Probability::Exact {
            fraction: r.to_string(),
            value: rational_to_f64(r),
        }
    }
    fn estimate(e: Estimate) -> Probability {
        Probability::Estimate {
            value: e.value,
            low_95: e.low_95,
            high_95: e.high_95,
        }
    }
}

/// One way a bet can end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Outcome {
    /// e.g. "win", "win (ace)", "pair tie", "N = 10", "lose".
    pub name: String,
    /// What comes back per unit staked (0 for a loss, 1 for a push, 1 + a for a win at a:1).
    pub returns: Decimal,
    pub probability: Probability,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Rtp {
    /// Exact: `fraction` is the rational, `decimal` its value to 10 places.
    Exact {
        fraction: String,
        decimal: String,
        value: f64,
    },
    /// Estimated from `deals` simulated deals, with a 95% confidence interval.
    Estimate {
        value: f64,
        low_95: f64,
        high_95: f64,
        deals: u64,
    },
}

impl Rtp {
    pub fn value(&self) -> f64 {
        match self {
            Rtp::Exact { value, .. } | Rtp::Estimate { value, .. } => *value,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BetCertificate {
    /// Display name: the kind, plus the number for Cartas ("cartas 12").
    pub bet: String,
    pub kind: BetKind,
    pub number: Option<u8>,
    pub outcomes: Vec<Outcome>,
    pub rtp: Rtp,
    /// 1 − RTP.
    pub house_edge: f64,
    /// Standard deviation of the return per unit staked.
    pub std_dev_per_unit: f64,
    pub pass: bool,
}

/// Where the distribution of N came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NSource {
    pub algorithm: String,
    pub code_version: String,
    pub seed: u64,
    pub deals: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Failure {
    pub bet: String,
    pub rtp: f64,
    /// Ready for a 422: "conto_bajo has RTP 161.16%, outside 80.00%–99.50%".
    pub message: String,
}

/// Every bet outside the bounds, in the certificate's order.
fn failures_of(bets: &[BetCertificate], bounds: RtpBounds) -> Vec<Failure> {
    bets.iter()
        .filter(|b| !b.pass)
        .map(|b| Failure {
            bet: b.bet.clone(),
            rtp: b.rtp.value(),
            message: format!(
                "{} has RTP {:.2}%, outside {:.2}%–{:.2}%",
                b.bet,
                b.rtp.value() * 100.0,
                bounds.min_rtp * 100.0,
                bounds.max_rtp * 100.0
            ),
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Certificate {
    pub pay_table: String,
    pub version: u32,
    pub fingerprint: String,
    pub bounds: RtpBounds,
    pub n_distribution: NSource,
    pub bets: Vec<BetCertificate>,
    pub pass: bool,
    pub first_failure: Option<Failure>,
}

impl Certificate {
    /// Every failing bet (`first_failure` is the first of them).
    pub fn failures(&self) -> Vec<Failure> {
        failures_of(&self.bets, self.bounds)
    }
}

fn exact_bet(kind: BetKind, lines: Vec<(&str, Decimal, BigRational)>, bounds: RtpBounds) -> BetCertificate {
    let pairs: Vec<(BigRational, BigRational)> = lines
        .iter()
        .map(|(_, r, p)| (p.clone(), decimal_to_rational(*r)))
        .collect();
    let rtp = expectation(&pairs);
    let value = rational_to_f64(&rtp);
    BetCertificate {
        bet: kind.name().to_string(),
        kind,
        number: None,
        outcomes: lines
            .iter()
            .map(|(name, r, p)| Outcome {
                name: name.to_string(),
                returns: *r,
                probability: Probability::exact(p),
            })
            .collect(),
        rtp: Rtp::Exact {
            fraction: rtp.to_string(),
            decimal: rational_to_decimal_string(&rtp, 10),
            value,
        },
        house_edge: 1.0 - value,
        std_dev_per_unit: std_dev(&pairs),
        pass: bounds.contains(&rtp),
    }
}

/// A bet settled on N alone: `pays(n)` is the pay at N = n (None: loses).
/// Outcomes are grouped by consecutive N with the same pay.
fn count_bet(
    kind: BetKind,
    number: Option<u8>,
    pays: impl Fn(u8) -> Option<Decimal>,
    dist: &NDistribution,
    bounds: RtpBounds,
) -> BetCertificate {
    let mut outcomes = Vec::new();
    let (mut mean, mut second) = (0.0f64, 0.0f64);
    let mut lose_hits = 0u64;
    let mut n = N_MIN;
    while n <= N_MAX {
        match pays(n) {
            None => {
                lose_hits += dist.count(n);
                n += 1;
            }
            Some(a) => {
                let mut end = n;
                while end < N_MAX && pays(end + 1) == Some(a) {
                    end += 1;
                }
                let hits: u64 = (n..=end).map(|m| dist.count(m)).sum();
                let returns = Decimal::ONE + a;
                let r = f64::try_from(returns).unwrap_or(f64::NAN);
                let p = hits as f64 / dist.total.max(1) as f64;
                mean += p * r;
                second += p * r * r;
                let name = if n == end {
                    format!("win, N = {n}")
                } else {
                    format!("win, N = {n}..={end}")
                };
                outcomes.push(Outcome {
                    name,
                    returns,
                    probability: Probability::estimate(wilson_95(hits, dist.total)),
                });
                n = end + 1;
            }
        }
    }
    outcomes.push(Outcome {
        name: "lose".into(),
        returns: Decimal::ZERO,
        probability: Probability::estimate(wilson_95(lose_hits, dist.total)),
    });
    let var = (second - mean * mean).max(0.0);
    let half = Z_95 * (var / dist.total.max(1) as f64).sqrt();
    BetCertificate {
        bet: match number {
            Some(x) => format!("{} {x}", kind.name()),
            None => kind.name().to_string(),
        },
        kind,
        number,
        outcomes,
        rtp: Rtp::Estimate {
            value: mean,
            low_95: mean - half,
            high_95: mean + half,
            deals: dist.total,
        },
        house_edge: 1.0 - mean,
        std_dev_per_unit: var.sqrt(),
        pass: bounds.min_rtp <= mean && mean <= bounds.max_rtp,
    }
}

/// Certifies one bet (for Cartas, the given number).
pub fn certify_bet(
    kind: BetKind,
    number: Option<u8>,
    table: &PayTable,
    dist: &NDistribution,
    bounds: RtpBounds,
) -> Option<BetCertificate> {
    let t = table.spec();
    let win = |a: Decimal| Decimal::ONE + a;
    let mut certificate = match kind {
        BetKind::Prima | BetKind::Escucha => {
            let (plain, ace, pays) = first_card_bet(kind, t);
            let lose = one() - &plain - &ace;
            exact_bet(
                kind,
                vec![
                    ("win", win(pays.pays), plain),
                    ("win (ace)", win(pays.ace_pays), ace),
                    ("lose", Decimal::ZERO, lose),
                ],
                bounds,
            )
        }
        BetKind::Maximo => {
            let (w, pair, l) = maximo_probabilities();
            let lines = match t.maximo.pair_tie {
                PairTieRule::Lose => vec![("win", win(t.maximo.pays), w), ("lose", Decimal::ZERO, pair + l)],
                PairTieRule::Push => {
                    vec![
                        ("win", win(t.maximo.pays), w),
                        ("push (pair tie)", Decimal::ONE, pair),
                        ("lose", Decimal::ZERO, l),
                    ]
                }
            };
            exact_bet(kind, lines, bounds)
        }
        BetKind::ContoAlto => count_bet(kind, None, |n| (n >= 17).then_some(t.conto_alto), dist, bounds),
        BetKind::ContoBajo => count_bet(kind, None, |n| (n <= 11).then_some(t.conto_bajo), dist, bounds),
        BetKind::ContoMedio => count_bet(
            kind,
            None,
            |n| (n == 14 || n == 15).then_some(t.conto_medio),
            dist,
            bounds,
        ),
        BetKind::Cartas => {
            let x = number?;
            let a = table.cartas_pays(x)?;
            count_bet(kind, Some(x), |n| (n == x).then_some(a), dist, bounds)
        }
        BetKind::Comeco => count_bet(kind, None, |n| table.comeco_pays(n), dist, bounds),
    };
    // Judged on the exact figure the verifiers recompute, not on the float shown.
    certificate.pass = exact_rtp(kind, number, table, dist).is_some_and(|rtp| bounds.contains(&rtp));
    Some(certificate)
}

/// Certifies every bet of the pay table (Cartas: each offered number).
pub fn certify_pay_table(table: &PayTable, dist: &NDistribution, bounds: RtpBounds) -> Certificate {
    let mut bets = Vec::new();
    for kind in BetKind::ALL {
        if kind == BetKind::Cartas {
            for x in table.cartas_numbers() {
                bets.extend(certify_bet(kind, Some(x), table, dist, bounds));
            }
        } else {
            bets.extend(certify_bet(kind, None, table, dist, bounds));
        }
    }
    let first_failure = failures_of(&bets, bounds).into_iter().next();
    Certificate {
        pay_table: table.name().to_string(),
        version: table.version(),
        fingerprint: table.fingerprint(),
        bounds,
        n_distribution: NSource {
            algorithm: dist.algorithm.clone(),
            code_version: dist.code_version.clone(),
            seed: dist.seed,
            deals: dist.total,
        },
        pass: first_failure.is_none(),
        first_failure,
        bets,
    }
}

fn pct(x: f64) -> String {
    format!("{:.3}%", x * 100.0)
}

impl Certificate {
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A readable report.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Pay table {} v{} (sha256 {})",
            self.pay_table,
            self.version,
            &self.fingerprint[..16.min(self.fingerprint.len())]
        );
        let _ = writeln!(s, "Bounds: {} – {}", pct(self.bounds.min_rtp), pct(self.bounds.max_rtp));
        let n = &self.n_distribution;
        let _ = writeln!(
            s,
            "N distribution: {} deals, seed {}, {} (code {})",
            n.deals, n.seed, n.algorithm, n.code_version
        );
        let _ = writeln!(s);
        for b in &self.bets {
            let rtp = match &b.rtp {
                Rtp::Exact { fraction, .. } => format!("{} exact ({fraction})", pct(b.rtp.value())),
                Rtp::Estimate {
                    value, low_95, high_95, ..
                } => {
                    format!("{} (95% CI {} – {})", pct(*value), pct(*low_95), pct(*high_95))
                }
            };
            let verdict = if b.pass { "PASS" } else { "FAIL" };
            let _ = writeln!(
                s,
                "{:<12} RTP {rtp}  edge {}  sd/unit {:.3}  {verdict}",
                b.bet,
                pct(b.house_edge),
                b.std_dev_per_unit
            );
            for o in &b.outcomes {
                let p = match &o.probability {
                    Probability::Exact { fraction, value } => format!("{:.6} ({fraction})", value),
                    Probability::Estimate { value, low_95, high_95 } => {
                        format!("{value:.6} [{low_95:.6}, {high_95:.6}]")
                    }
                };
                let _ = writeln!(s, "    {:<22} returns {:>7}  p = {p}", o.name, o.returns.normalize());
            }
        }
        let _ = writeln!(s);
        match &self.first_failure {
            None => {
                let _ = writeln!(s, "CERTIFIED: every bet within bounds");
            }
            Some(f) => {
                let failing: Vec<&str> = self.bets.iter().filter(|b| !b.pass).map(|b| b.bet.as_str()).collect();
                let _ = writeln!(s, "NOT CERTIFIED: {} (failing: {})", f.message, failing.join(", "));
            }
        }
        s
    }
}

/// Prima's or Escúcha's chances (a plain card, an ace) and the pays of `t` for it.
fn first_card_bet(kind: BetKind, t: &PayTableSpec) -> (BigRational, BigRational, &AcePays) {
    if kind == BetKind::Prima {
        let (plain, ace) = prima_probabilities();
        (plain, ace, &t.prima)
    } else {
        let (plain, ace) = escucha_probabilities();
        (plain, ace, &t.escucha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bets::PayTableSpec;

    fn dist_uniform_on(ns: &[(u8, u64)]) -> NDistribution {
        let mut d = NDistribution::empty("test", "0", 0);
        let mut counts = vec![0u64; 41];
        for &(n, c) in ns {
            counts[(n - N_MIN) as usize] = c;
        }
        d.merge_counts(&counts);
        d
    }

    #[test]
    fn exact_rtps_of_the_source_figures() {
        let d = dist_uniform_on(&[(14, 1)]);
        let c = certify_pay_table(&PayTable::default_table(), &d, RtpBounds::default());
        let get = |name: &str| c.bets.iter().find(|b| b.bet == name).unwrap().clone();
        assert!(matches!(get("prima").rtp, Rtp::Exact { ref fraction, .. } if fraction == "24/25"));
        assert!(matches!(get("escucha").rtp, Rtp::Exact { ref fraction, .. } if fraction == "24/25"));
        // Máximo 4:1: P(win) = (25333 + 10*... ) computed in exact.rs; RTP = 5·P(win)
        let (w, _, _) = maximo_probabilities();
        let expected = rational_to_decimal_string(&(w * ratio(5, 1)), 10);
        assert!(matches!(get("maximo").rtp, Rtp::Exact { ref decimal, .. } if *decimal == expected));
    }

    #[test]
    fn count_bets_on_a_known_distribution() {
        // N = 10 in 1 deal of 4, N = 14 in 2, N = 17 in 1
        let d = dist_uniform_on(&[(10, 1), (14, 2), (17, 1)]);
        let t = PayTable::default_table();
        let c = certify_pay_table(&t, &d, RtpBounds::default());
        let rtp = |name: &str| c.bets.iter().find(|b| b.bet == name).unwrap().rtp.value();
        assert!((rtp("conto_bajo") - 15.0 / 4.0).abs() < 1e-12);
        assert!((rtp("conto_medio") - 3.0 / 2.0).abs() < 1e-12);
        assert!((rtp("conto_alto") - 9.0 / 4.0).abs() < 1e-12);
        assert!(rtp("cartas 12") == 0.0);
        assert!((rtp("comeco") - (7.0 + 2.0) / 4.0).abs() < 1e-12);
        assert!(!c.pass);
        let f = c.first_failure.unwrap();
        assert_eq!(f.bet, "conto_alto");
        assert!(f.message.contains("225.00%"), "{}", f.message);
        // Medio at 2:1, p = 1/2: sd = sqrt(0.5·9 − 1.5²) = 1.5
        let medio = c.bets.iter().find(|b| b.bet == "conto_medio").unwrap();
        assert!((medio.std_dev_per_unit - 1.5).abs() < 1e-12);
    }

    #[test]
    fn pair_tie_push_adds_an_outcome_and_raises_rtp() {
        let d = dist_uniform_on(&[(14, 1)]);
        let mut spec: PayTableSpec = PayTable::default_table().spec().clone();
        let lose = certify_bet(
            BetKind::Maximo,
            None,
            &PayTable::new(spec.clone()).unwrap(),
            &d,
            RtpBounds::default(),
        )
        .unwrap();
        spec.maximo.pair_tie = PairTieRule::Push;
        let push = certify_bet(
            BetKind::Maximo,
            None,
            &PayTable::new(spec).unwrap(),
            &d,
            RtpBounds::default(),
        )
        .unwrap();
        assert_eq!(push.outcomes.len(), 3);
        assert!(push.rtp.value() > lose.rtp.value());
        let text = certify_pay_table(&PayTable::default_table(), &d, RtpBounds::default()).to_text();
        assert!(text.contains("maximo") && text.contains("NOT CERTIFIED"));
    }
}
