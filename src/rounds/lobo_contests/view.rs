//! What a contest shows its entrants, its watchers and the table: standings, each entrant's
//! rounds as far as they have played, and never an undealt card.

use super::*;

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

pub(super) fn reason_name(reason: crate::games::lobo::EndReason) -> String {
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

pub(super) fn entry_view(deck: Option<&[Card]>, mode: Mode, entry: &EntryRow) -> Result<EntryView, ContestError> {
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
