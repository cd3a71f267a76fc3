//! Rounds of the house games: the stored record, the sealed seeds, and each
//! game's service logic (engine replay + ledger), called by the API handlers.

pub mod lobo;
pub mod prima_carta;
pub mod record;
pub mod seed_vault;

pub use record::{RoundRow, RoundStatus};
pub use seed_vault::SeedVault;
