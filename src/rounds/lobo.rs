//! Lobo rounds against the house (docs/lobo.md): the engine's replay plus the money.
//!
//! One player, one round: the round is created already `in_play` with the
//! player's client seed fixed (there is no betting window), the loss cap
//! escrowed and the house rule's charge paid. Only the sealed server seed and
//! the plays are stored (`rounds.decisions`, a JSON list of plays); every
//! request rebuilds the state with `games::lobo::replay(mode, deck, plays)`.
//! Each operation runs in one write transaction holding the round's row lock,
//! so a play, its settlement and its ledger transfers commit together, once.
//!
//! Money (docs/lobo.md, "The service"):
//! - start: wallet → `escrow:<round>` unit × loss cap (`lobo_escrow`);
//!   wallet → house revenue, the house rule's charge (`lobo_fee`);
//! - player won: house bankroll → wallet unit × points (`lobo_win`), escrow → wallet (`lobo_release`);
//! - player lost: escrow → house bankroll unit × min(points, cap) (`lobo_loss`),
//!   the rest of the escrow → wallet (`lobo_release`).
//!
//! The client only ever sees [`LoboView`], built from `LoboState::public_view`:
//! never a face-down card. The deck is shown by the recall, after settlement.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::record::{self, RoundError, RoundRow, RoundStatus, RoundUpdate};
use super::seed_vault::SeedVault;
use crate::cards::shuffle::{self, ClientSeed, Game, ServerSeed};
use crate::cards::transcript::ShuffleTranscript;
use crate::cards::Card;
use crate::domain::{format_minor, Amount};
use crate::games::lobo::{
    self as engine, proven_edge, HouseRule, LoboState, Mode, Outcome, Play, PlayKind, ProvenEdge,
};
use crate::ledger::{self, accounts, AccountId, LedgerError, PaymentRefused, Refs, TransferKind, TransferSpec};
use crate::significant_events::{self, EventKind};
use crate::store::{lock_for_update, new_id, AnyConnection};
use crate::tables::config::LoboConfig;
use crate::tables::{Table, TableConfig};

/// Positions a hint may store per solve attempt (three attempts at most; docs/lobo.md §3:
/// at 200 000 every measured request answered within 0.8 s on the dev machine).
pub const HINT_STATE_BUDGET: u64 = 200_000;

/// Why a Lobo operation was refused or failed; `api/` turns each into its HTTP answer.
#[derive(Debug, thiserror::Error)]
pub enum LoboError {
    #[error("Lobo round not found")]
    RoundNotFound,
    /// The player is excluded from play, or the round's escrow and charge would pass a limit
    /// they set.
    #[error(transparent)]
    Protection(crate::protection::Refusal),
    #[error("table not found")]
    TableNotFound,
    #[error("this table does not deal Lobo")]
    WrongGame,
    #[error("this table is closed")]
    TableClosed,
    /// The table's house rule has no proof (a table option refused).
    #[error("{0}")]
    RuleNotProven(String),
    /// A round refused because its table's house rule lost its proof.
    #[error("{0}")]
    TableRuleNotProven(String),
    #[error("the unit must be between {min} and {max} at this table")]
    UnitOutOfRange { min: Amount, max: Amount },
    /// `round_id` is absent only when another round was started at the same instant.
    #[error("you already have a Lobo round in play at this table{}; finish it first",
        .round_id.as_deref().map(|id| format!(": {id}")).unwrap_or_default())]
    RoundInProgress { round_id: Option<String> },
    #[error(
        "a round at unit {unit} needs {needed}: {escrow} (the loss cap of {loss_cap_points} points, held until \
         settlement) plus {charge} (the house rule's charge); the wallet holds {balance}"
    )]
    InsufficientFunds {
        unit: Amount,
        escrow: String,
        loss_cap_points: u32,
        charge: String,
        needed: String,
        balance: String,
    },
    #[error("only players with a wallet may play")]
    NoWallet,
    #[error("this is another player's round")]
    NotYourRound,
    #[error(
        "the round has {made} play(s) but the request expected {expected}: it was made on an old view \
         or repeated; reload the round"
    )]
    StalePlay { made: usize, expected: usize },
    #[error("{0}")]
    IllegalPlay(String),
    #[error("the transcript is available once the round is settled")]
    NotSettled,
    #[error(transparent)]
    Round(#[from] RoundError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Store(#[from] diesel::result::Error),
    #[error(transparent)]
    Database(#[from] crate::store::StoreError),
    /// A stored round that does not read back (a defect or tampering): never the client's fault.
    #[error("{0}")]
    Corrupt(String),
}

// ---------------------------------------------------------------------------
// Opening a table
// ---------------------------------------------------------------------------

/// Whether a Lobo table with this configuration may be opened.
///
/// - `Ok(Some(edge))`: the house rule is proven to favour the house at the table's loss cap.
/// - `Ok(None)`: not proven, but the pit boss set `house_rule_override`; the caller must record
///   the significant event ([`record_house_rule_override`]) in the transaction that opens it.
/// - `Err(422 house_rule_not_proven)`: not proven and no override.
pub fn check_openable(config: &LoboConfig) -> Result<Option<ProvenEdge>, LoboError> {
    match proven_edge(config.mode.engine(), &config.house_rule, Some(config.loss_cap_points)) {
        Some(edge) => Ok(Some(edge)),
        None if config.house_rule_override => Ok(None),
        None => Err(LoboError::RuleNotProven(format!(
            "house rule {} at a loss cap of {} points in {} mode is not proven to favour the house \
                 (no upper bound on perfect play below its charge; caps below {} have no bound); \
                 raise the fee or the cap, or set house_rule_override (a significant event)",
            config.house_rule.describe(),
            config.loss_cap_points,
            config.mode.engine(),
            engine::MIN_PROVEN_LOSS_CAP_POINTS
        ))),
    }
}

/// Records the pit boss's override of an unproven house rule (docs/lobo.md; a significant event).
pub fn record_house_rule_override(
    conn: &mut AnyConnection,
    actor_id: &str,
    table_id: &str,
    config: &LoboConfig,
) -> diesel::QueryResult<()> {
    let mode = config.mode.engine();
    significant_events::record(
        conn,
        EventKind::HouseRuleOverride,
        Some(actor_id),
        Some(table_id),
        serde_json::json!({
            "mode": mode.name(),
            "house_rule": config.house_rule,
            "loss_cap_points": config.loss_cap_points,
            "expected_charge_units": config.house_rule.expected_charge_units(mode),
            "proven": false,
        }),
    )
}

// ---------------------------------------------------------------------------
// Money arithmetic (pure)
// ---------------------------------------------------------------------------

pub use crate::games::lobo::{settle_money, start_money, SettleMoney, StartMoney};

// ---------------------------------------------------------------------------
// Stored parts
// ---------------------------------------------------------------------------

/// The round's configuration, fixed when it starts (`rounds.config`).
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone)]
pub struct LoboRoundConfig {
    /// The table's options as they were when the round started.
    pub table: LoboConfig,
    pub player_id: String,
    /// The player's stake per point.
    #[schema(value_type = String, example = "1.00")]
    pub unit: Amount,
    /// unit × loss cap, escrowed at the start.
    pub escrow: String,
    /// The house rule's charge paid at the start ("0.00" when none).
    pub charge: String,
    /// The Wolf's opening points (the ante's base).
    pub wolf_opening_points: u32,
}

impl LoboRoundConfig {
    pub fn mode(&self) -> Mode {
        self.table.mode.engine()
    }
    fn escrow_minor(&self) -> Result<i64, LoboError> {
        parse_minor(&self.escrow)
    }
}

fn parse_minor(text: &str) -> Result<i64, LoboError> {
    if text == "0.00" {
        return Ok(0);
    }
    Amount::parse(text)
        .map(Amount::minor)
        .map_err(|e| LoboError::Corrupt(format!("stored amount {text:?}: {e}")))
}

/// The round's result, stored at settlement (`rounds.result`).
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
pub struct LoboResult {
    pub player_won: bool,
    /// The player's hand on a win, the Wolf's hand on a loss.
    pub points: u32,
    /// Points paid: a loss is capped at the table's loss cap.
    pub paid_points: u32,
    /// wolf_emptied, folded or no_legal_play.
    pub reason: String,
    /// Paid to the player from the house bankroll.
    pub won: String,
    /// Paid from the escrow to the house bankroll.
    pub lost: String,
    /// Returned from the escrow to the player.
    pub released: String,
    /// The player's net over the round, the start charge included (may be negative).
    pub player_net: String,
    /// The player made no play within the table's play timeout, and the round was
    /// ended as the rules end it for a player who stops: a fold.
    #[serde(default)]
    pub timed_out: bool,
}

/// How a round came to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// By the player's play, or by the deal itself.
    Played,
    /// By the service, folding for a player silent past the play timeout.
    TimedOut,
}

fn signed_minor(minor: i64) -> String {
    if minor < 0 {
        format!("-{}", format_minor(-minor))
    } else {
        format_minor(minor)
    }
}

pub fn round_config(row: &RoundRow) -> Result<LoboRoundConfig, LoboError> {
    if row.game != "lobo" {
        return Err(LoboError::RoundNotFound);
    }
    serde_json::from_str(&row.config).map_err(|e| LoboError::Corrupt(format!("stored round config: {e}")))
}

pub fn plays(row: &RoundRow) -> Result<Vec<Play>, LoboError> {
    serde_json::from_str(&row.decisions).map_err(|e| LoboError::Corrupt(format!("stored plays: {e}")))
}

pub fn result(row: &RoundRow) -> Result<Option<LoboResult>, LoboError> {
    row.result
        .as_deref()
        .map(|t| serde_json::from_str(t).map_err(|e| LoboError::Corrupt(format!("stored result: {e}"))))
        .transpose()
}

/// The round's deck: shuffle-v1 with game `lobo`, the player's client seed raw (docs/shuffle.md).
pub fn deck_of(vault: &SeedVault, row: &RoundRow, mode: Mode) -> Result<Vec<Card>, LoboError> {
    let seed = open_seed(vault, row)?;
    let client_seed = row.client_seed.as_deref().unwrap_or("");
    Ok(shuffle::shuffled_deck(&seed, Game::Lobo, &row.id, client_seed, mode.max_rank()).0)
}

/// Rebuilds the round's state from its deck and stored plays.
pub fn state_of(vault: &SeedVault, row: &RoundRow) -> Result<(LoboRoundConfig, LoboState), LoboError> {
    let config = round_config(row)?;
    let state = replay(vault, row, &config, &plays(row)?)?;
    Ok((config, state))
}

fn replay(vault: &SeedVault, row: &RoundRow, config: &LoboRoundConfig, made: &[Play]) -> Result<LoboState, LoboError> {
    let deck = deck_of(vault, row, config.mode())?;
    engine::replay(config.mode(), &deck, made)
        .map_err(|e| LoboError::Corrupt(format!("stored plays of round {} do not replay: {e}", row.id)))
}

fn open_seed(vault: &SeedVault, row: &RoundRow) -> Result<ServerSeed, LoboError> {
    vault
        .open(&row.id, &row.server_seed_sealed)
        .map_err(|e| LoboError::Corrupt(e.to_string()))
}

// ---------------------------------------------------------------------------
// What clients see
// ---------------------------------------------------------------------------

/// A play as sent and shown: card ids (`suit × 10 + rank − 1`; suits Crowns 0, Locks 1,
/// Fruit 2, Swords 3, Cups 4).
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
pub struct LoboPlay {
    /// perfect, sum, split, over or fold.
    #[schema(value_type = String, example = "perfect")]
    pub kind: PlayKind,
    pub player_cards: Vec<u8>,
    pub wolf_cards: Vec<u8>,
}

impl From<&Play> for LoboPlay {
    fn from(p: &Play) -> LoboPlay {
        LoboPlay {
            kind: p.kind,
            player_cards: ids(&p.player_cards),
            wolf_cards: ids(&p.wolf_cards),
        }
    }
}

fn ids(cards: &[Card]) -> Vec<u8> {
    cards.iter().map(|c| c.id()).collect()
}

/// The table as the player sees it: no face-down card and nothing derived from one.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct LoboTableView {
    /// hard, ordinary or easy.
    pub mode: String,
    pub player_hand: Vec<u8>,
    /// Face up: the player must see the Wolf's hand to choose captures.
    pub wolf_hand: Vec<u8>,
    /// The face-up card; null once the deck has run out.
    pub cub: Option<u8>,
    /// Cards left in the deck, the cub included.
    pub cards_left: usize,
    /// Face-down cards under the cub.
    pub face_down_left: usize,
    pub discards: Vec<u8>,
    pub plays: Vec<LoboPlay>,
    /// Every legal play now (Fold last); empty once the round is over.
    pub legal_plays: Vec<LoboPlay>,
}

impl LoboTableView {
    pub fn of(state: &LoboState) -> LoboTableView {
        let v = state.public_view();
        LoboTableView {
            mode: v.mode.name().to_string(),
            player_hand: ids(&v.player_hand),
            wolf_hand: ids(&v.wolf_hand),
            cub: v.cub.map(Card::id),
            cards_left: v.cards_left,
            face_down_left: v.face_down_left,
            discards: ids(&v.discards),
            plays: v.plays.iter().map(LoboPlay::from).collect(),
            legal_plays: v.legal_plays.iter().map(LoboPlay::from).collect(),
        }
    }
}

/// A Lobo round as the API shows it.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct LoboView {
    pub id: String,
    pub table_id: String,
    pub number: i64,
    #[schema(value_type = String, example = "in_play")]
    pub status: RoundStatus,
    /// The round's player: absent in the table's live stream, which shows no one's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// hex(SHA-256(server seed)), published with the deal.
    pub commitment: String,
    /// The client seed that entered the shuffle ("" when none was sent).
    pub client_seed: String,
    /// Revealed once the round is settled.
    pub server_seed: Option<String>,
    #[schema(value_type = String, example = "1.00")]
    pub unit: Amount,
    pub loss_cap_points: u32,
    pub escrow: String,
    pub charge: String,
    #[schema(value_type = crate::tables::config::LoboHouseRule)]
    pub house_rule: HouseRule,
    /// Plays made so far: send it back as `expected_plays` with the next play.
    pub plays_made: usize,
    /// While the round is in play: the instant (µs since the epoch) after which it is folded for
    /// the player unless they play first (the table's `play_timeout_seconds` from the last change).
    pub play_deadline_us: Option<i64>,
    pub table: LoboTableView,
    pub result: Option<LoboResult>,
}

impl LoboView {
    /// The view as the table's watchers see it: the cards in play, not whose round it is.
    pub fn for_watchers(self) -> LoboView {
        LoboView {
            player_id: None,
            ..self
        }
    }
}

pub fn view(row: &RoundRow, config: &LoboRoundConfig, state: &LoboState) -> Result<LoboView, LoboError> {
    Ok(LoboView {
        id: row.id.clone(),
        table_id: row.table_id.clone(),
        number: row.number,
        status: row.status(),
        player_id: Some(config.player_id.clone()),
        commitment: row.commitment.clone(),
        client_seed: row.client_seed.clone().unwrap_or_default(),
        server_seed: row.revealed_server_seed.clone(),
        unit: config.unit,
        loss_cap_points: config.table.loss_cap_points,
        escrow: config.escrow.clone(),
        charge: config.charge.clone(),
        house_rule: config.table.house_rule,
        plays_made: state.plays().len(),
        play_deadline_us: (row.status() == RoundStatus::InPlay).then(|| deadline_us(row, config)),
        table: LoboTableView::of(state),
        result: result(row)?,
    })
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

fn refs(row_id: &str, table_id: &str, player_id: &str) -> Refs {
    Refs {
        user_id: Some(player_id.to_string()),
        table_id: Some(table_id.to_string()),
        round_id: Some(row_id.to_string()),
        bet_id: None,
    }
}

pub fn config_of(table: &Table) -> Result<&LoboConfig, LoboError> {
    match &table.config {
        TableConfig::Lobo(c) => Ok(c),
        _ => Err(LoboError::WrongGame),
    }
}

/// Starts a round for `player_id`: deals, escrows the loss cap, charges the house rule, and
/// (rarely) settles at once when the deal leaves the player no capture.
pub fn start_round(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    table: &Table,
    player_id: &str,
    unit: Amount,
    client_seed: Option<&ClientSeed>,
    idempotency_key: Option<&str>,
) -> Result<LoboView, LoboError> {
    let table_config = config_of(table)?.clone();
    if !table.is_open() {
        return Err(LoboError::TableClosed);
    }
    check_openable(&table_config).map_err(|e| LoboError::TableRuleNotProven(e.to_string()))?;
    if unit < table_config.min_unit || unit > table_config.max_unit {
        return Err(LoboError::UnitOutOfRange {
            min: table_config.min_unit,
            max: table_config.max_unit,
        });
    }
    let mode = table_config.mode.engine();

    // Round numbers per table: one creator at a time (PostgreSQL; SQLite writers are serialized).
    if uuid::Uuid::parse_str(&table.id).is_err() {
        return Err(LoboError::TableNotFound);
    }
    // NO KEY UPDATE: creators queue behind each other, but foreign-key checks
    // on rounds.table_id (KEY SHARE) do not wait, which would deadlock with
    // a round settling on the same table.
    lock_for_update(
        conn,
        &format!(
            "SELECT id FROM casino_tables WHERE id = '{}' FOR NO KEY UPDATE",
            table.id
        ),
    )?;

    let id = new_id();
    let seed = SeedVault::draw_seed();
    let client_seed_text = client_seed.map(|c| c.as_str().to_string()).unwrap_or_default();
    let (deck, _) = shuffle::shuffled_deck(&seed, Game::Lobo, &id, &client_seed_text, mode.max_rank());
    let dealt = LoboState::deal(mode, &deck).map_err(|e| LoboError::Corrupt(format!("shuffled deck refused: {e}")))?;
    let wolf_points: u32 = dealt.wolf_hand().iter().map(|c| c.rank().value() as u32).sum();
    let money = start_money(
        unit,
        table_config.loss_cap_points,
        &table_config.house_rule,
        wolf_points,
    );
    // The escrow can all be lost, and the charge is: both are stakes. Nothing of this deal is
    // kept when the player may not play.
    admit_play(conn, player_id, money.escrow_minor + money.charge_minor)?;
    let config = LoboRoundConfig {
        table: table_config.clone(),
        player_id: player_id.to_string(),
        unit,
        escrow: format_minor(money.escrow_minor),
        charge: format_minor(money.charge_minor),
        wolf_opening_points: wolf_points,
    };
    let config_json = serde_json::to_string(&config).expect("configs serialize");
    let new = record::NewRound {
        pay_table_id: None,
        id: &id,
        table_id: &table.id,
        game: "lobo",
        status: RoundStatus::InPlay,
        config_json: &config_json,
        seed: &seed,
        client_seed: Some(&client_seed_text),
        created_by: player_id,
    };
    if let Some(open) = record::unfinished(conn, &table.id, "lobo", Some(player_id))? {
        return Err(LoboError::RoundInProgress { round_id: Some(open) });
    }
    record::insert(conn, vault, &new).map_err(|e| match e {
        // Another round of the player's was started at the same instant.
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _) => {
            LoboError::RoundInProgress { round_id: None }
        }
        other => other.into(),
    })?;

    let escrow = AccountId::escrow(&id);
    accounts::ensure(conn, &escrow, None)?;
    let wallet = AccountId::wallet(player_id);
    let refs = refs(&id, &table.id, player_id);
    let mut specs = vec![TransferSpec::new(
        wallet.clone(),
        escrow,
        amount(money.escrow_minor)?,
        TransferKind::LoboEscrow,
    )
    .refs(refs.clone())
    .idempotency_key(idempotency_key)
    .memo(format!("loss cap of {} points held", table_config.loss_cap_points))];
    if money.charge_minor > 0 {
        specs.push(
            TransferSpec::new(
                wallet,
                AccountId::house_revenue(),
                amount(money.charge_minor)?,
                TransferKind::LoboFee,
            )
            .refs(refs)
            .idempotency_key(idempotency_key)
            .memo(format!("house rule {}", table_config.house_rule.describe())),
        );
    }
    ledger::post_paid_by(conn, player_id, &specs).map_err(|refused| match refused {
        PaymentRefused::Short { balance_minor } => LoboError::InsufficientFunds {
            unit,
            escrow: format_minor(money.escrow_minor),
            loss_cap_points: table_config.loss_cap_points,
            charge: format_minor(money.charge_minor),
            needed: format_minor(money.escrow_minor + money.charge_minor),
            balance: format_minor(balance_minor),
        },
        PaymentRefused::NoWallet => LoboError::NoWallet,
        PaymentRefused::Ledger(e) => e.into(),
    })?;

    let row = reload(conn, &id)?;
    if dealt.is_over() {
        return finish(conn, vault, &row, &config, &dealt, Ending::Played);
    }
    view(&row, &config, &dealt)
}

fn amount(minor: i64) -> Result<Amount, LoboError> {
    Amount::from_minor(minor).map_err(|e| LoboError::Corrupt(e.to_string()))
}

fn reload(conn: &mut AnyConnection, id: &str) -> Result<RoundRow, LoboError> {
    record::find(conn, id)?.ok_or_else(|| LoboError::Corrupt(format!("round {id} vanished")))
}

/// Loads and locks a round of `player_id` that is in play.
fn lock_own_round(
    conn: &mut AnyConnection,
    round_id: &str,
    player_id: &str,
) -> Result<(RoundRow, LoboRoundConfig), LoboError> {
    let row = record::lock(conn, round_id)?;
    let config = round_config(&row)?;
    if config.player_id != player_id {
        return Err(LoboError::NotYourRound);
    }
    Ok((row, config))
}

/// Makes a play (Fold included). `expected_plays` is the number of plays the client has seen:
/// anything else means its view is stale (or the request is a repeat) and nothing is applied.
pub fn make_play(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    round_id: &str,
    player_id: &str,
    play: &LoboPlay,
    expected_plays: usize,
) -> Result<LoboView, LoboError> {
    let (row, config) = lock_own_round(conn, round_id, player_id)?;
    row.require_status(&[RoundStatus::InPlay], "play")?;
    let made = plays(&row)?;
    if made.len() != expected_plays {
        return Err(LoboError::StalePlay {
            made: made.len(),
            expected: expected_plays,
        });
    }
    let play = to_engine_play(play)?;
    apply(conn, vault, &row, &config, made, &play, Ending::Played)
}

/// Applies `play` after the stored plays `made`, stores it, and settles the round if it ended.
fn apply(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    config: &LoboRoundConfig,
    mut made: Vec<Play>,
    play: &Play,
    ending: Ending,
) -> Result<LoboView, LoboError> {
    let before = replay(vault, row, config, &made)?;
    let after = before.apply(play).map_err(|e| LoboError::IllegalPlay(e.to_string()))?;
    made.push(play.canonical());
    let json = serde_json::to_string(&made).expect("plays serialize");
    record::update(
        conn,
        row,
        RoundUpdate {
            decisions: Some(&json),
            ..RoundUpdate::status(RoundStatus::InPlay)
        },
    )?;
    let row = reload(conn, &row.id)?;
    if after.is_over() {
        return finish(conn, vault, &row, config, &after, ending);
    }
    view(&row, config, &after)
}

pub(crate) fn to_engine_play(p: &LoboPlay) -> Result<Play, LoboError> {
    let cards = |list: &[u8]| -> Result<Vec<Card>, LoboError> {
        list.iter()
            .map(|&id| {
                Card::from_id(id).ok_or_else(|| LoboError::IllegalPlay(format!("card id {id} is not in 0..=49")))
            })
            .collect()
    };
    if p.player_cards.len() > 8 || p.wolf_cards.len() > 64 {
        return Err(LoboError::IllegalPlay("too many cards in one play".into()));
    }
    Ok(Play::new(p.kind, cards(&p.player_cards)?, cards(&p.wolf_cards)?))
}

// ---------------------------------------------------------------------------
// Rounds that end without their player: timeouts and voids
// ---------------------------------------------------------------------------

/// The instant after which a silent player's round is folded for them: the last change of
/// the round (its start or its last play) plus the play timeout of its table as it was at
/// the start.
pub fn deadline_us(row: &RoundRow, config: &LoboRoundConfig) -> i64 {
    row.updated_at_us + i64::from(config.table.play_timeout_seconds) * 1_000_000
}

/// Rounds in play unchanged since before `now_us` less the shortest play timeout a table may
/// set: every round that may be past its deadline, and few others. Oldest first, at most
/// `limit`. The literal predicate lets the partial index `lobo_rounds_in_play` answer it.
pub fn maybe_overdue(conn: &mut AnyConnection, now_us: i64, limit: i64) -> diesel::QueryResult<Vec<String>> {
    use crate::store::schema::rounds as r;
    use diesel::prelude::*;
    let cutoff_us = now_us - i64::from(crate::tables::config::MIN_PLAY_TIMEOUT_SECONDS) * 1_000_000;
    r::table
        .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
            "game = 'lobo' AND status = 'in_play'",
        ))
        .filter(r::updated_at_us.lt(cutoff_us))
        .order(r::updated_at_us.asc())
        .limit(limit)
        .select(r::id)
        .load(conn)
}

/// Folds for a player who made no play before the round's deadline, as the rules settle a
/// player who stops: the Wolf's points as they stand, at most the loss cap. `None` when the
/// round is no longer in play or its player has played since (checked under the round's lock,
/// so a play and a timeout never both apply). A significant event.
pub fn time_out(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    round_id: &str,
    now_us: i64,
) -> Result<Option<LoboView>, LoboError> {
    let row = record::lock(conn, round_id)?;
    let config = round_config(&row)?;
    let deadline = deadline_us(&row, &config);
    if row.status() != RoundStatus::InPlay || now_us < deadline {
        return Ok(None);
    }
    let made = plays(&row)?;
    significant_events::record(
        conn,
        EventKind::RoundTimedOut,
        None,
        Some(&row.id),
        serde_json::json!({
            "game": "lobo",
            "player_id": config.player_id,
            "plays_made": made.len(),
            "play_timeout_seconds": config.table.play_timeout_seconds,
            "silent_seconds": (now_us - row.updated_at_us) / 1_000_000,
        }),
    )?;
    apply(conn, vault, &row, &config, made, &Play::fold(), Ending::TimedOut).map(Some)
}

/// Voids a round in play (pit boss): the whole escrow and the house rule's charge go back to
/// the player, nothing else moves, and the seed is revealed. Significant events: the void with
/// its reason, and the reveal.
pub fn void(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    round_id: &str,
    actor_id: &str,
    reason: &str,
) -> Result<LoboView, LoboError> {
    let row = record::lock(conn, round_id)?;
    let config = round_config(&row)?;
    row.require_status(&[RoundStatus::InPlay], "void (the round is over)")?;
    let state = replay(vault, &row, &config, &plays(&row)?)?;
    let escrow = AccountId::escrow(&row.id);
    let wallet = AccountId::wallet(&config.player_id);
    let refs = refs(&row.id, &row.table_id, &config.player_id);
    let held_minor = accounts::balance_minor(conn, &escrow)?;
    let charge_minor = parse_minor(&config.charge)?;
    let mut specs = Vec::new();
    if held_minor > 0 {
        specs.push(
            TransferSpec::new(
                escrow.clone(),
                wallet.clone(),
                amount(held_minor)?,
                TransferKind::Refund,
            )
            .refs(refs.clone())
            .memo("void: escrow returned"),
        );
    }
    if charge_minor > 0 {
        specs.push(
            TransferSpec::new(
                AccountId::house_revenue(),
                wallet,
                amount(charge_minor)?,
                TransferKind::Refund,
            )
            .refs(refs)
            .memo("void: house rule's charge returned"),
        );
    }
    ledger::post(conn, &specs)?;
    let seed = open_seed(vault, &row)?;
    record::update(
        conn,
        &row,
        RoundUpdate {
            revealed_server_seed: Some(&seed.to_hex()),
            ..RoundUpdate::status(RoundStatus::Voided)
        },
    )?;
    significant_events::record(
        conn,
        EventKind::RoundVoided,
        Some(actor_id),
        Some(&row.id),
        serde_json::json!({ "game": "lobo", "reason": reason, "player_id": config.player_id,
            "refunded": format_minor(held_minor + charge_minor) }),
    )?;
    significant_events::record(
        conn,
        EventKind::SeedRevealed,
        Some(actor_id),
        Some(&row.id),
        serde_json::json!({ "game": "lobo", "reason": "voided", "commitment": row.commitment }),
    )?;
    let row = reload(conn, &row.id)?;
    view(&row, &config, &state)
}

/// Settles a finished round in the caller's transaction: moves the money, empties the escrow,
/// reveals the server seed.
fn finish(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    config: &LoboRoundConfig,
    state: &LoboState,
    ending: Ending,
) -> Result<LoboView, LoboError> {
    let outcome = state
        .outcome()
        .ok_or_else(|| LoboError::Corrupt("finish called on a round in play".into()))?;
    let cap = config.table.loss_cap_points;
    let escrow_minor = config.escrow_minor()?;
    let money = settle_money(config.unit, cap, escrow_minor, &outcome);
    let escrow = AccountId::escrow(&row.id);
    let wallet = AccountId::wallet(&config.player_id);
    let refs = refs(&row.id, &row.table_id, &config.player_id);
    let mut specs = Vec::new();
    if money.win_minor > 0 {
        specs.push(
            TransferSpec::new(
                AccountId::house_bankroll(),
                wallet.clone(),
                amount(money.win_minor)?,
                TransferKind::LoboWin,
            )
            .refs(refs.clone())
            .memo(format!("won {} points", outcome.points)),
        );
    }
    if money.loss_minor > 0 {
        specs.push(
            TransferSpec::new(
                escrow.clone(),
                AccountId::house_bankroll(),
                amount(money.loss_minor)?,
                TransferKind::LoboLoss,
            )
            .refs(refs.clone())
            .memo(format!(
                "lost {} points (Wolf's hand {}, cap {cap})",
                outcome.capped_points(Some(cap)),
                outcome.points
            )),
        );
    }
    if money.release_minor > 0 {
        specs.push(
            TransferSpec::new(
                escrow.clone(),
                wallet,
                amount(money.release_minor)?,
                TransferKind::LoboRelease,
            )
            .refs(refs)
            .memo("escrow released"),
        );
    }
    ledger::post(conn, &specs)?;
    let left = accounts::balance_minor(conn, &escrow)?;
    if left != 0 {
        return Err(LoboError::Corrupt(format!(
            "escrow of Lobo round {} would keep {}",
            row.id,
            signed_minor(left)
        )));
    }
    let charge_minor = parse_minor(&config.charge)?;
    let net = money.win_minor - money.loss_minor - charge_minor;
    let stored = LoboResult {
        player_won: outcome.player_won,
        points: outcome.points,
        paid_points: outcome.capped_points(Some(cap)),
        reason: serde_json::to_value(outcome.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        won: format_minor(money.win_minor),
        lost: format_minor(money.loss_minor),
        released: format_minor(money.release_minor),
        player_net: signed_minor(net),
        timed_out: ending == Ending::TimedOut,
    };
    let seed = open_seed(vault, row)?;
    let json = serde_json::to_string(&stored).expect("results serialize");
    record::update(
        conn,
        row,
        RoundUpdate {
            result: Some(&json),
            revealed_server_seed: Some(&seed.to_hex()),
            ..RoundUpdate::status(RoundStatus::Settled)
        },
    )?;
    significant_events::record(
        conn,
        EventKind::SeedRevealed,
        Some(&config.player_id),
        Some(&row.id),
        serde_json::json!({ "game": "lobo", "commitment": row.commitment }),
    )?;
    let row = reload(conn, &row.id)?;
    view(&row, config, state)
}

/// The recall's shuffle transcript (docs/shuffle.md); `None` until the seed is revealed.
pub fn shuffle_transcript(row: &RoundRow, mode: Mode) -> Option<ShuffleTranscript> {
    let seed = ServerSeed::from_hex(row.revealed_server_seed.as_deref()?).ok()?;
    let client_seed = row.client_seed.clone().unwrap_or_default();
    let client_seeds: Vec<ClientSeed> = ClientSeed::parse(&client_seed).ok().into_iter().collect();
    let (deck, _) = shuffle::shuffled_deck(&seed, Game::Lobo, &row.id, &client_seed, mode.max_rank());
    Some(ShuffleTranscript::record(
        &seed,
        Game::Lobo,
        &row.id,
        &client_seeds,
        &deck,
        Vec::new(),
    ))
}

/// The round's version-2 transcript (docs/transcript.md), as `viewer` may see it.
pub fn transcript(
    conn: &mut AnyConnection,
    row: &RoundRow,
    viewer: &crate::transcript::Viewer,
) -> Result<crate::transcript::RoundTranscript<'static>, LoboError> {
    use crate::transcript::{Pseudonyms, RoundTranscript, SeatEntry, FORMAT, VERSION};
    if !row.status().is_over() {
        return Err(LoboError::NotSettled);
    }
    let config = round_config(row)?;
    let shuffle = shuffle_transcript(row, config.mode())
        .ok_or_else(|| LoboError::Corrupt("a settled round without a revealed seed".into()))?;
    let outcome = match result(row)? {
        Some(r) => {
            let reason = serde_json::from_value(serde_json::Value::String(r.reason.clone()))
                .map_err(|e| LoboError::Corrupt(format!("stored reason: {e}")))?;
            let outcome = Outcome {
                player_won: r.player_won,
                points: r.points,
                reason,
            };
            Some(crate::transcript::raw(&crate::transcript::LoboOutcome::new(
                &outcome,
                config.table.loss_cap_points,
                config.wolf_opening_points,
            )))
        }
        None => None,
    };
    let mut names = Pseudonyms::default();
    let player = names.of(&config.player_id);
    let transfers = super::prima_carta::round_transfers(conn, &row.id)?;
    let transfers = crate::transcript::transfer_entries(&transfers, &mut names, &row.id, &row.table_id);
    Ok(RoundTranscript {
        transcript: FORMAT.to_owned().into(),
        version: VERSION,
        game: "lobo".to_owned().into(),
        round_id: row.id.clone().into(),
        table_id: row.table_id.clone().into(),
        number: row.number,
        status: row.status.clone().into(),
        shuffle,
        rules: crate::transcript::raw(&serde_json::json!({
            "mode": config.table.mode,
            "unit": config.unit,
            "loss_cap_points": config.table.loss_cap_points,
            "house_rule": config.table.house_rule,
            "hints": config.table.hints,
        })),
        pay_tables: Vec::new(),
        players: names.parties(viewer),
        seats: vec![SeatEntry {
            suit: None,
            player: player.into(),
        }],
        decisions: Vec::new(),
        plays: plays(row)?,
        bets: Vec::new(),
        confidence_bets: Vec::new(),
        fuerza_bets: Vec::new(),
        carried_cobre_in: None,
        outcome,
        events: None,
        deal_out_events: None,
        transfers,
        ledger_proof: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::lobo::EndReason;

    fn amt(text: &str) -> Amount {
        Amount::parse(text).unwrap()
    }

    #[test]
    fn escrow_and_charge_arithmetic() {
        let rule = HouseRule {
            fee_per_round_hundredths: 904,
            ante_per_wolf_point_hundredths: 0,
        };
        assert_eq!(
            start_money(amt("1.00"), 40, &rule, 17),
            StartMoney {
                escrow_minor: 4000,
                charge_minor: 904
            }
        );
        assert_eq!(
            start_money(amt("2.50"), 20, &rule, 17),
            StartMoney {
                escrow_minor: 5000,
                charge_minor: 2260
            }
        );
        // 1.01 × 9.04 = 9.1304: rounded up to the cent.
        assert_eq!(start_money(amt("1.01"), 20, &rule, 17).charge_minor, 914);
        // An ante per Wolf point: 3.00 × (0.50 + 0.10 × 23) = 8.40.
        let ante = HouseRule {
            fee_per_round_hundredths: 50,
            ante_per_wolf_point_hundredths: 10,
        };
        assert_eq!(
            start_money(amt("3.00"), 30, &ante, 23),
            StartMoney {
                escrow_minor: 9000,
                charge_minor: 840
            }
        );
        assert_eq!(start_money(amt("3.00"), 30, &HouseRule::NONE, 23).charge_minor, 0);
    }

    #[test]
    fn settlement_empties_the_escrow() {
        let unit = amt("2.50");
        let escrow = unit.minor() * 20;
        let won = Outcome {
            player_won: true,
            points: 13,
            reason: EndReason::WolfEmptied,
        };
        assert_eq!(
            settle_money(unit, 20, escrow, &won),
            SettleMoney {
                win_minor: 3250,
                loss_minor: 0,
                release_minor: 5000
            }
        );
        let lost = Outcome {
            player_won: false,
            points: 17,
            reason: EndReason::Folded,
        };
        assert_eq!(
            settle_money(unit, 20, escrow, &lost),
            SettleMoney {
                win_minor: 0,
                loss_minor: 4250,
                release_minor: 750
            }
        );
        // Above the cap the player pays the cap and gets nothing back.
        let capped = Outcome {
            player_won: false,
            points: 31,
            reason: EndReason::NoLegalPlay,
        };
        assert_eq!(
            settle_money(unit, 20, escrow, &capped),
            SettleMoney {
                win_minor: 0,
                loss_minor: 5000,
                release_minor: 0
            }
        );
        for o in [won, lost, capped] {
            let m = settle_money(unit, 20, escrow, &o);
            assert_eq!(escrow - m.loss_minor - m.release_minor, 0, "escrow ends at 0.00");
        }
    }

    #[test]
    fn default_demo_table_is_openable_and_a_small_cap_is_not() {
        let TableConfig::Lobo(mut c) = TableConfig::demo_lobo() else {
            panic!("demo_lobo is Lobo")
        };
        assert!(check_openable(&c).unwrap().is_some());
        assert!(c.loss_cap_points >= engine::MIN_PROVEN_LOSS_CAP_POINTS);
        c.loss_cap_points = engine::MIN_PROVEN_LOSS_CAP_POINTS - 1;
        assert!(matches!(check_openable(&c), Err(LoboError::RuleNotProven(_))));
        c.house_rule_override = true;
        assert_eq!(check_openable(&c).unwrap(), None);
        c.loss_cap_points = 40;
        c.house_rule_override = false;
        c.house_rule = HouseRule::NONE;
        assert!(check_openable(&c).is_err());
    }

    #[test]
    fn house_rule_defaults_by_mode_when_omitted() {
        let json = serde_json::json!({ "game": "lobo", "mode": "hard", "min_unit": "1.00", "max_unit": "5.00",
            "loss_cap_points": 25, "hints": false });
        let TableConfig::Lobo(c) = serde_json::from_value::<TableConfig>(json).unwrap() else {
            panic!()
        };
        assert_eq!(c.house_rule, engine::default_house_rule(Mode::Hard));
        let bad = serde_json::json!({ "game": "lobo", "mode": "hard", "min_unit": "1.00", "max_unit": "5.00",
            "loss_cap_points": 25, "hints": false, "surprise": 1 });
        assert!(serde_json::from_value::<TableConfig>(bad).is_err());
    }
}

/// Refuses a stake the player's exclusions or limits do not allow.
fn admit_play(conn: &mut AnyConnection, player_id: &str, stake_minor: i64) -> Result<(), LoboError> {
    use crate::protection::{admit, AdmitError, Play};
    admit(conn, player_id, Play::Stake(stake_minor), crate::store::now_us()).map_err(|e| match e {
        AdmitError::Refused(r) => LoboError::Protection(r),
        AdmitError::Db(d) => d.into(),
    })
}
