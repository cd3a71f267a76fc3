//! Three-round Lobo contests (docs/lobo.md §9): a pot among players, hosted by the house.
//!
//! A pit boss creates a contest at an open Lobo table: the entry fee, the house's rake, the
//! number of players and the entry window. Its one server seed is drawn and sealed at once and
//! its commitment published, before anyone enters. Players enter by paying the fee into the
//! contest's pot (`pot:<contest>`), each with an optional client seed. When entry closes (the
//! pit boss, the window's end, or the last seat taken) the entrants' seeds are combined as
//! Prima Carta combines them at the close of betting, and that fixes every entrant's deck:
//! entrant `n` is dealt shuffle-v1 with game `lobo`, the round id `<contest id>/<n>`
//! (`entrant_round_id`) and the combined seed as Lobo's one client seed. A deck per entrant,
//! not one shared deck, so that an entrant who has played cannot tell a partner still playing
//! what is coming. Each entrant plays their deck through the pure engine's three-round play
//! (`games::lobo::ThreeRounds`); only the plays are stored.
//! When the last entrant finishes, or the play time runs out (the entrants still playing are
//! folded, as the rules settle a player who stops), the pot less the rake goes to the best
//! total, ties split to the cent (`games::lobo::split_pot`), and the seed is revealed.
//!
//! Every change runs in one write transaction holding the contest's row lock, so entries,
//! plays and the settlement apply once and in one order. Nothing another entrant did is shown
//! to a player before the contest is over, and nothing of any deck but the player's own round:
//! the decks share the server seed, which stays secret until then.

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
use crate::ledger::{self, accounts, AccountId, LedgerError, PaymentRefused, Refs, TransferKind, TransferSpec};
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
    /// Players may enter; the decks are committed but not yet fixed (the client seeds are not in).
    Entry,
    /// Entry is closed and every entrant's deck fixed; entrants are playing their three rounds.
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

/// The round id of entrant `entry_number`'s deck: `<contest id>/<entry number>`. The `/` is
/// safe in the shuffle's message (docs/shuffle.md): within one contest's server seed only the
/// entry number varies, and the combined client seed after it is 64 hex digits, never a `/`.
pub fn entrant_round_id(contest_id: &str, entry_number: i32) -> String {
    format!("{contest_id}/{entry_number}")
}

/// Entrant `entry_number`'s deck once entry has closed: shuffle-v1, game `lobo`, the entrant's
/// round id, the combined client seed as Lobo's one client seed.
fn deck_of(seed: &ServerSeed, contest_id: &str, entry_number: i32, client_seed: &str, mode: Mode) -> Vec<Card> {
    let round_id = entrant_round_id(contest_id, entry_number);
    shuffle::shuffled_deck(seed, Game::Lobo, &round_id, client_seed, mode.max_rank()).0
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

/// The table's contests still running (entry open, or in play), newest first.
pub fn running_at(conn: &mut AnyConnection, table_id: &str, limit: i64) -> Result<Vec<ContestRow>, ContestError> {
    Ok(c::table
        .filter(c::table_id.eq(table_id))
        .filter(c::status.eq_any([ContestStatus::Entry.as_str(), ContestStatus::InPlay.as_str()]))
        .order((c::created_at_us.desc(), c::id.desc()))
        .limit(limit)
        .select(ContestRow::as_select())
        .load(conn)?)
}

/// What every entrant's deck is shuffled from, once entry has closed: the server seed and the
/// combined client seed.
struct FixedDeal {
    seed: ServerSeed,
    client_seed: String,
    mode: Mode,
}

impl FixedDeal {
    /// `None` while entry is open (the client seeds are not in).
    fn of(vault: &SeedVault, row: &ContestRow, mode: Mode) -> Result<Option<FixedDeal>, ContestError> {
        match &row.client_seed {
            None => Ok(None),
            Some(client_seed) => Ok(Some(FixedDeal {
                seed: open_seed(vault, row)?,
                client_seed: client_seed.clone(),
                mode,
            })),
        }
    }

    /// Like `of`, for a contest in play, where the deal must be fixed.
    fn in_play(vault: &SeedVault, row: &ContestRow, mode: Mode) -> Result<FixedDeal, ContestError> {
        FixedDeal::of(vault, row, mode)?
            .ok_or_else(|| ContestError::Corrupt("a contest in play without its client seed".into()))
    }

    fn deck(&self, row: &ContestRow, entry_number: i32) -> Vec<Card> {
        deck_of(&self.seed, &row.id, entry_number, &self.client_seed, self.mode)
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
    /// The entrants' seeds combined, fixed when entry closes (every entrant's deck's client seed).
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
    let own = entries.iter().find(|en| en.player_id == viewer.user_id);
    let my_entry = match own {
        None => None,
        Some(entry) => {
            // Only the caller's own deck is ever shuffled for a view.
            let deck = FixedDeal::of(vault, row, mode)?.map(|deal| deal.deck(row, entry.entry_number));
            Some(entry_view(deck.as_deref(), mode, entry)?)
        }
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

/// The contest as a table's watchers see it: its terms, commitment, entrants and pot, and once
/// settled its result; never an entrant's cards, deck or id.
pub fn watcher_view(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &ContestRow,
) -> Result<ContestView, ContestError> {
    view(vault, row, &entries(conn, &row.id)?, &Viewer::public())
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

/// Creates a contest at an open Lobo table: draws and seals the contest's one server seed and
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
    ledger::post_paid_by(conn, player_id, &[spec]).map_err(|refused| match refused {
        PaymentRefused::Short { balance_minor } => ContestError::InsufficientFunds {
            fee: format_minor(fee.minor()),
            balance: format_minor(balance_minor),
        },
        PaymentRefused::NoWallet => ContestError::NoWallet,
        PaymentRefused::Ledger(e) => e.into(),
    })?;
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

/// Fixes every entrant's deck from the entrants' seeds and starts the play; with too few
/// entrants the contest is voided and every entry refunded.
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
    // A deal may end all three rounds at once (no capture in any): those entrants are done,
    // and if every entrant's deal did, so is the contest.
    let deal = FixedDeal::in_play(vault, &row, config.mode())?;
    let mut everyone_done = true;
    for entry in &entered {
        let game = ThreeRounds::deal(config.mode(), &deal.deck(&row, entry.entry_number))
            .map_err(|err| ContestError::Corrupt(format!("shuffled deck refused: {err}")))?;
        if game.is_over() {
            store_plays(conn, entry, &game, false)?;
        } else {
            everyone_done = false;
        }
    }
    if everyone_done {
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
    let deck = FixedDeal::in_play(vault, &row, config.mode())?.deck(&row, entry.entry_number);
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
    let deal = FixedDeal::in_play(vault, row, mode)?;
    let mut standings = Vec::new();
    let mut totals = Vec::new();
    for entry in entries(conn, &row.id)? {
        let mut game = replay(&deal.deck(row, entry.entry_number), mode, &entry)?;
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

/// Moves an overdue contest on, under its lock and re-checked there: closes its entry (or voids
/// it, too few having entered), or settles it. Returns the contest as its table's watchers now
/// see it, to be sent once this commits; `None` when there was nothing to do.
pub fn advance(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    now: i64,
) -> Result<Option<ContestView>, ContestError> {
    let row = lock(conn, contest_id)?;
    match row.status() {
        ContestStatus::Entry if now >= row.entry_closes_at_us => {
            close_entry(conn, vault, &row, None, now)?;
        }
        ContestStatus::InPlay if row.play_closes_at_us.is_some_and(|t| now >= t) => {
            settle_locked(conn, vault, &row, None)?;
        }
        _ => return Ok(None),
    }
    let moved = find(conn, contest_id)?;
    watcher_view(conn, vault, &moved).map(Some)
}

// ---------------------------------------------------------------------------
// Recall: the revealed decks, everyone's play, every transfer, verified
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
    /// The entrant's own deck: game `lobo`, round id `<contest id>/<entry number>`, the
    /// entrants' seeds combined as the client seed (docs/shuffle.md), with the revealed server
    /// seed (the contest's one).
    #[schema(value_type = Object)]
    pub shuffle: ShuffleTranscript,
    /// Every play of the three rounds, in order.
    pub plays: Vec<LoboPlay>,
    /// The rounds' scores as the replay gives them.
    #[schema(value_type = Vec<Object>)]
    pub rounds: Vec<RoundScore>,
    pub total: i64,
    pub stopped: bool,
}

/// A settled or voided contest, everything in it: anyone given it can redo every entrant's
/// deck and play, and the money.
#[derive(Serialize, ToSchema, Debug)]
pub struct ContestRecall {
    pub contest: ContestView,
    /// In entry order, each with their deck's shuffle. The entrants' seeds combined give every
    /// deck's client seed (a voided contest whose entry never closed shows the combination of
    /// the seeds it had, and the decks they would have given).
    pub entrants: Vec<EntrantRecall>,
    #[schema(value_type = Vec<Object>)]
    pub parties: Vec<Party<'static>>,
    /// Every ledger transfer of the contest, in ledger order.
    #[schema(value_type = Vec<Object>)]
    pub transfers: Vec<TransferEntry<'static>>,
    /// Every entrant's shuffle recomputed under their own round id from the one revealed seed,
    /// the seeds recombined, every entrant's play replayed on their deck to its total, and the
    /// pot's split and transfers recomputed.
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
    let combined =
        ClientSeed::parse(&client_seed).map_err(|err| ContestError::Corrupt(format!("combined client seed: {err}")))?;
    let mut names = Pseudonyms::default();
    let mut recalled = Vec::new();
    for entry in &entered {
        let deck = deck_of(&seed, &row.id, entry.entry_number, &client_seed, mode);
        let round_id = entrant_round_id(&row.id, entry.entry_number);
        let shuffle = ShuffleTranscript::record(
            &seed,
            Game::Lobo,
            &round_id,
            std::slice::from_ref(&combined),
            &deck,
            Vec::new(),
        );
        let game = replay(&deck, mode, entry)?;
        let player = names.of(&entry.player_id);
        let shown = viewer.sees_identities || entry.player_id == viewer.user_id;
        recalled.push(EntrantRecall {
            entry_number: entry.entry_number,
            player,
            player_id: shown.then(|| entry.player_id.clone()),
            client_seed: entry.client_seed.clone().unwrap_or_default(),
            shuffle,
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
        entrants: recalled,
        parties: names.parties(viewer),
        transfers,
        verification: VerificationReport {
            passed: false,
            checks: Vec::new(),
        },
    };
    recall.verification = verify(&recall);
    Ok(recall)
}

/// What a contest recall claims, as its verification reads it: taken from a recall, or read back
/// from a recall's JSON (`djego verify round`), so that both are checked by the same code. The
/// terms come from the recall's `contest`, not from the database: a recall verifies on its own.
#[derive(Deserialize, Debug, Clone)]
pub struct RecallClaims {
    pub contest: ContestClaims,
    pub entrants: Vec<EntrantClaims>,
    pub transfers: Vec<TransferClaims>,
}

/// The parts of a recall's `contest` the verification reads.
#[derive(Deserialize, Debug, Clone)]
pub struct ContestClaims {
    pub id: String,
    pub status: ContestStatus,
    pub mode: String,
    /// As text, so that a malformed fee fails a check rather than the reading.
    pub entry_fee: String,
    pub rake_basis_points: u32,
    pub commitment: String,
    pub client_seed: Option<String>,
    pub server_seed: Option<String>,
}

/// The parts of a recall's entrant the verification reads.
#[derive(Deserialize, Debug, Clone)]
pub struct EntrantClaims {
    pub entry_number: i32,
    pub player: String,
    pub client_seed: String,
    pub shuffle: ShuffleTranscript,
    pub plays: Vec<LoboPlay>,
    pub total: i64,
}

/// A transfer as a recall shows it.
#[derive(Deserialize, Debug, Clone)]
pub struct TransferClaims {
    pub kind: String,
    pub from: String,
    pub to: String,
    pub amount: String,
}

impl From<&ContestRecall> for RecallClaims {
    fn from(recall: &ContestRecall) -> RecallClaims {
        let c = &recall.contest;
        RecallClaims {
            contest: ContestClaims {
                id: c.id.clone(),
                status: c.status,
                mode: c.mode.clone(),
                entry_fee: format_minor(c.entry_fee.minor()),
                rake_basis_points: u32::from(c.rake_basis_points),
                commitment: c.commitment.clone(),
                client_seed: c.client_seed.clone(),
                server_seed: c.server_seed.clone(),
            },
            entrants: recall
                .entrants
                .iter()
                .map(|en| EntrantClaims {
                    entry_number: en.entry_number,
                    player: en.player.clone(),
                    client_seed: en.client_seed.clone(),
                    shuffle: en.shuffle.clone(),
                    plays: en.plays.clone(),
                    total: en.total,
                })
                .collect(),
            transfers: recall
                .transfers
                .iter()
                .map(|t| TransferClaims {
                    kind: t.kind.to_string(),
                    from: t.from.to_string(),
                    to: t.to.to_string(),
                    amount: t.amount.to_string(),
                })
                .collect(),
        }
    }
}

/// A document that looks like a contest recall (a `contest` and its `entrants`), rather than a
/// round's transcript.
pub fn is_recall_document(doc: &serde_json::Value) -> bool {
    doc.get("contest").is_some_and(serde_json::Value::is_object)
        && doc.get("entrants").is_some_and(serde_json::Value::is_array)
}

/// Verifies a contest recall's JSON (a saved `GET /api/v1/lobo-contests/{id}/recall`); one that
/// does not read fails a `recall` check instead.
pub fn verify_recall_document(doc: &serde_json::Value) -> VerificationReport {
    match RecallClaims::deserialize(doc) {
        Ok(claims) => verify_claims(&claims),
        Err(err) => VerificationReport {
            passed: false,
            checks: vec![shuffle_transcript::fail(
                "recall",
                None,
                format!("not a readable contest recall: {err}"),
            )],
        },
    }
}

/// Recomputes everything a contest recall claims from its own contents and the rules.
pub fn verify(recall: &ContestRecall) -> VerificationReport {
    verify_claims(&RecallClaims::from(recall))
}

/// The verification of a recall's claims. Checks, in order: `terms` (the mode, fee and rake
/// read), `seed` (the revealed server seed hashes to the commitment published before entry),
/// `entrants` (numbered 1 to n in entry order, so no deck is claimed twice), `entrant_seeds`
/// (the entrants' seeds combine to the client seed the contest fixed); then for each entrant
/// `n` the shuffle checks of any Lobo transcript run on their `shuffle`, named `entry[n].deck`
/// and so on, `entry[n].deal` (that transcript is the entrant's own deck: the contest's seeds
/// and commitment, the round id `<contest id>/<n>`) and `entry[n].plays` (the plays replay on
/// that deck to the stated total); last `transfers`.
pub fn verify_claims(recall: &RecallClaims) -> VerificationReport {
    use shuffle_transcript::{fail, pass};
    let contest = &recall.contest;
    let mut checks = Vec::new();

    let mode = Mode::parse(&contest.mode);
    let rake = RakeRate::new(contest.rake_basis_points);
    let fee = Amount::parse(&contest.entry_fee).map(Amount::minor);
    let terms = match (mode, rake, fee) {
        (Some(mode), Some(rake), Ok(fee)) => {
            checks.push(pass(
                "terms",
                format!(
                    "{} mode, entry fee {}, rake {} basis points",
                    mode.name(),
                    contest.entry_fee,
                    contest.rake_basis_points
                ),
            ));
            Some((mode, rake, fee))
        }
        _ => {
            checks.push(fail(
                "terms",
                None,
                format!(
                    "mode {:?}, entry fee {:?} or rake {} basis points is not a contest's",
                    contest.mode, contest.entry_fee, contest.rake_basis_points
                ),
            ));
            None
        }
    };

    let revealed = contest.server_seed.as_deref().map(ServerSeed::from_hex);
    checks.push(match revealed {
        Some(Ok(seed)) if shuffle::commitment(&seed).eq_ignore_ascii_case(&contest.commitment) => pass(
            "seed",
            "the revealed server seed hashes to the commitment published before entry",
        ),
        Some(Ok(_)) => fail("seed", None, "the revealed server seed does not hash to the commitment"),
        Some(Err(err)) => fail("seed", None, format!("the revealed server seed is unusable: {err}")),
        None => fail("seed", None, "no server seed revealed"),
    });

    let misnumbered = (1..).zip(&recall.entrants).find(|(n, en)| en.entry_number != *n);
    checks.push(match misnumbered {
        None => pass(
            "entrants",
            format!("{} entrant(s), numbered 1 to {0} in entry order", recall.entrants.len()),
        ),
        Some((n, en)) => fail(
            "entrants",
            Some(n as usize - 1),
            format!("entrant {n} in entry order is numbered {}", en.entry_number),
        ),
    });

    let seeds: Result<Vec<ClientSeed>, _> = recall
        .entrants
        .iter()
        .filter(|en| !en.client_seed.is_empty())
        .map(|en| ClientSeed::parse(&en.client_seed))
        .collect();
    // A contest whose entry never closed fixed no client seed; its decks use the combination.
    let combined = seeds.as_ref().ok().map(|seeds| shuffle::combined_client_seed(seeds));
    checks.push(match (&seeds, &combined) {
        (Ok(seeds), Some(c)) if contest.client_seed.as_ref().map_or(true, |fixed| fixed == c) => pass(
            "entrant_seeds",
            format!("{} entrant seed(s) combine to the client seed {c}", seeds.len()),
        ),
        (Err(err), _) => fail("entrant_seeds", None, format!("an entrant's seed is invalid: {err}")),
        _ => fail(
            "entrant_seeds",
            None,
            "the entrants' seeds do not combine to the contest's client seed",
        ),
    });

    let settled = contest.status == ContestStatus::Settled;
    let mut totals = Vec::new();
    for en in &recall.entrants {
        let (shuffled, recomputed) = shuffle_transcript::verify_dealing(&en.shuffle);
        for check in shuffled.checks {
            checks.push(shuffle_transcript::Check {
                name: format!("entry[{}].{}", en.entry_number, check.name).into(),
                ..check
            });
        }

        // A transcript that verifies on its own may still be another entrant's deck, or
        // another contest's: it must be this entrant's, from this contest's seeds.
        let t = &en.shuffle;
        let round_id = entrant_round_id(&contest.id, en.entry_number);
        let name = format!("entry[{}].deal", en.entry_number);
        let same_seed = contest
            .server_seed
            .as_deref()
            .is_some_and(|s| s.eq_ignore_ascii_case(&t.server_seed));
        checks.push(if t.round_id != round_id {
            fail(
                name,
                None,
                format!(
                    "round id {:?}, where entrant {} is dealt {round_id:?}",
                    t.round_id, en.entry_number
                ),
            )
        } else if !same_seed || !t.commitment.eq_ignore_ascii_case(&contest.commitment) {
            fail(name, None, "not the contest's server seed and commitment")
        } else if combined.as_deref() != Some(t.client_seed.as_str()) {
            fail(name, None, "not the entrants' combined client seed")
        } else {
            pass(name, format!("round id {round_id:?}, the contest's seeds"))
        });

        let name = format!("entry[{}].plays", en.entry_number);
        let (Some(r), Some((mode, _, _))) = (recomputed, terms) else {
            checks.push(fail(
                name,
                None,
                "not replayed: the entrant's deck or the terms did not verify",
            ));
            continue;
        };
        let plays: Result<Vec<Play>, _> = en.plays.iter().map(super::lobo::to_engine_play).collect();
        let game = plays
            .map_err(|err| err.to_string())
            .and_then(|plays| replay_three_rounds(mode, &r.deck, &plays).map_err(|err| err.to_string()));
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

    // The money: the entries in, then the rake and prizes (settled) or the refunds (voided) out.
    let Some((_, rake, fee)) = terms else {
        checks.push(fail("transfers", None, "not checked: the terms did not read"));
        return VerificationReport { passed: false, checks };
    };
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
        let split = split_pot(fee, &totals, rake);
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
            (t.kind.clone(), t.from.clone(), t.to.clone(), minor)
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
    VerificationReport {
        passed: checks.iter().all(|c| c.passed),
        checks,
    }
}

/// A settled contest whose entrants (with these client seeds, "" for none) fold every round,
/// recalled honestly as `recall` would, without a database: for the verifiers' tests. Easy
/// mode, an entry fee of 10.00, a rake of 500 basis points.
pub fn sample_recall(contest_id: &str, server_seed: [u8; 32], entrant_seeds: &[&str]) -> ContestRecall {
    let config = ContestConfig {
        mode: LoboMode::Easy,
        options: ContestOptions {
            entry_fee: Amount::parse("10.00").expect("a valid amount"),
            rake_basis_points: RakeRate::new(500).expect("a valid rake"),
            min_players: 2,
            max_players: MAX_PLAYERS,
            entry_seconds: ENTRY_SECONDS.0,
            play_seconds: PLAY_SECONDS.0,
        },
    };
    let mode = config.mode();
    let seed = ServerSeed::from_bytes(server_seed);
    let seeds: Vec<ClientSeed> = entrant_seeds
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| ClientSeed::parse(s).expect("a valid client seed"))
        .collect();
    let client_seed = shuffle::combined_client_seed(&seeds);
    let combined = ClientSeed::parse(&client_seed).expect("a combined seed is valid");
    let mut entrants = Vec::new();
    for (i, entrant_seed) in entrant_seeds.iter().enumerate() {
        let n = i as i32 + 1;
        let deck = deck_of(&seed, contest_id, n, &client_seed, mode);
        let mut game = ThreeRounds::deal(mode, &deck).expect("a full deck deals");
        for fold in game.folds_to_stop() {
            game = game.apply(&fold).expect("a fold is legal");
        }
        entrants.push(EntrantRecall {
            entry_number: n,
            player: format!("P{n}"),
            player_id: None,
            client_seed: entrant_seed.to_string(),
            shuffle: ShuffleTranscript::record(
                &seed,
                Game::Lobo,
                &entrant_round_id(contest_id, n),
                std::slice::from_ref(&combined),
                &deck,
                Vec::new(),
            ),
            plays: game.plays().iter().map(LoboPlay::from).collect(),
            rounds: game.scores().to_vec(),
            total: game.total(),
            stopped: false,
        });
    }
    let fee = config.options.entry_fee.minor();
    let totals: Vec<i64> = entrants.iter().map(|en| en.total).collect();
    let split = split_pot(fee, &totals, config.options.rake_basis_points);
    let mut moves: Vec<(&str, String, String, i64)> = entrants
        .iter()
        .map(|en| ("contest_entry", format!("wallet:{}", en.player), "pot".to_string(), fee))
        .collect();
    if split.rake_minor > 0 {
        moves.push(("contest_rake", "pot".into(), "house:revenue".into(), split.rake_minor));
    }
    for (en, &prize) in entrants.iter().zip(&split.prizes_minor) {
        if prize > 0 {
            moves.push(("contest_prize", "pot".into(), format!("wallet:{}", en.player), prize));
        }
    }
    let transfers = moves
        .into_iter()
        .enumerate()
        .map(|(seq, (kind, from, to, minor))| TransferEntry {
            seq: seq as i64 + 1,
            kind: kind.into(),
            from: from.into(),
            to: to.into(),
            amount: format_minor(minor).into(),
            hash: String::new().into(),
        })
        .collect();
    let contest = ContestView {
        id: contest_id.to_string(),
        table_id: "table".into(),
        status: ContestStatus::Settled,
        mode: mode.name().to_string(),
        entry_fee: config.options.entry_fee,
        rake_basis_points: config.options.rake_basis_points.basis_points(),
        min_players: config.options.min_players,
        max_players: config.options.max_players,
        rounds_per_player: ROUNDS,
        entry_closes_at_us: 0,
        play_closes_at_us: Some(0),
        commitment: shuffle::commitment(&seed),
        client_seed: Some(client_seed),
        server_seed: Some(seed.to_hex()),
        entrants: entrants.len(),
        finished: entrants.len(),
        pot: format_minor(split.pot_minor),
        my_entry: None,
        progress: None,
        result: None,
    };
    let mut recall = ContestRecall {
        contest,
        entrants,
        parties: Vec::new(),
        transfers,
        verification: VerificationReport {
            passed: false,
            checks: Vec::new(),
        },
    };
    recall.verification = verify(&recall);
    recall
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

    const CONTEST: &str = "7b1e5a42-4c1d-4f0e-9a59-2f3c7d2b1a01";

    fn honest_recall(entrant_seeds: &[&str]) -> ContestRecall {
        sample_recall(CONTEST, [0x5a; 32], entrant_seeds)
    }

    fn failed(report: &VerificationReport) -> Vec<String> {
        report
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name.to_string())
            .collect()
    }

    #[test]
    fn each_entrant_is_dealt_the_deck_of_their_own_round_id() {
        let seed = ServerSeed::from_bytes([0x5a; 32]);
        let client_seed = shuffle::combined_client_seed(&[]);
        assert_eq!(entrant_round_id(CONTEST, 2), format!("{CONTEST}/2"));
        let decks: Vec<Vec<Card>> = (1..=3)
            .map(|n| deck_of(&seed, CONTEST, n, &client_seed, Mode::Easy))
            .collect();
        for (i, deck) in decks.iter().enumerate() {
            let round_id = format!("{CONTEST}/{}", i + 1);
            let expected = shuffle::shuffled_deck(&seed, Game::Lobo, &round_id, &client_seed, 8).0;
            assert_eq!(deck, &expected);
        }
        assert_ne!(decks[0], decks[1]);
        assert_ne!(decks[1], decks[2]);
        // Not the one deck every entrant used to share.
        let shared = shuffle::shuffled_deck(&seed, Game::Lobo, CONTEST, &client_seed, 8).0;
        assert!(decks.iter().all(|d| *d != shared));
    }

    #[test]
    fn an_honest_recall_verifies_entrant_by_entrant() {
        let recall = honest_recall(&["alpha", "", "gamma"]);
        let report = verify(&recall);
        assert!(report.passed, "{}", report.to_text());
        for n in 1..=3 {
            for check in ["commitment", "client_seed", "deck", "deal", "plays"] {
                let name = format!("entry[{n}].{check}");
                assert!(report.check(&name).is_some_and(|c| c.passed), "{name}");
            }
        }
        assert!(report.check("seed").unwrap().passed);
        assert!(report.check("transfers").unwrap().passed);
    }

    #[test]
    fn another_entrants_deck_fails_verification() {
        // Entrant 1's transcript swapped for entrant 2's, round id and all: it verifies as a
        // shuffle, but it is not entrant 1's deal.
        let mut recall = honest_recall(&["alpha", "beta"]);
        recall.entrants[0].shuffle = recall.entrants[1].shuffle.clone();
        let report = verify(&recall);
        assert!(!report.passed);
        assert!(report.check("entry[1].deck").unwrap().passed);
        assert!(!report.check("entry[1].deal").unwrap().passed);
        assert!(report.check("entry[2].deal").unwrap().passed);

        // Entrant 2's cards under entrant 1's round id: the deck does not recompute.
        let mut recall = honest_recall(&["alpha", "beta"]);
        recall.entrants[0].shuffle.deck = recall.entrants[1].shuffle.deck.clone();
        let report = verify(&recall);
        assert!(!report.check("entry[1].deck").unwrap().passed);
        assert!(!report.check("entry[1].plays").unwrap().passed);
        assert_eq!(failed(&report), ["entry[1].deck", "entry[1].plays", "transfers"]);
    }

    #[test]
    fn a_deck_under_a_wrong_round_id_fails_verification() {
        let seed = ServerSeed::from_bytes([0x5a; 32]);
        for round_id in [CONTEST.to_string(), format!("{CONTEST}/3"), format!("{CONTEST}/01")] {
            // A transcript consistent in itself: the shared deck of old, or another number's.
            let mut recall = honest_recall(&["alpha", "beta"]);
            let t = &recall.entrants[0].shuffle;
            let combined = ClientSeed::parse(&t.client_seed).unwrap();
            let deck = shuffle::shuffled_deck(&seed, Game::Lobo, &round_id, &t.client_seed, 8).0;
            recall.entrants[0].shuffle =
                ShuffleTranscript::record(&seed, Game::Lobo, &round_id, &[combined], &deck, Vec::new());
            let report = verify(&recall);
            assert!(report.check("entry[1].deck").unwrap().passed, "{round_id}");
            let deal = report.check("entry[1].deal").unwrap();
            assert!(!deal.passed, "{round_id}");
            assert!(deal.detail.contains("round id"), "{}", deal.detail);
            assert!(!report.passed);
        }
    }

    #[test]
    fn an_entrant_claimed_twice_fails_verification() {
        let mut recall = honest_recall(&["alpha", "beta"]);
        let mut twin = recall.entrants[0].clone();
        twin.player = "P2".into();
        recall.entrants[1] = twin;
        let report = verify(&recall);
        let check = report.check("entrants").unwrap();
        assert!(!check.passed);
        assert_eq!(check.first_mismatch, Some(1));
    }

    #[test]
    fn a_deck_from_another_seed_fails_verification() {
        let mut recall = honest_recall(&["alpha", "beta"]);
        let other = ServerSeed::from_bytes([0x11; 32]);
        let t = recall.entrants[1].shuffle.clone();
        let combined = ClientSeed::parse(&t.client_seed).unwrap();
        let deck = shuffle::shuffled_deck(&other, Game::Lobo, &t.round_id, &t.client_seed, 8).0;
        recall.entrants[1].shuffle =
            ShuffleTranscript::record(&other, Game::Lobo, &t.round_id, &[combined], &deck, Vec::new());
        let report = verify(&recall);
        assert!(!report.check("entry[2].deal").unwrap().passed);
        assert!(!report.passed);

        // A seed that is not the committed one fails the contest's own check.
        let mut recall = honest_recall(&["alpha", "beta"]);
        recall.contest.server_seed = Some(other.to_hex());
        let report = verify(&recall);
        assert!(!report.check("seed").unwrap().passed);
        assert!(!report.check("entry[1].deal").unwrap().passed);

        // Seeds that do not combine to the fixed client seed.
        let mut recall = honest_recall(&["alpha", "beta"]);
        recall.entrants[0].client_seed = "alpha2".into();
        let report = verify(&recall);
        assert!(!report.check("entrant_seeds").unwrap().passed);
    }

    #[test]
    fn a_recall_read_back_from_its_json_verifies_the_same() {
        let recall = honest_recall(&["alpha", "beta", ""]);
        assert!(recall.verification.passed, "{}", recall.verification.to_text());
        let doc = serde_json::to_value(&recall).unwrap();
        assert!(is_recall_document(&doc));
        assert_eq!(verify_recall_document(&doc), recall.verification);

        let mut swapped = doc.clone();
        let first = swapped["entrants"][0]["shuffle"].clone();
        swapped["entrants"][0]["shuffle"] = swapped["entrants"][1]["shuffle"].clone();
        swapped["entrants"][1]["shuffle"] = first;
        let report = verify_recall_document(&swapped);
        assert!(!report.passed);
        assert!(!report.check("entry[1].deal").unwrap().passed);
        assert!(!report.check("entry[2].deal").unwrap().passed);

        let mut bad_terms = doc.clone();
        bad_terms["contest"]["mode"] = "impossible".into();
        let report = verify_recall_document(&bad_terms);
        assert!(!report.check("terms").unwrap().passed);
        assert!(!report.check("entry[1].plays").unwrap().passed);

        let mut unreadable = doc;
        unreadable["entrants"][0]["shuffle"] = serde_json::json!(7);
        let report = verify_recall_document(&unreadable);
        assert!(!report.passed);
        assert_eq!(report.checks.len(), 1);
        assert_eq!(report.checks[0].name, "recall");
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
