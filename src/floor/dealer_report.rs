//! Dealer performance (docs/floor.md, "Dealer performance"): the play at each table counted
//! for whoever was in its box at the instant, and its CSV.

use super::dealer_box::{dealer_of, latest_box_event};
use super::*;

/// A gaming day's dealer performance (`GET /api/v1/floor/dealers`).
#[derive(Serialize, ToSchema)]
pub struct DealerReport {
    /// "YYYY-MM-DD": the (first) gaming day, named by the local date it starts on.
    pub gaming_day: String,
    /// The last gaming day of the period: the same as `gaming_day` for one day.
    pub last_gaming_day: String,
    pub timezone: String,
    /// The period's first instant and the next day's, microseconds since the Unix epoch.
    pub from_us: i64,
    pub to_us: i64,
    /// Per dealer: a line per shift they dealt in, then the period, then
    /// their period in each pit they dealt in.
    pub lines: Vec<DealerLine>,
}

/// One dealer over one shift (or the whole day): the figures of the table
/// performance, of the play at whatever table they were dealing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DealerLine {
    pub dealer_id: String,
    pub username: String,
    /// On a line of the dealer's play in one pit (its tables, for the whole
    /// period), the pit; null on the dealer's own lines.
    pub pit: Option<String>,
    /// Null on a whole-day line.
    pub shift: Option<String>,
    pub rounds: i64,
    pub voided_rounds: i64,
    /// Hours in the box, to 2 places.
    #[schema(value_type = String, example = "6.50")]
    pub hours_dealt: String,
    /// rounds / hours_dealt, to 1 place.
    #[schema(value_type = Option<String>, example = "48.0")]
    pub rounds_per_hour: Option<String>,
    #[schema(value_type = String)]
    pub drop: String,
    #[schema(value_type = String)]
    pub house_win: String,
    #[schema(value_type = Option<String>)]
    pub hold_percent: Option<String>,
    #[schema(value_type = String)]
    pub covered_win: String,
    #[schema(value_type = String)]
    pub theo_win: String,
    #[schema(value_type = String)]
    pub theo_sd: String,
    #[schema(value_type = String)]
    pub actual_minus_theo: String,
    #[schema(value_type = String)]
    pub band_99: String,
    /// The dealer's side bets paid this far from their certificates on one day in a hundred by chance.
    pub outside_band: bool,
}

/// Each dealer's performance over a period: the play at each table
/// counted for whoever was in its box at the instant.
pub fn dealer_report(conn: &mut AnyConnection, period: Period) -> Result<DealerReport, FloorError> {
    let (rows, _) = DayRows::load(conn, period)?;
    let pits = pits(conn)?;
    dealer_report_of(conn, &rows, period, &pits)
}

/// The dealer report of `rows`, with `pits` grouping the tables.
pub(super) fn dealer_report_of(
    conn: &mut AnyConnection,
    rows: &DayRows,
    period: Period,
    pits: &Pits,
) -> Result<DealerReport, FloorError> {
    use crate::store::schema::{significant_events as se, users as u};
    let until_us = rows.until_us;
    // Who was in each box as the day started, then what happened during it.
    let mut starting: Vec<(String, String, i64)> = Vec::new();
    for (table_id, ..) in &rows.tables {
        if let Some((kind, Some(dealer_id), at_us)) = latest_box_event(conn, table_id, rows.from_us)? {
            if kind == EventKind::DealerSignedIn.as_str() {
                starting.push((table_id.clone(), dealer_id, at_us));
            }
        }
    }
    starting.sort_by_key(|(.., at_us)| *at_us);
    let kinds = [
        EventKind::DealerSignedIn,
        EventKind::DealerSignedOut,
        EventKind::TableClosed,
    ]
    .map(EventKind::as_str);
    let during: Vec<(Option<String>, String, String, i64)> = se::table
        .filter(se::kind.eq_any(kinds))
        .filter(se::at_us.ge(rows.from_us).and(se::at_us.lt(until_us)))
        .order((se::at_us.asc(), se::id.asc()))
        .select((se::subject, se::kind, se::details, se::at_us))
        .load(conn)?;
    let during: Vec<(String, String, Option<String>, i64)> = during
        .into_iter()
        .filter_map(|(table, kind, details, at)| Some((table?, kind, dealer_of(&details), at)))
        .collect();
    let mut events: Vec<dealers::BoxEvent> = starting
        .iter()
        .map(|(table_id, dealer_id, _)| dealers::BoxEvent::SignedIn {
            table_id,
            dealer_id,
            at_us: rows.from_us,
        })
        .collect();
    for (table_id, kind, dealer_id, at_us) in &during {
        let at_us = *at_us;
        events.push(match (kind.as_str(), dealer_id.as_deref()) {
            ("dealer_signed_in", Some(dealer_id)) => dealers::BoxEvent::SignedIn {
                table_id,
                dealer_id,
                at_us,
            },
            ("dealer_signed_out", Some(dealer_id)) => dealers::BoxEvent::SignedOut {
                table_id,
                dealer_id,
                at_us,
            },
            _ => dealers::BoxEvent::TableClosed { table_id, at_us },
        });
    }
    let spells = dealers::spells(&events, until_us);
    let dealer_ids: std::collections::BTreeSet<&str> = spells.iter().map(|s| s.dealer_id).collect();
    let dealer_ids: Vec<&str> = dealer_ids.into_iter().collect();
    let mut names: Vec<(String, String)> = Vec::with_capacity(dealer_ids.len());
    for chunk in dealer_ids.chunks(MAX_IDS_PER_QUERY) {
        names.extend(
            u::table
                .filter(u::id.eq_any(chunk))
                .select((u::id, u::username))
                .load::<(String, String)>(conn)?,
        );
    }
    let subjects: Vec<performance::TableInfo> = names
        .iter()
        .map(|(id, name)| performance::TableInfo { id, name, game: "" })
        .collect();
    let open: Vec<performance::OpenSpell> = spells
        .iter()
        .map(|s| performance::OpenSpell {
            table_id: s.dealer_id,
            from_us: s.from_us,
            to_us: s.to_us,
        })
        .collect();
    let as_dealer_line = |l: PerformanceLine, pit: Option<String>| {
        Some(DealerLine {
            dealer_id: l.table_id?,
            username: l.table_name.unwrap_or_default(),
            pit,
            shift: l.shift,
            rounds: l.rounds,
            voided_rounds: l.voided_rounds,
            hours_dealt: l.open_hours,
            rounds_per_hour: l.rounds_per_hour,
            drop: l.drop,
            house_win: l.house_win,
            hold_percent: l.hold_percent,
            covered_win: l.covered_win,
            theo_win: l.theo_win,
            theo_sd: l.theo_sd,
            actual_minus_theo: l.actual_minus_theo,
            band_99: l.band_99,
            outside_band: l.outside_band,
        })
    };
    let mut lines: Vec<DealerLine> = rows
        .lines(&subjects, &open, |table_id, at_us| {
            dealers::dealer_at(&spells, table_id, at_us)
        })
        .into_iter()
        .filter_map(|l| as_dealer_line(l, None))
        .collect();

    // Each dealer's period in each pit they dealt in: the play at that pit's
    // tables while they were in the box, placed after the dealer's own lines.
    let pairs: std::collections::BTreeSet<(&str, &str)> = spells
        .iter()
        .filter_map(|s| Some((s.dealer_id, pits.pit_of(s.table_id)?)))
        .collect();
    // A subject key for each (dealer, pit).
    let in_pit: std::collections::BTreeMap<(&str, &str), String> = pairs
        .into_iter()
        .enumerate()
        .map(|(k, pair)| (pair, k.to_string()))
        .collect();
    let pit_subjects: Vec<performance::TableInfo> = in_pit
        .iter()
        .map(|((dealer_id, _), key)| performance::TableInfo {
            id: key,
            name: names
                .iter()
                .find(|(id, _)| id == dealer_id)
                .map_or(dealer_id, |(_, username)| username.as_str()),
            game: "",
        })
        .collect();
    let pit_open: Vec<performance::OpenSpell> = spells
        .iter()
        .filter_map(|s| {
            Some(performance::OpenSpell {
                table_id: in_pit.get(&(s.dealer_id, pits.pit_of(s.table_id)?))?,
                from_us: s.from_us,
                to_us: s.to_us,
            })
        })
        .collect();
    let of_key: HashMap<&str, (&str, &str)> = in_pit.iter().map(|(k, key)| (key.as_str(), *k)).collect();
    let pit_lines = rows
        .lines(&pit_subjects, &pit_open, |table_id, at_us| {
            let dealer_id = dealers::dealer_at(&spells, table_id, at_us)?;
            Some(in_pit.get(&(dealer_id, pits.pit_of(table_id)?))?.as_str())
        })
        .into_iter()
        .filter(|l| l.shift.is_none());
    for l in pit_lines {
        let Some(&(dealer_id, pit)) = l.table_id.as_deref().and_then(|key| of_key.get(key)) else {
            continue; // the floor's line
        };
        let at = lines
            .iter()
            .rposition(|d| d.dealer_id == dealer_id)
            .map_or(lines.len(), |k| k + 1);
        let line = as_dealer_line(
            PerformanceLine {
                table_id: Some(dealer_id.to_owned()),
                ..l
            },
            Some(pit.to_owned()),
        );
        lines.splice(at..at, line);
    }
    Ok(DealerReport {
        gaming_day: period.first.to_string(),
        last_gaming_day: period.last.to_string(),
        timezone: rows.timezone.clone(),
        from_us: rows.from_us,
        to_us: rows.to_us,
        lines,
    })
}

/// The dealer report as CSV, a header first.
pub fn dealer_csv(report: &DealerReport) -> String {
    dealer_lines_csv(
        &period_label(&report.gaming_day, &report.last_gaming_day),
        &report.lines,
    )
}

/// The columns of a dealer line in CSV.
pub const DEALER_CSV_HEADER: &[&str] = &[
    "gaming_day",
    "dealer_id",
    "username",
    "pit",
    "shift",
    "rounds",
    "voided_rounds",
    "hours_dealt",
    "rounds_per_hour",
    "drop",
    "house_win",
    "hold_percent",
    "covered_win",
    "theo_win",
    "theo_sd",
    "actual_minus_theo",
    "band_99",
    "outside_band",
];

/// Dealer lines as CSV under a period's label, a header first.
pub fn dealer_lines_csv(label: &str, lines: &[DealerLine]) -> String {
    performance::csv_text(DEALER_CSV_HEADER, lines.iter().map(|l| dealer_csv_record(label, l)))
}

/// One dealer line's CSV fields (quoted where needed), under a period's label.
pub fn dealer_csv_record(label: &str, l: &DealerLine) -> Vec<String> {
    vec![
        performance::csv_field(label),
        performance::csv_field(&l.dealer_id),
        performance::csv_field(&l.username),
        performance::csv_field(l.pit.as_deref().unwrap_or("")),
        performance::csv_field(l.shift.as_deref().unwrap_or("")),
        l.rounds.to_string(),
        l.voided_rounds.to_string(),
        l.hours_dealt.clone(),
        l.rounds_per_hour.clone().unwrap_or_default(),
        l.drop.clone(),
        l.house_win.clone(),
        l.hold_percent.clone().unwrap_or_default(),
        l.covered_win.clone(),
        l.theo_win.clone(),
        l.theo_sd.clone(),
        l.actual_minus_theo.clone(),
        l.band_99.clone(),
        l.outside_band.to_string(),
    ]
}
