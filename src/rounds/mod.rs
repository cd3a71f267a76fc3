//! Rounds of the house games: the stored record, the sealed seeds, and each
//! game's service logic (engine replay + ledger), called by the API handlers.

pub mod lobo;
pub mod lobo_contests;
pub mod lobo_hints;
pub mod lobo_timeouts;
pub mod peg_leg;
pub mod prima_carta;
pub mod record;
pub mod seed_vault;

pub use record::{RoundRow, RoundStatus};
pub use seed_vault::SeedVault;

/// Any finished round's transcript (docs/transcript.md), whatever its game.
pub fn transcript(
    conn: &mut crate::store::AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    viewer: &crate::transcript::Viewer,
    with_events: bool,
) -> Result<crate::transcript::RoundTranscript<'static>, crate::api::error::ApiError> {
    match row.game.as_str() {
        "lobo" => Ok(lobo::transcript(conn, row, viewer)?),
        _ => prima_carta::transcript(conn, vault, row, viewer, with_events),
    }
}
