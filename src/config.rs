//! Configuration by flags and environment (see the README's table).
//!
//! Secrets are never compiled in. With the embedded SQLite database and no
//! secret given, a random one is generated once and kept beside the database
//! file (mode 0600), so a development install works with zero set-up; with
//! PostgreSQL the secrets must be given, since several instances must agree.

use crate::auth::proxies::TrustedProxies;
use crate::auth::throttle::LoginPolicy;
use crate::checkpoints::CheckpointKey;
use crate::store::Backend;
use clap::Args;
use rand_core::{OsRng, RngCore};
use std::path::{Path, PathBuf};

pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/djego.db";

#[derive(Args, Clone, Debug)]
pub struct DatabaseArgs {
    /// Database URL: a SQLite file path (`sqlite://data/djego.db`) or `postgres://…`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,
    /// Maximum pooled database connections per instance.
    #[arg(long, env = "DJEGO_DB_MAX_CONNECTIONS", default_value_t = 16)]
    pub db_max_connections: u32,
    /// A URL for migrations only, as the role that owns the schema, when the
    /// role of --database-url may not change it (docs/operations.md).
    #[arg(long, env = "DJEGO_MIGRATION_DATABASE_URL", hide_env_values = true)]
    pub migration_database_url: Option<String>,
}

/// The Ed25519 key that signs checkpoints: never stored in the database.
#[derive(Args, Clone, Debug)]
pub struct CheckpointKeyArgs {
    /// The checkpoint signing key as 64 hex digits (Ed25519 private key).
    #[arg(
        long,
        env = "DJEGO_CHECKPOINT_KEY",
        hide_env_values = true,
        conflicts_with = "checkpoint_key_file"
    )]
    pub checkpoint_key: Option<String>,
    /// A file holding the checkpoint signing key: PKCS#8 PEM
    /// (`openssl genpkey -algorithm ed25519`) or 64 hex digits.
    #[arg(long, env = "DJEGO_CHECKPOINT_KEY_FILE")]
    pub checkpoint_key_file: Option<PathBuf>,
}

impl CheckpointKeyArgs {
    /// The key given, or with SQLite and none given, `checkpoint.key` beside
    /// the database file (generated on first use, mode 0600).
    pub fn resolve(&self, database_url: &str) -> Result<CheckpointKey, String> {
        match (&self.checkpoint_key, &self.checkpoint_key_file) {
            (Some(text), _) => CheckpointKey::parse(text).map_err(|e| format!("DJEGO_CHECKPOINT_KEY: {e}")),
            (None, Some(path)) => CheckpointKey::read(path),
            (None, None) if Backend::of_url(database_url) == Backend::Sqlite => {
                let path = secrets_dir(database_url).join("checkpoint.key");
                if path.exists() {
                    return CheckpointKey::read(&path);
                }
                let key = CheckpointKey::generate();
                std::fs::create_dir_all(secrets_dir(database_url))
                    .and_then(|()| write_private(&path, &key.to_pem()))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                Ok(key)
            }
            (None, None) => Err(
                "DJEGO_CHECKPOINT_KEY or DJEGO_CHECKPOINT_KEY_FILE is required with PostgreSQL \
                 (the key must not be in the database; all instances share it)"
                    .into(),
            ),
        }
    }
}

#[derive(Args, Clone, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// A read replica (a PostgreSQL standby) for the floor's reports, the
    /// auditor's exports and the live views' first reads; never written to
    /// (docs/operations.md, "Reports from a replica").
    #[arg(long, env = "DJEGO_READ_DATABASE_URL", hide_env_values = true)]
    pub read_database_url: Option<String>,
    /// The most a replica may be behind, in milliseconds, and still be read;
    /// further behind, or not streaming, the primary is read instead.
    #[arg(long, env = "DJEGO_READ_MAX_LAG_MS", default_value_t = 5_000)]
    pub read_max_lag_ms: u64,
    /// Address to listen on.
    #[arg(long, env = "DJEGO_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// HMAC secret that signs access tokens (at least 32 bytes).
    #[arg(long, env = "DJEGO_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// Previous token secrets, comma-separated, whose tokens are still
    /// accepted while a key is rotated; remove one to retire it.
    #[arg(
        long,
        env = "DJEGO_JWT_PREVIOUS_SECRETS",
        hide_env_values = true,
        value_delimiter = ','
    )]
    pub jwt_previous_secrets: Vec<String>,
    /// The reverse proxies in front: a comma-separated list of their
    /// addresses or networks (`172.30.0.10`, `10.0.0.0/8`). From those peers
    /// only, login limits count by the client address the proxy appended to
    /// `X-Forwarded-For` (or its `X-Real-IP`) instead of the peer. `true`
    /// believes every peer, which is safe only where no client can reach
    /// djego but through the proxy.
    #[arg(
        long,
        env = "DJEGO_TRUST_FORWARDED_FOR",
        default_value = "",
        num_args = 0..=1,
        default_missing_value = "true",
        value_parser = TrustedProxies::parse
    )]
    pub trust_forwarded_for: TrustedProxies,
    /// 32-byte key, as 64 hex digits, that encrypts server seeds at rest.
    #[arg(long, env = "DJEGO_SEED_KEY", hide_env_values = true)]
    pub seed_key: Option<String>,
    /// Lifetime of an access token in seconds.
    #[arg(long, env = "DJEGO_TOKEN_TTL_SECONDS", default_value_t = 8 * 3600)]
    pub token_ttl_seconds: u64,
    #[command(flatten)]
    pub checkpoint_key: CheckpointKeyArgs,
    /// Seconds between the checkpoints the service takes by itself, skipped
    /// when nothing changed (0 = none).
    #[arg(long, env = "DJEGO_CHECKPOINT_INTERVAL_SECONDS", default_value_t = 300)]
    pub checkpoint_interval_seconds: u64,
    /// The longest a request waits for the database, in milliseconds: past
    /// it the request is answered 503, and on PostgreSQL the server cancels
    /// the statement and the connection's keepalives and TCP timeout find a
    /// silent server (docs/operations.md, "When the database goes silent").
    #[arg(long, env = "DJEGO_DB_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1_000..=600_000))]
    pub db_timeout_ms: u64,
    /// Worker threads (0 = one per core).
    #[arg(long, env = "DJEGO_WORKERS", default_value_t = 0)]
    pub workers: usize,
    /// Seed a small demo casino on start and print its credentials.
    #[arg(long)]
    pub demo: bool,
}

/// Everything the running service needs, resolved and validated.
#[derive(Clone)]
pub struct Settings {
    pub database_url: String,
    /// The schema owner's URL for migrations, when it is not `database_url`.
    pub migration_database_url: Option<String>,
    pub db_max_connections: u32,
    /// The longest a request waits for the database (503 after), and
    /// PostgreSQL's statement and idle-in-transaction timeouts.
    pub db_timeout_ms: u64,
    /// Where reports may be read, when not from the primary.
    pub read_replica: Option<ReadReplica>,
    pub bind: String,
    pub jwt_secret: Vec<u8>,
    /// Retiring secrets whose tokens are still accepted.
    pub jwt_previous_secrets: Vec<Vec<u8>>,
    pub seed_key: [u8; 32],
    pub checkpoint_key: CheckpointKey,
    /// Seconds between the service's own checkpoints; 0 for none.
    pub checkpoint_interval_seconds: u64,
    pub token_ttl_seconds: u64,
    pub workers: usize,
    pub login_policy: LoginPolicy,
    /// Password checks (argon2) that may run at once.
    pub password_check_concurrency: usize,
    /// The reverse proxies whose forwarded client address is believed.
    pub trusted_proxies: TrustedProxies,
    /// Largest JSON request body accepted.
    pub json_limit_bytes: usize,
    /// Argon2 memory cost; lowered only by the test harness.
    pub argon2_memory_kib: u32,
    /// How many Lobo hints are solved, per player and at once.
    pub hint_limits: crate::rounds::lobo_hints::HintLimits,
    /// How often this instance looks for Lobo rounds past their play timeout (0 = never).
    pub lobo_timeout_sweep_ms: u64,
    /// How often this instance brings the floor's minute meters up to the ledger (0 = never;
    /// the table report still reads the rows they do not cover).
    pub floor_meters_interval_ms: u64,
}

impl Settings {
    pub fn resolve(args: &ServeArgs) -> Result<Settings, String> {
        let backend = Backend::of_url(&args.database.database_url);
        let secrets_dir = secrets_dir(&args.database.database_url);
        let jwt_secret = match &args.jwt_secret {
            Some(s) if s.len() >= 32 => s.as_bytes().to_vec(),
            Some(_) => return Err("DJEGO_JWT_SECRET must be at least 32 bytes".into()),
            None if backend == Backend::Sqlite => {
                hex::decode(persisted_secret(&secrets_dir, "jwt.key")?).map_err(|e| e.to_string())?
            }
            None => return Err("DJEGO_JWT_SECRET is required with PostgreSQL (all instances must share it)".into()),
        };
        let mut jwt_previous_secrets = Vec::new();
        for previous in args
            .jwt_previous_secrets
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
        {
            if previous.len() < 32 {
                return Err("every DJEGO_JWT_PREVIOUS_SECRETS entry must be at least 32 bytes".into());
            }
            jwt_previous_secrets.push(previous.as_bytes().to_vec());
        }
        let seed_key_hex = match &args.seed_key {
            Some(s) => s.clone(),
            None if backend == Backend::Sqlite => persisted_secret(&secrets_dir, "seed.key")?,
            None => return Err("DJEGO_SEED_KEY is required with PostgreSQL (all instances must share it)".into()),
        };
        let seed_key = parse_key(&seed_key_hex)?;
        let checkpoint_key = args.checkpoint_key.resolve(&args.database.database_url)?;
        let read_replica = match &args.read_database_url {
            None => None,
            Some(url) if backend == Backend::Postgres && Backend::of_url(url) == Backend::Postgres => {
                Some(ReadReplica {
                    url: url.clone(),
                    max_lag_ms: args.read_max_lag_ms,
                })
            }
            Some(_) => return Err("DJEGO_READ_DATABASE_URL needs PostgreSQL, for it and for DATABASE_URL".into()),
        };
        Ok(Settings {
            database_url: args.database.database_url.clone(),
            migration_database_url: args.database.migration_database_url.clone(),
            db_max_connections: args.database.db_max_connections,
            db_timeout_ms: args.db_timeout_ms,
            read_replica,
            bind: args.bind.clone(),
            jwt_secret,
            jwt_previous_secrets,
            seed_key,
            checkpoint_key,
            checkpoint_interval_seconds: args.checkpoint_interval_seconds,
            token_ttl_seconds: args.token_ttl_seconds,
            workers: args.workers,
            login_policy: LoginPolicy::default(),
            password_check_concurrency: std::thread::available_parallelism().map_or(2, |n| n.get()),
            trusted_proxies: args.trust_forwarded_for.clone(),
            json_limit_bytes: 64 * 1024,
            argon2_memory_kib: argon2::Params::DEFAULT_M_COST,
            hint_limits: Default::default(),
            lobo_timeout_sweep_ms: 5_000,
            floor_meters_interval_ms: 10_000,
        })
    }
}

/// A read replica and how stale a read from it may be.
#[derive(Clone, Debug)]
pub struct ReadReplica {
    pub url: String,
    pub max_lag_ms: u64,
}

pub fn parse_key(hex_text: &str) -> Result<[u8; 32], String> {
    let bytes = hex::decode(hex_text.trim()).map_err(|_| "DJEGO_SEED_KEY must be 64 hex digits".to_string())?;
    bytes
        .try_into()
        .map_err(|_| "DJEGO_SEED_KEY must be 64 hex digits (32 bytes)".to_string())
}

fn secrets_dir(database_url: &str) -> PathBuf {
    let path = database_url.strip_prefix("sqlite://").unwrap_or(database_url);
    Path::new(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Reads a hex secret from `dir/name`, creating a random 32-byte one first if absent.
fn persisted_secret(dir: &Path, name: &str) -> Result<String, String> {
    let path = dir.join(name);
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(text.trim().to_string());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    let text = hex::encode(bytes);
    write_private(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(text)
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(text.as_bytes())
}
