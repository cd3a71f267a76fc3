//! SQLite's WAL checkpoints, kept off the wager committer's path.
//!
//! By default SQLite copies the WAL back into the database file from inside
//! whichever commit pushes the WAL past 1,000 pages, so the committer stalls
//! for that copy and its fsync while every queued wager waits. The committer's
//! connection turns that off, and this thread checkpoints instead, a few times
//! a second, in the `PASSIVE` mode that never blocks a writer. A checkpoint
//! that cannot keep up (the WAL past [`WAL_RESTART_FRAMES`] pages) is finished
//! in the `RESTART` mode with the writers held back, which bounds the WAL's
//! size.

use diesel::prelude::*;
use diesel::sql_types::Integer;
use std::sync::Weak;
use std::time::Duration;

use super::{AnyConnection, Backend, Database, StoreError};

/// Turns SQLite's checkpoints from inside a commit off, on a connection whose
/// checkpoints the checkpointer does.
pub const SQLITE_NO_AUTOCHECKPOINT: &str = "PRAGMA wal_autocheckpoint = 0;";

/// Time between two checkpoints.
pub const CHECKPOINT_INTERVAL_MS: u64 = 200;
/// Pages in the WAL beyond which the writers wait for a whole checkpoint
/// (about 40 MB at SQLite's 4 KB pages).
pub const WAL_RESTART_FRAMES: i32 = 10_000;

/// What `PRAGMA wal_checkpoint` reports.
#[derive(QueryableByName, Debug)]
struct CheckpointResult {
    /// 1 when the checkpoint could not finish (a reader or writer was in the way).
    #[diesel(sql_type = Integer)]
    busy: i32,
    /// Pages in the WAL.
    #[diesel(sql_type = Integer)]
    log: i32,
    /// Pages copied back to the database file.
    #[diesel(sql_type = Integer)]
    checkpointed: i32,
}

impl Database {
    /// Starts the checkpointer for a writer that will turn SQLite's automatic
    /// checkpoints off on its connection ([`SQLITE_NO_AUTOCHECKPOINT`]); it
    /// stops once `writer_alive` can no longer be upgraded. Whether one
    /// started: never on PostgreSQL.
    pub fn spawn_wal_checkpointer(&self, writer_alive: Weak<()>) -> Result<bool, StoreError> {
        if self.backend() != Backend::Sqlite {
            return Ok(false);
        }
        let mut conn = self.dedicated_connection()?;
        let db = self.clone();
        std::thread::Builder::new()
            .name("djego-wal-checkpointer".into())
            .spawn(move || {
                while writer_alive.upgrade().is_some() {
                    std::thread::sleep(Duration::from_millis(CHECKPOINT_INTERVAL_MS));
                    if let Err(e) = db.checkpoint(&mut conn, WAL_RESTART_FRAMES) {
                        tracing::warn!(error = %e, "a WAL checkpoint failed; the next one tries again");
                    }
                }
            })
            .map_err(|e| StoreError::Unavailable(format!("spawning the WAL checkpointer: {e}")))?;
        Ok(true)
    }

    /// One checkpoint: passive, then whole with the writers held back when the
    /// WAL holds more than `restart_frames` pages. Returns the pages the WAL
    /// held and whether the writers were held back.
    fn checkpoint(&self, conn: &mut AnyConnection, restart_frames: i32) -> QueryResult<(i32, bool)> {
        let passive: CheckpointResult = diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)").get_result(conn)?;
        if passive.log <= restart_frames {
            return Ok((passive.log, false));
        }
        // Hold this process's writers back until the log is copied and restarts.
        let waited = std::time::Instant::now();
        let writers = self.writer_turn();
        let held = std::time::Instant::now();
        let restart: CheckpointResult = diesel::sql_query("PRAGMA wal_checkpoint(RESTART)").get_result(conn)?;
        drop(writers);
        tracing::info!(
            log_before = passive.log,
            backlog = passive.log - passive.checkpointed,
            busy = restart.busy,
            checkpointed = restart.checkpointed,
            // How long the checkpointer waited for the writers' turn, and then held it.
            turn_wait_ms = held.duration_since(waited).as_millis() as u64,
            writers_held_ms = held.elapsed().as_millis() as u64,
            "the WAL outgrew its bound; writers waited for a whole checkpoint"
        );
        Ok((passive.log, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::connection::SimpleConnection;
    use std::sync::Arc;

    fn sqlite(dir: &tempfile::TempDir) -> Database {
        let url = format!("sqlite://{}", dir.path().join("wal.db").display());
        Database::connect(&url, 2).expect("connect")
    }

    /// A writer that checkpoints nothing itself, as the committer's connection.
    fn writer(db: &Database) -> AnyConnection {
        let mut conn = db.dedicated_connection().expect("dedicated");
        let AnyConnection::Sqlite(c) = &mut conn else {
            panic!("SQLite")
        };
        c.batch_execute(SQLITE_NO_AUTOCHECKPOINT).expect("pragma");
        c.batch_execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
            .expect("table");
        conn
    }

    /// Writes about `pages` pages of rows, four to a transaction.
    fn fill(conn: &mut AnyConnection, pages: usize) {
        let AnyConnection::Sqlite(c) = conn else {
            panic!("SQLite")
        };
        for _ in 0..pages / 4 {
            c.batch_execute(&format!(
                "BEGIN; INSERT INTO filler (text) VALUES ('{0}'), ('{0}'), ('{0}'), ('{0}'); COMMIT;",
                "x".repeat(3000)
            ))
            .expect("insert");
        }
    }

    /// The database file grows only as checkpoints copy pages into it.
    fn file_pages(dir: &tempfile::TempDir) -> u64 {
        std::fs::metadata(dir.path().join("wal.db"))
            .expect("database file")
            .len()
            / 4096
    }

    #[test]
    fn the_checkpointer_copies_the_wal_back_while_its_writer_lives() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let db = sqlite(&dir);
        let mut conn = writer(&db);
        fill(&mut conn, 400);
        std::thread::sleep(Duration::from_millis(CHECKPOINT_INTERVAL_MS * 2));
        let unchecked = file_pages(&dir);
        assert!(unchecked < 100, "nothing copies the WAL back yet: {unchecked} pages");

        let alive = Arc::new(());
        assert!(db.spawn_wal_checkpointer(Arc::downgrade(&alive)).expect("spawn"));
        std::thread::sleep(Duration::from_millis(CHECKPOINT_INTERVAL_MS * 4));
        let checked = file_pages(&dir);
        assert!(checked >= 400, "the checkpointer copied the WAL back: {checked} pages");

        // Its writer gone, it stops.
        drop(alive);
        std::thread::sleep(Duration::from_millis(CHECKPOINT_INTERVAL_MS * 3));
        fill(&mut conn, 200);
        std::thread::sleep(Duration::from_millis(CHECKPOINT_INTERVAL_MS * 4));
        assert!(file_pages(&dir) < checked + 100, "no checkpoint after the writer went");
    }

    #[test]
    fn a_wal_past_its_bound_is_checkpointed_whole_and_restarted() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let db = sqlite(&dir);
        let mut conn = writer(&db);
        let mut checkpointer = db.dedicated_connection().expect("dedicated");
        fill(&mut conn, 200);
        let (log, restarted) = db.checkpoint(&mut checkpointer, 100).expect("checkpoint");
        assert!(log >= 200 && restarted, "{log} pages");
        // The log started again from its beginning: it holds only what came since.
        fill(&mut conn, 40);
        let (log, restarted) = db.checkpoint(&mut checkpointer, 100).expect("checkpoint");
        assert!((40..100).contains(&log) && !restarted, "{log} pages");
    }
}
