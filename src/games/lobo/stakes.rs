//! The money of a Lobo round in minor units (docs/lobo.md, "The service"):
//! pure arithmetic shared by the service and the round verifier.

use super::{HouseRule, Outcome};
use crate::domain::Amount;

/// What a round takes from the wallet when it starts, in minor units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartMoney {
    /// unit × loss cap, held in `escrow:<round>` until settlement.
    pub escrow_minor: i64,
    /// The house rule's charge: `unit × (fee + ante × Wolf's opening points) / 100`,
    /// rounded up to the cent (so the proven edge holds at every unit).
    pub charge_minor: i64,
}

pub fn start_money(unit: Amount, loss_cap_points: u32, rule: &HouseRule, wolf_opening_points: u32) -> StartMoney {
    let hundredths = rule.charge_hundredths(wolf_opening_points) as i64;
    let charge_minor = (unit.minor() * hundredths + 99) / 100;
    StartMoney {
        escrow_minor: unit.minor() * loss_cap_points as i64,
        charge_minor,
    }
}

/// The settlement transfers' amounts in minor units (zero = no transfer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettleMoney {
    /// House bankroll → wallet.
    pub win_minor: i64,
    /// Escrow → house bankroll.
    pub loss_minor: i64,
    /// Escrow → wallet.
    pub release_minor: i64,
}

pub fn settle_money(unit: Amount, loss_cap_points: u32, escrow_minor: i64, outcome: &Outcome) -> SettleMoney {
    if outcome.player_won {
        SettleMoney {
            win_minor: unit.minor() * outcome.points as i64,
            loss_minor: 0,
            release_minor: escrow_minor,
        }
    } else {
        let loss = unit.minor() * outcome.capped_points(Some(loss_cap_points)) as i64;
        SettleMoney {
            win_minor: 0,
            loss_minor: loss,
            release_minor: escrow_minor - loss,
        }
    }
}
