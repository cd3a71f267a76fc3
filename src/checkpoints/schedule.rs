//! The service's own checkpoints: one thread per instance that takes a
//! checkpoint every interval, unless nothing changed since the last one.

use std::time::Duration;

use super::{take_if_changed, CheckpointKey};
use crate::periodic::Periodic;
use crate::store::Database;

/// Keeps the schedule running; dropping it stops the thread (after the
/// checkpoint in progress, if any).
pub struct CheckpointSchedule {
    _thread: Periodic,
}

impl CheckpointSchedule {
    /// Starts the thread, or nothing when `interval` is zero.
    pub fn start(db: Database, key: CheckpointKey, interval: Duration) -> Option<CheckpointSchedule> {
        Periodic::start("djego-checkpoints", interval, move || {
            match db.write(|conn| take_if_changed(conn, &key)) {
                Ok(Some(c)) => tracing::info!(
                    checkpoint = c.seq,
                    ledger_seq = c.ledger_seq,
                    events_seq = c.events_seq,
                    "checkpoint taken"
                ),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "checkpoint not taken"),
            }
        })
        .map(|thread| CheckpointSchedule { _thread: thread })
    }
}
