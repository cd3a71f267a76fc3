//! Table options, validated when a pit boss sets them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::Amount;

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum TableConfig {
    PrimaCarta(PrimaCartaConfig),
    Lobo(LoboConfig),
}

impl TableConfig {
    pub fn game(&self) -> &'static str {
        match self {
            TableConfig::PrimaCarta(_) => "prima_carta",
            TableConfig::Lobo(_) => "lobo",
        }
    }

    pub fn demo_prima_carta() -> TableConfig {
        TableConfig::PrimaCarta(PrimaCartaConfig {
            variant: PrimaVariant::Classic,
            unit: amount("1.00"),
            seat_fee: None,
            corte: true,
            cobre: CobreOption::Carry,
            min_bet: amount("1.00"),
            max_bet: amount("100.00"),
            max_exposure_per_round: amount("500.00"),
            strategy_advice: true,
        })
    }

    pub fn demo_lobo() -> TableConfig {
        TableConfig::Lobo(LoboConfig {
            mode: LoboMode::Easy,
            min_unit: amount("1.00"),
            max_unit: amount("10.00"),
            loss_cap_points: 40,
            hints: true,
            house_rule_override: false,
        })
    }

    /// Checks relations between options that the types alone cannot.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            TableConfig::PrimaCarta(c) => {
                if c.min_bet > c.max_bet {
                    return Err("min_bet must not exceed max_bet".into());
                }
                if c.max_bet > c.max_exposure_per_round {
                    return Err("max_bet must not exceed max_exposure_per_round".into());
                }
                Ok(())
            }
            TableConfig::Lobo(c) => {
                if c.min_unit > c.max_unit {
                    return Err("min_unit must not exceed max_unit".into());
                }
                if !(1..=1000).contains(&c.loss_cap_points) {
                    return Err("loss_cap_points must be 1 to 1000".into());
                }
                Ok(())
            }
        }
    }
}

fn amount(text: &str) -> Amount {
    Amount::parse(text).expect("demo amounts are valid")
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PrimaVariant {
    Classic,
    Cinco,
    Jasper,
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CobreOption {
    Off,
    Carry,
    House,
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrimaCartaConfig {
    pub variant: PrimaVariant,
    /// The table's unit: a spiga costs one unit, a copa one unit per card.
    #[schema(value_type = String, example = "1.00")]
    pub unit: Amount,
    /// Optional per-round seat fee (house revenue), charged with the spiga.
    #[schema(value_type = Option<String>, example = "0.50")]
    pub seat_fee: Option<Amount>,
    /// The owner of the Prima suit pays one unit to the dealers' tips.
    pub corte: bool,
    pub cobre: CobreOption,
    /// Side bets: smallest and largest single bet.
    #[schema(value_type = String, example = "1.00")]
    pub min_bet: Amount,
    #[schema(value_type = String, example = "100.00")]
    pub max_bet: Amount,
    /// Side bets: most one player may stake on one round.
    #[schema(value_type = String, example = "500.00")]
    pub max_exposure_per_round: Amount,
    /// Seated players may ask for the printed basic strategy's advice.
    pub strategy_advice: bool,
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoboMode {
    Hard,
    Ordinary,
    Easy,
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LoboConfig {
    pub mode: LoboMode,
    #[schema(value_type = String, example = "1.00")]
    pub min_unit: Amount,
    #[schema(value_type = String, example = "10.00")]
    pub max_unit: Amount,
    /// Most points a player can lose in one round; escrowed at its start.
    pub loss_cap_points: u32,
    /// Players may ask for the solver's best play.
    pub hints: bool,
    /// Set by a pit boss to open a table whose house rule is not proven to
    /// favour the house (a significant event).
    #[serde(default)]
    pub house_rule_override: bool,
}
