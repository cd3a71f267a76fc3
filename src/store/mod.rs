//! Storage: one code path for SQLite (embedded default) and PostgreSQL.
//!
//! Diesel's `MultiConnection` lets every query be written once. Writes go
//! through [`Database::write`], which makes them serializable on both backends:
//! on PostgreSQL by row locks taken inside the transaction (the ledger head,
//! the round row), on SQLite by one writer at a time per process (an embedded
//! database has one process by design; WAL lets readers proceed meanwhile).

pub mod clock;
pub mod health;
pub mod pg_with;
pub mod schema;
mod wal_checkpointer;

pub use wal_checkpointer::SQLITE_NO_AUTOCHECKPOINT;

use diesel::migration::{Migration, MigrationSource};
use diesel::prelude::*;
use diesel::r2d2::{CustomizeConnection, Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use health::{Manager, ServerRole};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Migrations for both databases: everything that portable SQL can say.
const SHARED_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");
/// What only one database can say (triggers): each directory holds one
/// database's half, under versions of its own that sort among the shared ones.
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations-postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations-sqlite");

/// One backend's migrations: the shared set and that backend's own, applied
/// together in version order (diesel sorts pending migrations by version).
struct BackendMigrations(&'static [EmbeddedMigrations]);

impl BackendMigrations {
    fn of(backend: Backend) -> BackendMigrations {
        match backend {
            Backend::Postgres => BackendMigrations(&[SHARED_MIGRATIONS, POSTGRES_MIGRATIONS]),
            Backend::Sqlite => BackendMigrations(&[SHARED_MIGRATIONS, SQLITE_MIGRATIONS]),
        }
    }
}

impl<DB: diesel::backend::Backend> MigrationSource<DB> for BackendMigrations {
    fn migrations(&self) -> diesel::migration::Result<Vec<Box<dyn Migration<DB>>>> {
        let mut all = Vec::new();
        for set in self.0 {
            all.extend(MigrationSource::<DB>::migrations(set)?);
        }
        Ok(all)
    }
}

/// The versions of every migration `backend` runs, in order.
pub fn migration_versions(backend: Backend) -> Vec<String> {
    // Any backend type reads the same names.
    let mut versions: Vec<String> =
        MigrationSource::<diesel::sqlite::Sqlite>::migrations(&BackendMigrations::of(backend))
            .expect("embedded migrations")
            .iter()
            .map(|m| m.name().version().to_string())
            .collect();
    versions.sort();
    versions
}

#[derive(diesel::MultiConnection)]
pub enum AnyConnection {
    Postgresql(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

impl AnyConnection {
    /// Connects to the backend `url` names. (diesel's own `establish` tries
    /// each backend in turn and, when the server is down, reports only
    /// "Invalid connection url for multiconnection".)
    pub fn connect(url: &str) -> diesel::ConnectionResult<AnyConnection> {
        match Backend::of_url(url) {
            Backend::Postgres => diesel::PgConnection::establish(url).map(AnyConnection::Postgresql),
            Backend::Sqlite => diesel::SqliteConnection::establish(url).map(AnyConnection::Sqlite),
        }
    }

    pub fn backend(&self) -> Backend {
        match self {
            AnyConnection::Postgresql(_) => Backend::Postgres,
            AnyConnection::Sqlite(_) => Backend::Sqlite,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn of_url(url: &str) -> Backend {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("database error: {0}")]
    Query(#[from] diesel::result::Error),
    #[error("migration failed: {0}")]
    Migration(String),
    /// The pool's server takes no writes: a standby, or a primary being demoted.
    #[error("the database is read-only: {0}")]
    ReadOnly(String),
}

pub type PooledConn = PooledConnection<Manager>;

/// SQLite's per-connection settings: WAL so readers never wait for the writer;
/// `synchronous = FULL` so that a commit is on disk before it is acknowledged
/// (with WAL, NORMAL may lose the last commits on power loss; group commit
/// makes the fsync per batch, not per request); a busy timeout rather than
/// instant `SQLITE_BUSY`; enforced foreign keys; recursive triggers, so that
/// `INSERT OR REPLACE` (which deletes the row it replaces) meets the
/// insert-only tables' delete triggers; statement journals in memory rather
/// than in temporary files (a multi-row write keeps one to undo itself).
pub const SQLITE_PRAGMAS: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
     PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; PRAGMA recursive_triggers = ON; \
     PRAGMA temp_store = MEMORY;";

/// What SQLite's busiest writer, the wager committer, adds to
/// [`SQLITE_PRAGMAS`] on its own connection: a 64 MiB page cache, so that a
/// batch across many rounds finds the pages it updates in memory.
pub const SQLITE_COMMITTER_PRAGMAS: &str = "PRAGMA cache_size = -65536;";

/// What every new pooled connection is set up with: SQLite's pragmas; on a
/// replica's pool, read-only sessions, so that nothing can write through it
/// even by mistake.
#[derive(Debug)]
struct SessionSetup {
    read_only: bool,
}

impl CustomizeConnection<AnyConnection, diesel::r2d2::Error> for SessionSetup {
    fn on_acquire(&self, conn: &mut AnyConnection) -> Result<(), diesel::r2d2::Error> {
        apply_sqlite_pragmas(conn).map_err(diesel::r2d2::Error::QueryError)?;
        if let (AnyConnection::Postgresql(c), true) = (conn, self.read_only) {
            use diesel::connection::SimpleConnection;
            c.batch_execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

fn apply_sqlite_pragmas(conn: &mut AnyConnection) -> QueryResult<()> {
    if let AnyConnection::Sqlite(c) = conn {
        use diesel::connection::SimpleConnection;
        c.batch_execute(SQLITE_PRAGMAS)?;
    }
    Ok(())
}

/// SQLite's writer turn while held. Every wager waits while another writer holds it, so a turn
/// held longer than [`LONG_WRITER_TURN`] is logged with the code that took it.
struct WriterTurn<'a> {
    _turn: std::sync::MutexGuard<'a, ()>,
    taken: std::time::Instant,
    by: &'static std::panic::Location<'static>,
}

/// A writer's turn this long shows in the wager path's latency.
const LONG_WRITER_TURN: Duration = Duration::from_millis(25);

impl Drop for WriterTurn<'_> {
    fn drop(&mut self) {
        let held = self.taken.elapsed();
        if held >= LONG_WRITER_TURN {
            tracing::info!(held_ms = held.as_millis() as u64, by = %self.by, "a write held SQLite's writer turn long");
        }
    }
}

#[derive(Clone)]
pub struct Database {
    pool: Pool<Manager>,
    backend: Backend,
    /// What the pool's connections must lead to: the primary, or (a read
    /// replica's pool) any server.
    role: ServerRole,
    /// The URL as the driver takes it, for connections outside the pool.
    driver_url: Arc<String>,
    /// Held for the whole of a SQLite write transaction (see module docs).
    sqlite_writer: Arc<Mutex<()>>,
}

/// libpq connection parameters that bound how long a PostgreSQL connection
/// can stay silent (docs/operations.md, "When the database goes silent"),
/// added to the URL unless it sets them itself:
/// - `connect_timeout`: a connection that is not made in this long fails;
/// - `keepalives`, `keepalives_idle`, `keepalives_interval`, `keepalives_count`:
///   an idle connection whose peer has gone is found dead in about 11 s;
/// - `tcp_user_timeout`: data sent and not acknowledged for `timeout_ms` ends the connection;
/// - `options`: the server cancels a statement after `statement_timeout` and
///   ends a session idle inside a transaction after
///   `idle_in_transaction_session_timeout`, both `timeout_ms`, so that no
///   lock outlives a stuck instance for long.
pub fn with_pg_timeouts(url: &str, timeout_ms: u64) -> String {
    let connect_timeout_s = timeout_ms.div_ceil(1000).clamp(2, 5);
    let params = [
        ("connect_timeout", connect_timeout_s.to_string()),
        ("keepalives", "1".to_string()),
        ("keepalives_idle", "5".to_string()),
        ("keepalives_interval", "2".to_string()),
        ("keepalives_count", "3".to_string()),
        ("tcp_user_timeout", timeout_ms.to_string()),
        (
            "options",
            format!("-c%20statement_timeout%3D{timeout_ms}%20-c%20idle_in_transaction_session_timeout%3D{timeout_ms}"),
        ),
    ];
    let given: Vec<&str> = url
        .split_once('?')
        .map(|(_, q)| q.split('&').filter_map(|kv| kv.split('=').next()).collect())
        .unwrap_or_default();
    let mut out = url.to_string();
    for (key, value) in params {
        if given.contains(&key) {
            continue;
        }
        out.push(if out.contains('?') { '&' } else { '?' });
        out.push_str(&format!("{key}={value}"));
    }
    out
}

impl Database {
    pub fn connect(url: &str, max_connections: u32) -> Result<Database, StoreError> {
        Database::connect_with(url, max_connections, None)
    }

    /// As [`Database::connect`]; with `timeout_ms`, PostgreSQL connections
    /// carry [`with_pg_timeouts`] (the service's pool; the commands run
    /// without them, so a long verification or report is never cut short).
    pub fn connect_with(url: &str, max_connections: u32, timeout_ms: Option<u64>) -> Result<Database, StoreError> {
        Database::connect_as(url, max_connections, timeout_ms, ServerRole::Primary)
    }

    /// A pool for reads only, on a server that may be a standby (a read
    /// replica): `--read-database-url`. Nothing writes through it.
    pub fn connect_replica(url: &str, max_connections: u32, timeout_ms: Option<u64>) -> Result<Database, StoreError> {
        Database::connect_as(url, max_connections, timeout_ms, ServerRole::Replica)
    }

    fn connect_as(
        url: &str,
        max_connections: u32,
        timeout_ms: Option<u64>,
        role: ServerRole,
    ) -> Result<Database, StoreError> {
        let backend = Backend::of_url(url);
        if backend == Backend::Sqlite {
            let path = url.strip_prefix("sqlite://").unwrap_or(url);
            if let Some(dir) = std::path::Path::new(path).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| StoreError::Unavailable(format!("cannot create {}: {e}", dir.display())))?;
                }
            }
        }
        let url = match (backend, timeout_ms) {
            (Backend::Postgres, Some(ms)) => with_pg_timeouts(url, ms),
            _ => url.strip_prefix("sqlite://").unwrap_or(url).to_string(),
        };
        let manager = Manager::new(url.clone());
        // A check-out tests its connection only while a server failure is
        // suspected (store::health); otherwise a broken transaction is found
        // by r2d2 (`has_broken`) and a lost connection by its query.
        let pool = Pool::builder()
            .max_size(max_connections)
            .min_idle(Some(0))
            .test_on_check_out(true)
            .connection_timeout(Duration::from_secs(5))
            .connection_customizer(Box::new(SessionSetup {
                read_only: role == ServerRole::Replica,
            }))
            .build(manager)
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        Ok(Database {
            pool,
            backend,
            role,
            driver_url: Arc::new(url),
            sqlite_writer: Arc::new(Mutex::new(())),
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn conn(&self) -> Result<PooledConn, StoreError> {
        self.pool.get().map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    /// Applies pending migrations. On PostgreSQL an advisory lock makes
    /// instances that start together run them once, one after the other.
    pub fn migrate(&self) -> Result<usize, StoreError> {
        let _writer = self.writer_turn();
        let mut conn = self.conn()?;
        let applied = match &mut *conn {
            AnyConnection::Postgresql(c) => {
                use diesel::connection::SimpleConnection;
                const MIGRATION_LOCK: i64 = 0x646a65676f; // "djego"
                                                          // Waiting for another instance's migrations, and a migration
                                                          // itself, may take longer than the service's statement timeout.
                c.batch_execute("SET statement_timeout = 0")?;
                c.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
                let result = c
                    .run_pending_migrations(BackendMigrations::of(Backend::Postgres))
                    .map(|v| v.len());
                c.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))?;
                c.batch_execute("RESET statement_timeout")?;
                result
            }
            AnyConnection::Sqlite(c) => c
                .run_pending_migrations(BackendMigrations::of(Backend::Sqlite))
                .map(|v| v.len()),
        };
        applied.map_err(|e| StoreError::Migration(e.to_string()))
    }

    /// Brings the schema up to date. Nothing is written when no migration is
    /// pending, so a role that may not change the schema can start; pending
    /// migrations run through `owner_url` when given (the schema owner's
    /// role), through this database's own URL otherwise.
    pub fn migrate_through(&self, owner_url: Option<&str>) -> Result<usize, StoreError> {
        if self.pending_migrations()? == 0 {
            return Ok(0);
        }
        match owner_url {
            Some(url) => Database::connect(url, 1)?.migrate(),
            None => self.migrate(),
        }
    }

    /// How many migrations this database has not applied yet, read without
    /// writing anything: a role that may not create tables can ask.
    pub fn pending_migrations(&self) -> Result<usize, StoreError> {
        #[derive(QueryableByName)]
        struct Applied {
            #[diesel(sql_type = diesel::sql_types::Text)]
            version: String,
        }
        let mut conn = self.conn()?;
        // A database never migrated has no such table: everything is pending.
        let applied: Vec<Applied> = diesel::sql_query("SELECT version FROM __diesel_schema_migrations")
            .load(&mut *conn)
            .unwrap_or_default();
        let applied: std::collections::HashSet<String> = applied.into_iter().map(|a| a.version).collect();
        Ok(migration_versions(self.backend)
            .into_iter()
            .filter(|v| !applied.contains(v))
            .count())
    }

    /// Runs `f` while holding a PostgreSQL advisory lock shared by every
    /// instance, so start-up work (migrations, the house accounts, the first
    /// pit boss) happens once even when instances start together.
    pub fn with_startup_lock<T, E: From<StoreError>>(&self, f: impl FnOnce(&Database) -> Result<T, E>) -> Result<T, E> {
        const STARTUP_LOCK: i64 = 0x646a65676f01; // "djego" + 1
        let mut holder = match self.backend {
            Backend::Postgres => Some(self.conn()?),
            Backend::Sqlite => None,
        };
        if let Some(conn) = holder.as_deref_mut() {
            // Another instance may hold it for longer than the statement timeout.
            diesel::sql_query("SET statement_timeout = 0")
                .execute(conn)
                .map_err(StoreError::from)?;
            diesel::sql_query(format!("SELECT pg_advisory_lock({STARTUP_LOCK})"))
                .execute(conn)
                .map_err(StoreError::from)?;
        }
        let result = f(self);
        if let Some(conn) = holder.as_deref_mut() {
            let _ = diesel::sql_query(format!("SELECT pg_advisory_unlock({STARTUP_LOCK})")).execute(conn);
            let _ = diesel::sql_query("RESET statement_timeout").execute(conn);
        }
        result
    }

    /// Runs `f` in a write transaction; rolls back when it returns `Err`.
    #[track_caller]
    pub fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut AnyConnection) -> Result<T, E>,
        E: From<StoreError> + From<diesel::result::Error>,
    {
        let _writer = self.writer_turn();
        let mut pooled = self.conn()?;
        let conn: &mut AnyConnection = &mut pooled;
        let result = write_transaction(conn, f);
        if result.is_err() {
            health::check_after_failed_write(conn, self.role);
        }
        result
    }

    /// SQLite's one writer at a time (see the module docs); nothing on PostgreSQL.
    #[track_caller]
    fn writer_turn(&self) -> Option<WriterTurn<'_>> {
        match self.backend {
            Backend::Sqlite => Some(WriterTurn {
                _turn: self.sqlite_writer.lock().unwrap_or_else(|p| p.into_inner()),
                taken: std::time::Instant::now(),
                by: std::panic::Location::caller(),
            }),
            Backend::Postgres => None,
        }
    }

    /// A connection of its own, outside the pool, for a long-lived worker (the
    /// wager committer), with the same settings as pooled ones.
    pub fn dedicated_connection(&self) -> Result<AnyConnection, StoreError> {
        let mut conn = AnyConnection::connect(&self.driver_url).map_err(|e| StoreError::Unavailable(e.to_string()))?;
        apply_sqlite_pragmas(&mut conn)?;
        Ok(conn)
    }

    /// Runs `f` in a write transaction on `conn` (a dedicated connection),
    /// serialised with every other writer as [`Database::write`] is.
    #[track_caller]
    pub fn write_on<T, E, F>(&self, conn: &mut AnyConnection, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut AnyConnection) -> Result<T, E>,
        E: From<diesel::result::Error>,
    {
        let _writer = self.writer_turn();
        write_transaction(conn, f)
    }

    /// Runs `f` on a pooled connection outside any explicit transaction.
    pub fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut AnyConnection) -> Result<T, E>,
        E: From<StoreError>,
    {
        let mut conn = self.conn()?;
        f(&mut conn)
    }

    /// Checks the database answers, and that a primary's pool still leads to
    /// a server that takes writes, waiting at most `timeout_ms` for a
    /// connection: readiness must answer well within its probe's timeout.
    pub fn ping(&self, timeout_ms: u64) -> Result<(), StoreError> {
        let failed = |e: StoreError| {
            health::note_failure();
            e
        };
        let mut conn = self
            .pool
            .get_timeout(Duration::from_millis(timeout_ms))
            .map_err(|e| failed(StoreError::Unavailable(e.to_string())))?;
        let read_only = health::read_only(&mut conn).map_err(|e| {
            health::poison(&mut conn);
            failed(e.into())
        })?;
        if read_only && self.role == ServerRole::Primary {
            // Drop it: a new connection may find the new primary.
            health::poison(&mut conn);
            return Err(failed(StoreError::ReadOnly("the server takes no writes".into())));
        }
        Ok(())
    }

    /// How far behind its primary this pool's server is, in milliseconds, as
    /// the server itself knows: 0 for a primary (or SQLite) and for a standby
    /// that has replayed everything it received; the age of the last replayed
    /// commit for one that has WAL still to replay. `None` when it cannot say:
    /// a standby that is not streaming from a primary (its role needs
    /// `pg_read_all_stats` to see that it is).
    pub fn replay_lag_ms(&self) -> Result<Option<i64>, StoreError> {
        #[derive(QueryableByName)]
        struct Lag {
            #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
            lag_ms: Option<i64>,
        }
        let mut conn = self.conn()?;
        let AnyConnection::Postgresql(c) = &mut *conn else {
            return Ok(Some(0));
        };
        let lag: Lag = diesel::sql_query(
            "SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0::bigint \
                    WHEN NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN NULL \
                    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0::bigint \
                    ELSE GREATEST(0, (EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) \
                                      * 1000)::bigint) \
               END AS lag_ms",
        )
        .get_result(c)?;
        Ok(lag.lag_ms)
    }
}

/// Runs `$body` with `$c` bound to the concrete connection of either backend,
/// for what diesel's `MultiConnection` cannot express: multi-row `INSERT`s.
macro_rules! on_backend {
    ($conn:expr, |$c:ident| $body:expr) => {
        match $conn {
            $crate::store::AnyConnection::Postgresql($c) => $body,
            $crate::store::AnyConnection::Sqlite($c) => $body,
        }
    };
}
pub(crate) use on_backend;

/// Locks a row for the rest of the transaction on PostgreSQL. SQLite needs no
/// row lock: its writers are already serialized by [`Database::write`].
/// `f` in a transaction that will write: on SQLite begun `IMMEDIATE`, so it takes the write
/// lock first (waiting out `busy_timeout`). A deferred one that reads and then writes fails at
/// once with SQLITE_BUSY when another process (a second instance, a `djego` command) committed
/// in between; the writer mutex only orders one process's writers. Inside a transaction already
/// open, a savepoint, as `Connection::transaction` does.
fn write_transaction<T, E, F>(conn: &mut AnyConnection, f: F) -> Result<T, E>
where
    F: FnOnce(&mut AnyConnection) -> Result<T, E>,
    E: From<diesel::result::Error>,
{
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    let AnyConnection::Sqlite(sqlite) = conn else {
        return conn.transaction(f);
    };
    if !matches!(
        AnsiTransactionManager::transaction_manager_status_mut(sqlite).transaction_depth(),
        Ok(None)
    ) {
        return conn.transaction(f);
    }
    AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")?;
    type Manager = <AnyConnection as Connection>::TransactionManager;
    match f(conn) {
        Ok(value) => {
            Manager::commit_transaction(conn)?;
            Ok(value)
        }
        Err(error) => match Manager::rollback_transaction(conn) {
            Ok(()) | Err(diesel::result::Error::BrokenTransactionManager) => Err(error),
            Err(rollback_error) => Err(rollback_error.into()),
        },
    }
}

pub fn lock_for_update(conn: &mut AnyConnection, sql_select_for_update: &str) -> QueryResult<()> {
    if let AnyConnection::Postgresql(c) = conn {
        diesel::sql_query(sql_select_for_update).execute(c)?;
    }
    Ok(())
}

/// `base` with its database name replaced by `name` (query parameters kept):
/// for tools that create scratch databases next to a server's admin URL.
pub fn with_database_name(base: &str, name: &str) -> String {
    let (prefix, query) = match base.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (base, None),
    };
    let after_scheme = prefix.find("://").map(|i| i + 3).unwrap_or(0);
    let root = match prefix[after_scheme..].find('/') {
        Some(i) => &prefix[..after_scheme + i],
        None => prefix,
    };
    match query {
        Some(q) => format!("{root}/{name}?{q}"),
        None => format!("{root}/{name}"),
    }
}

pub use clock::{now, now_us};

/// A new row id: a UUIDv7, ordered by creation within this process.
///
/// Ordered ids keep every index on an id appending at its right edge (the
/// pages a batch touches stay few and hot) where random ids would touch a
/// page of each index per row. An id reveals when it was made, to the
/// millisecond; nothing relies on ids being unguessable (the tokens and seeds
/// that must be are made elsewhere, from the operating system's generator).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(QueryableByName)]
    struct Pragma {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        synchronous: i32,
    }

    fn synchronous(conn: &mut AnyConnection) -> i32 {
        let AnyConnection::Sqlite(c) = conn else {
            panic!("a SQLite connection")
        };
        diesel::sql_query("PRAGMA synchronous")
            .get_result::<Pragma>(c)
            .expect("PRAGMA synchronous")
            .synchronous
    }

    #[test]
    fn pg_timeouts_are_added_unless_the_url_sets_them() {
        let url = with_pg_timeouts("postgres://u@h/db", 8000);
        assert_eq!(
            url,
            "postgres://u@h/db?connect_timeout=5&keepalives=1&keepalives_idle=5&keepalives_interval=2\
             &keepalives_count=3&tcp_user_timeout=8000\
             &options=-c%20statement_timeout%3D8000%20-c%20idle_in_transaction_session_timeout%3D8000"
        );
        let own = with_pg_timeouts(
            "postgres://u@h/db?sslmode=require&keepalives_idle=30&options=-c%20x%3D1",
            3000,
        );
        assert!(own.starts_with("postgres://u@h/db?sslmode=require&keepalives_idle=30&options=-c%20x%3D1&connect_timeout=3&keepalives=1&keepalives_interval=2"), "{own}");
        assert!(
            !own.contains("statement_timeout") && own.matches("keepalives_idle").count() == 1,
            "{own}"
        );
    }

    /// A PostgreSQL server that is down is reported as such (diesel's own
    /// multi-backend `establish` would say only that the URL is invalid).
    #[test]
    fn a_server_that_is_down_is_named_as_down() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("its address").port();
        drop(listener);
        let error = AnyConnection::connect(&format!("postgres://nobody@127.0.0.1:{port}/none?connect_timeout=2"))
            .err()
            .expect("nothing listens there")
            .to_string();
        assert!(!error.contains("Invalid connection url"), "{error}");
        assert!(
            error.contains(&port.to_string()) || error.contains("refused"),
            "{error}"
        );
    }

    /// diesel keys pending migrations by version: a version used twice would
    /// silently hide one of the two migrations.
    #[test]
    fn migration_versions_are_unique_per_backend() {
        for backend in [Backend::Sqlite, Backend::Postgres] {
            let versions = migration_versions(backend);
            let mut unique = versions.clone();
            unique.dedup();
            assert_eq!(versions, unique, "{backend:?}");
            assert!(versions.len() > 5, "{backend:?}: {versions:?}");
        }
    }

    /// An acknowledged commit must survive power loss: with WAL, only FULL (2)
    /// syncs the log at every commit. Pooled and dedicated connections alike.
    #[test]
    fn sqlite_commits_are_durable() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("durable.db").display());
        let db = Database::connect(&url, 2).expect("connect");
        assert_eq!(synchronous(&mut db.conn().expect("pooled")), 2);
        assert_eq!(synchronous(&mut db.dedicated_connection().expect("dedicated")), 2);
    }

    /// Two processes on one SQLite file (two instances, or a `djego` command beside the
    /// service) each have their own writer mutex: a write that reads first must still not fail
    /// because the other committed after its read.
    #[test]
    fn sqlite_writers_of_two_processes_wait_for_each_other() {
        use diesel::sql_types::BigInt;
        #[derive(QueryableByName)]
        struct Seq {
            #[diesel(sql_type = BigInt)]
            seq: i64,
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("two.db").display());
        let (one, other) = (
            Database::connect(&url, 2).expect("connect"),
            Database::connect(&url, 2).expect("connect"),
        );
        one.write(|c| -> Result<(), StoreError> {
            diesel::sql_query("CREATE TABLE head (id INTEGER PRIMARY KEY, seq BIGINT NOT NULL)").execute(c)?;
            diesel::sql_query("INSERT INTO head VALUES (1, 0)").execute(c)?;
            Ok(())
        })
        .expect("set up");
        let bump = |c: &mut AnyConnection| -> Result<(), StoreError> {
            let AnyConnection::Sqlite(s) = c else { panic!("SQLite") };
            let seq = diesel::sql_query("SELECT seq FROM head WHERE id = 1")
                .get_result::<Seq>(s)?
                .seq;
            diesel::sql_query(format!("UPDATE head SET seq = {} WHERE id = 1", seq + 1)).execute(s)?;
            Ok(())
        };
        let (read, read_done) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let first = scope.spawn(|| {
                one.write(|c| -> Result<(), StoreError> {
                    let AnyConnection::Sqlite(s) = c else { panic!("SQLite") };
                    diesel::sql_query("SELECT seq FROM head WHERE id = 1").get_result::<Seq>(s)?;
                    read.send(()).expect("signal");
                    // Let the other process try to commit between this read and the write.
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    bump(c)
                })
            });
            read_done.recv().expect("the first read");
            let second = other.write(bump);
            assert!(first.join().expect("joined").is_ok(), "the first writer failed");
            assert!(second.is_ok(), "the second writer failed: {second:?}");
        });
        let seq = one.read(|c| -> Result<i64, StoreError> {
            let AnyConnection::Sqlite(s) = c else { panic!("SQLite") };
            Ok(diesel::sql_query("SELECT seq FROM head WHERE id = 1")
                .get_result::<Seq>(s)?
                .seq)
        });
        assert_eq!(seq.expect("read"), 2, "both increments landed, one after the other");
    }
}
