//! Lobo rounds never wait forever for their player (docs/lobo.md, "Rounds that end without
//! their player"). Each instance runs one sweep thread: every interval it looks for rounds in
//! play whose player has been silent past the table's play timeout, and folds for each, as
//! the rules settle a player who stops. Each fold is its own transaction under the round's
//! lock and re-checks the deadline there, so instances sweeping together, or a play arriving
//! as the sweep runs, fold a round once or not at all.
//!
//! The same pass moves three-round contests on (docs/lobo.md §9): it closes the entry of a
//! contest whose entry window has run out and settles one whose play time has, each under the
//! contest's lock and re-checked there.
//!
//! Every change a pass makes is handed back as its table's watchers see it, after its commit,
//! so that the service sends it live as it sends a request's.

use std::time::Duration;

use super::lobo::{self, LoboError, LoboView};
use super::lobo_contests::{self, ContestError, ContestView};
use super::SeedVault;
use crate::periodic::Periodic;
use crate::store::{now_us, Database};

/// Rounds one pass folds at most; the rest wait for the next pass.
pub const MAX_ROUNDS_PER_SWEEP: i64 = 200;

/// Keeps the sweep running; dropping it stops the thread (after the pass in progress).
pub struct TimeoutSweep {
    _thread: Periodic,
}

/// What one pass changed, each after its commit, as the tables' watchers see it.
#[derive(Default)]
pub struct Swept {
    /// The rounds folded for their silent player (each as its player sees it: no face-down card).
    pub rounds: Vec<LoboView>,
    /// The contests moved on (each as a watcher sees it: no entrant's cards, deck or id).
    pub contests: Vec<ContestView>,
}

impl TimeoutSweep {
    /// Starts the thread, or nothing when `interval` is zero. `on_change` is told, after each
    /// pass, of every round it folded and every contest it moved on.
    pub fn start(
        db: Database,
        vault: SeedVault,
        interval: Duration,
        on_change: impl Fn(&Swept) + Send + 'static,
    ) -> Option<TimeoutSweep> {
        Periodic::start("djego-lobo-timeouts", interval, move || {
            on_change(&sweep(&db, &vault, now_us()));
        })
        .map(|thread| TimeoutSweep { _thread: thread })
    }
}

/// One pass at `now_us`: moves on every contest past its entry window or play time and folds
/// every round past its deadline (at most [`MAX_ROUNDS_PER_SWEEP`] of each), and returns them
/// as they now stand. One that fails is logged and tried again at the next pass.
pub fn sweep(db: &Database, vault: &SeedVault, now_us: i64) -> Swept {
    let contests = advance_contests(db, vault, now_us);
    Swept {
        rounds: fold_silent_rounds(db, vault, now_us),
        contests,
    }
}

/// Folds every round past its deadline (at most [`MAX_ROUNDS_PER_SWEEP`]); returns them as
/// their players now see them.
fn fold_silent_rounds(db: &Database, vault: &SeedVault, now_us: i64) -> Vec<LoboView> {
    let candidates = match db
        .conn()
        .map_err(LoboError::from)
        .and_then(|mut conn| Ok(lobo::maybe_overdue(&mut conn, now_us, MAX_ROUNDS_PER_SWEEP)?))
    {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!(error = %e, "Lobo timeout sweep could not read the rounds in play");
            return Vec::new();
        }
    };
    let mut ended = Vec::new();
    for id in candidates {
        match db.write(|conn| lobo::time_out(conn, vault, &id, now_us)) {
            Ok(Some(view)) => {
                tracing::info!(round = %id, table = %view.table_id, "Lobo round timed out: folded for its player");
                ended.push(view);
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(round = %id, error = %e, "Lobo round past its timeout not folded"),
        }
    }
    ended
}

/// Closes the entry of every contest whose window has run out and settles every contest whose
/// play time has (at most [`MAX_ROUNDS_PER_SWEEP`] a pass); returns them as a table's watchers
/// now see them. A contest that fails is logged and tried again at the next pass.
pub fn advance_contests(db: &Database, vault: &SeedVault, now_us: i64) -> Vec<ContestView> {
    let due = match db
        .conn()
        .map_err(ContestError::from)
        .and_then(|mut conn| Ok(lobo_contests::overdue(&mut conn, now_us, MAX_ROUNDS_PER_SWEEP)?))
    {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!(error = %e, "Lobo contest sweep could not read the contests");
            return Vec::new();
        }
    };
    let mut moved = Vec::new();
    for id in due {
        match db.write(|conn| lobo_contests::advance(conn, vault, &id, now_us)) {
            Ok(Some(view)) => {
                tracing::info!(contest = %id, status = view.status.as_str(), "Lobo contest moved on by its clock");
                moved.push(view);
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(contest = %id, error = %e, "Lobo contest past its time not moved on"),
        }
    }
    moved
}
