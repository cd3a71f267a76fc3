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

mod operations;
mod recall;
mod view;
pub use operations::*;
pub use recall::*;
pub use view::*;

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
    /// The player is excluded from play, or the entry fee would pass a limit they set.
    #[error(transparent)]
    Protection(crate::protection::Refusal),
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
        assert_eq!(verify_recall_document(&doc, &Default::default()), recall.verification);

        let mut swapped = doc.clone();
        let first = swapped["entrants"][0]["shuffle"].clone();
        swapped["entrants"][0]["shuffle"] = swapped["entrants"][1]["shuffle"].clone();
        swapped["entrants"][1]["shuffle"] = first;
        let report = verify_recall_document(&swapped, &Default::default());
        assert!(!report.passed);
        assert!(!report.check("entry[1].deal").unwrap().passed);
        assert!(!report.check("entry[2].deal").unwrap().passed);

        let mut bad_terms = doc.clone();
        bad_terms["contest"]["mode"] = "impossible".into();
        let report = verify_recall_document(&bad_terms, &Default::default());
        assert!(!report.check("terms").unwrap().passed);
        assert!(!report.check("entry[1].plays").unwrap().passed);

        let mut unreadable = doc;
        unreadable["entrants"][0]["shuffle"] = serde_json::json!(7);
        let report = verify_recall_document(&unreadable, &Default::default());
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
