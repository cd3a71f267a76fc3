//! `djego bench failover`: the failover drill (deploy/ha/README.md).
//!
//! Under the kind of load a floor puts on djego — players betting on live
//! rounds, a cashier depositing, a dealer seating players, dealing, deciding
//! the copa and settling — the primary of a Patroni cluster is killed (SIGKILL
//! of its postmaster) and frozen (SIGSTOP of every process of it), one failure
//! at a time, through deploy/ha/cluster. Every request is retried with its own
//! Idempotency-Key until it is answered for good, as a client of djego should.
//! At the end: every wager acknowledged is in the ledger exactly once, no key
//! was applied twice, the ledger and its signed checkpoints verify, the trial
//! balance is zero and every round has settled (or was voided). Prints each
//! failover's write outage, the 503s, and the throughput before and after.

use clap::Args;
use diesel::prelude::*;
use rand::Rng;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::load;
use super::server::{self, Account, Casino, ScratchPg, Secrets, Server, ServerDb};

#[derive(Args, Debug)]
pub struct FailoverArgs {
    /// The cluster's URL for a role that may create databases, every member listed, with
    /// `target_session_attrs=read-write` (`deploy/ha/cluster url STATE_DIR postgres postgres`).
    /// The drill creates a scratch database on it and drops it at the end.
    #[arg(long)]
    pub database_url: String,
    /// deploy/ha/cluster's state directory, the cluster running.
    #[arg(long)]
    pub state_dir: PathBuf,
    /// The cluster script.
    #[arg(long, default_value = "deploy/ha/cluster")]
    pub cluster: PathBuf,
    /// Primaries killed (SIGKILL), one after another.
    #[arg(long, default_value_t = 5)]
    pub kills: usize,
    /// Primaries frozen (SIGSTOP of every process), after the kills.
    #[arg(long, default_value_t = 2)]
    pub freezes: usize,
    /// Synchronous standbys killed (SIGKILL), after the freezes.
    #[arg(long, default_value_t = 1)]
    pub standby_kills: usize,
    /// djego instances on the cluster; clients are spread over them.
    #[arg(long, default_value_t = 2)]
    pub instances: usize,
    /// Players betting at once (besides one cashier and one dealer).
    #[arg(long, default_value_t = 8)]
    pub bettors: usize,
    /// Seconds of steady load before the first failure and after each recovery.
    #[arg(long, default_value_t = 15)]
    pub steady_s: u64,
    /// A failover whose writes are not back in this many seconds fails the drill.
    #[arg(long, default_value_t = 120)]
    pub give_up_s: u64,
    /// Keep the scratch database at the end (its name is printed): for a restore drill.
    #[arg(long)]
    pub keep_database: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Bet,
    Deposit,
}

/// A write answered 2xx: what it made, and when.
struct Ack {
    kind: Kind,
    key: String,
    /// The bet's id, or the deposit's transfer id.
    id: String,
    /// When its last attempt was sent and when it was answered.
    sent_s: f64,
    answered_s: f64,
}

/// What the clients share with the drill.
struct Floor {
    started: Instant,
    stop: AtomicBool,
    acks: Mutex<Vec<Ack>>,
    /// Every key sent, by kind.
    keys: Mutex<Vec<(Kind, String)>>,
    /// When each answer of 503 (or no answer) came, in seconds from the start.
    unavailable_s: Mutex<Vec<f64>>,
    /// Answers other than 2xx, 409 and 503, with a sample of each.
    other: Mutex<HashMap<u16, (u64, String)>>,
    /// Rounds taking bets now; every round the dealer started.
    betting: RwLock<Vec<String>>,
    rounds: Mutex<Vec<String>>,
    requests: AtomicU64,
}

impl Floor {
    fn new() -> Floor {
        Floor {
            started: Instant::now(),
            stop: AtomicBool::new(false),
            acks: Mutex::new(Vec::new()),
            keys: Mutex::new(Vec::new()),
            unavailable_s: Mutex::new(Vec::new()),
            other: Mutex::new(HashMap::new()),
            betting: RwLock::new(Vec::new()),
            rounds: Mutex::new(Vec::new()),
            requests: AtomicU64::new(0),
        }
    }

    fn now_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

/// One client's way to djego: its instance and HTTP agent.
struct Client {
    agent: ureq::Agent,
    base: String,
    floor: Arc<Floor>,
}

/// Retry pause when no Retry-After is given.
const RETRY_MS: u64 = 250;

impl Client {
    /// POSTs until answered for good (anything but 503, 5xx or no answer),
    /// with the same key every time. Returns the status, the body and when the
    /// last attempt was sent.
    fn post(&self, path: &str, token: &str, key: &str, body: &Value) -> (u16, String, f64) {
        let give_up = Instant::now() + Duration::from_secs(600);
        loop {
            let sent_s = self.floor.now_s();
            self.floor.requests.fetch_add(1, Ordering::Relaxed);
            let (status, text) = load::post(
                &self.agent,
                &format!("{}{path}", self.base),
                Some(token),
                Some(key),
                &body.to_string(),
            );
            if status == 0 || status >= 500 {
                self.floor.unavailable_s.lock().unwrap().push(self.floor.now_s());
                if status != 503 && status != 0 {
                    self.note_other(status, &text);
                }
                if Instant::now() > give_up {
                    return (status, text, sent_s);
                }
                std::thread::sleep(Duration::from_millis(if status == 503 { 1000 } else { RETRY_MS }));
                continue;
            }
            if status >= 400 && status != 409 {
                self.note_other(status, &text);
            }
            return (status, text, sent_s);
        }
    }

    fn get(&self, path: &str, token: &str) -> Option<Value> {
        for _ in 0..600 {
            let resp = self
                .agent
                .get(&format!("{}{path}", self.base))
                .header("authorization", &format!("Bearer {token}"))
                .call();
            if let Ok(mut r) = resp {
                if r.status().as_u16() == 200 {
                    return r
                        .body_mut()
                        .read_to_string()
                        .ok()
                        .and_then(|t| serde_json::from_str(&t).ok());
                }
            }
            std::thread::sleep(Duration::from_millis(RETRY_MS));
        }
        None
    }

    fn note_other(&self, status: u16, text: &str) {
        let mut other = self.floor.other.lock().unwrap();
        let entry = other.entry(status).or_insert((0, text.chars().take(300).collect()));
        entry.0 += 1;
    }

    fn acknowledged(&self, kind: Kind, key: String, id: String, sent_s: f64) {
        let answered_s = self.floor.now_s();
        self.floor.acks.lock().unwrap().push(Ack {
            kind,
            key,
            id,
            sent_s,
            answered_s,
        });
    }
}

const SUITS: [&str; 5] = ["crowns", "locks", "fruit", "swords", "cups"];

fn bettor(client: Client, player: Account, n: usize) {
    let mut rng = rand::thread_rng();
    let mut i = 0u64;
    while !client.floor.stop.load(Ordering::Relaxed) {
        let round = {
            let open = client.floor.betting.read().unwrap();
            if open.is_empty() {
                None
            } else {
                Some(open[rng.gen_range(0..open.len())].clone())
            }
        };
        let Some(round) = round else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        i += 1;
        let key = format!("drill-bet-{n}-{i}");
        client.floor.keys.lock().unwrap().push((Kind::Bet, key.clone()));
        let body = json!({ "kind": "prima", "suit": SUITS[rng.gen_range(0..SUITS.len())], "amount": "1.00" });
        let (status, text, sent_s) = client.post(&format!("/api/v1/rounds/{round}/bets"), &player.token, &key, &body);
        if status == 201 {
            let id = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["id"].as_str().map(str::to_string));
            client.acknowledged(Kind::Bet, key, id.unwrap_or_default(), sent_s);
        }
    }
}

fn cashier(client: Client, cashier: Account, players: Vec<Account>) {
    let mut i = 0usize;
    while !client.floor.stop.load(Ordering::Relaxed) {
        i += 1;
        let key = format!("drill-deposit-{i}");
        client.floor.keys.lock().unwrap().push((Kind::Deposit, key.clone()));
        let player = &players[i % players.len()];
        let body = json!({ "player_id": player.id, "amount": "1.00" });
        let (status, text, sent_s) = client.post("/api/v1/cage/deposits", &cashier.token, &key, &body);
        if status == 201 {
            let id = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["transfer"]["id"].as_str().map(str::to_string));
            client.acknowledged(Kind::Deposit, key, id.unwrap_or_default(), sent_s);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The dealer: at each table in turn, a round with two seated players, open
/// for bets for a while, then closed, dealt, the copa decided and settled.
/// Each step is chosen from the round's status as read back, so an answer
/// lost in a failover is no matter.
fn dealer(
    client: Client,
    dealer: Account,
    pitboss: Account,
    tables: Vec<String>,
    players: Vec<Account>,
    betting_ms: u64,
) {
    let mut n = 0usize;
    while !client.floor.stop.load(Ordering::Relaxed) {
        let table = &tables[n % tables.len()];
        n += 1;
        let (status, text, _) = client.post(
            &format!("/api/v1/tables/{table}/rounds"),
            &dealer.token,
            &format!("drill-round-{n}"),
            &json!({}),
        );
        let Some(round) = (status == 201)
            .then(|| serde_json::from_str::<Value>(&text).ok())
            .flatten()
            .and_then(|v| v["id"].as_str().map(str::to_string))
        else {
            eprintln!("the dealer could not start a round: {status} {text}");
            std::thread::sleep(Duration::from_secs(1));
            continue;
        };
        client.floor.rounds.lock().unwrap().push(round.clone());
        for (i, p) in players.iter().take(2).enumerate() {
            client.post(
                &format!("/api/v1/rounds/{round}/seats"),
                &p.token,
                &format!("drill-seat-{round}-{i}"),
                &json!({ "suit": SUITS[(n + i) % SUITS.len()], "client_seed": format!("drill {n} {i}") }),
            );
        }
        client.floor.betting.write().unwrap().push(round.clone());
        std::thread::sleep(Duration::from_millis(betting_ms));
        client.floor.betting.write().unwrap().retain(|r| r != &round);
        finish_round(&client, &dealer, &pitboss, &round);
    }
}

/// Drives a round to its end from whatever status it is in; a round that
/// does not move is voided by the pit boss (and reported).
fn finish_round(client: &Client, dealer: &Account, pitboss: &Account, round: &str) {
    const MOST_STEPS: usize = 50;
    for step in 1..=MOST_STEPS {
        let Some(view) = client.get(&format!("/api/v1/rounds/{round}"), &dealer.token) else {
            eprintln!("round {round}: its status could not be read");
            return;
        };
        let status = view["status"].as_str().unwrap_or_default().to_string();
        let (action, body) = match status.as_str() {
            "settled" | "voided" => return,
            "betting" => ("close", json!({})),
            "closed" => ("deal", json!({})),
            "copa" => ("copa", json!({ "decision": "pay", "suit": view["copa_turn"]["suit"] })),
            "finished" | "in_play" => ("settle", json!({})),
            other => {
                eprintln!("round {round}: status {other}");
                break;
            }
        };
        let (answered, text, _) = client.post(
            &format!("/api/v1/rounds/{round}/{action}"),
            &dealer.token,
            &format!("drill-{action}-{round}-{step}"),
            &body,
        );
        if answered >= 400 && answered != 409 {
            eprintln!("round {round}: {action} answered {answered}: {text}");
        }
    }
    eprintln!("round {round}: not ended by the dealer; the pit boss voids it");
    client.post(
        &format!("/api/v1/rounds/{round}/void"),
        &pitboss.token,
        &format!("drill-void-{round}"),
        &json!({ "reason": "failover drill: the round did not move" }),
    );
}

/// One failure and what it cost.
struct Failover {
    what: &'static str,
    /// Until the first write acknowledged whose last attempt was sent after the failure.
    outage_s: f64,
    unavailable: usize,
}

fn cluster(args: &FailoverArgs, command: &[&str]) -> Result<String, String> {
    let out = Command::new(&args.cluster)
        .args(command.iter().take(1))
        .arg(&args.state_dir)
        .args(command.iter().skip(1))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args.cluster.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} {}: {stderr}", args.cluster.display(), command.join(" ")));
    }
    eprint!("{stderr}");
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Seconds from `at_s` to the first write acknowledged whose last attempt was sent after it.
fn writes_back_after(floor: &Floor, at_s: f64) -> Option<f64> {
    floor
        .acks
        .lock()
        .unwrap()
        .iter()
        .filter(|a| a.sent_s > at_s)
        .map(|a| a.answered_s - at_s)
        .reduce(f64::min)
}

fn acks_per_s(floor: &Floor, from_s: f64, to_s: f64) -> f64 {
    let n = floor
        .acks
        .lock()
        .unwrap()
        .iter()
        .filter(|a| a.answered_s >= from_s && a.answered_s < to_s)
        .count();
    n as f64 / (to_s - from_s).max(1e-9)
}

pub fn run(args: FailoverArgs) -> Result<ExitCode, String> {
    if args.instances == 0 || args.bettors == 0 {
        return Err("--instances and --bettors must be at least 1".into());
    }
    cluster(&args, &["healthy", &args.give_up_s.to_string()])?;
    let mut scratch = ScratchPg::create(&args.database_url)?;
    scratch.keep = args.keep_database;
    let db_url = scratch.url.clone();
    eprintln!("scratch database {} on the cluster", scratch.name);
    if args.keep_database {
        println!("database: {}", scratch.name);
    }
    let secrets = Secrets::random();
    let admin_password = format!("drill-{}", rand::thread_rng().gen::<u64>());
    // Reports from a standby while one streams (the URL's hosts, preferring standbys).
    let read_url = db_url.replace("target_session_attrs=read-write", "target_session_attrs=prefer-standby");
    let mut servers = vec![Server::start_with(
        ServerDb::Postgres(scratch),
        &admin_password,
        &secrets,
        Some(&read_url),
    )?];
    for _ in 1..args.instances {
        servers.push(Server::start_with(
            ServerDb::Shared(db_url.clone()),
            &admin_password,
            &secrets,
            Some(&read_url),
        )?);
    }
    let result = drill(&args, &servers, &db_url);
    // The instances sharing the database stop before the one that drops it.
    while let Some(server) = servers.pop() {
        drop(server);
    }
    result
}

fn drill(args: &FailoverArgs, servers: &[Server], db_url: &str) -> Result<ExitCode, String> {
    let owner = &servers[0];
    let casino = Casino::set_up(owner, args.bettors.max(2))?;
    // An auditor's account is made by an operator (a pit boss alone cannot).
    let auditor_password = format!("pw-{}", rand::thread_rng().gen::<u128>());
    owner.operator_creates("drill-auditor", "auditor", &auditor_password)?;
    let auditor = server::login(&load::agent(), owner, "drill-auditor", &auditor_password)?;
    let tables = vec![casino.fresh_table(owner)?, casino.fresh_table(owner)?];
    let floor = Arc::new(Floor::new());
    let client = |i: usize| Client {
        agent: load::agent(),
        base: servers[i % servers.len()].base.clone(),
        floor: floor.clone(),
    };
    let mut threads = Vec::new();
    for (i, player) in casino.players.iter().take(args.bettors).enumerate() {
        let (c, p) = (client(i), player.clone());
        threads.push(std::thread::spawn(move || bettor(c, p, i)));
    }
    {
        let (c, cashier_account, players) = (client(1), casino.cashier.clone(), casino.players.clone());
        threads.push(std::thread::spawn(move || cashier(c, cashier_account, players)));
        let (c, dealer_account, pitboss) = (client(0), casino.dealer.clone(), casino.pitboss.clone());
        let players = casino.players.clone();
        threads.push(std::thread::spawn(move || {
            dealer(c, dealer_account, pitboss, tables, players, 3_000)
        }));
    }

    let steady = Duration::from_secs(args.steady_s);
    std::thread::sleep(steady);
    let before = (floor.now_s() - args.steady_s as f64, floor.now_s());
    let plan: Vec<&'static str> = std::iter::repeat("kill")
        .take(args.kills)
        .chain(std::iter::repeat("freeze").take(args.freezes))
        .chain(std::iter::repeat("standby").take(args.standby_kills))
        .collect();
    let mut failovers = Vec::new();
    let mut failed: Option<String> = None;
    for what in plan {
        let leader_before = cluster(args, &["leader"]).unwrap_or_default();
        let done = match what {
            "kill" => cluster(args, &["kill-primary"]),
            "standby" => cluster(args, &["kill-standby"]),
            _ => cluster(args, &["freeze-primary", "--all"]),
        };
        // The failure has happened once the script returns (it is its last act).
        let at_s = floor.now_s();
        if let Err(e) = done {
            failed = Some(e);
            break;
        }
        let give_up = Instant::now() + Duration::from_secs(args.give_up_s);
        if what == "freeze" {
            // The watchdog's part (deploy/ha/README.md, "A frozen primary"): once
            // another member leads, the frozen one is released, and its Patroni
            // demotes it. Without that, connections to it hang while it is frozen.
            let another_leads =
                || cluster(args, &["leader"]).is_ok_and(|l| !l.trim().is_empty() && l.trim() != leader_before.trim());
            while !another_leads() {
                if Instant::now() > give_up {
                    break;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            cluster(args, &["thaw"])?;
        }
        let outage_s = loop {
            if let Some(s) = writes_back_after(&floor, at_s) {
                break Some(s);
            }
            if Instant::now() > give_up {
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let Some(outage_s) = outage_s else {
            failed = Some(format!("writes were not back {} s after the {what}", args.give_up_s));
            break;
        };
        let back_s = at_s + outage_s;
        let unavailable = floor
            .unavailable_s
            .lock()
            .unwrap()
            .iter()
            .filter(|t| **t >= at_s && **t <= back_s + 1.0)
            .count();
        println!("{what:<6} at {at_s:7.1} s: writes back after {outage_s:5.1} s; {unavailable} answers 503 or none");
        failovers.push(Failover {
            what,
            outage_s,
            unavailable,
        });
        // The next failure only once a synchronous standby is there to take over.
        if let Err(e) = cluster(args, &["healthy", &args.give_up_s.to_string()]) {
            failed = Some(e);
            break;
        }
        std::thread::sleep(steady);
    }
    let after = (floor.now_s() - args.steady_s as f64, floor.now_s());
    floor.stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let checks = check(&floor, servers, &auditor, &casino.pitboss, db_url);
    for (i, server) in servers.iter().enumerate() {
        let log = std::fs::read_to_string(&server.log_path).unwrap_or_default();
        let errors: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
        if let Some(first) = errors.first() {
            println!("instance {i}: {} errors logged; the first: {first}", errors.len());
        }
    }
    report(&floor, &failovers, before, after);
    let mut problems: Vec<String> = failed.into_iter().collect();
    problems.extend(checks.err());
    if problems.is_empty() {
        println!("PASS: every acknowledged wager once, no key applied twice, the ledger and its checkpoints verify, the trial balance is zero, every round ended");
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            println!("FAIL: {p}");
        }
        Ok(ExitCode::FAILURE)
    }
}

fn report(floor: &Floor, failovers: &[Failover], before: (f64, f64), after: (f64, f64)) {
    let acks = floor.acks.lock().unwrap();
    let by_kind = |k: Kind| acks.iter().filter(|a| a.kind == k).count();
    println!(
        "requests sent {} (retries included); acknowledged: {} bets, {} deposits; answers 503 or none: {}",
        floor.requests.load(Ordering::Relaxed),
        by_kind(Kind::Bet),
        by_kind(Kind::Deposit),
        floor.unavailable_s.lock().unwrap().len(),
    );
    for (status, (n, sample)) in floor.other.lock().unwrap().iter() {
        println!("  {n} answers {status}, e.g. {sample}");
    }
    drop(acks);
    let mut outages: Vec<f64> = failovers.iter().map(|f| f.outage_s).collect();
    outages.sort_by(f64::total_cmp);
    for what in ["kill", "freeze", "standby"] {
        let mut of: Vec<f64> = failovers
            .iter()
            .filter(|f| f.what == what)
            .map(|f| f.outage_s)
            .collect();
        if of.is_empty() {
            continue;
        }
        of.sort_by(f64::total_cmp);
        println!(
            "{what}: {} failures, writes unavailable min {:.1} s, median {:.1} s, max {:.1} s; answers 503 or none {}",
            of.len(),
            of[0],
            of[of.len() / 2],
            of[of.len() - 1],
            failovers
                .iter()
                .filter(|f| f.what == what)
                .map(|f| f.unavailable)
                .sum::<usize>(),
        );
    }
    if !outages.is_empty() {
        println!(
            "median write outage over all {} failures: {:.1} s",
            outages.len(),
            outages[outages.len() / 2]
        );
    }
    println!(
        "throughput: {:.1} writes/s in the {:.0} s before the first failure, {:.1} writes/s in the {:.0} s after the last recovery",
        acks_per_s(floor, before.0, before.1),
        before.1 - before.0,
        acks_per_s(floor, after.0, after.1),
        after.1 - after.0
    );
}

/// The drill's checks, each against the database or the service.
fn check(floor: &Floor, servers: &[Server], auditor: &Account, pitboss: &Account, db_url: &str) -> Result<(), String> {
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::Text)]
        key: String,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut problems = Vec::new();
    let mut conn = PgConnection::establish(db_url).map_err(|e| format!("the scratch database: {e}"))?;
    // Every key: how many transfers it moved money with (a bet's stake, a deposit).
    let keys: Vec<String> = floor.keys.lock().unwrap().iter().map(|(_, k)| k.clone()).collect();
    let counted: Vec<Count> = diesel::sql_query(
        "SELECT idempotency_key AS key, count(*) AS n FROM transfers WHERE idempotency_key = ANY($1) GROUP BY 1",
    )
    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(&keys)
    .load(&mut conn)
    .map_err(|e| format!("counting transfers by key: {e}"))?;
    let counted: HashMap<String, i64> = counted.into_iter().map(|c| (c.key, c.n)).collect();
    let twice: Vec<&String> = counted.iter().filter(|(_, n)| **n > 1).map(|(k, _)| k).collect();
    if !twice.is_empty() {
        problems.push(format!(
            "{} keys applied more than once, e.g. {}",
            twice.len(),
            twice[0]
        ));
    }
    let acks = floor.acks.lock().unwrap();
    let missing: Vec<&Ack> = acks.iter().filter(|a| counted.get(&a.key) != Some(&1)).collect();
    if !missing.is_empty() {
        problems.push(format!(
            "{} acknowledged wagers are not in the ledger once, e.g. {} ({:?})",
            missing.len(),
            missing[0].key,
            missing[0].kind
        ));
    }
    let bet_ids: Vec<String> = acks
        .iter()
        .filter(|a| a.kind == Kind::Bet)
        .map(|a| a.id.clone())
        .collect();
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let bets: N = diesel::sql_query("SELECT count(*) AS n FROM bets WHERE id = ANY($1)")
        .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(&bet_ids)
        .get_result(&mut conn)
        .map_err(|e| format!("counting bets: {e}"))?;
    if bets.n as usize != bet_ids.len() {
        problems.push(format!("{} bets acknowledged, {} of them found", bet_ids.len(), bets.n));
    }
    let applied_unacknowledged = counted.len() - acks.iter().filter(|a| counted.contains_key(&a.key)).count();
    println!(
        "keys sent {}; applied {}; acknowledged and applied once {}; applied without an acknowledgement (the client gave up) {}",
        keys.len(),
        counted.len(),
        acks.len() - missing.len(),
        applied_unacknowledged
    );
    drop(acks);

    // Every round ended.
    let client = Client {
        agent: load::agent(),
        base: servers[0].base.clone(),
        floor: Arc::new(Floor::new()),
    };
    let rounds = floor.rounds.lock().unwrap().clone();
    let unended: Vec<String> = rounds
        .iter()
        .filter_map(|r| {
            let status = client
                .get(&format!("/api/v1/rounds/{r}"), &auditor.token)
                .map(|v| v["status"].as_str().unwrap_or_default().to_string());
            (!matches!(status.as_deref(), Some("settled" | "voided"))).then(|| format!("{r} ({status:?})"))
        })
        .collect();
    println!("rounds dealt {}; not ended {}", rounds.len(), unended.len());
    if !unended.is_empty() {
        problems.push(format!("rounds not ended: {}", unended.join(", ")));
    }

    // The floor's report, from a standby.
    let report = client
        .agent
        .get(&format!("{}/api/v1/floor/tables", client.base))
        .header("authorization", &format!("Bearer {}", pitboss.token))
        .call();
    match report {
        Ok(r) if r.status().as_u16() == 200 => {
            let header = |name: &str| {
                r.headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-")
                    .to_string()
            };
            let (from, lag) = (header("djego-read-from"), header("djego-replica-lag-ms"));
            println!("the floor's table report: read from the {from} (replica lag {lag} ms)");
            if from != "replica" {
                problems.push(format!(
                    "the floor's table report was read from the {from}, not a replica"
                ));
            }
        }
        Ok(r) => problems.push(format!("the floor's table report: {}", r.status())),
        Err(e) => problems.push(format!("the floor's table report: {e}")),
    }

    // The trial balance, and a checkpoint signed after everything.
    let balance = client.get("/api/v1/audit/ledger/trial-balance", &auditor.token);
    match balance {
        Some(b) if b["total"] == "0.00" && b["balanced"] == true => println!("trial balance: 0.00"),
        other => problems.push(format!("the trial balance is not zero: {other:?}")),
    }
    let (status, text, _) = client.post(
        "/api/v1/audit/checkpoints",
        &auditor.token,
        "drill-checkpoint",
        &json!({}),
    );
    if status != 201 && status != 200 {
        problems.push(format!("the closing checkpoint: {status} {text}"));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let verified = Command::new(exe)
        .args(["verify", "ledger", "--database-url", db_url])
        .env_remove("DATABASE_URL")
        .output()
        .map_err(|e| format!("cannot run djego verify ledger: {e}"))?;
    let said = String::from_utf8_lossy(&verified.stdout);
    if verified.status.success() {
        println!("djego verify ledger: the chain, the balances and the signed checkpoints verify");
    } else {
        problems.push(format!(
            "djego verify ledger failed: {said}{}",
            String::from_utf8_lossy(&verified.stderr)
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
