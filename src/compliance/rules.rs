//! The cash-compliance rules (docs/compliance.md, "The rules and their numbers"): the
//! multiple-transaction log's threshold, the currency transaction report's, the structuring
//! patterns' numbers and the casino's own facts that a report carries. US Title 31 (31 CFR
//! 1021) gives the defaults; every number is a setting changed only under two-person control.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::Amount;
use crate::settings::{self, SettingError};
use crate::significant_events::EventKind;
use crate::store::AnyConnection;

/// The `settings` row holding the rules (a [`ComplianceRules`] as JSON).
const RULES_SETTING: &str = "compliance.rules";
/// Longest look-back of the structuring patterns: 30 days.
pub const MAX_WINDOW_HOURS: u32 = 30 * 24;
/// Most characters in each of the casino's facts.
pub const MAX_FACT_CHARS: usize = 200;

/// What the cage records and when it asks for identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ComplianceRules {
    /// A deposit or withdrawal of at least this much is entered in the multiple-transaction
    /// log. Default 3000.00.
    #[schema(value_type = crate::api::contract::Amount, example = "3000.00")]
    pub log_threshold: Amount,
    /// A patron whose deposits, or whose withdrawals, in one gaming day would add up to more
    /// than this must have their identity on file first, and the day gets a currency
    /// transaction report. Default 10000.00.
    #[schema(value_type = crate::api::contract::Amount, example = "10000.00")]
    pub report_threshold: Amount,
    /// A transaction within this many percent below a threshold is "just under" it (1 to 50;
    /// default 10).
    #[schema(example = 10, minimum = 1, maximum = 50)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub near_threshold_percent: u32,
    /// This many transactions just under a threshold within the window raise an alert (2 to
    /// 20; default 3).
    #[schema(example = 3, minimum = 2, maximum = 20)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub near_threshold_count: u32,
    /// How far back the near-threshold pattern looks, in hours (1 to 720; default 72).
    #[schema(example = 72, minimum = 1, maximum = 720)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub window_hours: u32,
    /// Cash in and out of at least the log threshold within 24 hours, with less than this
    /// percentage of the cash in staked, raises a minimal-play alert (0 to 100; default 10).
    #[schema(example = 10, minimum = 0, maximum = 100)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub minimal_play_percent: u32,
    /// The casino as a report names it: its legal name ("" until set).
    #[serde(default)]
    pub casino_name: String,
    /// The casino's street address ("" until set).
    #[serde(default)]
    pub casino_address: String,
    /// The casino's tax identification number ("" until set).
    #[serde(default)]
    pub casino_tax_id: String,
}

impl Default for ComplianceRules {
    fn default() -> ComplianceRules {
        ComplianceRules {
            log_threshold: Amount::from_minor(300_000).expect("positive"),
            report_threshold: Amount::from_minor(1_000_000).expect("positive"),
            near_threshold_percent: 10,
            near_threshold_count: 3,
            window_hours: 72,
            minimal_play_percent: 10,
            casino_name: String::new(),
            casino_address: String::new(),
            casino_tax_id: String::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Setting(#[from] SettingError),
}

impl ComplianceRules {
    pub fn check(&self) -> Result<(), RulesError> {
        let bad = |m: String| Err(RulesError::Invalid(m));
        if self.log_threshold > self.report_threshold {
            return bad("log_threshold must not be above report_threshold".into());
        }
        if !(1..=50).contains(&self.near_threshold_percent) {
            return bad("near_threshold_percent must be 1 to 50".into());
        }
        if !(2..=20).contains(&self.near_threshold_count) {
            return bad("near_threshold_count must be 2 to 20".into());
        }
        if !(1..=MAX_WINDOW_HOURS).contains(&self.window_hours) {
            return bad(format!("window_hours must be 1 to {MAX_WINDOW_HOURS}"));
        }
        if self.minimal_play_percent > 100 {
            return bad("minimal_play_percent must be 0 to 100".into());
        }
        for (name, value) in self.casino_facts() {
            if value.chars().count() > MAX_FACT_CHARS || value.chars().any(char::is_control) {
                return bad(format!(
                    "{name} must be at most {MAX_FACT_CHARS} characters, none of them control characters"
                ));
            }
        }
        Ok(())
    }

    /// The casino's facts a report carries, by field name.
    pub fn casino_facts(&self) -> [(&'static str, &str); 3] {
        [
            ("casino_name", &self.casino_name),
            ("casino_address", &self.casino_address),
            ("casino_tax_id", &self.casino_tax_id),
        ]
    }

    /// The look-back of the near-threshold pattern, in microseconds.
    pub fn window_us(&self) -> i64 {
        i64::from(self.window_hours) * crate::protection::HOUR_US
    }

    /// Whether `amount_minor` is just under `threshold_minor`: within the near-threshold
    /// percentage below it, and not at or above it.
    pub fn just_under(&self, amount_minor: i64, threshold_minor: i64) -> bool {
        let floor = threshold_minor - threshold_minor * i64::from(self.near_threshold_percent) / 100;
        (floor..threshold_minor).contains(&amount_minor)
    }
}

/// The rules in force (the defaults until first changed).
pub fn rules(conn: &mut AnyConnection) -> Result<ComplianceRules, SettingError> {
    Ok(settings::read(conn, RULES_SETTING)?.unwrap_or_default())
}

/// Replaces the rules: only as an approved proposal applies them.
pub fn set_rules(conn: &mut AnyConnection, approver_id: &str, new: &ComplianceRules) -> Result<(), RulesError> {
    new.check()?;
    let old = rules(conn)?;
    Ok(settings::replace(
        conn,
        RULES_SETTING,
        approver_id,
        EventKind::ComplianceRulesChanged,
        &old,
        new,
    )?)
}
