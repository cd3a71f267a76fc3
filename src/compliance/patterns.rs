//! Structuring patterns (docs/compliance.md, "Structuring alerts"): pure functions of a
//! patron's recent cash transactions and the rules. Each says whether the newest transaction
//! (or refused attempt) completes a pattern, and with which transactions as evidence.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::rules::ComplianceRules;
use super::CashDirection;
use crate::domain::format_minor;
use crate::protection::DAY_US;

/// A pattern an alert names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Several transactions each just under the log or the report threshold.
    NearThreshold,
    /// Cash in one direction adding up past the report threshold within 24 hours in pieces
    /// each under it, through several cashiers or locations, or across gaming days.
    SplitTransactions,
    /// Cash in and out within 24 hours with little of it staked in between: money passed
    /// through the wallet rather than played (the cage's form of chip walking).
    MinimalPlay,
}

impl Pattern {
    pub const ALL: [Pattern; 3] = [Pattern::NearThreshold, Pattern::SplitTransactions, Pattern::MinimalPlay];

    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::NearThreshold => "near_threshold",
            Pattern::SplitTransactions => "split_transactions",
            Pattern::MinimalPlay => "minimal_play",
        }
    }

    pub fn parse(text: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

/// A cash transaction as the patterns see it: accepted (with its transfer) or refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CashEntry {
    /// The ledger transfer; None for a transaction refused for want of identity.
    pub transfer_id: Option<String>,
    pub player_id: String,
    pub direction: CashDirection,
    #[serde(with = "minor_as_amount")]
    #[schema(value_type = crate::api::contract::Amount)]
    pub amount_minor: i64,
    /// "YYYY-MM-DD".
    pub gaming_day: String,
    pub cashier_id: String,
    pub location: Option<String>,
    pub at_us: i64,
}

/// Money in evidence is written as the API writes amounts ("9500.00").
mod minor_as_amount {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(minor: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::domain::format_minor(*minor))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        let text = String::deserialize(d)?;
        crate::domain::Amount::parse(&text)
            .map(|a| a.minor())
            .map_err(serde::de::Error::custom)
    }
}

/// A pattern seen, with its evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Finding {
    pub pattern: Pattern,
    /// What was seen, in a sentence.
    pub summary: String,
    /// The transactions that make the pattern, oldest first.
    pub transactions: Vec<CashEntry>,
}

/// Several transactions, the newest among them, each just under the log or the report
/// threshold within the window.
pub fn near_threshold(rules: &ComplianceRules, recent: &[CashEntry], newest: &CashEntry) -> Option<Finding> {
    let thresholds = [rules.log_threshold.minor(), rules.report_threshold.minor()];
    let near = |e: &CashEntry| thresholds.iter().any(|&t| rules.just_under(e.amount_minor, t));
    if !near(newest) {
        return None;
    }
    let since = newest.at_us - rules.window_us();
    let run: Vec<CashEntry> = recent
        .iter()
        .chain(std::iter::once(newest))
        .filter(|e| e.at_us >= since && near(e))
        .cloned()
        .collect();
    if run.len() < rules.near_threshold_count as usize {
        return None;
    }
    Some(Finding {
        pattern: Pattern::NearThreshold,
        summary: format!(
            "{} cash transactions within {} hours, each within {}% below {} or {}",
            run.len(),
            rules.window_hours,
            rules.near_threshold_percent,
            format_minor(thresholds[0]),
            format_minor(thresholds[1]),
        ),
        transactions: run,
    })
}

/// Cash in the newest's direction over the last 24 hours adding up past the report threshold,
/// each piece under it, through two or more cashiers or locations or across gaming days.
pub fn split_transactions(rules: &ComplianceRules, recent: &[CashEntry], newest: &CashEntry) -> Option<Finding> {
    let threshold = rules.report_threshold.minor();
    let since = newest.at_us - DAY_US;
    let pieces: Vec<CashEntry> = recent
        .iter()
        .chain(std::iter::once(newest))
        .filter(|e| e.at_us >= since && e.direction == newest.direction)
        .cloned()
        .collect();
    let total: i64 = pieces.iter().map(|e| e.amount_minor).sum();
    if total <= threshold || pieces.len() < 2 || pieces.iter().any(|e| e.amount_minor > threshold) {
        return None;
    }
    let distinct = |f: fn(&CashEntry) -> Option<&str>| {
        let mut seen: Vec<Option<&str>> = pieces.iter().map(f).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    };
    let cashiers = distinct(|e| Some(e.cashier_id.as_str()));
    let locations = distinct(|e| e.location.as_deref());
    let days = distinct(|e| Some(e.gaming_day.as_str()));
    if cashiers < 2 && locations < 2 && days < 2 {
        return None;
    }
    Some(Finding {
        pattern: Pattern::SplitTransactions,
        summary: format!(
            "{} {} within 24 hours adding up to {}, over {}, each under it, through {cashiers} cashier(s), \
             {locations} location(s) and {days} gaming day(s)",
            pieces.len(),
            newest.direction.plural(),
            format_minor(total),
            format_minor(threshold),
        ),
        transactions: pieces,
    })
}

/// What the minimal-play pattern needs to know of the last 24 hours when the newest
/// transaction is a withdrawal that brings them to the log threshold in each direction: the
/// cash in (then the caller reads what was staked). None when it cannot apply.
pub fn minimal_play_cash_in(rules: &ComplianceRules, recent: &[CashEntry], newest: &CashEntry) -> Option<i64> {
    if newest.direction != CashDirection::Withdrawal || newest.transfer_id.is_none() {
        return None;
    }
    let since = newest.at_us - DAY_US;
    let sum = |direction| {
        recent
            .iter()
            .chain(std::iter::once(newest))
            .filter(|e| e.at_us >= since && e.direction == direction && e.transfer_id.is_some())
            .map(|e| e.amount_minor)
            .sum::<i64>()
    };
    let (cash_in, cash_out) = (sum(CashDirection::Deposit), sum(CashDirection::Withdrawal));
    let floor = rules.log_threshold.minor();
    (cash_in >= floor && cash_out >= floor).then_some(cash_in)
}

/// Cash in and out within 24 hours, less than the minimal-play percentage of the cash in staked.
pub fn minimal_play(
    rules: &ComplianceRules,
    recent: &[CashEntry],
    newest: &CashEntry,
    cash_in: i64,
    staked: i64,
) -> Option<Finding> {
    if i128::from(staked) * 100 >= i128::from(cash_in) * i128::from(rules.minimal_play_percent) {
        return None;
    }
    let since = newest.at_us - DAY_US;
    Some(Finding {
        pattern: Pattern::MinimalPlay,
        summary: format!(
            "cash in of {} and out within 24 hours with {} staked, under {}% of the cash in",
            format_minor(cash_in),
            format_minor(staked.max(0)),
            rules.minimal_play_percent,
        ),
        transactions: recent
            .iter()
            .chain(std::iter::once(newest))
            .filter(|e| e.at_us >= since && e.transfer_id.is_some())
            .cloned()
            .collect(),
    })
}

#[cfg(test)]
mod tests;
