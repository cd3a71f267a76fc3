//! Rounds of the house games: the stored record, the sealed seeds, and each
//! game's service logic (engine replay + ledger), called by the API handlers.

pub mod ledger_proof;
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

/// What the auditor's export holds, one line each: a round of a table (its
/// transcript), a Lobo contest (its recall, every entrant's deck and play) or a
/// Peg Leg round (its recall, every quote and bet).
#[derive(Debug)]
pub enum Finished {
    Round(RoundRow),
    LoboContest(String),
    PegLeg(String),
}

/// Every game's rounds settled or voided in `[from_us, to_us)`, in the order they ended (then
/// by id), one page of them, as the game registry lists them.
pub fn finished_between(
    conn: &mut crate::store::AnyConnection,
    from_us: i64,
    to_us: i64,
    limit: i64,
    offset: i64,
) -> diesel::QueryResult<Vec<Finished>> {
    use crate::game_registry::Game;
    let ended = crate::game_registry::ended_page(conn, from_us, to_us, limit, offset)?;
    let round_ids: Vec<&str> = ended
        .iter()
        .filter(|e| matches!(e.game, Game::PrimaCarta | Game::Lobo))
        .map(|e| e.round_id.as_str())
        .collect();
    let mut rows: std::collections::HashMap<String, RoundRow> = record::by_ids(conn, &round_ids)?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    // Exhaustive: a new game does not compile here until the export knows its document.
    Ok(ended
        .into_iter()
        .filter_map(|e| match e.game {
            Game::PrimaCarta | Game::Lobo => rows.remove(&e.round_id).map(Finished::Round),
            Game::PegLeg => Some(Finished::PegLeg(e.round_id)),
            Game::LoboContest => Some(Finished::LoboContest(e.round_id)),
        })
        .collect())
}

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
