//! The floor's plots (docs/floor.md, "Plots"): per table, day by day, the hold,
//! the side bets' actual − theoretical win with its 99% band, and rounds per
//! hour, as SVG (plotters' SVG backend; text is left to the viewer's fonts).
//! Pure: each day's table lines in, an SVG document out.

use chrono::NaiveDate;
use plotters::prelude::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

use super::PerformanceLine;

/// The figures a plot shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Figure {
    /// `hold_percent` per table and day.
    Hold,
    /// `actual_minus_theo` per table and day, with ± `band_99`.
    ActualMinusTheo,
    /// `rounds_per_hour` per table and day.
    RoundsPerHour,
}

impl Figure {
    pub const ALL: [Figure; 3] = [Figure::Hold, Figure::ActualMinusTheo, Figure::RoundsPerHour];

    /// The name used in paths and file names.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Hold => "hold",
            Figure::ActualMinusTheo => "actual-minus-theo",
            Figure::RoundsPerHour => "rounds-per-hour",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Figure::Hold => "Hold % per table and gaming day",
            Figure::ActualMinusTheo => "Side bets: actual − theoretical win, with the 99% band",
            Figure::RoundsPerHour => "Rounds per hour per table and gaming day",
        }
    }

    /// The point (value, half-width of its band) a table's whole-day line gives; None: nothing to plot.
    fn point(self, line: &PerformanceLine) -> Option<(f64, f64)> {
        let number = |text: &str| text.parse::<f64>().ok();
        match self {
            Figure::Hold => Some((number(line.hold_percent.as_deref()?)?, 0.0)),
            Figure::ActualMinusTheo => Some((number(&line.actual_minus_theo)?, number(&line.band_99)?)),
            Figure::RoundsPerHour => Some((number(line.rounds_per_hour.as_deref()?)?, 0.0)),
        }
    }
}

/// One table's points: (day index, value, half-band).
type Series = Vec<(f64, f64, f64)>;

/// Gaming days, each with its table report's lines.
pub type Days = Vec<(NaiveDate, Vec<PerformanceLine>)>;

/// The SVG of `figure` over `days`.
pub fn svg(figure: Figure, days: &[(NaiveDate, Vec<PerformanceLine>)]) -> Result<String, super::FloorError> {
    let mut by_table: BTreeMap<String, Series> = BTreeMap::new();
    for (k, (_, lines)) in days.iter().enumerate() {
        for line in lines.iter().filter(|l| l.table_id.is_some() && l.shift.is_none()) {
            if let Some((value, band)) = figure.point(line) {
                let name = line.table_name.clone().unwrap_or_default();
                by_table.entry(name).or_default().push((k as f64, value, band));
            }
        }
    }
    let (mut low, mut high) = by_table
        .values()
        .flatten()
        .fold((0f64, 0f64), |(lo, hi), (_, v, b)| (lo.min(v - b), hi.max(v + b)));
    if high - low < 1e-9 {
        (low, high) = (low - 1.0, high + 1.0);
    }
    let pad = (high - low) * 0.05;
    let last = days.len().saturating_sub(1) as f64;
    let label = |x: &f64| {
        days.get(x.round().max(0.0) as usize)
            .map(|(d, _)| d.format("%m-%d").to_string())
            .unwrap_or_default()
    };

    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (960, 540)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(figure.title(), ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..(last + 0.5), (low - pad)..(high + pad))
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("gaming day")
            .x_labels(days.len().clamp(1, 12))
            .x_label_formatter(&label)
            .y_desc(figure.name())
            .draw()
            .map_err(err)?;
        let spread = 0.3 / by_table.len().max(1) as f64;
        for (i, (name, points)) in by_table.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            // Tables side by side within a day, so that bands do not hide each other.
            let shift = (i as f64 - (by_table.len() as f64 - 1.0) / 2.0) * spread;
            chart
                .draw_series(LineSeries::new(points.iter().map(|(x, v, _)| (x + shift, *v)), color))
                .map_err(err)?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|(x, v, _)| Circle::new((x + shift, *v), 3, color.filled())),
                )
                .map_err(err)?;
            chart
                .draw_series(points.iter().filter(|(.., b)| *b > 0.0).map(|(x, v, b)| {
                    PathElement::new(vec![(x + shift, v - b), (x + shift, v + b)], color.stroke_width(1))
                }))
                .map_err(err)?;
        }
        if figure == Figure::ActualMinusTheo {
            chart
                .draw_series(LineSeries::new([(-0.5, 0.0), (last + 0.5, 0.0)], BLACK.stroke_width(1)))
                .map_err(err)?;
        }
        if !by_table.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(out)
}

fn err<E: std::fmt::Display>(e: E) -> super::FloorError {
    super::FloorError::Plot(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(table: &str, hold: Option<&str>, diff: &str, band: &str, rate: Option<&str>) -> PerformanceLine {
        PerformanceLine {
            table_id: Some(format!("id-{table}")),
            table_name: Some(table.into()),
            game: Some("prima_carta".into()),
            pit: None,
            shift: None,
            rounds: 3,
            voided_rounds: 0,
            open_hours: "1.00".into(),
            rounds_per_hour: rate.map(Into::into),
            drop: "10.00".into(),
            house_win: "1.00".into(),
            hold_percent: hold.map(Into::into),
            covered_win: "1.00".into(),
            theo_win: "0.50".into(),
            theo_sd: "1.00".into(),
            actual_minus_theo: diff.into(),
            band_99: band.into(),
            outside_band: false,
        }
    }

    #[test]
    fn each_figure_draws_every_table_it_has_figures_for() {
        let day = |d: u32| NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
        let days = vec![
            (
                day(23),
                vec![line("Mesa 1", Some("7.50"), "0.50", "2.00", Some("40.0"))],
            ),
            (
                day(24),
                vec![
                    line("Mesa 1", Some("-3.25"), "-1.00", "2.50", Some("35.5")),
                    line("Mesa 2", None, "0.00", "0.00", None),
                ],
            ),
        ];
        for figure in Figure::ALL {
            let text = svg(figure, &days).unwrap();
            assert!(text.starts_with("<svg"), "{figure:?}");
            assert!(text.contains("Mesa 1"), "{figure:?}: the legend names the table");
            assert!(text.contains("11-24"), "{figure:?}: the days are labelled");
            // Mesa 2 has no hold or rate (no drop, not open), but has a difference.
            assert_eq!(text.contains("Mesa 2"), figure == Figure::ActualMinusTheo, "{figure:?}");
        }
        // No day at all still draws an empty, labelled chart.
        assert!(svg(Figure::Hold, &[]).unwrap().contains("Hold"));
    }
}
