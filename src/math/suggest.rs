//! Operator tool: for a bet and a target RTP, the pays (on a grid of `step`)
//! that come closest to the target from below.

use super::certify::{certify_bet, RtpBounds};
use super::n_distribution::NDistribution;
use crate::bets::{BetKind, PayTable, PayTableSpec};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaySuggestion {
    pub bet: String,
    pub target_rtp: f64,
    /// RTP of the suggestion (≤ target).
    pub rtp: f64,
    /// The changed pays, by name ("pays", "ace_pays", "N 10", ...).
    pub pays: Vec<(String, Decimal)>,
    /// The base table with the suggestion applied and its version raised by one.
    pub pay_table: PayTable,
}

const MAX_STEPS: i64 = 200_000;

fn rtp_of(kind: BetKind, number: Option<u8>, spec: &PayTableSpec, dist: &NDistribution) -> Option<f64> {
    let table = PayTable::new(spec.clone()).ok()?;
    certify_bet(kind, number, &table, dist, RtpBounds::default()).map(|c| c.rtp.value())
}

/// The largest k ≥ 1 with f(k·step) ≤ target (f increasing), or None.
fn largest_below(step: Decimal, target: f64, f: impl Fn(Decimal) -> Option<f64>) -> Option<(Decimal, f64)> {
    let at = |k: i64| f(step * Decimal::from(k));
    let first = at(1)?;
    if first > target {
        return None;
    }
    let (mut lo, mut hi) = (1i64, 2i64);
    while hi <= MAX_STEPS && at(hi).is_some_and(|r| r <= target) {
        lo = hi;
        hi *= 2;
    }
    let mut hi = hi.min(MAX_STEPS + 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if at(mid).is_some_and(|r| r <= target) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some((step * Decimal::from(lo), at(lo)?))
}

/// Suggests pays for `kind` (for Cartas, `number`) on multiples of `step`, on
/// top of `base`. Prima and Escúcha keep their Ace pay's ratio to the main pay
/// (rounded down to the step); Máximo keeps its pair-tie rule; Começo scales all
/// its lines by one factor (each pay rounded down to the step, at least one step).
pub fn suggest_pays(
    kind: BetKind,
    number: Option<u8>,
    target_rtp: f64,
    base: &PayTable,
    dist: &NDistribution,
    step: Decimal,
) -> Result<PaySuggestion, String> {
    if step <= Decimal::ZERO || step.normalize().scale() > 2 {
        return Err("step must be positive with at most 2 decimal places".into());
    }
    if !(target_rtp > 0.0 && target_rtp.is_finite()) {
        return Err("target RTP must be positive".into());
    }
    let floor_step = |x: Decimal| ((x / step).floor() * step).max(step);
    let spec0 = base.spec().clone();
    let apply = |a: Decimal| -> PayTableSpec {
        let mut s = spec0.clone();
        match kind {
            BetKind::Prima | BetKind::Escucha => {
                let p = if kind == BetKind::Prima {
                    &mut s.prima
                } else {
                    &mut s.escucha
                };
                let ratio = p.ace_pays / p.pays;
                p.pays = a;
                p.ace_pays = floor_step(a * ratio);
            }
            BetKind::Maximo => s.maximo.pays = a,
            BetKind::ContoAlto => s.conto_alto = a,
            BetKind::ContoBajo => s.conto_bajo = a,
            BetKind::ContoMedio => s.conto_medio = a,
            BetKind::Cartas => {
                for l in s.cartas.iter_mut().filter(|l| Some(l.number) == number) {
                    l.pays = a;
                }
            }
            BetKind::Comeco => {
                // `a` is the factor applied to the base table's pays.
                for l in s.comeco.iter_mut() {
                    l.pays = floor_step(l.pays * a);
                }
            }
        }
        s
    };
    if kind == BetKind::Cartas && number.and_then(|x| base.cartas_pays(x)).is_none() {
        return Err("Cartas needs a number the base pay table offers".into());
    }
    let factor_step = if kind == BetKind::Comeco {
        Decimal::new(1, 3)
    } else {
        step
    };
    let (a, rtp) = largest_below(factor_step, target_rtp, |a| rtp_of(kind, number, &apply(a), dist))
        .ok_or_else(|| format!("no pays on a {step} grid reach below RTP {target_rtp}"))?;
    let mut spec = apply(a);
    spec.version = base.version().saturating_add(1);
    let pays = match kind {
        BetKind::Prima => vec![
            ("pays".into(), spec.prima.pays),
            ("ace_pays".into(), spec.prima.ace_pays),
        ],
        BetKind::Escucha => vec![
            ("pays".into(), spec.escucha.pays),
            ("ace_pays".into(), spec.escucha.ace_pays),
        ],
        BetKind::Comeco => spec
            .comeco
            .iter()
            .map(|l| (format!("N {}..={}", l.n_from, l.n_to), l.pays))
            .collect(),
        _ => vec![("pays".into(), a)],
    };
    let pay_table = PayTable::new(spec).map_err(|e| e.to_string())?;
    Ok(PaySuggestion {
        bet: match number {
            Some(x) if kind == BetKind::Cartas => format!("cartas {x}"),
            _ => kind.name().to_string(),
        },
        target_rtp,
        rtp,
        pays,
        pay_table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::cached_n_distribution;

    #[test]
    fn prima_at_96_percent_is_the_source_table() {
        let d = cached_n_distribution();
        let s = suggest_pays(BetKind::Prima, None, 0.96, &PayTable::default_table(), d, Decimal::ONE).unwrap();
        assert_eq!(
            s.pays,
            vec![
                ("pays".to_string(), Decimal::from(4)),
                ("ace_pays".to_string(), Decimal::from(2))
            ]
        );
        assert!((s.rtp - 0.96).abs() < 1e-12);
        // a finer grid gets closer from below, never above
        let s = suggest_pays(
            BetKind::Prima,
            None,
            0.97,
            &PayTable::default_table(),
            d,
            Decimal::new(1, 2),
        )
        .unwrap();
        assert!(s.rtp <= 0.97 && s.rtp > 0.965, "{}", s.rtp);
    }

    #[test]
    fn count_bets_land_just_below_the_target() {
        let d = cached_n_distribution();
        let t = PayTable::default_table();
        for (kind, number) in [
            (BetKind::ContoBajo, None),
            (BetKind::Cartas, Some(13)),
            (BetKind::Comeco, None),
        ] {
            let s = suggest_pays(kind, number, 0.95, &t, d, Decimal::new(1, 1)).unwrap();
            assert!(s.rtp <= 0.95 && s.rtp > 0.90, "{kind:?} {}", s.rtp);
            assert_eq!(s.pay_table.version(), t.version() + 1);
        }
        assert!(suggest_pays(BetKind::Cartas, Some(14), 0.95, &t, d, Decimal::ONE).is_err());
        assert!(suggest_pays(BetKind::ContoMedio, None, 0.5, &t, d, Decimal::ONE).is_err());
    }
}
