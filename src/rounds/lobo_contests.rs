//! Three-round Lobo contests (docs/lobo.md §9): a pot among players, hosted by the house.
//!
//! A pit boss creates a contest at an open Lobo table: the entry fee, the house's rake, the
//! number of players and the entry window. Its deck's server seed is drawn and sealed at once
//! and its commitment published, before anyone enters. Players enter by paying the fee into
//! the contest's pot (`pot:<contest>`), each with an optional client seed. When entry closes
//! (the pit boss, the window's end, or the last seat taken) the entrants' seeds are combined
//! as Prima Carta combines them at the close of betting, and that fixes the one deck
//! (shuffle-v1, game `lobo`, the contest id as the round id, the combined seed as Lobo's one
//! client seed). Every entrant then plays the same deck — duplicate deals — through the pure
//! engine's three-round play (`games::lobo::ThreeRounds`); only the plays are stored.
//! When the last entrant finishes, or the play time runs out (the entrants still playing are
//! folded, as the rules settle a player who stops), the pot less the rake goes to the best
//! total, ties split to the cent (`games::lobo::split_pot`), and the seed is revealed.
//!
//! Every change runs in one write transaction holding the contest's row lock, so entries,
//! plays and the settlement apply once and in one order. Nothing another entrant did is shown
//! to a player before the contest is over: with duplicate deals, a finished player's cards
//! would show the deck to those still playing.

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::lobo::{LoboPlay, LoboTableView};
use super::seed_vault::SeedVault;
use crate::cards::shuffle::{self, ClientSeed, Game, ServerSeed};
use crate::cards::transcript::{self as shuffle_transcript, ShuffleTranscript, VerificationReport};
use crate::cards::Card;
use crate::domain::{format_minor, Amount};
use crate::games::lobo::{
    replay_three_rounds, split_pot, Mode, Play, PotSplit, RakeRate, RoundScore, ThreeRounds, ROUNDS,
};
use crate::ledger::{self, accounts, AccountId, LedgerError, Refs, TransferKind, TransferSpec};
use crate::significant_events::{self, EventKind};
use crate::store::schema::{lobo_contest_entries as e, lobo_contests as c};
use crate::store::{lock_for_update, new_id, now_us, AnyConnection};
use crate::tables::config::LoboMode;
use crate::tables::{Table, TableConfig};
use crate::transcript::{Party, Pseudonyms, TransferEntry, Viewer};

/// Most entrants a contest may seat.
pub const MAX_PLAYERS: u32 = 100;
/// The shortest and longest entry window, in seconds.
pub const ENTRY_SECONDS: (u32, u32) = (30, 7 * 86_400);
/// The shortest and longest play time after entry closes, in seconds.
pub const PLAY_SECONDS: (u32, u32) = (60, 86_400);

/// Why a contest operation was refused or failed; `api/` turns each into its HTTP answer.
#[derive(Debug, thiserror::Error)]
pub enum ContestError {
    #[error("Lobo contest not found")]
    ContestNotFound,
    #[error("table not found")]
    TableNotFound,
    #[error("this table does not deal Lobo")]
    WrongGame,
    #[error("this table is closed")]
    TableClosed,
    #[error("{0}")]
    BadOption(String),
    /// Closed by the pit boss, by the window's end, or by the last seat being taken.
    #[error("entry to this contest is closed")]
    EntryClosed,
    #[error("you have already entered this contest")]
    AlreadyEntered,
    #[error("the entry fee is {fee}; the wallet holds {balance}")]
    InsufficientFunds { fee: String, balance: String },
    #[error("only players with a wallet may enter")]
    NoWallet,
    #[error("you have not entered this contest")]
    NotEntered,
    #[error("cannot {action}: the contest is {status}")]
    WrongState { action: &'static str, status: String },
    #[error("your three rounds are over; the contest settles when every entrant has finished")]
    PlayOver,
    #[error("the contest's play time is over; it settles at once")]
    PlayTimeOver,
    #[error(
        "you have made {made} play(s) but the request expected {expected}: it was made on an old view \
         or repeated; reload the contest"
    )]
    StalePlay { made: usize, expected: usize },
    #[error("{0}")]
    IllegalPlay(String),
    #[error("entrants may play until {closes_at_us} (µs since the epoch); settle after that, or void")]
    PlayTimeLeft { closes_at_us: i64 },
    #[error("the recall is available once the contest is settled or voided")]
    NotOver,
    #[error("the contest changed meanwhile; reload and retry")]
    Changed,
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Store(#[from] diesel::result::Error),
    #[error(transparent)]
    Database(#[from] crate::store::StoreError),
    /// A stored contest that does not read back (a defect or tampering): never the client's fault.
    #[error("{0}")]
    Corrupt(String),
}

// ---------------------------------------------------------------------------
// Options and stored parts
// ---------------------------------------------------------------------------

/// A contest's options, as the pit boss sets them (`mode` comes from the table).
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ContestOptions {
    /// What each entrant pays into the pot.
    #[schema(value_type = crate::api::contract::Amount, example = "10.00")]
    pub entry_fee: Amount,
    /// The house's rake, in basis points of the pot (0–2000: at most 20 %), rounded down to the cent.
    #[schema(value_type = u32, minimum = 0, maximum = 2000, example = 500)]
    pub rake_basis_points: RakeRate,
    /// The contest is voided, every entry refunded, if fewer have entered when entry closes (2 or more).
    #[schema(minimum = 2, maximum = 100)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub min_players: u32,
    /// Entry closes at once when this many have entered (at most 100).
    #[schema(minimum = 2, maximum = 100)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub max_players: u32,
    /// How long entry stays open from the contest's creation (30 s to 7 days).
    #[schema(minimum = 30, maximum = 604800)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub entry_seconds: u32,
    /// How long entrants may play once entry closes (60 s to 1 day); then the contest settles,
    /// folding the rounds of anyone still playing.
    #[schema(minimum = 60, maximum = 86400)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub play_seconds: u32,
}

impl ContestOptions {
    /// Checks what the types cannot.
    pub fn validate(&self) -> Result<(), ContestError> {
        let bad = |m: String| Err(ContestError::BadOption(m));
        if !(2..=MAX_PLAYERS).contains(&self.min_players) || !(2..=MAX_PLAYERS).contains(&self.max_players) {
            return bad(format!("min_players and max_players must be 2 to {MAX_PLAYERS}"));
        }
        if self.min_players > self.max_players {
            return bad("min_players must not exceed max_players".into());
        }
        if !(ENTRY_SECONDS.0..=ENTRY_SECONDS.1).contains(&self.entry_seconds) {
            return bad(format!(
                "entry_seconds must be {} to {}",
                ENTRY_SECONDS.0, ENTRY_SECONDS.1
            ));
        }
        if !(PLAY_SECONDS.0..=PLAY_SECONDS.1).contains(&self.play_seconds) {
            return bad(format!("play_seconds must be {} to {}", PLAY_SECONDS.0, PLAY_SECONDS.1));
        }
        Ok(())
    }
}

/// The contest's configuration, fixed at its creation (`lobo_contests.config`).
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
pub struct ContestConfig {
    /// The table's mode when the contest was created.
    pub mode: LoboMode,
    pub options: ContestOptions,
}

impl ContestConfig {
    pub fn mode(&self) -> Mode {
        self.mode.engine()
    }
}

/// Where a contest is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContestStatus {
    /// Players may enter; the deck is committed but not yet fixed (the client seeds are not in).
    Entry,
    /// Entry is closed and the deck fixed; entrants are playing their three rounds.
    InPlay,
    Settled,
    Voided,
}

impl ContestStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ContestStatus::Entry => "entry",
            ContestStatus::InPlay => "in_play",
            ContestStatus::Settled => "settled",
            ContestStatus::Voided => "voided",
        }
    }
    fn parse(text: &str) -> ContestStatus {
        match text {
            "entry" => ContestStatus::Entry,
            "in_play" => ContestStatus::InPlay,
            "settled" => ContestStatus::Settled,
            _ => ContestStatus::Voided,
        }
    }
    /// The seed and everyone's play may be shown.
    pub fn is_over(self) -> bool {
        matches!(self, ContestStatus::Settled | ContestStatus::Voided)
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = c)]
pub struct ContestRow {
    pub id: String,
    pub table_id: String,
    pub status: String,
    pub config: String,
    pub commitment: String,
    pub server_seed_sealed: String,
    pub client_seed: Option<String>,
    pub revealed_server_seed: Option<String>,
    pub result: Option<String>,
    pub entry_closes_at_us: i64,
    pub play_closes_at_us: Option<i64>,
    pub version: i64,
    pub created_by: String,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

impl ContestRow {
    pub fn status(&self) -> ContestStatus {
        ContestStatus::parse(&self.status)
    }
    pub fn config(&self) -> Result<ContestConfig, ContestError> {
        serde_json::from_str(&self.config).map_err(|e| ContestError::Corrupt(format!("stored contest config: {e}")))
    }
    fn result(&self) -> Result<Option<ContestResult>, ContestError> {
        self.result
            .as_deref()
            .map(|t| serde_json::from_str(t).map_err(|e| ContestError::Corrupt(format!("stored contest result: {e}"))))
            .transpose()
    }
    fn require(&self, allowed: &[ContestStatus], action: &'static str) -> Result<(), ContestError> {
        if allowed.contains(&self.status()) {
            Ok(())
        } else {
            Err(ContestError::WrongState {
                action,
                status: self.status.clone(),
            })
        }
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = e)]
pub struct EntryRow {
    pub contest_id: String,
    pub player_id: String,
    pub entry_number: i32,
    pub client_seed: Option<String>,
    pub plays: String,
    pub finished: bool,
    pub stopped: bool,
    pub total: Option<i64>,
    pub entered_at_us: i64,
    pub updated_at_us: i64,
}

impl EntryRow {
    fn plays(&self) -> Result<Vec<Play>, ContestError> {
        serde_json::from_str(&self.plays).map_err(|e| ContestError::Corrupt(format!("stored contest plays: {e}")))
    }
}

/// One entrant's place at settlement.
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
pub struct Standing {
    /// 1 for the first to enter, and so on.
    pub entry_number: i32,
    pub player_id: String,
    /// The sum of the three rounds' scores.
    pub total: i64,
    /// The entrant's rounds were folded when the play time ran out.
    pub stopped: bool,
    /// Paid from the pot ("0.00" for those without the best total).
    pub prize: String,
}

/// A settled contest's money and standings (`lobo_contests.result`).
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
pub struct ContestResult {
    /// Entry fee × entrants.
    pub pot: String,
    /// To house revenue.
    pub rake: String,
    /// The pot less the rake, all of it paid to the best total.
    pub prize_pool: String,
    pub best_total: Option<i64>,
    /// In entry order.
    pub standings: Vec<Standing>,
}

/// The deck of a contest whose entry has closed: shuffle-v1, game `lobo`, the contest id as
/// the round id, the combined client seed as Lobo's one client seed.
fn deck_of(seed: &ServerSeed, row: &ContestRow, client_seed: &str, mode: Mode) -> Vec<Card> {
    shuffle::shuffled_deck(seed, Game::Lobo, &row.id, client_seed, mode.max_rank()).0
}

fn open_seed(vault: &SeedVault, row: &ContestRow) -> Result<ServerSeed, ContestError> {
    vault
        .open(&row.id, &row.server_seed_sealed)
        .map_err(|e| ContestError::Corrupt(e.to_string()))
}

/// The entrants' seeds (those given), combined as Prima Carta combines a round's seeds.
fn combined_seed(entries: &[EntryRow]) -> Result<String, ContestError> {
    let seeds = entrant_seeds(entries)?;
    Ok(shuffle::combined_client_seed(&seeds))
}

fn entrant_seeds(entries: &[EntryRow]) -> Result<Vec<ClientSeed>, ContestError> {
    entries
        .iter()
        .filter_map(|en| en.client_seed.as_deref())
        .map(|s| ClientSeed::parse(s).map_err(|e| ContestError::Corrupt(format!("stored client seed: {e}"))))
        .collect()
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

pub fn find(conn: &mut AnyConnection, id: &str) -> Result<ContestRow, ContestError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ContestError::ContestNotFound);
    }
    c::table
        .find(id)
        .select(ContestRow::as_select())
        .first(conn)
        .optional()?
        .ok_or(ContestError::ContestNotFound)
}

/// Loads a contest and, on PostgreSQL, holds its row lock to the end of the transaction
/// (SQLite runs one writer at a time).
fn lock(conn: &mut AnyConnection, id: &str) -> Result<ContestRow, ContestError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ContestError::ContestNotFound);
    }
    lock_for_update(
        conn,
        &format!("SELECT id FROM lobo_contests WHERE id = '{id}' FOR UPDATE"),
    )?;
    find(conn, id)
}

/// The contest's entries in entry order.
pub fn entries(conn: &mut AnyConnection, contest_id: &str) -> Result<Vec<EntryRow>, ContestError> {
    Ok(e::table
        .filter(e::contest_id.eq(contest_id))
        .order(e::entry_number.asc())
        .select(EntryRow::as_select())
        .load(conn)?)
}

/// A table's contests, newest first.
pub fn for_table(conn: &mut AnyConnection, table_id: &str, limit: i64) -> Result<Vec<ContestRow>, ContestError> {
    Ok(c::table
        .filter(c::table_id.eq(table_id))
        .order((c::created_at_us.desc(), c::id.desc()))
        .limit(limit)
        .select(ContestRow::as_select())
        .load(conn)?)
}

/// The deck, once entry has closed: `None` while entry is open (the client seeds are not in).
fn fixed_deck(vault: &SeedVault, row: &ContestRow, mode: Mode) -> Result<Option<Vec<Card>>, ContestError> {
    match &row.client_seed {
        None => Ok(None),
        Some(client_seed) => Ok(Some(deck_of(&open_seed(vault, row)?, row, client_seed, mode))),
    }
}

fn replay(deck: &[Card], mode: Mode, entry: &EntryRow) -> Result<ThreeRounds, ContestError> {
    replay_three_rounds(mode, deck, &entry.plays()?).map_err(|err| {
        ContestError::Corrupt(format!(
            "stored plays of entry {} of contest {} do not replay: {err}",
            entry.entry_number, entry.contest_id
        ))
    })
}

// ---------------------------------------------------------------------------
// What clients see
// ---------------------------------------------------------------------------

/// One of an entrant's three rounds.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct ContestRoundView {
    /// 1, 2 or 3.
    pub number: usize,
    /// False: not dealt yet, or too few cards were left to deal it (it scores 0).
    pub dealt: bool,
    /// Once the round is over: wolf_emptied, folded or no_legal_play.
    pub reason: Option<String>,
    /// Once the round is over: the player's points on a win, the Wolf's on a loss.
    pub points: Option<u32>,
    /// +points on a win, −points on a loss, 0 while in play or not dealt.
    pub score: i64,
}

impl From<&RoundScore> for ContestRoundView {
    fn from(s: &RoundScore) -> ContestRoundView {
        ContestRoundView {
            number: s.number,
            dealt: s.dealt,
            reason: s.outcome.map(|o| reason_name(o.reason)),
            points: s.outcome.map(|o| o.points),
            score: s.score,
        }
    }
}

fn reason_name(reason: crate::games::lobo::EndReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The caller's own entry: their progress, the round in play as they see it (never a
/// face-down card), and the cards the earlier rounds used (all of which they saw).
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct EntryView {
    pub entry_number: i32,
    /// The client seed sent with the entry ("" when none).
    pub client_seed: String,
    /// Plays made in all rounds: send it back as `expected_plays` with the next play.
    pub plays_made: usize,
    /// The round being played (1–3); null before entry closes and once the play is over.
    pub round_in_play: Option<usize>,
    pub rounds: Vec<ContestRoundView>,
    /// The sum of the rounds' scores so far.
    pub total: i64,
    pub finished: bool,
    /// The rounds were folded when the play time ran out.
    pub stopped: bool,
    /// The round in play as the player sees it; null when none is.
    pub table: Option<LoboTableView>,
    /// Card ids the earlier rounds used (sorted): set aside, out of this round's deck.
    pub set_aside: Vec<u8>,
}

/// An entrant as staff see them while the contest runs: progress, never cards or scores.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct EntrantProgress {
    pub entry_number: i32,
    pub player_id: String,
    pub plays_made: usize,
    pub finished: bool,
}

/// A contest as the API shows it to the caller.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct ContestView {
    pub id: String,
    pub table_id: String,
    #[schema(value_type = String, example = "entry")]
    pub status: ContestStatus,
    /// hard, ordinary or easy.
    pub mode: String,
    #[schema(value_type = String, example = "10.00")]
    pub entry_fee: Amount,
    pub rake_basis_points: u16,
    pub min_players: u32,
    pub max_players: u32,
    pub rounds_per_player: usize,
    /// µs since the epoch: entries are refused from then on.
    pub entry_closes_at_us: i64,
    /// µs since the epoch, once entry has closed: the play time's end.
    pub play_closes_at_us: Option<i64>,
    /// hex(SHA-256(server seed)), published when the contest is created, before any entry.
    pub commitment: String,
    /// The entrants' seeds combined, fixed when entry closes (the deck's client seed).
    pub client_seed: Option<String>,
    /// Revealed once the contest is settled or voided.
    pub server_seed: Option<String>,
    pub entrants: usize,
    /// Entrants whose three rounds are over.
    pub finished: usize,
    /// Entry fee × entrants, held in the contest's pot until settlement.
    pub pot: String,
    /// The caller's own entry, if they entered.
    pub my_entry: Option<EntryView>,
    /// Staff only, while the contest runs: each entrant's progress (no cards, no scores).
    pub progress: Option<Vec<EntrantProgress>>,
    /// Once settled: the pot, the rake, the prizes and every entrant's total
    /// (a player sees other entrants' ids only in the recall's pseudonyms).
    pub result: Option<ContestResult>,
}

/// Builds the view of `row` for `viewer`.
pub fn view(
    vault: &SeedVault,
    row: &ContestRow,
    entries: &[EntryRow],
    viewer: &Viewer,
) -> Result<ContestView, ContestError> {
    let config = row.config()?;
    let mode = config.mode();
    let deck = fixed_deck(vault, row, mode)?;
    let own = entries.iter().find(|en| en.player_id == viewer.user_id);
    let my_entry = match own {
        None => None,
        Some(entry) => Some(entry_view(deck.as_deref(), mode, entry)?),
    };
    let mut finished = 0;
    let mut progress = Vec::new();
    for entry in entries {
        finished += usize::from(entry.finished);
        progress.push(EntrantProgress {
            entry_number: entry.entry_number,
            player_id: entry.player_id.clone(),
            plays_made: entry.plays()?.len(),
            finished: entry.finished,
        });
    }
    let mut result = row.result()?;
    if let Some(r) = &mut result {
        if !viewer.sees_identities {
            for s in &mut r.standings {
                if s.player_id != viewer.user_id {
                    s.player_id = String::new();
                }
            }
        }
    }
    Ok(ContestView {
        id: row.id.clone(),
        table_id: row.table_id.clone(),
        status: row.status(),
        mode: mode.name().to_string(),
        entry_fee: config.options.entry_fee,
        rake_basis_points: config.options.rake_basis_points.basis_points(),
        min_players: config.options.min_players,
        max_players: config.options.max_players,
        rounds_per_player: ROUNDS,
        entry_closes_at_us: row.entry_closes_at_us,
        play_closes_at_us: row.play_closes_at_us,
        commitment: row.commitment.clone(),
        client_seed: row.client_seed.clone(),
        server_seed: row.revealed_server_seed.clone(),
        entrants: entries.len(),
        finished,
        pot: format_minor(config.options.entry_fee.minor() * entries.len() as i64),
        my_entry,
        progress: (viewer.sees_identities && !row.status().is_over()).then_some(progress),
        result,
    })
}

fn entry_view(deck: Option<&[Card]>, mode: Mode, entry: &EntryRow) -> Result<EntryView, ContestError> {
    let client_seed = entry.client_seed.clone().unwrap_or_default();
    let Some(deck) = deck else {
        return Ok(EntryView {
            entry_number: entry.entry_number,
            client_seed,
            plays_made: 0,
            round_in_play: None,
            rounds: Vec::new(),
            total: 0,
            finished: false,
            stopped: false,
            table: None,
            set_aside: Vec::new(),
        });
    };
    let game = replay(deck, mode, entry)?;
    let rounds = game.rounds();
    let in_play = game.current().map(|_| rounds.len());
    let earlier = if in_play.is_some() {
        &rounds[..rounds.len() - 1]
    } else {
        rounds
    };
    let mut set_aside: Vec<u8> = earlier
        .iter()
        .flat_map(|r| r.deck()[..r.deck().len() - r.undealt().len()].iter().map(|c| c.id()))
        .collect();
    set_aside.sort_unstable();
    Ok(EntryView {
        entry_number: entry.entry_number,
        client_seed,
        plays_made: game.plays().len(),
        round_in_play: in_play,
        rounds: game.scores().iter().map(ContestRoundView::from).collect(),
        total: game.total(),
        finished: entry.finished,
        stopped: entry.stopped,
        table: game.current().map(LoboTableView::of),
        set_aside,
    })
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

fn refs(contest: &ContestRow, player_id: &str) -> Refs {
    Refs {
        user_id: Some(player_id.to_string()),
        table_id: Some(contest.table_id.clone()),
        round_id: Some(contest.id.clone()),
        bet_id: None,
    }
}

fn amount(minor: i64) -> Result<Amount, ContestError> {
    Amount::from_minor(minor).map_err(|err| ContestError::Corrupt(err.to_string()))
}

/// Creates a contest at an open Lobo table: draws and seals the deck's server seed and
/// publishes its commitment, before anyone can enter. A significant event.
pub fn create(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    table: &Table,
    pit_boss_id: &str,
    options: ContestOptions,
) -> Result<ContestRow, ContestError> {
    let TableConfig::Lobo(table_config) = &table.config else {
        return Err(ContestError::WrongGame);
    };
    if !table.is_open() {
        return Err(ContestError::TableClosed);
    }
    options.validate()?;
    let config = ContestConfig {
        mode: table_config.mode,
        options,
    };
    let id = new_id();
    let seed = SeedVault::draw_seed();
    let now = now_us();
    let commitment = shuffle::commitment(&seed);
    diesel::insert_into(c::table)
        .values((
            c::id.eq(&id),
            c::table_id.eq(&table.id),
            c::status.eq(ContestStatus::Entry.as_str()),
            c::config.eq(serde_json::to_string(&config).expect("configs serialize")),
            c::commitment.eq(&commitment),
            c::server_seed_sealed.eq(vault.seal(&id, &seed)),
            c::entry_closes_at_us.eq(now + i64::from(config.options.entry_seconds) * 1_000_000),
            c::version.eq(0i64),
            c::created_by.eq(pit_boss_id),
            c::created_at_us.eq(now),
            c::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    accounts::ensure(conn, &AccountId::pot(&id), None)?;
    significant_events::record(
        conn,
        EventKind::ContestCreated,
        Some(pit_boss_id),
        Some(&id),
        serde_json::json!({ "table_id": table.id, "config": config, "commitment": commitment }),
    )?;
    find(conn, &id)
}

/// Enters `player_id`: the entry fee goes from their wallet to the contest's pot. Entry closes
/// at once when this entry fills the contest.
pub fn enter(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    player_id: &str,
    client_seed: Option<&ClientSeed>,
    idempotency_key: Option<&str>,
) -> Result<ContestRow, ContestError> {
    let row = lock(conn, contest_id)?;
    let config = row.config()?;
    if row.status() != ContestStatus::Entry || now_us() >= row.entry_closes_at_us {
        return Err(ContestError::EntryClosed);
    }
    let entered = entries(conn, contest_id)?;
    if entered.iter().any(|en| en.player_id == player_id) {
        return Err(ContestError::AlreadyEntered);
    }
    if entered.len() as u32 >= config.options.max_players {
        // Entry closes with the last seat, so a full contest is a closed one.
        return Err(ContestError::EntryClosed);
    }
    let fee = config.options.entry_fee;
    let spec = TransferSpec::new(
        AccountId::wallet(player_id),
        AccountId::pot(&row.id),
        fee,
        TransferKind::ContestEntry,
    )
    .refs(refs(&row, player_id))
    .idempotency_key(idempotency_key)
    .memo("three-round Lobo contest entry");
    match ledger::post(conn, &[spec]) {
        Ok(_) => {}
        Err(LedgerError::InsufficientFunds { .. }) => {
            let held = accounts::balance_minor(conn, &AccountId::wallet(player_id))?;
            return Err(ContestError::InsufficientFunds {
                fee: format_minor(fee.minor()),
                balance: format_minor(held),
            });
        }
        Err(LedgerError::UnknownAccount(_)) => return Err(ContestError::NoWallet),
        Err(other) => return Err(other.into()),
    }
    let now = now_us();
    diesel::insert_into(e::table)
        .values((
            e::contest_id.eq(&row.id),
            e::player_id.eq(player_id),
            e::entry_number.eq(entered.len() as i32 + 1),
            e::client_seed.eq(client_seed.map(ClientSeed::as_str)),
            e::plays.eq("[]"),
            e::finished.eq(false),
            e::stopped.eq(false),
            e::entered_at_us.eq(now),
            e::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    if entered.len() as u32 + 1 == config.options.max_players {
        close_entry(conn, vault, &row, None, now)?;
    }
    find(conn, contest_id)
}

/// Closes entry (a pit boss, or the sweep at the window's end; `actor` is None for the sweep).
pub fn close(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    actor: Option<&str>,
) -> Result<ContestRow, ContestError> {
    let row = lock(conn, contest_id)?;
    row.require(&[ContestStatus::Entry], "close entry")?;
    close_entry(conn, vault, &row, actor, now_us())?;
    find(conn, contest_id)
}

/// Fixes the deck from the entrants' seeds and starts the play; with too few entrants the
/// contest is voided and every entry refunded.
fn close_entry(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &ContestRow,
    actor: Option<&str>,
    now: i64,
) -> Result<(), ContestError> {
    let config = row.config()?;
    let entered = entries(conn, &row.id)?;
    if (entered.len() as u32) < config.options.min_players {
        let reason = format!(
            "entry closed with {} entrant(s); the contest needs {}",
            entered.len(),
            config.options.min_players
        );
        return void_locked(conn, vault, row, actor, &reason);
    }
    let client_seed = combined_seed(&entered)?;
    let n = diesel::update(c::table.filter(c::id.eq(&row.id)).filter(c::version.eq(row.version)))
        .set((
            c::status.eq(ContestStatus::InPlay.as_str()),
            c::client_seed.eq(&client_seed),
            c::play_closes_at_us.eq(now + i64::from(config.options.play_seconds) * 1_000_000),
            c::version.eq(row.version + 1),
            c::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    if n != 1 {
        return Err(ContestError::Changed);
    }
    let row = find(conn, &row.id)?;
    // A deal may end all three rounds at once (no capture in any): those entrants are done.
    let deck = deck_of(&open_seed(vault, &row)?, &row, &client_seed, config.mode());
    let game = ThreeRounds::deal(config.mode(), &deck)
        .map_err(|err| ContestError::Corrupt(format!("shuffled deck refused: {err}")))?;
    if game.is_over() {
        for entry in &entered {
            store_plays(conn, entry, &game, false)?;
        }
        settle_locked(conn, vault, &row, None)?;
    }
    Ok(())
}

fn store_plays(
    conn: &mut AnyConnection,
    entry: &EntryRow,
    game: &ThreeRounds,
    stopped: bool,
) -> Result<(), ContestError> {
    let json = serde_json::to_string(&game.plays()).expect("plays serialize");
    let n = diesel::update(
        e::table
            .filter(e::contest_id.eq(&entry.contest_id))
            .filter(e::player_id.eq(&entry.player_id)),
    )
    .set((
        e::plays.eq(json),
        e::finished.eq(game.is_over()),
        e::stopped.eq(stopped),
        e::total.eq(game.is_over().then(|| game.total())),
        e::updated_at_us.eq(now_us()),
    ))
    .execute(conn)?;
    if n != 1 {
        return Err(ContestError::Changed);
    }
    Ok(())
}

/// Makes a play (Fold included) in the caller's round in play. `expected_plays` is the number of
/// plays the client has seen; anything else is a stale or repeated request and nothing applies.
/// The play that ends the last entrant's three rounds settles the contest.
pub fn make_play(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    player_id: &str,
    play: &LoboPlay,
    expected_plays: usize,
) -> Result<ContestRow, ContestError> {
    let row = lock(conn, contest_id)?;
    let entered = entries(conn, contest_id)?;
    let entry = entered
        .iter()
        .find(|en| en.player_id == player_id)
        .ok_or(ContestError::NotEntered)?;
    row.require(&[ContestStatus::InPlay], "play")?;
    if row.play_closes_at_us.is_some_and(|t| now_us() >= t) {
        return Err(ContestError::PlayTimeOver);
    }
    if entry.finished {
        return Err(ContestError::PlayOver);
    }
    let config = row.config()?;
    let deck = fixed_deck(vault, &row, config.mode())?
        .ok_or_else(|| ContestError::Corrupt("a contest in play without its client seed".into()))?;
    let game = replay(&deck, config.mode(), entry)?;
    let made = game.plays().len();
    if made != expected_plays {
        return Err(ContestError::StalePlay {
            made,
            expected: expected_plays,
        });
    }
    let play = super::lobo::to_engine_play(play).map_err(|err| ContestError::IllegalPlay(err.to_string()))?;
    let after = game
        .apply(&play)
        .map_err(|err| ContestError::IllegalPlay(err.to_string()))?;
    store_plays(conn, entry, &after, false)?;
    let everyone_done = entries(conn, contest_id)?.iter().all(|en| en.finished);
    if everyone_done {
        settle_locked(conn, vault, &row, None)?;
    }
    find(conn, contest_id)
}

/// Settles a contest in play whose play time has run out (a pit boss, or the sweep): the
/// rounds of anyone still playing are folded, then the pot is paid out.
pub fn settle_overdue(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    actor: Option<&str>,
    now: i64,
) -> Result<ContestRow, ContestError> {
    let row = lock(conn, contest_id)?;
    row.require(&[ContestStatus::InPlay], "settle")?;
    let closes_at_us = row
        .play_closes_at_us
        .ok_or_else(|| ContestError::Corrupt("a contest in play without its play time".into()))?;
    if now < closes_at_us {
        return Err(ContestError::PlayTimeLeft { closes_at_us });
    }
    settle_locked(conn, vault, &row, actor)?;
    find(conn, contest_id)
}

/// Pays out the pot: folds whoever is still playing, splits the pot less the rake among the
/// best totals, asserts the pot is empty, reveals the seed.
fn settle_locked(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &ContestRow,
    actor: Option<&str>,
) -> Result<(), ContestError> {
    let config = row.config()?;
    let mode = config.mode();
    let deck = fixed_deck(vault, row, mode)?
        .ok_or_else(|| ContestError::Corrupt("a contest in play without its client seed".into()))?;
    let mut standings = Vec::new();
    let mut totals = Vec::new();
    for entry in entries(conn, &row.id)? {
        let mut game = replay(&deck, mode, &entry)?;
        let stopped = !game.is_over();
        if stopped {
            let folds = game.folds_to_stop();
            for fold in &folds {
                game = game
                    .apply(fold)
                    .map_err(|err| ContestError::Corrupt(format!("a stopping fold refused: {err}")))?;
            }
            store_plays(conn, &entry, &game, true)?;
            significant_events::record(
                conn,
                EventKind::ContestEntrantStopped,
                actor,
                Some(&row.id),
                serde_json::json!({ "player_id": entry.player_id, "entry_number": entry.entry_number,
                    "rounds_folded": folds.len(), "total": game.total() }),
            )?;
        }
        totals.push(game.total());
        standings.push((entry, stopped));
    }
    let split = split_pot(
        config.options.entry_fee.minor(),
        &totals,
        config.options.rake_basis_points,
    );
    let pot = AccountId::pot(&row.id);
    let held = accounts::balance_minor(conn, &pot)?;
    if held != split.pot_minor {
        return Err(ContestError::Corrupt(format!(
            "pot of contest {} holds {} where its entries paid {}",
            row.id,
            format_minor(held),
            format_minor(split.pot_minor)
        )));
    }
    let mut specs = Vec::new();
    if split.rake_minor > 0 {
        specs.push(
            TransferSpec::new(
                pot.clone(),
                AccountId::house_revenue(),
                amount(split.rake_minor)?,
                TransferKind::ContestRake,
            )
            .refs(Refs {
                user_id: None,
                ..refs(row, "")
            })
            .memo(format!(
                "rake of {} basis points",
                config.options.rake_basis_points.basis_points()
            )),
        );
    }
    for ((entry, _), &prize) in standings.iter().zip(&split.prizes_minor) {
        if prize > 0 {
            specs.push(
                TransferSpec::new(
                    pot.clone(),
                    AccountId::wallet(&entry.player_id),
                    amount(prize)?,
                    TransferKind::ContestPrize,
                )
                .refs(refs(row, &entry.player_id))
                .memo(format!("best total {}", split.best_total.unwrap_or_default())),
            );
        }
    }
    if !specs.is_empty() {
        ledger::post(conn, &specs)?;
    }
    assert_pot_empty(conn, row)?;
    let result = contest_result(&split, &standings, &totals);
    let seed = open_seed(vault, row)?;
    finish(conn, row, ContestStatus::Settled, Some(&result), &seed)?;
    significant_events::record(
        conn,
        EventKind::SeedRevealed,
        actor,
        Some(&row.id),
        serde_json::json!({ "game": "lobo_contest", "commitment": row.commitment }),
    )?;
    Ok(())
}

fn contest_result(split: &PotSplit, standings: &[(EntryRow, bool)], totals: &[i64]) -> ContestResult {
    ContestResult {
        pot: format_minor(split.pot_minor),
        rake: format_minor(split.rake_minor),
        prize_pool: format_minor(split.prize_pool_minor),
        best_total: split.best_total,
        standings: standings
            .iter()
            .zip(totals)
            .zip(&split.prizes_minor)
            .map(|(((entry, stopped), &total), &prize)| Standing {
                entry_number: entry.entry_number,
                player_id: entry.player_id.clone(),
                total,
                stopped: *stopped,
                prize: format_minor(prize),
            })
            .collect(),
    }
}

fn assert_pot_empty(conn: &mut AnyConnection, row: &ContestRow) -> Result<(), ContestError> {
    let left = accounts::balance_minor(conn, &AccountId::pot(&row.id))?;
    if left != 0 {
        return Err(ContestError::Corrupt(format!(
            "pot of contest {} would keep {}",
            row.id,
            format_minor(left)
        )));
    }
    Ok(())
}

/// Writes the contest's end: its status, its result if settled, the revealed seed.
fn finish(
    conn: &mut AnyConnection,
    row: &ContestRow,
    status: ContestStatus,
    result: Option<&ContestResult>,
    seed: &ServerSeed,
) -> Result<(), ContestError> {
    let current = find(conn, &row.id)?;
    let n = diesel::update(
        c::table
            .filter(c::id.eq(&row.id))
            .filter(c::version.eq(current.version)),
    )
    .set((
        c::status.eq(status.as_str()),
        c::result.eq(result.map(|r| serde_json::to_string(r).expect("results serialize"))),
        c::revealed_server_seed.eq(seed.to_hex()),
        c::version.eq(current.version + 1),
        c::updated_at_us.eq(now_us()),
    ))
    .execute(conn)?;
    if n != 1 {
        return Err(ContestError::Changed);
    }
    Ok(())
}

/// Voids a contest not yet over (pit boss): every entry fee goes back from the pot to its
/// wallet, nothing else moves, and the seed is revealed. Significant events: the void with
/// its reason, the reveal.
pub fn void(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    actor_id: &str,
    reason: &str,
) -> Result<ContestRow, ContestError> {
    let row = lock(conn, contest_id)?;
    row.require(&[ContestStatus::Entry, ContestStatus::InPlay], "void")?;
    void_locked(conn, vault, &row, Some(actor_id), reason)?;
    find(conn, contest_id)
}

fn void_locked(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &ContestRow,
    actor: Option<&str>,
    reason: &str,
) -> Result<(), ContestError> {
    let config = row.config()?;
    let entered = entries(conn, &row.id)?;
    let fee = config.options.entry_fee;
    let specs: Vec<TransferSpec> = entered
        .iter()
        .map(|entry| {
            TransferSpec::new(
                AccountId::pot(&row.id),
                AccountId::wallet(&entry.player_id),
                fee,
                TransferKind::Refund,
            )
            .refs(refs(row, &entry.player_id))
            .memo("contest voided: entry fee returned")
        })
        .collect();
    if !specs.is_empty() {
        ledger::post(conn, &specs)?;
    }
    assert_pot_empty(conn, row)?;
    let seed = open_seed(vault, row)?;
    finish(conn, row, ContestStatus::Voided, None, &seed)?;
    significant_events::record(
        conn,
        EventKind::RoundVoided,
        actor,
        Some(&row.id),
        serde_json::json!({ "game": "lobo_contest", "reason": reason, "entrants": entered.len(),
            "refunded": format_minor(fee.minor() * entered.len() as i64) }),
    )?;
    significant_events::record(
        conn,
        EventKind::SeedRevealed,
        actor,
        Some(&row.id),
        serde_json::json!({ "game": "lobo_contest", "reason": "voided", "commitment": row.commitment }),
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------
// The sweep: entry windows and play times that ran out
// ---------------------------------------------------------------------------

/// Contests whose entry window or play time has run out by `now_us`, oldest first.
pub fn overdue(conn: &mut AnyConnection, now_us: i64, limit: i64) -> QueryResult<Vec<String>> {
    c::table
        .filter(
            c::status
                .eq(ContestStatus::Entry.as_str())
                .and(c::entry_closes_at_us.le(now_us))
                .or(c::status
                    .eq(ContestStatus::InPlay.as_str())
                    .and(c::play_closes_at_us.le(now_us))),
        )
        .order(c::created_at_us.asc())
        .limit(limit)
        .select(c::id)
        .load(conn)
}

/// Moves an overdue contest on, under its lock and re-checked there: closes its entry, or
/// settles it. `None` when there was nothing to do.
pub fn advance(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    now: i64,
) -> Result<Option<ContestRow>, ContestError> {
    let row = lock(conn, contest_id)?;
    match row.status() {
        ContestStatus::Entry if now >= row.entry_closes_at_us => {
            close_entry(conn, vault, &row, None, now)?;
            Ok(Some(find(conn, contest_id)?))
        }
        ContestStatus::InPlay if row.play_closes_at_us.is_some_and(|t| now >= t) => {
            settle_locked(conn, vault, &row, None)?;
            Ok(Some(find(conn, contest_id)?))
        }
        _ => Ok(None),
    }
}

// ---------------------------------------------------------------------------
// Recall: the revealed deck, everyone's play, every transfer, verified
// ---------------------------------------------------------------------------

/// One entrant in the recall.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct EntrantRecall {
    pub entry_number: i32,
    /// The entrant's pseudonym in this recall (P1, P2, … in entry order).
    pub player: String,
    /// Shown to staff, and to the entrant themself.
    pub player_id: Option<String>,
    /// The client seed sent with the entry ("" when none).
    pub client_seed: String,
    /// Every play of the three rounds, in order.
    pub plays: Vec<LoboPlay>,
    /// The rounds' scores as the replay gives them.
    #[schema(value_type = Vec<Object>)]
    pub rounds: Vec<RoundScore>,
    pub total: i64,
    pub stopped: bool,
}

/// A settled or voided contest, everything in it: anyone given it can redo the deck, every
/// entrant's play and the money.
#[derive(Serialize, ToSchema, Debug)]
pub struct ContestRecall {
    pub contest: ContestView,
    /// The deck's shuffle: game `lobo`, the contest id as the round id, the combined seed as
    /// the client seed (docs/shuffle.md), with the revealed server seed.
    #[schema(value_type = Object)]
    pub shuffle: ShuffleTranscript,
    /// The entrants' seeds combined give `shuffle.client_seed` (a voided contest whose entry
    /// never closed shows the combination of the seeds it had).
    pub entrants: Vec<EntrantRecall>,
    #[schema(value_type = Vec<Object>)]
    pub parties: Vec<Party<'static>>,
    /// Every ledger transfer of the contest, in ledger order.
    #[schema(value_type = Vec<Object>)]
    pub transfers: Vec<TransferEntry<'static>>,
    /// The shuffle recomputed, the seeds recombined, every entrant's play replayed to its
    /// total, and the pot's split and transfers recomputed.
    #[schema(value_type = Object)]
    pub verification: VerificationReport,
}

pub fn recall(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    viewer: &Viewer,
) -> Result<ContestRecall, ContestError> {
    let row = find(conn, contest_id)?;
    if !row.status().is_over() {
        return Err(ContestError::NotOver);
    }
    let entered = entries(conn, contest_id)?;
    let config = row.config()?;
    let mode = config.mode();
    let seed = ServerSeed::from_hex(row.revealed_server_seed.as_deref().unwrap_or(""))
        .map_err(|_| ContestError::Corrupt("a contest over without its revealed seed".into()))?;
    let client_seed = match &row.client_seed {
        Some(s) => s.clone(),
        None => combined_seed(&entered)?,
    };
    let deck = deck_of(&seed, &row, &client_seed, mode);
    let combined =
        ClientSeed::parse(&client_seed).map_err(|err| ContestError::Corrupt(format!("combined client seed: {err}")))?;
    let shuffle = ShuffleTranscript::record(&seed, Game::Lobo, &row.id, &[combined], &deck, Vec::new());
    let mut names = Pseudonyms::default();
    let mut recalled = Vec::new();
    for entry in &entered {
        let game = replay(&deck, mode, entry)?;
        let player = names.of(&entry.player_id);
        let shown = viewer.sees_identities || entry.player_id == viewer.user_id;
        recalled.push(EntrantRecall {
            entry_number: entry.entry_number,
            player,
            player_id: shown.then(|| entry.player_id.clone()),
            client_seed: entry.client_seed.clone().unwrap_or_default(),
            plays: game.plays().iter().map(LoboPlay::from).collect(),
            rounds: game.scores().to_vec(),
            total: game.total(),
            stopped: entry.stopped,
        });
    }
    let transfers = super::prima_carta::round_transfers(conn, &row.id)?;
    let transfers = crate::transcript::transfer_entries(&transfers, &mut names, &row.id, &row.table_id);
    let contest = view(vault, &row, &entered, viewer)?;
    let mut recall = ContestRecall {
        contest,
        shuffle,
        entrants: recalled,
        parties: names.parties(viewer),
        transfers,
        verification: VerificationReport {
            passed: false,
            checks: Vec::new(),
        },
    };
    recall.verification = verify(&recall, &config);
    Ok(recall)
}

/// Recomputes everything a contest recall claims from its own contents and the rules.
pub fn verify(recall: &ContestRecall, config: &ContestConfig) -> VerificationReport {
    use shuffle_transcript::{fail, pass};
    let (mut report, recomputed) = shuffle_transcript::verify_dealing(&recall.shuffle);
    let checks = &mut report.checks;

    let seeds: Result<Vec<ClientSeed>, _> = recall
        .entrants
        .iter()
        .filter(|en| !en.client_seed.is_empty())
        .map(|en| ClientSeed::parse(&en.client_seed))
        .collect();
    checks.push(match seeds {
        Ok(seeds) if shuffle::combined_client_seed(&seeds) == recall.shuffle.client_seed => pass(
            "entrant_seeds",
            format!("{} entrant seed(s) combine to the client seed", seeds.len()),
        ),
        Ok(_) => fail(
            "entrant_seeds",
            None,
            "the entrants' seeds do not combine to the client seed",
        ),
        Err(err) => fail("entrant_seeds", None, format!("an entrant's seed is invalid: {err}")),
    });

    let settled = recall.contest.status == ContestStatus::Settled;
    let mut totals = Vec::new();
    match &recomputed {
        None => checks.push(fail("plays", None, "not replayed: the deck did not verify")),
        Some(r) => {
            for en in &recall.entrants {
                let name = format!("entry[{}]", en.entry_number);
                let plays: Result<Vec<Play>, _> = en.plays.iter().map(super::lobo::to_engine_play).collect();
                let game = plays.map_err(|err| err.to_string()).and_then(|plays| {
                    replay_three_rounds(config.mode(), &r.deck, &plays).map_err(|err| err.to_string())
                });
                checks.push(match game {
                    Err(why) => fail(name, None, format!("the plays do not replay: {why}")),
                    Ok(g) if settled && !g.is_over() => fail(name, None, "settled with rounds still in play"),
                    Ok(g) if g.total() != en.total => fail(
                        name,
                        None,
                        format!("replayed total {} where the recall says {}", g.total(), en.total),
                    ),
                    Ok(g) => {
                        totals.push(g.total());
                        pass(
                            name,
                            format!("{} plays replay to a total of {}", en.plays.len(), g.total()),
                        )
                    }
                });
            }
        }
    }

    // The money: the entries in, then the rake and prizes (settled) or the refunds (voided) out.
    let fee = config.options.entry_fee.minor();
    let mut expected: Vec<(String, String, String, i64)> = Vec::new();
    for en in &recall.entrants {
        expected.push((
            "contest_entry".into(),
            format!("wallet:{}", en.player),
            "pot".into(),
            fee,
        ));
    }
    if settled {
        let split = split_pot(fee, &totals, config.options.rake_basis_points);
        if split.rake_minor > 0 {
            expected.push((
                "contest_rake".into(),
                "pot".into(),
                "house:revenue".into(),
                split.rake_minor,
            ));
        }
        for (en, &prize) in recall.entrants.iter().zip(&split.prizes_minor) {
            if prize > 0 {
                expected.push((
                    "contest_prize".into(),
                    "pot".into(),
                    format!("wallet:{}", en.player),
                    prize,
                ));
            }
        }
    } else {
        for en in &recall.entrants {
            expected.push(("refund".into(), "pot".into(), format!("wallet:{}", en.player), fee));
        }
    }
    let actual: Vec<(String, String, String, i64)> = recall
        .transfers
        .iter()
        .map(|t| {
            let minor = Amount::parse(&t.amount).map(Amount::minor).unwrap_or(-1);
            (t.kind.to_string(), t.from.to_string(), t.to.to_string(), minor)
        })
        .collect();
    let (mut want, mut got) = (expected, actual);
    want.sort();
    got.sort();
    checks.push(if want == got {
        pass("transfers", format!("{} transfers; the pot ends at 0.00", got.len()))
    } else {
        fail(
            "transfers",
            None,
            format!(
                "expected {} transfers {:?}, the recall shows {:?}",
                want.len(),
                want,
                got
            ),
        )
    });
    report.passed = report.checks.iter().all(|c| c.passed);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> ContestOptions {
        ContestOptions {
            entry_fee: Amount::parse("10.00").unwrap(),
            rake_basis_points: RakeRate::new(500).unwrap(),
            min_players: 2,
            max_players: 3,
            entry_seconds: 600,
            play_seconds: 600,
        }
    }

    #[test]
    fn options_are_checked() {
        assert!(options().validate().is_ok());
        for change in [
            (|o: &mut ContestOptions| o.min_players = 1) as fn(&mut ContestOptions),
            |o| o.max_players = 101,
            |o| o.min_players = 4,
            |o| o.entry_seconds = 29,
            |o| o.play_seconds = 86_401,
        ] {
            let mut o = options();
            change(&mut o);
            assert!(matches!(o.validate(), Err(ContestError::BadOption(_))));
        }
        let json = serde_json::json!({ "entry_fee": "10.00", "rake_basis_points": 2001, "min_players": 2,
            "max_players": 3, "entry_seconds": 600, "play_seconds": 600 });
        assert!(serde_json::from_value::<ContestOptions>(json).is_err());
    }

    #[test]
    fn the_stored_config_reads_back() {
        let config = ContestConfig {
            mode: LoboMode::Easy,
            options: options(),
        };
        let text = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<ContestConfig>(&text).unwrap(), config);
        assert_eq!(config.mode(), Mode::Easy);
    }
}
