//! What changes a contest: created, entered, played, closed, settled with its pot split and
//! rake, voided; and the sweep that ends entry windows and play times that ran out.

use super::*;

pub(super) fn refs(contest: &ContestRow, player_id: &str) -> Refs {
    Refs {
        user_id: Some(player_id.to_string()),
        table_id: Some(contest.table_id.clone()),
        round_id: Some(contest.id.clone()),
        bet_id: None,
    }
}

pub(super) fn amount(minor: i64) -> Result<Amount, ContestError> {
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
    ledger::refuse_if_closed(conn, now)?;
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
    crate::protection::admit(conn, player_id, crate::protection::Play::Stake(fee.minor()), now_us()).map_err(|e| {
        match e {
            crate::protection::AdmitError::Refused(r) => ContestError::Protection(r),
            crate::protection::AdmitError::Db(d) => d.into(),
        }
    })?;
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
pub(super) fn close_entry(
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

pub(super) fn store_plays(
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
    let play = crate::rounds::lobo::to_engine_play(play).map_err(|err| ContestError::IllegalPlay(err.to_string()))?;
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
pub(super) fn settle_locked(
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

pub(super) fn contest_result(split: &PotSplit, standings: &[(EntryRow, bool)], totals: &[i64]) -> ContestResult {
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

pub(super) fn assert_pot_empty(conn: &mut AnyConnection, row: &ContestRow) -> Result<(), ContestError> {
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
pub(super) fn finish(
    conn: &mut AnyConnection,
    row: &ContestRow,
    status: ContestStatus,
    result: Option<&ContestResult>,
    seed: &ServerSeed,
) -> Result<(), ContestError> {
    let now = now_us();
    ledger::refuse_if_closed(conn, now)?;
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
        c::updated_at_us.eq(now),
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

pub(super) fn void_locked(
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
