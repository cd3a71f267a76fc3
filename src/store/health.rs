//! Which pooled connections still lead to the server they should: after a
//! failover, connections to the old primary are dead (it was killed) or lead
//! to a read-only standby (it was demoted), and the pool must not hand them
//! out again.
//!
//! Testing every connection at every check-out would cost a round trip per
//! request, so the pool tests only while a failure is *suspected*: for
//! [`SUSPECT_FOR_MS`] after any query met a lost connection or a read-only
//! server ([`note_error`]). While suspected, a check-out asks its server
//! whether it takes writes; a connection that fails to answer is dropped and
//! the pool takes (or makes) another. A connection that answers from a
//! read-only server still serves reads; a write that fails on it drops it
//! ([`Database::write`](super::Database::write)), and readiness says 503. New
//! connections go where the URL says: with several hosts and
//! `target_session_attrs=read-write`, to the new primary.

use std::sync::atomic::{AtomicU64, Ordering};

use diesel::prelude::*;
use diesel::r2d2::{ManageConnection, R2D2Connection};

use super::AnyConnection;

/// How long after a connection failure check-outs test their connection.
pub const SUSPECT_FOR_MS: u64 = 30_000;

/// Until when (milliseconds on the process's monotonic clock, so a changed
/// wall clock neither ends nor stretches it) check-outs test their
/// connection. One per process: a failure seen by any pool makes every pool
/// look, which costs only a round trip per check-out for a while.
static SUSPECT_UNTIL_MS: AtomicU64 = AtomicU64::new(0);

fn now_ms() -> u64 {
    static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    // From 1, so that the initial 0 is never "suspected".
    1 + STARTED.get_or_init(std::time::Instant::now).elapsed().as_millis() as u64
}

/// Whether `e` says the connection or its server is not what it was: lost,
/// or now read-only.
pub fn is_server_failure(e: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind as K, Error};
    matches!(
        e,
        Error::DatabaseError(K::ClosedConnection | K::UnableToSendCommand | K::ReadOnlyTransaction, _)
    )
}

/// Records a query's error: a server failure makes the pools test their
/// connections for a while. Called where database errors become answers.
pub fn note_error(e: &diesel::result::Error) {
    if is_server_failure(e) {
        note_failure();
    }
}

/// A connection failed (or readiness found the server gone or read-only).
pub fn note_failure() {
    SUSPECT_UNTIL_MS.fetch_max(now_ms() + SUSPECT_FOR_MS, Ordering::Relaxed);
}

fn suspected() -> bool {
    now_ms() < SUSPECT_UNTIL_MS.load(Ordering::Relaxed)
}

/// What a pool's connections must lead to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerRole {
    /// The server that takes writes: readiness fails on a read-only one.
    Primary,
    /// A read replica: any server that answers (a standby by design), in
    /// read-only sessions.
    Replica,
}

/// Whether the server behind `conn` takes no writes in this session: a
/// standby, a primary being demoted, or a database made read-only. The same
/// question libpq asks for `target_session_attrs=read-write`. SQLite's
/// connections always take writes.
pub fn read_only(conn: &mut AnyConnection) -> QueryResult<bool> {
    #[derive(QueryableByName)]
    struct ReadOnly {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        read_only: bool,
    }
    match conn {
        AnyConnection::Postgresql(c) => Ok(diesel::sql_query(
            "SELECT current_setting('transaction_read_only')::boolean AS read_only",
        )
        .get_result::<ReadOnly>(c)?
        .read_only),
        AnyConnection::Sqlite(_) => Ok(false),
    }
}

/// Marks `conn` broken, so that the pool drops it when it comes back rather
/// than hand it out again.
pub fn poison(conn: &mut AnyConnection) {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    match conn {
        AnyConnection::Postgresql(c) => AnsiTransactionManager::transaction_manager_status_mut(c).set_in_error(),
        AnyConnection::Sqlite(c) => AnsiTransactionManager::transaction_manager_status_mut(c).set_in_error(),
    }
}

/// After a write on `conn` failed while a failure is suspected: a connection
/// that is lost, or leads to a read-only server, is dropped (see the module
/// docs). Outside suspicion nothing is asked.
pub fn check_after_failed_write(conn: &mut AnyConnection, role: ServerRole) {
    if !suspected() || matches!(conn, AnyConnection::Sqlite(_)) {
        return;
    }
    match read_only(conn) {
        Ok(false) => {}
        Ok(true) if role == ServerRole::Replica => {}
        Ok(true) | Err(_) => poison(conn),
    }
}

/// The pool's connection manager: connects to the backend the URL names and
/// tests connections at check-out while a failure is suspected (see the
/// module docs).
#[derive(Debug)]
pub struct Manager {
    url: String,
}

impl Manager {
    pub fn new(url: String) -> Manager {
        Manager { url }
    }
}

impl ManageConnection for Manager {
    type Connection = AnyConnection;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<AnyConnection, diesel::r2d2::Error> {
        AnyConnection::connect(&self.url).map_err(diesel::r2d2::Error::ConnectionError)
    }

    fn is_valid(&self, conn: &mut AnyConnection) -> Result<(), diesel::r2d2::Error> {
        if !suspected() {
            return Ok(());
        }
        // Only whether it answers: a read-only server still serves reads.
        read_only(conn).map(|_| ()).map_err(diesel::r2d2::Error::QueryError)
    }

    /// As diesel's own manager: a transaction left broken, or a panic.
    fn has_broken(&self, conn: &mut AnyConnection) -> bool {
        std::thread::panicking() || conn.is_broken()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lost_connection_or_a_read_only_server_raises_suspicion() {
        use diesel::result::{DatabaseErrorKind as K, Error};
        let failure = |kind| Error::DatabaseError(kind, Box::new("x".to_string()));
        assert!(is_server_failure(&failure(K::ClosedConnection)));
        assert!(is_server_failure(&failure(K::UnableToSendCommand)));
        assert!(is_server_failure(&failure(K::ReadOnlyTransaction)));
        assert!(!is_server_failure(&failure(K::UniqueViolation)));
        assert!(!is_server_failure(&failure(K::SerializationFailure)));
        assert!(!is_server_failure(&Error::NotFound));
    }
}
