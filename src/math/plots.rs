//! SVG plots for the math report (plotters' SVG backend; text is left to the
//! SVG viewer's fonts, none are loaded here).

use super::certify::{Certificate, Rtp};
use super::n_distribution::{NDistribution, N_MIN};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// P(N = n) with its 95% interval, log scale (the tail spans many decades).
pub fn write_n_distribution_svg(path: &Path, dist: &NDistribution) -> Result<(), String> {
    let max_n = dist.max_seen().max(N_MIN + 1);
    let root = SVGBackend::new(path, (900, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let floor = 0.5 / dist.total.max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "Distribution of N (first-pass count), {} deals, seed {}",
                dist.total, dist.seed
            ),
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((N_MIN as f64 - 0.5)..(max_n as f64 + 0.5), (floor..1.0f64).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("N")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("P(N = n), 95% CI")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(err)?;
    let points: Vec<(u8, f64, f64, f64)> = (N_MIN..=max_n)
        .filter(|&n| dist.count(n) > 0)
        .map(|n| {
            let e = dist.probability(n);
            (n, e.value, e.low_95.max(floor), e.high_95)
        })
        .collect();
    chart
        .draw_series(
            points
                .iter()
                .map(|&(n, _, lo, hi)| PathElement::new(vec![(n as f64, lo), (n as f64, hi)], BLUE.stroke_width(2))),
        )
        .map_err(err)?;
    chart
        .draw_series(
            points
                .iter()
                .map(|&(n, p, _, _)| Circle::new((n as f64, p), 3, BLUE.filled())),
        )
        .map_err(err)?;
    root.present().map_err(err)
}

/// Each bet's RTP (with its 95% interval when simulated) against the bounds.
pub fn write_rtp_svg(path: &Path, cert: &Certificate) -> Result<(), String> {
    let bets = &cert.bets;
    let (lo_b, hi_b) = (cert.bounds.min_rtp * 100.0, cert.bounds.max_rtp * 100.0);
    let values: Vec<(f64, f64, f64)> = bets
        .iter()
        .map(|b| match &b.rtp {
            Rtp::Exact { value, .. } => (value * 100.0, value * 100.0, value * 100.0),
            Rtp::Estimate {
                value, low_95, high_95, ..
            } => (value * 100.0, low_95 * 100.0, high_95 * 100.0),
        })
        .collect();
    // Keep the bounds readable: RTPs far above the upper bound are drawn at the
    // top edge with their value written beside them.
    let y_cap = hi_b + 20.0;
    let y_min = values.iter().map(|v| v.1).fold(lo_b, f64::min) - 3.0;
    let y_max = values.iter().map(|v| v.2).fold(hi_b, f64::max).min(y_cap) + 3.0;
    let root = SVGBackend::new(path, (900, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let names: Vec<String> = bets.iter().map(|b| b.bet.clone()).collect();
    let count = bets.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("RTP by bet, pay table {} v{}", cert.pay_table, cert.version),
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(60)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..(count as f64 - 0.5), y_min..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(count)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("RTP %")
        .draw()
        .map_err(err)?;
    for bound in [lo_b, hi_b] {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(-0.5, bound), (count as f64 - 0.5, bound)],
                RED.stroke_width(2),
            )))
            .map_err(err)?;
    }
    for (i, (b, &(v, lo, hi))) in bets.iter().zip(&values).enumerate() {
        let colour = if b.pass { GREEN.mix(0.9) } else { RED.mix(0.9) };
        let x = i as f64;
        if v > y_cap {
            chart
                .draw_series(std::iter::once(TriangleMarker::new((x, y_cap), 7, colour.filled())))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{v:.1}%"),
                    (x + 0.12, y_cap),
                    ("sans-serif", 13),
                )))
                .map_err(err)?;
            continue;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                BLACK.stroke_width(2),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(Circle::new((x, v), 5, colour.filled())))
            .map_err(err)?;
    }
    root.present().map_err(err)
}

/// Writes `n_distribution.svg` and `rtp_by_bet.svg` into `dir`.
pub fn write_svgs(dir: &Path, dist: &NDistribution, cert: &Certificate) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(err)?;
    let a = dir.join("n_distribution.svg");
    let b = dir.join("rtp_by_bet.svg");
    write_n_distribution_svg(&a, dist)?;
    write_rtp_svg(&b, cert)?;
    Ok(vec![a, b])
}
