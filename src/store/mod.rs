//! Storage: one code path for SQLite (embedded default) and PostgreSQL.
//!
//! Diesel's `MultiConnection` lets every query be written once. Writes go
//! through [`Database::write`], which makes them serializable on both backends:
//! on PostgreSQL by row locks taken inside the transaction (the ledger head,
//! the round row), on SQLite by one writer at a time per process (an embedded
//! database has one process by design; WAL lets readers proceed meanwhile).

pub mod schema;

use diesel::prelude::*;
use diesel::r2d2::{ConnectionManager, CustomizeConnection, Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

#[derive(diesel::MultiConnection)]
pub enum AnyConnection {
    Postgresql(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

impl AnyConnection {
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
}

pub type PooledConn = PooledConnection<ConnectionManager<AnyConnection>>;

/// SQLite's per-connection settings: WAL so readers never wait for the writer,
/// a busy timeout rather than instant `SQLITE_BUSY`, and enforced foreign keys.
#[derive(Debug)]
struct SqlitePragmas;

impl CustomizeConnection<AnyConnection, diesel::r2d2::Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut AnyConnection) -> Result<(), diesel::r2d2::Error> {
        if let AnyConnection::Sqlite(c) = conn {
            use diesel::connection::SimpleConnection;
            c.batch_execute(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                 PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON;",
            )
            .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

#[derive(Clone)]
pub struct Database {
    pool: Pool<ConnectionManager<AnyConnection>>,
    backend: Backend,
    /// Held for the whole of a SQLite write transaction (see module docs).
    sqlite_writer: Arc<Mutex<()>>,
}

impl Database {
    pub fn connect(url: &str, max_connections: u32) -> Result<Database, StoreError> {
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
        let url = url.strip_prefix("sqlite://").unwrap_or(url).to_string();
        let manager = ConnectionManager::<AnyConnection>::new(url);
        let pool = Pool::builder()
            .max_size(max_connections)
            .min_idle(Some(0))
            .connection_timeout(Duration::from_secs(5))
            .connection_customizer(Box::new(SqlitePragmas))
            .build(manager)
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        Ok(Database {
            pool,
            backend,
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
        let _writer = self.sqlite_writer.lock().unwrap_or_else(|p| p.into_inner());
        let mut conn = self.conn()?;
        let applied = match &mut *conn {
            AnyConnection::Postgresql(c) => {
                use diesel::connection::SimpleConnection;
                const MIGRATION_LOCK: i64 = 0x646a65676f; // "djego"
                c.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
                let result = c.run_pending_migrations(MIGRATIONS).map(|v| v.len());
                c.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))?;
                result
            }
            AnyConnection::Sqlite(c) => c.run_pending_migrations(MIGRATIONS).map(|v| v.len()),
        };
        applied.map_err(|e| StoreError::Migration(e.to_string()))
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
            diesel::sql_query(format!("SELECT pg_advisory_lock({STARTUP_LOCK})"))
                .execute(conn)
                .map_err(StoreError::from)?;
        }
        let result = f(self);
        if let Some(conn) = holder.as_deref_mut() {
            let _ = diesel::sql_query(format!("SELECT pg_advisory_unlock({STARTUP_LOCK})")).execute(conn);
        }
        result
    }

    /// Runs `f` in a write transaction; rolls back when it returns `Err`.
    pub fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut AnyConnection) -> Result<T, E>,
        E: From<StoreError> + From<diesel::result::Error>,
    {
        let _writer = match self.backend {
            Backend::Sqlite => Some(self.sqlite_writer.lock().unwrap_or_else(|p| p.into_inner())),
            Backend::Postgres => None,
        };
        let mut pooled = self.conn()?;
        let conn: &mut AnyConnection = &mut pooled;
        conn.transaction(f)
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

    pub fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        diesel::sql_query("SELECT 1").execute(&mut *conn)?;
        Ok(())
    }
}

/// Locks a row for the rest of the transaction on PostgreSQL. SQLite needs no
/// row lock: its writers are already serialized by [`Database::write`].
pub fn lock_for_update(conn: &mut AnyConnection, sql_select_for_update: &str) -> QueryResult<()> {
    if let AnyConnection::Postgresql(c) = conn {
        diesel::sql_query(sql_select_for_update).execute(c)?;
    }
    Ok(())
}

pub fn now_us() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
