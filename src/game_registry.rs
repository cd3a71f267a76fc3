//! The game registry: one description per kind of game djego runs, read by
//! every concern that cuts across games (the day close, the floor's reports,
//! a player's rounds, the database grants, the screens' game names) instead
//! of naming games one by one. A new game is added here, and the conformance
//! test (tests/api/game_registry.rs) walks every game through every concern,
//! so a game that misses one fails the build rather than a user.
//!
//! Every game's rounds end as `settled` or `voided`; any other status is a
//! round still going, which may hold money in escrow.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::store::schema::{
    bets, confidence_bets, fuerza_bets, lobo_contest_entries, lobo_contests, peg_leg_bets, peg_leg_client_seeds,
    peg_leg_rounds, rounds, seats,
};
use crate::store::AnyConnection;

/// The statuses in which a round of any game is over.
pub const ENDED_STATUSES: [&str; 2] = ["settled", "voided"];

/// Most rounds of each kind a player's list shows, open and recent apiece.
pub const MAX_ROUNDS_LISTED: i64 = 50;

/// A kind of game djego runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Game {
    PrimaCarta,
    PegLeg,
    Lobo,
    LoboContest,
}

impl Game {
    /// Every game, in the order lists show them.
    pub const ALL: [Game; 4] = [Game::PrimaCarta, Game::PegLeg, Game::Lobo, Game::LoboContest];

    /// The game's id, as the API, the stored rounds and the transcripts name it.
    pub const fn id(self) -> &'static str {
        match self {
            Game::PrimaCarta => "prima_carta",
            Game::PegLeg => "peg_leg",
            Game::Lobo => "lobo",
            Game::LoboContest => "lobo_contest",
        }
    }

    pub fn parse(id: &str) -> Option<Game> {
        Game::ALL.into_iter().find(|g| g.id() == id)
    }

    /// The game's description.
    pub fn entry(self) -> &'static GameEntry {
        match self {
            Game::PrimaCarta => &PRIMA_CARTA,
            Game::PegLeg => &PEG_LEG,
            Game::Lobo => &LOBO,
            Game::LoboContest => &LOBO_CONTEST,
        }
    }
}

/// A round of any game, as lists across games show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundSummary {
    pub game: Game,
    /// The round's id (a contest's id for a Lobo contest).
    pub round_id: String,
    pub table_id: String,
    /// The round's number at its table; a Lobo contest has none.
    pub number: Option<i64>,
    pub status: String,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

impl RoundSummary {
    pub fn is_over(&self) -> bool {
        ENDED_STATUSES.contains(&self.status.as_str())
    }
}

/// One game's description: what every cross-cutting concern needs to know of it.
pub struct GameEntry {
    pub game: Game,
    /// As people read it.
    pub name: &'static str,
    /// One line for people choosing a table.
    pub summary: &'static str,
    /// The `game` of the tables it is played at (a Lobo contest runs at a Lobo table).
    pub table_game: &'static str,
    /// Who starts its rounds.
    pub started_by: StartedBy,
    /// The SQL tables holding its rounds and their money whose rows the service changes
    /// (beyond inserting them): the production role needs UPDATE on each
    /// (deploy/postgres/roles.sql).
    pub service_updates: &'static [&'static str],
    /// The ledger transfer kinds by which its rounds hand a player back money they held in
    /// escrow but did not risk (beyond a void's `refund` and `bet_refund`, which every game
    /// shares): the floor's drop leaves it out (docs/floor.md, "drop").
    pub escrow_returns: &'static [&'static str],
    /// Its rounds created before an instant (µs) that have not ended: each may hold money in
    /// escrow, so a gaming day with one cannot be closed.
    pub unfinished_before: fn(&mut AnyConnection, i64) -> QueryResult<Vec<RoundSummary>>,
    /// Its rounds that ended (settled or voided) within `[from_us, to_us)`, the first `limit` of
    /// them in the order they ended (then by id): what the floor counts and the auditor exports.
    pub ended_between: fn(&mut AnyConnection, i64, i64, i64) -> QueryResult<Vec<RoundSummary>>,
    /// A player's rounds, newest first: those still going and the latest that are over, at most
    /// `limit` of each.
    pub of_player: fn(&mut AnyConnection, &str, i64) -> QueryResult<(Vec<RoundSummary>, Vec<RoundSummary>)>,
}

/// Who starts a game's rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StartedBy {
    /// The table's dealer.
    Dealer,
    /// The player, alone against the house.
    Player,
    /// A pit boss.
    PitBoss,
}

/// Whether a transfer of `kind` to a wallet gives back money held but not risked: a void's
/// refund, or a game's return of untouched escrow.
pub fn returns_unrisked(kind: &str) -> bool {
    ["refund", "bet_refund"].contains(&kind) || games().any(|g| g.escrow_returns.contains(&kind))
}

/// Every game's description.
pub fn games() -> impl Iterator<Item = &'static GameEntry> {
    Game::ALL.into_iter().map(Game::entry)
}

/// The games played at tables of `table_game`.
pub fn played_at(table_game: &str) -> impl Iterator<Item = &'static GameEntry> + '_ {
    games().filter(move |g| g.table_game == table_game)
}

/// Every game's unfinished rounds created before `before_us`, oldest first.
pub fn unfinished_before(conn: &mut AnyConnection, before_us: i64) -> QueryResult<Vec<RoundSummary>> {
    let mut all = Vec::new();
    for g in games() {
        all.extend((g.unfinished_before)(conn, before_us)?);
    }
    all.sort_by(|a, b| (a.created_at_us, &a.round_id).cmp(&(b.created_at_us, &b.round_id)));
    Ok(all)
}

/// Every game's rounds that ended within `[from_us, to_us)`.
pub fn ended_between(conn: &mut AnyConnection, from_us: i64, to_us: i64) -> QueryResult<Vec<RoundSummary>> {
    ended_page(conn, from_us, to_us, i64::MAX, 0)
}

/// One page of every game's rounds that ended within `[from_us, to_us)`, in the order they
/// ended (then by id) across games: `limit` of them after the first `offset`. Each game is
/// asked for its first `offset + limit`, which hold the page's.
pub fn ended_page(
    conn: &mut AnyConnection,
    from_us: i64,
    to_us: i64,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<RoundSummary>> {
    let first = offset.saturating_add(limit);
    let mut all = Vec::new();
    for g in games() {
        all.extend((g.ended_between)(conn, from_us, to_us, first)?);
    }
    all.sort_by(|a, b| (a.updated_at_us, &a.round_id).cmp(&(b.updated_at_us, &b.round_id)));
    Ok(all
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .collect())
}

/// A player's rounds of every game, newest first: (still going, latest over), at most `limit` of each.
pub fn of_player(
    conn: &mut AnyConnection,
    player_id: &str,
    limit: i64,
) -> QueryResult<(Vec<RoundSummary>, Vec<RoundSummary>)> {
    let (mut open, mut recent) = (Vec::new(), Vec::new());
    for g in games() {
        let (o, r) = (g.of_player)(conn, player_id, limit)?;
        open.extend(o);
        recent.extend(r);
    }
    for list in [&mut open, &mut recent] {
        list.sort_by(|a, b| (b.created_at_us, &b.round_id).cmp(&(a.created_at_us, &a.round_id)));
        list.truncate(limit.max(0) as usize);
    }
    Ok((open, recent))
}

// ---------------------------------------------------------------------------------------------
// The games.

pub static PRIMA_CARTA: GameEntry = GameEntry {
    game: Game::PrimaCarta,
    name: "Prima Carta",
    summary: "The house game, dealt by a dealer: seats by suit, copa by voice, and the house's side bets",
    table_game: "prima_carta",
    started_by: StartedBy::Dealer,
    service_updates: &[
        "rounds",
        "bets",
        "round_exposures",
        "round_bet_totals",
        "confidence_bets",
        "fuerza_bets",
    ],
    escrow_returns: &["confidence_refund"],
    unfinished_before: |conn, before_us| shared_rounds::unfinished(conn, Game::PrimaCarta, before_us),
    ended_between: |conn, from_us, to_us, limit| shared_rounds::ended(conn, Game::PrimaCarta, from_us, to_us, limit),
    of_player: |conn, player_id, limit| {
        use rounds as r;
        let mine = || {
            r::table
                .filter(r::game.eq(Game::PrimaCarta.id()))
                .filter(
                    r::id
                        .eq_any(
                            seats::table
                                .filter(seats::player_id.eq(player_id.to_owned()))
                                .select(seats::round_id),
                        )
                        .or(r::id.eq_any(
                            bets::table
                                .filter(bets::player_id.eq(player_id.to_owned()))
                                .select(bets::round_id),
                        ))
                        .or(r::id.eq_any(
                            confidence_bets::table
                                .filter(
                                    confidence_bets::offered_by
                                        .eq(player_id.to_owned())
                                        .or(confidence_bets::accepted_by.eq(player_id.to_owned())),
                                )
                                .select(confidence_bets::round_id),
                        ))
                        .or(r::id.eq_any(
                            fuerza_bets::table
                                .filter(fuerza_bets::player_id.eq(player_id.to_owned()))
                                .select(fuerza_bets::round_id),
                        )),
                )
                .order((r::created_at_us.desc(), r::id.desc()))
                .select(shared_rounds::columns())
                .limit(limit)
        };
        let open = mine().filter(r::status.ne_all(ENDED_STATUSES)).load(conn)?;
        let recent = mine().filter(r::status.eq_any(ENDED_STATUSES)).load(conn)?;
        Ok(shared_rounds::split(Game::PrimaCarta, (open, recent)))
    },
};

pub static PEG_LEG: GameEntry = GameEntry {
    game: Game::PegLeg,
    name: "Peg Leg",
    summary: "One suit watched through a pass dealt card by card; bet on its final count, priced after every card",
    table_game: "peg_leg",
    started_by: StartedBy::Dealer,
    service_updates: &["peg_leg_rounds", "peg_leg_bets"],
    escrow_returns: &[],
    unfinished_before: |conn, before_us| {
        use peg_leg_rounds as r;
        Ok(r::table
            .filter(r::created_at_us.lt(before_us))
            .filter(r::status.ne_all(ENDED_STATUSES))
            .select(peg_leg_columns())
            .load(conn)?
            .into_iter()
            .map(peg_leg_summary)
            .collect())
    },
    ended_between: |conn, from_us, to_us, limit| {
        use peg_leg_rounds as r;
        Ok(r::table
            .filter(r::updated_at_us.ge(from_us).and(r::updated_at_us.lt(to_us)))
            .filter(r::status.eq_any(ENDED_STATUSES))
            .order((r::updated_at_us, r::id))
            .limit(limit)
            .select(peg_leg_columns())
            .load(conn)?
            .into_iter()
            .map(peg_leg_summary)
            .collect())
    },
    of_player: |conn, player_id, limit| {
        use peg_leg_rounds as r;
        let mine = || {
            r::table
                .filter(
                    r::id
                        .eq_any(
                            peg_leg_bets::table
                                .filter(peg_leg_bets::player_id.eq(player_id.to_owned()))
                                .select(peg_leg_bets::round_id),
                        )
                        .or(r::id.eq_any(
                            peg_leg_client_seeds::table
                                .filter(peg_leg_client_seeds::player_id.eq(player_id.to_owned()))
                                .select(peg_leg_client_seeds::round_id),
                        )),
                )
                .order((r::created_at_us.desc(), r::id.desc()))
                .select(peg_leg_columns())
                .limit(limit)
        };
        let open = mine().filter(r::status.ne_all(ENDED_STATUSES)).load(conn)?;
        let recent = mine().filter(r::status.eq_any(ENDED_STATUSES)).load(conn)?;
        Ok((
            open.into_iter().map(peg_leg_summary).collect(),
            recent.into_iter().map(peg_leg_summary).collect(),
        ))
    },
};

pub static LOBO: GameEntry = GameEntry {
    game: Game::Lobo,
    name: "Lobo",
    summary: "Played by each player alone against the house, which plays the Wolf; no dealer needed",
    table_game: "lobo",
    started_by: StartedBy::Player,
    service_updates: &["rounds"],
    escrow_returns: &["lobo_release"],
    unfinished_before: |conn, before_us| shared_rounds::unfinished(conn, Game::Lobo, before_us),
    ended_between: |conn, from_us, to_us, limit| shared_rounds::ended(conn, Game::Lobo, from_us, to_us, limit),
    of_player: |conn, player_id, limit| {
        use rounds as r;
        let mine = || {
            r::table
                .filter(r::game.eq(Game::Lobo.id()))
                .filter(r::created_by.eq(player_id.to_owned()))
                .order((r::created_at_us.desc(), r::id.desc()))
                .select(shared_rounds::columns())
                .limit(limit)
        };
        let open = mine().filter(r::status.ne_all(ENDED_STATUSES)).load(conn)?;
        let recent = mine().filter(r::status.eq_any(ENDED_STATUSES)).load(conn)?;
        Ok(shared_rounds::split(Game::Lobo, (open, recent)))
    },
};

pub static LOBO_CONTEST: GameEntry = GameEntry {
    game: Game::LoboContest,
    name: "Lobo contest",
    summary: "Three rounds of Lobo, each entrant on a deck of their own, the best total taking the pot less the rake",
    table_game: "lobo",
    started_by: StartedBy::PitBoss,
    service_updates: &["lobo_contests", "lobo_contest_entries"],
    escrow_returns: &[],
    unfinished_before: |conn, before_us| {
        use lobo_contests as c;
        Ok(c::table
            .filter(c::created_at_us.lt(before_us))
            .filter(c::status.ne_all(ENDED_STATUSES))
            .select(contest_columns())
            .load(conn)?
            .into_iter()
            .map(contest_summary)
            .collect())
    },
    ended_between: |conn, from_us, to_us, limit| {
        use lobo_contests as c;
        Ok(c::table
            .filter(c::updated_at_us.ge(from_us).and(c::updated_at_us.lt(to_us)))
            .filter(c::status.eq_any(ENDED_STATUSES))
            .order((c::updated_at_us, c::id))
            .limit(limit)
            .select(contest_columns())
            .load(conn)?
            .into_iter()
            .map(contest_summary)
            .collect())
    },
    of_player: |conn, player_id, limit| {
        use lobo_contests as c;
        let mine = || {
            c::table
                .filter(
                    c::id.eq_any(
                        lobo_contest_entries::table
                            .filter(lobo_contest_entries::player_id.eq(player_id.to_owned()))
                            .select(lobo_contest_entries::contest_id),
                    ),
                )
                .order((c::created_at_us.desc(), c::id.desc()))
                .select(contest_columns())
                .limit(limit)
        };
        let open = mine().filter(c::status.ne_all(ENDED_STATUSES)).load(conn)?;
        let recent = mine().filter(c::status.eq_any(ENDED_STATUSES)).load(conn)?;
        Ok((
            open.into_iter().map(contest_summary).collect(),
            recent.into_iter().map(contest_summary).collect(),
        ))
    },
};

/// Prima Carta's and Lobo's rounds share the `rounds` table, told apart by its `game` column.
mod shared_rounds {
    use super::*;
    use rounds as r;

    pub type Row = (String, String, i64, String, i64, i64);

    pub fn columns() -> (
        r::id,
        r::table_id,
        r::number,
        r::status,
        r::created_at_us,
        r::updated_at_us,
    ) {
        (
            r::id,
            r::table_id,
            r::number,
            r::status,
            r::created_at_us,
            r::updated_at_us,
        )
    }

    fn summary(game: Game) -> impl Fn(Row) -> RoundSummary {
        move |(round_id, table_id, number, status, created_at_us, updated_at_us)| RoundSummary {
            game,
            round_id,
            table_id,
            number: Some(number),
            status,
            created_at_us,
            updated_at_us,
        }
    }

    pub fn unfinished(conn: &mut AnyConnection, game: Game, before_us: i64) -> QueryResult<Vec<RoundSummary>> {
        Ok(r::table
            .filter(r::game.eq(game.id()))
            .filter(r::created_at_us.lt(before_us))
            .filter(r::status.ne_all(ENDED_STATUSES))
            .select(columns())
            .load(conn)?
            .into_iter()
            .map(summary(game))
            .collect())
    }

    pub fn ended(
        conn: &mut AnyConnection,
        game: Game,
        from_us: i64,
        to_us: i64,
        limit: i64,
    ) -> QueryResult<Vec<RoundSummary>> {
        Ok(r::table
            .filter(r::game.eq(game.id()))
            .filter(r::updated_at_us.ge(from_us).and(r::updated_at_us.lt(to_us)))
            .filter(r::status.eq_any(ENDED_STATUSES))
            .order((r::updated_at_us, r::id))
            .limit(limit)
            .select(columns())
            .load(conn)?
            .into_iter()
            .map(summary(game))
            .collect())
    }

    pub fn split(game: Game, (open, recent): (Vec<Row>, Vec<Row>)) -> (Vec<RoundSummary>, Vec<RoundSummary>) {
        (
            open.into_iter().map(summary(game)).collect(),
            recent.into_iter().map(summary(game)).collect(),
        )
    }
}

type SummaryRow = (String, String, i64, String, i64, i64);

fn peg_leg_columns() -> (
    peg_leg_rounds::id,
    peg_leg_rounds::table_id,
    peg_leg_rounds::number,
    peg_leg_rounds::status,
    peg_leg_rounds::created_at_us,
    peg_leg_rounds::updated_at_us,
) {
    use peg_leg_rounds as r;
    (
        r::id,
        r::table_id,
        r::number,
        r::status,
        r::created_at_us,
        r::updated_at_us,
    )
}

fn peg_leg_summary((round_id, table_id, number, status, created_at_us, updated_at_us): SummaryRow) -> RoundSummary {
    RoundSummary {
        game: Game::PegLeg,
        round_id,
        table_id,
        number: Some(number),
        status,
        created_at_us,
        updated_at_us,
    }
}

fn contest_columns() -> (
    lobo_contests::id,
    lobo_contests::table_id,
    lobo_contests::status,
    lobo_contests::created_at_us,
    lobo_contests::updated_at_us,
) {
    use lobo_contests as c;
    (c::id, c::table_id, c::status, c::created_at_us, c::updated_at_us)
}

fn contest_summary(
    (round_id, table_id, status, created_at_us, updated_at_us): (String, String, String, i64, i64),
) -> RoundSummary {
    RoundSummary {
        game: Game::LoboContest,
        round_id,
        table_id,
        number: None,
        status,
        created_at_us,
        updated_at_us,
    }
}
