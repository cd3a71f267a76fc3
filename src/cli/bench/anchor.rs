//! The anchor of `djego bench wagers`: pgbench running the smallest honest
//! wager transaction (debit a wallet, record a transfer and a bet, commit) on
//! the same PostgreSQL server, in its own scratch database. It tells what this
//! machine and this server's durability settings allow, so djego's figures
//! can be read as a ratio to it.

use diesel::prelude::*;
use hdrhistogram::Histogram;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::cpu::{self, Cost};
use super::server::{admin_connection, ScratchPg};

/// The transaction pgbench runs for every wager, one per client loop.
pub const SCRIPT: &str = "\
BEGIN;
UPDATE wallets SET balance = balance - 100 WHERE id = :client_id + 1;
INSERT INTO transfers (wallet_id, amount) VALUES (:client_id + 1, 100);
INSERT INTO bets (wallet_id, amount) VALUES (:client_id + 1, 100);
END;
";

pub const SCHEMA: [&str; 3] = [
    "CREATE TABLE wallets (id int PRIMARY KEY, balance bigint NOT NULL)",
    "CREATE TABLE transfers (id bigserial PRIMARY KEY, wallet_id int NOT NULL, amount bigint NOT NULL, \
     created_at timestamptz NOT NULL DEFAULT now())",
    "CREATE TABLE bets (id bigserial PRIMARY KEY, wallet_id int NOT NULL, amount bigint NOT NULL, \
     created_at timestamptz NOT NULL DEFAULT now())",
];

/// Host, port, user, password and database of a `postgres://` URL, for pgbench's flags.
#[derive(Debug, Clone, PartialEq)]
pub struct PgTarget {
    pub host: String,
    pub port: String,
    pub user: String,
    pub password: Option<String>,
    pub dbname: String,
}

pub fn parse_pg_url(url: &str) -> Result<PgTarget, String> {
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .ok_or_else(|| "--database-url must be a postgres:// URL".to_string())?;
    let rest = rest.split('?').next().unwrap_or("");
    let (authority, dbname) = match rest.split_once('/') {
        Some((a, d)) => (a, d),
        None => (rest, ""),
    };
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let (user, password) = match userinfo {
        Some(u) => match u.split_once(':') {
            Some((user, pw)) => (user.to_string(), Some(pw.to_string())),
            None => (u.to_string(), None),
        },
        None => (std::env::var("USER").unwrap_or_else(|_| "postgres".into()), None),
    };
    let (host, port) = match hostport.strip_prefix('[') {
        // [v6 address]:port
        Some(v6) => match v6.split_once(']') {
            Some((h, rest)) => (h, rest.strip_prefix(':').unwrap_or("")),
            None => (v6, ""),
        },
        None => hostport.rsplit_once(':').unwrap_or((hostport, "")),
    };
    let (host, port) = (
        host.to_string(),
        if port.is_empty() { "5432" } else { port }.to_string(),
    );
    Ok(PgTarget {
        host: if host.is_empty() { "127.0.0.1".into() } else { host },
        port,
        user,
        password,
        dbname: if dbname.is_empty() {
            "postgres".into()
        } else {
            dbname.to_string()
        },
    })
}

/// Finds pgbench on PATH, or says how to install it.
pub fn find_pgbench() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("pgbench"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "pgbench was not found on PATH. It is needed for the anchor (or pass --no-anchor). \
             On Debian/Ubuntu install it with `apt-get install postgresql-client-common postgresql-15` \
             (the /usr/bin/pgbench wrapper is in postgresql-client-common, the program itself in the \
             server package postgresql-NN of your PostgreSQL major version; `dpkg -S pgbench` shows it)."
                .to_string()
        })
}

/// One pgbench run.
pub struct AnchorResult {
    /// Transactions per second as pgbench reports it (without connection time).
    pub tps: f64,
    pub failed: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// CPU time per transaction: the database's and pgbench's.
    pub cpu: Option<Cost>,
}

/// The prepared anchor: its scratch database, script and pgbench.
pub struct Anchor {
    pgbench: PathBuf,
    target: PgTarget,
    dir: tempfile::TempDir,
    script: PathBuf,
    runs: usize,
    db: ScratchPg,
}

impl Anchor {
    /// Creates the scratch database with one wallet per client (up to `max_clients`).
    pub fn prepare(admin_url: &str, max_clients: usize) -> Result<Anchor, String> {
        let pgbench = find_pgbench()?;
        let db = ScratchPg::create(admin_url)?;
        let mut conn = admin_connection(&db.url)?;
        for ddl in SCHEMA {
            diesel::sql_query(ddl)
                .execute(&mut conn)
                .map_err(|e| format!("anchor schema: {e}"))?;
        }
        diesel::sql_query(format!(
            "INSERT INTO wallets (id, balance) SELECT g, 1000000000000 FROM generate_series(1, {max_clients}) g"
        ))
        .execute(&mut conn)
        .map_err(|e| format!("anchor wallets: {e}"))?;
        let dir = tempfile::Builder::new()
            .prefix("djego-bench-pgbench-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
        let script = dir.path().join("wager.sql");
        std::fs::write(&script, SCRIPT).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
        let mut target = parse_pg_url(&db.url)?;
        target.dbname = db.name.clone();
        Ok(Anchor {
            pgbench,
            target,
            dir,
            script,
            runs: 0,
            db,
        })
    }

    pub fn database_name(&self) -> &str {
        &self.db.name
    }

    /// `pgbench -n -c C -j 2 -T secs -f script --log …` and its latencies: a closed loop, each
    /// client sending its next transaction when the last commits.
    pub fn run(&mut self, clients: usize, seconds: u64) -> Result<AnchorResult, String> {
        self.run_pgbench(clients, seconds, None)
    }

    /// The same at a fixed total rate (`pgbench -R`, Poisson arrivals): an open loop, whose
    /// latencies count from each transaction's scheduled start, as the half-peak run's do.
    pub fn run_at_rate(&mut self, clients: usize, seconds: u64, rate_per_s: f64) -> Result<AnchorResult, String> {
        self.run_pgbench(clients, seconds, Some(rate_per_s))
    }

    fn run_pgbench(&mut self, clients: usize, seconds: u64, rate_per_s: Option<f64>) -> Result<AnchorResult, String> {
        self.runs += 1;
        let log_dir = self.dir.path().join(format!("run-{}", self.runs));
        std::fs::create_dir_all(&log_dir).map_err(|e| format!("cannot create {}: {e}", log_dir.display()))?;
        let t = &self.target;
        let mut cmd = Command::new(&self.pgbench);
        cmd.args(["-n", "-c", &clients.to_string(), "-j", &clients.min(2).to_string()])
            .args(["-T", &seconds.to_string(), "-f"])
            .arg(&self.script)
            .arg("--log")
            .arg(format!("--log-prefix={}", log_dir.join("tx").display()))
            .args(rate_per_s.map(|rate| format!("--rate={rate:.1}")))
            .args(["-h", &t.host, "-p", &t.port, "-U", &t.user, &t.dbname]);
        if let Some(pw) = &t.password {
            cmd.env("PGPASSWORD", pw);
        }
        let before = cpu::snapshot(None);
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.pgbench.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "pgbench failed ({}):\n{stdout}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let tps = parse_tps(&stdout).ok_or_else(|| format!("no tps in pgbench's output:\n{stdout}"))?;
        let failed = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("number of failed transactions:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let latencies = read_latencies(&log_dir, rate_per_s.is_some())?;
        let processed = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("number of transactions actually processed:"))
            .and_then(|rest| rest.split(['/', ' ']).find(|w| !w.is_empty()))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let cpu = before
            .zip(cpu::snapshot(None))
            .and_then(|(before, after)| before.cost(&after, processed, true));
        Ok(AnchorResult {
            tps,
            failed,
            p50_ms: latencies.value_at_quantile(0.50) as f64 / 1000.0,
            p99_ms: latencies.value_at_quantile(0.99) as f64 / 1000.0,
            cpu,
        })
    }
}

/// "tps = 1234.567890 (without initial connection time)"
pub fn parse_tps(stdout: &str) -> Option<f64> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tps = "))
        .filter_map(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .last()
}

/// Per-transaction latencies (µs, the third field of each line) from every
/// pgbench log file in `dir`; lines of failed or skipped transactions are skipped.
/// `paced`: a `--rate` run, whose seventh field is the schedule lag (how late the
/// transaction started), added so that latency counts from the scheduled start.
fn read_latencies(dir: &Path, paced: bool) -> Result<Histogram<u64>, String> {
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds");
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
            let lag = if paced { field(6) } else { Some(0) };
            if let (Some(us), Some(lag)) = (field(2), lag) {
                hist.saturating_record((us + lag).max(1));
            }
        }
    }
    Ok(hist)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pg_urls_parse_into_pgbench_flags() {
        let t = parse_pg_url("postgres://postgres@127.0.0.1:5432/postgres").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port.as_str(), t.user.as_str()),
            ("127.0.0.1", "5432", "postgres")
        );
        assert_eq!((t.password, t.dbname.as_str()), (None, "postgres"));
        let t = parse_pg_url("postgresql://bob:s3cret@db.example:6543/casino?sslmode=disable").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port.as_str(), t.user.as_str()),
            ("db.example", "6543", "bob")
        );
        assert_eq!((t.password.as_deref(), t.dbname.as_str()), (Some("s3cret"), "casino"));
        let t = parse_pg_url("postgres://u@localhost/x").unwrap();
        assert_eq!((t.host.as_str(), t.port.as_str()), ("localhost", "5432"));
    }

    #[test]
    fn a_paced_runs_latency_counts_from_the_scheduled_start() {
        // client, transaction, time (µs), script, epoch, µs, schedule lag (µs) with --rate
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tx.1"),
            "0 0 1000 0 1700000000 1 4000\n0 1 2000 0 1700000000 2 0\n",
        )
        .unwrap();
        let paced = read_latencies(dir.path(), true).unwrap();
        assert_eq!(paced.max() / 1000, 5);
        assert_eq!(paced.len(), 2);
        let closed = read_latencies(dir.path(), false).unwrap();
        assert_eq!(closed.max() / 1000, 2);
    }

    #[test]
    fn tps_is_read_from_pgbench_output() {
        let out = "latency average = 1.5 ms\ninitial connection time = 3.1 ms\ntps = 1234.567890 (without initial connection time)\n";
        assert_eq!(parse_tps(out), Some(1234.56789));
    }
}
