//! The service's own checkpoints: one thread per instance that takes a
//! checkpoint every interval, unless nothing changed since the last one.

use std::sync::mpsc;
use std::time::Duration;

use super::{take_if_changed, CheckpointKey};
use crate::store::Database;

/// Keeps the schedule running; dropping it stops the thread (after the
/// checkpoint in progress, if any).
pub struct CheckpointSchedule {
    _stop: mpsc::Sender<()>,
}

impl CheckpointSchedule {
    /// Starts the thread, or nothing when `interval` is zero.
    pub fn start(db: Database, key: CheckpointKey, interval: Duration) -> Option<CheckpointSchedule> {
        if interval.is_zero() {
            return None;
        }
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("djego-checkpoints".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
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
                }
            })
            .expect("spawning the checkpoint thread");
        Some(CheckpointSchedule { _stop: stop })
    }
}
