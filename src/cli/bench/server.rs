//! The djego under test: a real `djego serve` child process on a fresh
//! database (a scratch PostgreSQL database or a SQLite file in a temporary
//! directory), and the casino set up in it over the public HTTP API only.

use diesel::prelude::*;
use rand::Rng;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::load;
use djego::store::with_database_name;

// ---------------------------------------------------------------------------
// Scratch PostgreSQL databases
// ---------------------------------------------------------------------------

static SCRATCH_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A PostgreSQL database created through the admin URL for this run, dropped
/// (`WITH (FORCE)`) when this guard is dropped, on error paths too.
pub struct ScratchPg {
    pub name: String,
    pub url: String,
    admin_url: String,
    /// Left in place when dropped (its name was printed for later use).
    pub keep: bool,
}

impl ScratchPg {
    pub fn create(admin_url: &str) -> Result<ScratchPg, String> {
        let n = SCRATCH_COUNTER.fetch_add(1, Ordering::SeqCst);
        let name = format!("djego_bench_{}_{n}", std::process::id());
        let mut conn = admin_connection(admin_url)?;
        diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .execute(&mut conn)
            .map_err(|e| format!("cannot drop a stale {name}: {e}"))?;
        diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .map_err(|e| format!("cannot CREATE DATABASE {name} through {}: {e}", redact(admin_url)))?;
        let url = with_database_name(admin_url, &name);
        Ok(ScratchPg {
            name,
            url,
            admin_url: admin_url.to_string(),
            keep: false,
        })
    }
}

impl Drop for ScratchPg {
    fn drop(&mut self) {
        if self.keep {
            eprintln!("kept database {}", self.name);
            return;
        }
        let dropped = admin_connection(&self.admin_url).and_then(|mut conn| {
            diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name))
                .execute(&mut conn)
                .map_err(|e| e.to_string())
        });
        match dropped {
            Ok(_) => eprintln!("dropped scratch database {}", self.name),
            Err(e) => eprintln!("warning: could not drop scratch database {}: {e}", self.name),
        }
    }
}

pub fn admin_connection(admin_url: &str) -> Result<PgConnection, String> {
    PgConnection::establish(admin_url).map_err(|e| {
        format!(
            "cannot connect to PostgreSQL at --database-url {}: {e}",
            redact(admin_url)
        )
    })
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let rest = &url[scheme_end..];
    let host_start = rest.find('/').unwrap_or(rest.len());
    match rest[..host_start].rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end], &rest[at..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

// ---------------------------------------------------------------------------
// The djego child process
// ---------------------------------------------------------------------------

/// The database a djego under test runs on; kept alive as long as the server.
pub enum ServerDb {
    Sqlite(tempfile::TempDir),
    Postgres(ScratchPg),
    /// A database another server (or the caller) keeps: a second instance.
    Shared(String),
}

/// A running `djego serve`, killed when dropped (before its database goes).
pub struct Server {
    child: Child,
    pub base: String,
    pub admin_password: String,
    pub log_path: PathBuf,
    database_url: String,
    _log_dir: tempfile::TempDir,
    _db: ServerDb,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn random_hex(bytes: usize) -> String {
    let mut rng = rand::thread_rng();
    (0..bytes).map(|_| format!("{:02x}", rng.gen::<u8>())).collect()
}

/// The secrets every instance on one database must share.
#[derive(Clone, Debug)]
pub struct Secrets {
    pub jwt: String,
    pub seed: String,
    pub checkpoint: String,
}

impl Secrets {
    pub fn random() -> Secrets {
        Secrets {
            jwt: random_hex(32),
            seed: random_hex(32),
            checkpoint: random_hex(32),
        }
    }
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

impl Server {
    /// Starts djego on `db` and waits until `GET /ready` answers 200.
    pub fn start(db: ServerDb) -> Result<Server, String> {
        Server::start_with(db, &format!("bench-{}", random_hex(12)), &Secrets::random(), None)
    }

    /// Starts djego on `db` with `admin_password` for the first pit boss,
    /// `secrets` (instances on one database share them) and, if given, a read
    /// replica for its reports.
    pub fn start_with(
        db: ServerDb,
        admin_password: &str,
        secrets: &Secrets,
        read_database_url: Option<&str>,
    ) -> Result<Server, String> {
        let database_url = match &db {
            ServerDb::Sqlite(dir) => format!("sqlite://{}", dir.path().join("djego.db").display()),
            ServerDb::Postgres(pg) => pg.url.clone(),
            ServerDb::Shared(url) => url.clone(),
        };
        let port = free_port()?;
        let log_dir = tempfile::Builder::new()
            .prefix("djego-bench-log-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
        let log_path = log_dir.path().join("djego.log");
        let log = std::fs::File::create(&log_path).map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
        let log_err = log.try_clone().map_err(|e| e.to_string())?;
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the djego executable: {e}"))?;
        let admin_password = admin_password.to_string();
        let child = Command::new(exe)
            .args([
                "serve",
                "--database-url",
                &database_url,
                "--bind",
                &format!("127.0.0.1:{port}"),
            ])
            .args(read_database_url.map(|url| format!("--read-database-url={url}")))
            .env("DJEGO_ADMIN_PASSWORD", &admin_password)
            .env("DJEGO_JWT_SECRET", &secrets.jwt)
            .env("DJEGO_SEED_KEY", &secrets.seed)
            .env("DJEGO_CHECKPOINT_KEY", &secrets.checkpoint)
            .env(
                "RUST_LOG",
                std::env::var("DJEGO_BENCH_SERVER_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .env_remove("DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|e| format!("cannot start djego serve: {e}"))?;
        let mut server = Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
            admin_password,
            log_path,
            database_url,
            _log_dir: log_dir,
            _db: db,
        };
        server.wait_ready()?;
        Ok(server)
    }

    /// Creates an account on the server's command line, as an operator does: the second pit boss
    /// that approves the benchmark's tables (one pit boss alone cannot create a table).
    pub fn operator_creates(&self, username: &str, role: &str, password: &str) -> Result<(), String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the djego executable: {e}"))?;
        let out = Command::new(exe)
            .args(["user", "create", "--username", username, "--role", role])
            .args(["--database-url", &self.database_url])
            .env("DJEGO_NEW_PASSWORD", password)
            .env_remove("DATABASE_URL")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run djego user create: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "djego user create {username}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let agent = load::agent();
        let url = format!("{}/ready", self.base);
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "djego serve exited ({status}) before it was ready:\n{}",
                    self.log_tail()
                ));
            }
            if load::get(&agent, &url).0 == 200 {
                return Ok(());
            }
            if Instant::now() > until {
                return Err(format!("djego was not ready within 60 s:\n{}", self.log_tail()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The last lines of the server's log, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// The process id of the `djego serve` under test.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The server's own latency histogram of every POST so far, read from its `/metrics`; `None`
    /// if it cannot be read.
    pub fn post_latency(&self) -> Option<ServerLatency> {
        let (status, text) = load::get(&load::agent(), &self.url("/metrics"));
        (status == 200).then(|| ServerLatency::parse(&text))
    }
}

/// Cumulative counts of `djego_http_request_duration_seconds` for POST requests, all routes
/// summed, by bucket bound in microseconds (`u64::MAX` for `+Inf`).
#[derive(Debug, Default, PartialEq)]
pub struct ServerLatency {
    pub at_most_us: std::collections::BTreeMap<u64, u64>,
}

impl ServerLatency {
    fn parse(metrics: &str) -> ServerLatency {
        let mut at_most_us = std::collections::BTreeMap::new();
        for line in metrics.lines() {
            let Some(rest) = line.strip_prefix("djego_http_request_duration_seconds_bucket{") else {
                continue;
            };
            if !rest.contains("method=\"POST\"") {
                continue;
            }
            let le = rest.split("le=\"").nth(1).and_then(|t| t.split('"').next());
            let bound = match le {
                Some("+Inf") => Some(u64::MAX),
                Some(t) => t.parse::<f64>().ok().map(|s| (s * 1e6).round() as u64),
                None => None,
            };
            let count = rest.rsplit(' ').next().and_then(|c| c.parse::<u64>().ok());
            if let (Some(bound), Some(count)) = (bound, count) {
                *at_most_us.entry(bound).or_insert(0) += count;
            }
        }
        ServerLatency { at_most_us }
    }

    /// What was added since `before`.
    pub fn since(&self, before: &ServerLatency) -> ServerLatency {
        let at_most_us = self
            .at_most_us
            .iter()
            .map(|(&b, &n)| (b, n.saturating_sub(before.at_most_us.get(&b).copied().unwrap_or(0))))
            .collect();
        ServerLatency { at_most_us }
    }

    /// "server side: 30012 POSTs, p99 ≤ 25 ms, over 25 ms 0.21%, over 100 ms 0.00%".
    pub fn describe(&self) -> String {
        let total = self.at_most_us.get(&u64::MAX).copied().unwrap_or(0);
        if total == 0 {
            return "server side: no POST seen".into();
        }
        let over = |ms: u64| {
            let within = self.at_most_us.get(&(ms * 1000)).copied().unwrap_or(0);
            100.0 * (total - within.min(total)) as f64 / total as f64
        };
        let p99 = self
            .at_most_us
            .iter()
            .find(|(_, &n)| n as f64 >= 0.99 * total as f64)
            .map_or("?".to_string(), |(&b, _)| {
                if b == u64::MAX {
                    "> 2500 ms".into()
                } else {
                    format!("≤ {} ms", b as f64 / 1000.0)
                }
            });
        format!(
            "server side: {total} POSTs, p99 {p99}, over 25 ms {:.2}%, over 100 ms {:.2}%",
            over(25),
            over(100)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::ServerLatency;

    #[test]
    fn server_latency_reads_the_post_buckets_and_their_increase() {
        let before = ServerLatency::parse(
            "djego_http_request_duration_seconds_bucket{method=\"POST\",route=\"/a\",le=\"0.025\"} 10\n\
             djego_http_request_duration_seconds_bucket{method=\"POST\",route=\"/a\",le=\"0.1\"} 10\n\
             djego_http_request_duration_seconds_bucket{method=\"POST\",route=\"/a\",le=\"+Inf\"} 10\n",
        );
        let after = ServerLatency::parse(
            "djego_http_request_duration_seconds_bucket{method=\"GET\",route=\"/b\",le=\"0.025\"} 500\n\
             djego_http_request_duration_seconds_bucket{method=\"POST\",route=\"/a\",le=\"0.025\"} 108\n\
             djego_http_request_duration_seconds_bucket{method=\"POST\",route=\"/a\",le=\"0.1\"} 109\n\
             djego_http_request_duration_seconds_bucket{method=\"POST\",route=\"/a\",le=\"+Inf\"} 110\n",
        );
        let run = after.since(&before);
        assert_eq!(run.at_most_us.get(&u64::MAX), Some(&100));
        assert_eq!(run.at_most_us.get(&25_000), Some(&98));
        assert_eq!(
            run.describe(),
            "server side: 100 POSTs, p99 ≤ 100 ms, over 25 ms 2.00%, over 100 ms 1.00%"
        );
    }
}

// ---------------------------------------------------------------------------
// Set-up over the public API
// ---------------------------------------------------------------------------

/// A logged-in account.
#[derive(Clone, Debug)]
pub struct Account {
    pub id: String,
    pub token: String,
}

/// Staff and funded players in a running djego.
pub struct Casino {
    pub pitboss: Account,
    /// A second pit boss, who approves what the first proposes (new tables).
    pub approver: Account,
    pub dealer: Account,
    pub cashier: Account,
    pub players: Vec<Account>,
    tables_made: AtomicUsize,
}

/// A POST that must answer 2xx; returns the JSON body.
pub fn call(
    agent: &ureq::Agent,
    server: &Server,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> Result<Value, String> {
    let key = format!("setup-{}", random_hex(12));
    let (status, text) = load::post(agent, &server.url(path), token, Some(&key), &body.to_string());
    if !(200..300).contains(&status) {
        return Err(format!(
            "set-up request POST {path} failed with status {status}: {text}"
        ));
    }
    serde_json::from_str(&text).map_err(|e| format!("POST {path}: response is not JSON ({e}): {text}"))
}

fn put(agent: &ureq::Agent, server: &Server, path: &str, token: &str) -> Result<(), String> {
    put_json(agent, server, path, token, &json!({}))
}

/// A PUT with a JSON body that must answer 2xx.
fn put_json(agent: &ureq::Agent, server: &Server, path: &str, token: &str, body: &Value) -> Result<(), String> {
    let resp = agent
        .put(&server.url(path))
        .header("authorization", &format!("Bearer {token}"))
        .header("content-type", "application/json")
        .send(body.to_string());
    let mut r = resp.map_err(|e| format!("set-up request PUT {path} failed: {e}"))?;
    let text = r.body_mut().read_to_string().unwrap_or_default();
    if r.status().is_success() {
        Ok(())
    } else {
        Err(format!(
            "set-up request PUT {path} failed with status {}: {text}",
            r.status()
        ))
    }
}

/// The limit every player sets with `--limits`: checked on every wager, never reached.
pub const BENCH_LIMIT: &str = "500000000.00";

pub fn str_field(v: &Value, field: &str) -> Result<String, String> {
    v[field]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("no {field} in {v}"))
}

pub fn login(agent: &ureq::Agent, server: &Server, username: &str, password: &str) -> Result<Account, String> {
    let body = call(
        agent,
        server,
        "/api/v1/auth/login",
        None,
        &json!({ "username": username, "password": password }),
    )?;
    Ok(Account {
        id: str_field(&body, "user_id")?,
        token: str_field(&body, "access_token")?,
    })
}

fn create_account(
    agent: &ureq::Agent,
    server: &Server,
    pitboss: &str,
    role: &str,
    username: &str,
) -> Result<Account, String> {
    let password = format!("pw-{}", random_hex(12));
    call(
        agent,
        server,
        "/api/v1/users",
        Some(pitboss),
        &json!({ "username": username, "role": role, "password": password }),
    )?;
    login(agent, server, username, &password)
}

/// The deposit given to each player at set-up: far more than any run stakes.
pub const PLAYER_FUNDS: &str = "1000000.00";

impl Casino {
    /// Logs in as `admin`, creates a dealer, a cashier and `players` players,
    /// each funded with PLAYER_FUNDS.
    pub fn set_up(server: &Server, players: usize) -> Result<Casino, String> {
        let agent = load::agent();
        let pitboss = login(&agent, server, "admin", &server.admin_password)?;
        let approver_password = format!("pw-{}", random_hex(12));
        server.operator_creates("bench-approver", "pitboss", &approver_password)?;
        let approver = login(&agent, server, "bench-approver", &approver_password)?;
        let dealer = create_account(&agent, server, &pitboss.token, "dealer", "bench-dealer")?;
        let cashier = create_account(&agent, server, &pitboss.token, "cashier", "bench-cashier")?;
        // Password hashing makes account creation slow: a few threads at once.
        let workers = 4.min(players.max(1));
        let made: Vec<Result<Vec<(usize, Account)>, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let (pitboss, cashier) = (&pitboss, &cashier);
                    scope.spawn(move || {
                        let agent = load::agent();
                        let mut out = Vec::new();
                        for i in (w..players).step_by(workers) {
                            let p =
                                create_account(&agent, server, &pitboss.token, "player", &format!("bench-player-{i}"))?;
                            // PLAYER_FUNDS is past the cage's report threshold: identity first.
                            put_json(
                                &agent,
                                server,
                                &format!("/api/v1/players/{}/identity", p.id),
                                &cashier.token,
                                &json!({
                                    "full_name": format!("Bench Player {i}"),
                                    "date_of_birth": "1980-01-01",
                                    "address": "1 Bench Street",
                                    "document_type": "passport",
                                    "document_number": format!("B{i:07}"),
                                    "document_issuer": "Benchland",
                                }),
                            )?;
                            call(
                                &agent,
                                server,
                                "/api/v1/cage/deposits",
                                Some(&cashier.token),
                                &json!({ "player_id": p.id, "amount": PLAYER_FUNDS }),
                            )?;
                            out.push((i, p));
                        }
                        Ok(out)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("set-up thread")).collect()
        });
        let mut all = Vec::new();
        for m in made {
            all.extend(m?);
        }
        all.sort_by_key(|(i, _)| *i);
        Ok(Casino {
            pitboss,
            approver,
            dealer,
            cashier,
            players: all.into_iter().map(|(_, p)| p).collect(),
            tables_made: AtomicUsize::new(0),
        })
    }

    /// Every player sets a daily limit on deposits, losses and stakes (far above anything a run
    /// moves) and a session limit of a day, so every wager is checked against running totals and
    /// the session read under the head lock.
    pub fn set_limits(&self, server: &Server) -> Result<(), String> {
        let agent = load::agent();
        for p in &self.players {
            put_json(
                &agent,
                server,
                "/api/v1/me/session-limit",
                &p.token,
                &json!({ "minutes": 1440 }),
            )?;
            for kind in ["deposit", "loss", "stake"] {
                put_json(
                    &agent,
                    server,
                    &format!("/api/v1/me/limits/{kind}/day"),
                    &p.token,
                    &json!({ "amount": BENCH_LIMIT }),
                )?;
            }
        }
        Ok(())
    }

    /// `n` fresh, empty Prima Carta rounds, each at a new table (created,
    /// dealer assigned, opened) whose limits refuse no benchmark bet.
    pub fn fresh_rounds(&self, server: &Server, n: usize) -> Result<Vec<String>, String> {
        let agent = load::agent();
        let mut rounds = Vec::with_capacity(n);
        for _ in 0..n {
            let table = self.fresh_table(server)?;
            let round = call(
                &agent,
                server,
                &format!("/api/v1/tables/{table}/rounds"),
                Some(&self.dealer.token),
                &json!({}),
            )?;
            rounds.push(str_field(&round, "id")?);
        }
        Ok(rounds)
    }

    /// A new Prima Carta table, approved, with the dealer in the box, open.
    pub fn fresh_table(&self, server: &Server) -> Result<String, String> {
        let agent = load::agent();
        let k = self.tables_made.fetch_add(1, Ordering::SeqCst);
        let config = json!({
            "game": "prima_carta", "variant": "classic", "unit": "1.00", "seat_fee": null,
            "corte": true, "cobre": "carry", "min_bet": "1.00", "max_bet": "100.00",
            "max_exposure_per_round": "100000000.00", "strategy_advice": false
        });
        let proposal = call(
            &agent,
            server,
            "/api/v1/tables",
            Some(&self.pitboss.token),
            &json!({ "name": format!("Bench {k}"), "config": config }),
        )?;
        let applied = call(
            &agent,
            server,
            &format!("/api/v1/proposals/{}/approve", str_field(&proposal, "id")?),
            Some(&self.approver.token),
            &json!({}),
        )?;
        let table = str_field(&applied["result"], "id")?;
        put(
            &agent,
            server,
            &format!("/api/v1/tables/{table}/dealers/{}", self.dealer.id),
            &self.pitboss.token,
        )?;
        call(
            &agent,
            server,
            &format!("/api/v1/tables/{table}/open"),
            Some(&self.pitboss.token),
            &json!({}),
        )?;
        Ok(table)
    }
}
