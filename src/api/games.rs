//! The games djego runs, as the game registry describes them: what the screens name games by
//! and offer when a table is created.

use actix_web::{get, web};
use serde::Serialize;
use utoipa::ToSchema;

use crate::game_registry::{self, Game, StartedBy};

/// A game djego runs.
#[derive(Serialize, ToSchema)]
pub struct GameInfo {
    /// Its id, as rounds, tables and transcripts name it.
    pub game: Game,
    /// Its name, as people read it.
    #[schema(example = "Peg Leg")]
    pub name: &'static str,
    /// One line on how it is played.
    pub summary: &'static str,
    /// The `game` of the tables it is played at (a Lobo contest runs at a Lobo table).
    #[schema(example = "peg_leg")]
    pub table_game: &'static str,
    /// Who starts its rounds.
    pub started_by: StartedBy,
}

/// The games djego runs, each with its name and how it is played. Public: nothing in it
/// belongs to anyone.
#[utoipa::path(tag = "tables", security(()), responses((status = 200, body = Vec<GameInfo>)))]
#[get("/api/v1/games")]
pub async fn list_games() -> web::Json<Vec<GameInfo>> {
    web::Json(
        game_registry::games()
            .map(|g| GameInfo {
                game: g.game,
                name: g.name,
                summary: g.summary,
                table_game: g.table_game,
                started_by: g.started_by,
            })
            .collect(),
    )
}
