//! Table performance over a gaming day (docs/floor.md, "Table performance"):
//! rounds, open hours and rounds per hour, drop, house win, hold and
//! theoretical win with its 99% band, per table and shift. Pure: facts read from the ledger, the rounds and the bets
//! in; lines out.

use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

use crate::domain::{format_minor, MINOR_DIGITS};
use crate::math::observed_rtp::{RtpSums, Z_99};

/// A ledger transfer of a table, as the report reads it.
pub struct TransferFact<'a> {
    pub table_id: &'a str,
    pub kind: &'a str,
    pub debit_account: &'a str,
    pub credit_account: &'a str,
    pub amount_minor: i64,
    pub at_us: i64,
}

impl<'a> TransferFact<'a> {
    /// What the transfer adds to its table's money figures.
    pub fn money(&self) -> MoneyFact<'a> {
        let from_wallet = self.debit_account.starts_with("wallet:");
        let to_wallet = self.credit_account.starts_with("wallet:");
        let drop_minor = if from_wallet && !to_wallet {
            self.amount_minor
        } else if to_wallet && crate::game_registry::returns_unrisked(self.kind) {
            -self.amount_minor
        } else {
            0
        };
        let win_minor = i64::from(HOUSE_ACCOUNTS.contains(&self.credit_account)) * self.amount_minor
            - i64::from(HOUSE_ACCOUNTS.contains(&self.debit_account)) * self.amount_minor;
        MoneyFact {
            table_id: self.table_id,
            at_us: self.at_us,
            drop_minor,
            win_minor,
            fees_minor: fee_minor(self.kind, self.debit_account, self.credit_account, self.amount_minor),
        }
    }
}

/// What a transfer, or a minute of a table's transfers, adds to the table's
/// drop, house win and fees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoneyFact<'a> {
    pub table_id: &'a str,
    pub at_us: i64,
    pub drop_minor: i64,
    pub win_minor: i64,
    pub fees_minor: i64,
}

/// A round that ended (settled or voided), by when it ended.
pub struct RoundFact<'a> {
    pub table_id: &'a str,
    pub voided: bool,
    pub at_us: i64,
}

/// A span of time a table was open (between its `table_opened` and
/// `table_closed` events), clipped to the day and to the present.
pub struct OpenSpell<'a> {
    pub table_id: &'a str,
    pub from_us: i64,
    pub to_us: i64,
}

/// A settled side bet, with what its certificate says of its kind.
pub struct BetFact<'a> {
    pub table_id: &'a str,
    pub round_id: &'a str,
    /// The certified bet it is ("prima", "cartas 12", …) under its pay table.
    pub certified_as: (&'a str, &'a str),
    pub stake_minor: i64,
    pub returned_minor: i64,
    pub settled_at_us: i64,
    /// 1 − the certified RTP.
    pub house_edge: Decimal,
    /// The certified standard deviation of the return per unit staked.
    pub sd_per_unit: f64,
}

/// A settled Lobo round's play, by when it ended: what the house won on it and the least it
/// expects to win (docs/floor.md, "Lobo's theoretical win").
pub struct LoboPlayFact<'a> {
    pub table_id: &'a str,
    pub at_us: i64,
    pub play_win_minor: i64,
    /// `−unit × U`, U the upper bound on the perfect player's value at the round's loss cap.
    pub theo_play_minor: Decimal,
    /// The largest standard deviation the play's result can have.
    pub sd_bound_minor: f64,
}

/// A round's priced bets that closed at one instant (Peg Leg's: each priced from a quote that
/// states its count's probability): what the house won on them and expected to win
/// (docs/floor.md, "Peg Leg's theoretical win").
pub struct PricedBetsFact<'a> {
    pub table_id: &'a str,
    pub at_us: i64,
    pub win_minor: i64,
    pub theo_minor: Decimal,
    /// A bound on the standard deviation of the house's result on them: the bets share a
    /// deal, so it is the sum of theirs.
    pub sd_bound_minor: f64,
}

/// Lobo rounds from which on a line's spread is their sample standard deviation rather than
/// the bound every round's result keeps to.
pub const LOBO_ROUNDS_FOR_SAMPLE_SD: usize = 30;

/// Side bets of one certified bet settled at one instant (a round's), or in
/// one minute (its rounds'), summed.
pub struct BetsFact<'a> {
    pub table_id: &'a str,
    pub at_us: i64,
    pub certified_as: (&'a str, &'a str),
    pub house_edge: Decimal,
    pub sd_per_unit: f64,
    pub sums: RtpSums,
}

/// The bets summed per table, round and certified bet: a round's bets share
/// its deal, and are settled at one instant.
pub fn bets_by_round<'a>(bets: &[BetFact<'a>]) -> Vec<BetsFact<'a>> {
    let mut rounds: BTreeMap<(&str, &str, (&str, &str), i64), Vec<&BetFact<'a>>> = BTreeMap::new();
    for b in bets {
        rounds
            .entry((b.table_id, b.round_id, b.certified_as, b.settled_at_us))
            .or_default()
            .push(b);
    }
    rounds
        .into_values()
        .map(|round| BetsFact {
            table_id: round[0].table_id,
            at_us: round[0].settled_at_us,
            certified_as: round[0].certified_as,
            house_edge: round[0].house_edge,
            sd_per_unit: round[0].sd_per_unit,
            sums: RtpSums::of_round(round.iter().map(|b| (b.stake_minor, b.returned_minor))),
        })
        .collect()
}

/// One table (or the whole floor) over one shift (or the whole day).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PerformanceLine {
    /// Null on the floor's total line.
    pub table_id: Option<String>,
    pub table_name: Option<String>,
    pub game: Option<String>,
    /// The table's pit; on a pit's line, the pit (with `table_id` null); null
    /// on the floor's lines and for a table in no pit.
    pub pit: Option<String>,
    /// Null on a whole-day line.
    pub shift: Option<String>,
    pub rounds: i64,
    pub voided_rounds: i64,
    /// Hours the table was open in the period (on the floor's line, the tables' open hours summed), to 2 places.
    #[schema(value_type = String, example = "7.50")]
    pub open_hours: String,
    /// rounds / open hours, to 1 place; null when the table was not open.
    #[schema(value_type = Option<String>, example = "42.0")]
    pub rounds_per_hour: Option<String>,
    /// What players put at risk: every transfer of the table from a wallet, less the refunds back to one.
    #[schema(value_type = String, example = "1250.00")]
    pub drop: String,
    /// What the house's accounts (bankroll, revenue) gained from the table; negative when they lost.
    #[schema(value_type = String, example = "87.50")]
    pub house_win: String,
    /// house_win / drop × 100, rounded to 2 places; null with no drop.
    #[schema(value_type = Option<String>, example = "7.00")]
    pub hold_percent: Option<String>,
    /// The part of house_win the theoretical win covers: side bets and fees.
    #[schema(value_type = String)]
    pub covered_win: String,
    /// Σ stake × house edge of the settled side bets, plus the fees.
    #[schema(value_type = String)]
    pub theo_win: String,
    /// The standard deviation of the side bets' win around theo_win.
    #[schema(value_type = String)]
    pub theo_sd: String,
    /// covered_win − theo_win.
    #[schema(value_type = String)]
    pub actual_minus_theo: String,
    /// 2.5758 × theo_sd: the difference stays within ± this 99 days in 100.
    #[schema(value_type = String)]
    pub band_99: String,
    /// The difference is outside the 99% band: look at this table.
    pub outside_band: bool,
}

/// A table the report names.
pub struct TableInfo<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub game: &'a str,
}

#[derive(Default)]
struct Tally<'a> {
    rounds: i64,
    voided_rounds: i64,
    open_us: i64,
    drop_minor: i64,
    win_minor: i64,
    fees_minor: i64,
    bets: Vec<&'a BetsFact<'a>>,
    lobo_plays: Vec<&'a LoboPlayFact<'a>>,
    priced: Vec<&'a PricedBetsFact<'a>>,
}

/// The transfers that are fees: the house's whole edge on them.
pub(super) const FEE_KINDS: [&str; 4] = ["seat_fee", "lobo_fee", "contest_rake", "confidence_commission"];
/// The transfers that give a player's money back (a voided round, the corte returned).
pub(super) const REFUND_KINDS: [&str; 2] = ["refund", "bet_refund"];
pub(super) const HOUSE_ACCOUNTS: [&str; 2] = ["house:bankroll", "house:revenue"];
/// The part of a Prima Carta pot the house takes or the table carries, by table option.
const COBRE_KIND: &str = "cobre";

/// What a transfer adds to the fees, whose edge is the whole amount: a fee itself, or the cobre
/// as it falls to the house; or, negative, a fee given back by a void (the one refund out of
/// house revenue), so a voided round's fee is no theoretical win.
pub(super) fn fee_minor(kind: &str, debit_account: &str, credit_account: &str, amount_minor: i64) -> i64 {
    if FEE_KINDS.contains(&kind) || (kind == COBRE_KIND && HOUSE_ACCOUNTS.contains(&credit_account)) {
        amount_minor
    } else if REFUND_KINDS.contains(&kind) && debit_account == "house:revenue" {
        -amount_minor
    } else {
        0
    }
}

/// The lines of a period of one or more gaming days: for each table open or
/// with activity, one per shift with activity and one for the period; then
/// the floor's per shift and for the period. `shifts` are the period's shifts
/// with their bounds, in order of time and abutting (a shift of each day is
/// counted under its name, day after day).
#[allow(clippy::too_many_arguments)]
pub fn day_lines<'a>(
    shifts: &[(&str, i64, i64)],
    tables: &[TableInfo<'_>],
    open: &[OpenSpell<'a>],
    money: &[MoneyFact<'a>],
    rounds: &[RoundFact<'a>],
    bets: &'a [BetsFact<'a>],
    lobo_plays: &'a [LoboPlayFact<'a>],
    priced: &'a [PricedBetsFact<'a>],
) -> Vec<PerformanceLine> {
    // The shifts' names in order, and each span's.
    let mut names: Vec<&str> = Vec::new();
    let name_of_span: Vec<usize> = shifts
        .iter()
        .map(|(name, ..)| {
            names.iter().position(|n| n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            })
        })
        .collect();
    let shift_of = |at_us: i64| {
        let k = shifts.partition_point(|(_, from, _)| *from <= at_us).checked_sub(1)?;
        (at_us < shifts[k].2).then(|| name_of_span[k])
    };
    // Keyed by (table or None for the floor, shift or None for the period).
    let mut tallies: BTreeMap<(Option<&str>, Option<usize>), Tally<'a>> = BTreeMap::new();
    for spell in open {
        for (k, (_, from, to)) in shifts.iter().enumerate() {
            let overlap_us = spell.to_us.min(*to) - spell.from_us.max(*from);
            if overlap_us <= 0 {
                continue;
            }
            let shift = name_of_span[k];
            for key in [
                (Some(spell.table_id), Some(shift)),
                (Some(spell.table_id), None),
                (None, Some(shift)),
                (None, None),
            ] {
                tallies.entry(key).or_default().open_us += overlap_us;
            }
        }
    }
    let mut each = |table: &'a str, at_us: i64, f: &mut dyn FnMut(&mut Tally<'a>)| {
        let Some(shift) = shift_of(at_us) else { return };
        for key in [
            (Some(table), Some(shift)),
            (Some(table), None),
            (None, Some(shift)),
            (None, None),
        ] {
            f(tallies.entry(key).or_default());
        }
    };
    for m in money {
        each(m.table_id, m.at_us, &mut |tally| {
            tally.drop_minor += m.drop_minor;
            tally.win_minor += m.win_minor;
            tally.fees_minor += m.fees_minor;
        });
    }
    for r in rounds {
        each(r.table_id, r.at_us, &mut |tally| {
            tally.rounds += i64::from(!r.voided);
            tally.voided_rounds += i64::from(r.voided);
        });
    }
    for b in bets {
        each(b.table_id, b.at_us, &mut |tally| tally.bets.push(b));
    }
    for p in lobo_plays {
        each(p.table_id, p.at_us, &mut |tally| tally.lobo_plays.push(p));
    }
    for p in priced {
        each(p.table_id, p.at_us, &mut |tally| tally.priced.push(p));
    }
    let mut lines: Vec<PerformanceLine> = tallies
        .iter()
        .map(|((table, shift), tally)| {
            let info = table.and_then(|id| tables.iter().find(|t| t.id == id));
            line(tally, *table, info, shift.map(|k| names[k]))
        })
        .collect();
    // Tables by name, the floor last; within each, shifts in order, the day last.
    let shift_rank = |s: &Option<String>| {
        s.as_deref()
            .map_or(usize::MAX, |s| names.iter().position(|n| *n == s).unwrap_or(0))
    };
    lines.sort_by(|a, b| {
        (a.table_id.is_none(), &a.table_name, &a.table_id, shift_rank(&a.shift)).cmp(&(
            b.table_id.is_none(),
            &b.table_name,
            &b.table_id,
            shift_rank(&b.shift),
        ))
    });
    lines
}

fn line(
    tally: &Tally<'_>,
    table_id: Option<&str>,
    info: Option<&TableInfo<'_>>,
    shift: Option<&str>,
) -> PerformanceLine {
    // The side bets' theoretical win and its spread, per certified bet.
    let mut by_bet: BTreeMap<(&str, &str), (RtpSums, Decimal, f64)> = BTreeMap::new();
    for b in &tally.bets {
        let (sums, ..) = by_bet
            .entry(b.certified_as)
            .or_insert((RtpSums::default(), b.house_edge, b.sd_per_unit));
        sums.add(&b.sums);
    }
    let mut theo_minor = Decimal::ZERO;
    let mut variance_minor2 = 0f64;
    let mut bets_win_minor = 0i64;
    for (sums, house_edge, sd_per_unit) in by_bet.values() {
        theo_minor += Decimal::from(sums.staked_minor) * house_edge;
        bets_win_minor += sums.staked_minor - sums.returned_minor;
        // The RTP's standard error (the larger of the independent and the
        // per-round estimates) times the stake is the win's.
        if let Some(o) = sums.observed_rtp(*sd_per_unit) {
            variance_minor2 += (o.standard_error() * o.staked_minor as f64).powi(2);
        }
    }
    let lobo = lobo_play(&tally.lobo_plays);
    variance_minor2 += lobo.variance_minor2;
    let priced_win_minor: i64 = tally.priced.iter().map(|p| p.win_minor).sum();
    let priced_theo_minor: Decimal = tally.priced.iter().map(|p| p.theo_minor).sum();
    variance_minor2 += tally.priced.iter().map(|p| p.sd_bound_minor.powi(2)).sum::<f64>();
    let sd_minor = Decimal::from_f64(variance_minor2.sqrt()).unwrap_or_default();
    let band_minor = sd_minor * Decimal::from_f64(Z_99).unwrap_or_default();
    let difference_minor = Decimal::from(bets_win_minor) - theo_minor + Decimal::from(lobo.win_minor) - lobo.theo_minor
        + Decimal::from(priced_win_minor)
        - priced_theo_minor;
    let covered_minor = bets_win_minor + tally.fees_minor + lobo.win_minor + priced_win_minor;
    // Lobo's theoretical win is the least the house expects, so only a shortfall is improbable.
    let outside_band = if tally.lobo_plays.is_empty() {
        difference_minor.abs() > band_minor
    } else {
        difference_minor < -band_minor
    };
    PerformanceLine {
        table_id: table_id.map(str::to_owned),
        table_name: info.map(|t| t.name.to_owned()),
        game: info.map(|t| t.game.to_owned()),
        pit: None,
        shift: shift.map(str::to_owned),
        rounds: tally.rounds,
        voided_rounds: tally.voided_rounds,
        open_hours: format!(
            "{:.2}",
            hours(tally.open_us).round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)
        ),
        rounds_per_hour: (tally.open_us > 0).then(|| {
            let rate = Decimal::from(tally.rounds) / hours(tally.open_us);
            format!(
                "{:.1}",
                rate.round_dp_with_strategy(1, RoundingStrategy::MidpointNearestEven)
            )
        }),
        drop: format_minor(tally.drop_minor),
        house_win: format_minor(tally.win_minor),
        hold_percent: (tally.drop_minor != 0).then(|| {
            let hold = Decimal::from(tally.win_minor) * Decimal::from(100) / Decimal::from(tally.drop_minor);
            format!(
                "{:.2}",
                hold.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)
            )
        }),
        covered_win: format_minor(covered_minor),
        theo_win: money(theo_minor + Decimal::from(tally.fees_minor) + lobo.theo_minor + priced_theo_minor),
        theo_sd: money(sd_minor),
        actual_minus_theo: money(difference_minor),
        band_99: money(band_minor),
        outside_band,
    }
}

/// A line's Lobo plays summed: what the house won, the least it expects, and the variance of
/// their sum (the sample variance per round from [`LOBO_ROUNDS_FOR_SAMPLE_SD`] rounds on, each
/// round's bound below that).
struct LoboPlayTotals {
    win_minor: i64,
    theo_minor: Decimal,
    variance_minor2: f64,
}

fn lobo_play(plays: &[&LoboPlayFact<'_>]) -> LoboPlayTotals {
    let win_minor = plays.iter().map(|p| p.play_win_minor).sum();
    let theo_minor = plays.iter().map(|p| p.theo_play_minor).sum();
    let variance_minor2 = if plays.len() >= LOBO_ROUNDS_FOR_SAMPLE_SD {
        let results: Vec<f64> = plays.iter().map(|p| p.play_win_minor as f64).collect();
        results.len() as f64 * statrs::statistics::Statistics::variance(&results)
    } else {
        plays.iter().map(|p| p.sd_bound_minor.powi(2)).sum()
    };
    LoboPlayTotals {
        win_minor,
        theo_minor,
        variance_minor2,
    }
}

fn hours(us: i64) -> Decimal {
    Decimal::from(us) / Decimal::from(MICROS_PER_HOUR)
}

const MICROS_PER_HOUR: i64 = 3_600_000_000;

/// Minor units (any precision) as money, rounded half to even to the cent.
pub(super) fn money(minor: Decimal) -> String {
    let units = minor / Decimal::from(10i64.pow(MINOR_DIGITS));
    let cents = units.round_dp_with_strategy(MINOR_DIGITS, RoundingStrategy::MidpointNearestEven);
    format_minor(
        (cents * Decimal::from(10i64.pow(MINOR_DIGITS)))
            .to_i64()
            .unwrap_or(i64::MAX),
    )
}

/// The columns of a performance line in CSV.
pub const CSV_HEADER: &[&str] = &[
    "gaming_day",
    "table_id",
    "table_name",
    "game",
    "pit",
    "shift",
    "rounds",
    "voided_rounds",
    "open_hours",
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

/// One line's CSV fields (quoted where needed), under a period's label.
pub fn csv_record(label: &str, l: &PerformanceLine) -> Vec<String> {
    let text = |v: &Option<String>| csv_field(v.as_deref().unwrap_or(""));
    vec![
        csv_field(label),
        text(&l.table_id),
        text(&l.table_name),
        text(&l.game),
        text(&l.pit),
        text(&l.shift),
        l.rounds.to_string(),
        l.voided_rounds.to_string(),
        l.open_hours.clone(),
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

/// The lines as CSV, a header first.
pub fn to_csv(label: &str, lines: &[PerformanceLine]) -> String {
    csv_text(CSV_HEADER, lines.iter().map(|l| csv_record(label, l)))
}

/// A header and records (fields already quoted) as CSV text.
pub(super) fn csv_text(header: &[&str], records: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut out = header.join(",");
    out.push('\n');
    for record in records {
        out.push_str(&record.join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub(super) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests;
