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

/// What the auditor's export holds, one line each: a round of a table (its
/// transcript), a Lobo contest (its recall, every entrant's deck and play) or a
/// Peg Leg round (its recall, every quote and bet).
#[derive(Debug)]
pub enum Finished {
    Round(RoundRow),
    LoboContest(String),
    PegLeg(String),
}

/// The rounds, Lobo contests and Peg Leg rounds settled or voided in
/// `[from_us, to_us)`, in the order they ended (then by id), one page of them.
pub fn finished_between(
    conn: &mut crate::store::AnyConnection,
    from_us: i64,
    to_us: i64,
    limit: i64,
    offset: i64,
) -> diesel::QueryResult<Vec<Finished>> {
    use diesel::prelude::*;
    use diesel::sql_types::Text;
    #[derive(QueryableByName)]
    struct Ended {
        #[diesel(sql_type = Text)]
        kind: String,
        #[diesel(sql_type = Text)]
        id: String,
    }
    // One ordered list across the three tables, so that `offset` pages through it; the figures
    // are integers, written into the text. A Peg Leg round's `updated_at_us` is when it ended.
    let ended: Vec<Ended> = diesel::sql_query(format!(
        "SELECT 'round' AS kind, id, updated_at_us FROM rounds \
           WHERE status IN ('settled', 'voided') AND updated_at_us >= {from_us} AND updated_at_us < {to_us} \
         UNION ALL \
         SELECT 'lobo_contest' AS kind, id, updated_at_us FROM lobo_contests \
           WHERE status IN ('settled', 'voided') AND updated_at_us >= {from_us} AND updated_at_us < {to_us} \
         UNION ALL \
         SELECT 'peg_leg' AS kind, id, updated_at_us FROM peg_leg_rounds \
           WHERE status IN ('settled', 'voided') AND updated_at_us >= {from_us} AND updated_at_us < {to_us} \
         ORDER BY updated_at_us, id LIMIT {limit} OFFSET {offset}"
    ))
    .load(conn)?;
    let round_ids: Vec<&str> = ended
        .iter()
        .filter(|e| e.kind == "round")
        .map(|e| e.id.as_str())
        .collect();
    let mut rows: std::collections::HashMap<String, RoundRow> = record::by_ids(conn, &round_ids)?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    Ok(ended
        .into_iter()
        .filter_map(|e| match e.kind.as_str() {
            "round" => rows.remove(&e.id).map(Finished::Round),
            "peg_leg" => Some(Finished::PegLeg(e.id)),
            _ => Some(Finished::LoboContest(e.id)),
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
