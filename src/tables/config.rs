//! Table options, validated when a pit boss sets them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::Amount;
use crate::games::lobo::{default_house_rule, HouseRule, Mode};
use crate::games::prima_carta::{CobreRule, TableRules, Variant};

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum TableConfig {
    PrimaCarta(PrimaCartaConfig),
    Lobo(LoboConfig),
    PegLeg(PegLegConfig),
}

impl TableConfig {
    pub fn game(&self) -> &'static str {
        match self {
            TableConfig::PrimaCarta(_) => "prima_carta",
            TableConfig::Lobo(_) => "lobo",
            TableConfig::PegLeg(_) => "peg_leg",
        }
    }

    pub fn demo_peg_leg() -> TableConfig {
        TableConfig::PegLeg(PegLegConfig {
            min_bet: amount("1.00"),
            max_bet: amount("100.00"),
            max_exposure_per_round: amount("500.00"),
            target_rtp_bp: DEFAULT_PEG_LEG_TARGET_RTP_BP,
            betting_window_ms: 0,
        })
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
            confidence_commission_bp: default_confidence_commission_bp(),
            confidence_commission_cap: default_confidence_commission_cap(),
        })
    }

    pub fn demo_lobo() -> TableConfig {
        TableConfig::Lobo(LoboConfig {
            mode: LoboMode::Easy,
            min_unit: amount("1.00"),
            max_unit: amount("10.00"),
            loss_cap_points: 40,
            hints: true,
            house_rule: default_house_rule(Mode::Easy),
            house_rule_override: false,
            play_timeout_seconds: DEFAULT_PLAY_TIMEOUT_SECONDS,
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
                if c.confidence_commission_bp > crate::games::prima_carta::confidence::MAX_COMMISSION_BP {
                    return Err("confidence_commission_bp must be 0 to 2500".into());
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
                if c.house_rule.fee_per_round_hundredths > 100_000
                    || c.house_rule.ante_per_wolf_point_hundredths > 10_000
                {
                    return Err("house_rule: fee_per_round_hundredths must be at most 100000 and ante_per_wolf_point_hundredths at most 10000".into());
                }
                if !(MIN_PLAY_TIMEOUT_SECONDS..=MAX_PLAY_TIMEOUT_SECONDS).contains(&c.play_timeout_seconds) {
                    return Err(format!(
                        "play_timeout_seconds must be {MIN_PLAY_TIMEOUT_SECONDS} to {MAX_PLAY_TIMEOUT_SECONDS}"
                    ));
                }
                Ok(())
            }
            TableConfig::PegLeg(c) => c.validate(),
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
    #[schema(value_type = crate::api::contract::Amount, example = "1.00")]
    pub unit: Amount,
    /// Optional per-round seat fee (house revenue), charged with the spiga.
    #[schema(value_type = Option<crate::api::contract::Amount>, example = "0.50")]
    pub seat_fee: Option<Amount>,
    /// The owner of the Prima suit pays one unit to the dealers' tips.
    pub corte: bool,
    pub cobre: CobreOption,
    /// Side bets: smallest and largest single bet.
    #[schema(value_type = crate::api::contract::Amount, example = "1.00")]
    pub min_bet: Amount,
    #[schema(value_type = crate::api::contract::Amount, example = "100.00")]
    pub max_bet: Amount,
    /// Side bets: most one player may stake on one round.
    #[schema(value_type = crate::api::contract::Amount, example = "500.00")]
    pub max_exposure_per_round: Amount,
    /// Seated players may ask for the printed basic strategy's advice.
    pub strategy_advice: bool,
    /// Confidence bets between players (docs/confidence-bets.md): the house's commission on
    /// the winner's gain, in basis points (0 to 2500; 500 is 5%).
    #[serde(default = "default_confidence_commission_bp")]
    #[schema(minimum = 0, maximum = 2500, example = 500)]
    pub confidence_commission_bp: u32,
    /// The most commission one confidence bet pays.
    #[serde(default = "default_confidence_commission_cap")]
    #[schema(value_type = crate::api::contract::Amount, example = "25.00")]
    pub confidence_commission_cap: Amount,
}

fn default_confidence_commission_bp() -> u32 {
    500
}

fn default_confidence_commission_cap() -> Amount {
    amount("25.00")
}

impl PrimaCartaConfig {
    /// The commission on confidence bets between players.
    pub fn confidence_commission(&self) -> crate::games::prima_carta::confidence::Commission {
        crate::games::prima_carta::confidence::Commission {
            bp: self.confidence_commission_bp,
            cap_minor: self.confidence_commission_cap.minor(),
        }
    }

    /// The rules the engine deals by under these options.
    pub fn rules(&self) -> TableRules {
        TableRules {
            variant: match self.variant {
                PrimaVariant::Classic => Variant::Classic,
                PrimaVariant::Cinco => Variant::Cinco,
                PrimaVariant::Jasper => Variant::Jasper,
            },
            corte: self.corte,
            cobre: match self.cobre {
                CobreOption::Off => CobreRule::Off,
                CobreOption::Carry => CobreRule::Carry,
                CobreOption::House => CobreRule::House,
            },
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoboMode {
    Hard,
    Ordinary,
    Easy,
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(from = "LoboConfigInput", deny_unknown_fields)]
pub struct LoboConfig {
    pub mode: LoboMode,
    #[schema(value_type = crate::api::contract::Amount, example = "1.00")]
    pub min_unit: Amount,
    #[schema(value_type = crate::api::contract::Amount, example = "10.00")]
    pub max_unit: Amount,
    /// Most points a player can lose in one round; escrowed at its start.
    #[schema(minimum = 1, maximum = 1000)]
    pub loss_cap_points: u32,
    /// Players may ask for the solver's best play.
    pub hints: bool,
    /// Charges paid to the house when a round starts (docs/lobo.md §5). When omitted or null: the
    /// mode's default rule, proven to favour the house at a loss cap of 20 points or more.
    #[schema(value_type = Option<crate::tables::config::LoboHouseRule>, required = false)]
    pub house_rule: HouseRule,
    /// Set by a pit boss to open a table whose house rule is not proven to
    /// favour the house (a significant event).
    #[serde(default)]
    pub house_rule_override: bool,
    /// Seconds a round may wait for its player's next play; past it the service folds for
    /// the player, as the rules settle a player who stops. When omitted or null: 600.
    #[schema(minimum = 30, maximum = 86400, required = false, nullable)]
    pub play_timeout_seconds: u32,
}

/// The shortest and longest play timeouts a Lobo table may set, and the default.
pub const MIN_PLAY_TIMEOUT_SECONDS: u32 = 30;
pub const MAX_PLAY_TIMEOUT_SECONDS: u32 = 86_400;
pub const DEFAULT_PLAY_TIMEOUT_SECONDS: u32 = 600;

impl LoboMode {
    /// The engine's mode.
    pub fn engine(self) -> Mode {
        match self {
            LoboMode::Hard => Mode::Hard,
            LoboMode::Ordinary => Mode::Ordinary,
            LoboMode::Easy => Mode::Easy,
        }
    }
}

/// A Lobo house rule: charges fixed before any decision, in hundredths of the round's unit.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct LoboHouseRule {
    /// Flat fee per round (e.g. 500 = 5.00 units).
    #[schema(maximum = 100000)]
    pub fee_per_round_hundredths: u32,
    /// Ante per point of the Wolf's opening hand.
    #[schema(maximum = 10000)]
    pub ante_per_wolf_point_hundredths: u32,
}

/// `LoboConfig` as sent: `house_rule` may be omitted (the mode's default).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoboConfigInput {
    mode: LoboMode,
    min_unit: Amount,
    max_unit: Amount,
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    loss_cap_points: u32,
    hints: bool,
    #[serde(default)]
    house_rule: Option<HouseRule>,
    #[serde(default)]
    house_rule_override: bool,
    /// Rounds stored before the option existed read as the default.
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    play_timeout_seconds: Option<u32>,
}

impl From<LoboConfigInput> for LoboConfig {
    fn from(i: LoboConfigInput) -> LoboConfig {
        LoboConfig {
            mode: i.mode,
            min_unit: i.min_unit,
            max_unit: i.max_unit,
            loss_cap_points: i.loss_cap_points,
            hints: i.hints,
            house_rule: i.house_rule.unwrap_or_else(|| default_house_rule(i.mode.engine())),
            house_rule_override: i.house_rule_override,
            play_timeout_seconds: i.play_timeout_seconds.unwrap_or(DEFAULT_PLAY_TIMEOUT_SECONDS),
        }
    }
}

/// The target RTP of a Peg Leg table when none is set: 95.00%.
pub const DEFAULT_PEG_LEG_TARGET_RTP_BP: u32 = 9500;
/// The shortest and longest timed betting window after a Peg Leg card, in milliseconds.
pub const PEG_LEG_WINDOW_MS: (u32, u32) = (1_000, 120_000);

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PegLegConfig {
    /// Smallest and largest single bet.
    #[schema(value_type = crate::api::contract::Amount, example = "1.00")]
    pub min_bet: Amount,
    #[schema(value_type = crate::api::contract::Amount, example = "100.00")]
    pub max_bet: Amount,
    /// Most one player may stake on one round, over all their bets and rebets.
    #[schema(value_type = crate::api::contract::Amount, example = "500.00")]
    pub max_exposure_per_round: Amount,
    /// Every price quoted returns at most this share of the stake, in basis points
    /// (9500 = 95.00%), within the certification bounds (80.00% to 99.50%). When omitted: 9500.
    #[serde(
        default = "default_peg_leg_target",
        deserialize_with = "crate::domain::whole::integer"
    )]
    #[schema(minimum = 8000, maximum = 9950, required = false)]
    pub target_rtp_bp: u32,
    /// How long bets and surrenders are taken after each card, in milliseconds (1000 to
    /// 120000; the dealer cannot deal the next card before it ends), or 0: until the
    /// dealer deals the next card. When omitted: 0.
    #[serde(default, deserialize_with = "crate::domain::whole::integer")]
    #[schema(maximum = 120000, required = false)]
    pub betting_window_ms: u32,
}

fn default_peg_leg_target() -> u32 {
    DEFAULT_PEG_LEG_TARGET_RTP_BP
}

impl PegLegConfig {
    /// How the table prices its quotes.
    pub fn pricing(&self) -> crate::games::peg_leg::PricingConfig {
        crate::games::peg_leg::PricingConfig {
            target_rtp_bp: self.target_rtp_bp,
            ..Default::default()
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.min_bet > self.max_bet {
            return Err("min_bet must not exceed max_bet".into());
        }
        if self.max_bet > self.max_exposure_per_round {
            return Err("max_bet must not exceed max_exposure_per_round".into());
        }
        self.pricing()
            .validate(&crate::math::RtpBounds::default())
            .map_err(|why| format!("target_rtp_bp: {why}"))?;
        let (shortest, longest) = PEG_LEG_WINDOW_MS;
        if self.betting_window_ms != 0 && !(shortest..=longest).contains(&self.betting_window_ms) {
            return Err(format!(
                "betting_window_ms must be 0 (until the dealer deals) or {shortest} to {longest}"
            ));
        }
        Ok(())
    }
}
