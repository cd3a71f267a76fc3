//! `djego bench wagers`: the wager write path over HTTP (bets on one round,
//! bets on many rounds, cage deposits) measured on a real `djego serve`,
//! alternated run by run with a pgbench anchor on the same PostgreSQL server,
//! so that on a shared, noisy machine the ratio djego/anchor within one run is
//! what counts (docs/performance.md). Progress goes to stderr, results to stdout.

mod anchor;
mod cpu;
mod failover;
mod load;
mod peg_leg;
mod server;
mod verify;

pub use failover::{run as failover, FailoverArgs};
pub use peg_leg::{run as peg_leg, PegLegBenchArgs};
pub use verify::{run as verify, VerifyBenchArgs};

use clap::{Args, ValueEnum};
use diesel::prelude::*;
use serde_json::json;
use statrs::statistics::{Data, Max, Median, Min};
use std::process::ExitCode;
use std::time::Duration;

use anchor::{Anchor, AnchorResult};
use cpu::Cost;
use load::{Pace, RunResult, Target};
use server::{Casino, ScratchPg, Server, ServerDb};

pub const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchBackend {
    Postgres,
    Sqlite,
}

impl BenchBackend {
    fn name(self) -> &'static str {
        match self {
            BenchBackend::Postgres => "postgres",
            BenchBackend::Sqlite => "sqlite",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Scenario {
    /// Every client bets on the same round.
    BetsOneRound,
    /// Each client bets on a round of its own (one table each).
    BetsManyRounds,
    /// Cashier deposits, each client to its own player.
    Deposits,
}

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Scenario::BetsOneRound => "bets-one-round",
            Scenario::BetsManyRounds => "bets-many-rounds",
            Scenario::Deposits => "deposits",
        }
    }
}

#[derive(Args, Debug)]
pub struct WagersArgs {
    /// PostgreSQL admin URL, used to create and drop the scratch databases (djego's and the anchor's).
    #[arg(long, default_value = DEFAULT_ADMIN_URL)]
    pub database_url: String,
    /// The djego backends to measure.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "postgres,sqlite")]
    pub backends: Vec<BenchBackend>,
    /// The scenarios to run.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "bets-one-round,bets-many-rounds,deposits"
    )]
    pub scenarios: Vec<Scenario>,
    /// Concurrent clients (each a distinct player on its own connection), one set of runs per count.
    #[arg(long, value_delimiter = ',', default_value = "16,64")]
    pub clients: Vec<usize>,
    /// Length of each measured run, in seconds.
    #[arg(long, default_value_t = 5)]
    pub seconds: u64,
    /// Paired runs per scenario and client count (anchor, djego, anchor, djego, …).
    #[arg(long, default_value_t = 2)]
    pub repeats: usize,
    /// Skip the pgbench anchor (no ratios).
    #[arg(long)]
    pub no_anchor: bool,
    /// After the peak runs, an open-loop run at half the median peak rate (the default).
    #[arg(long, overrides_with = "no_half_peak")]
    pub half_peak: bool,
    /// Skip the half-peak run.
    #[arg(long, overrides_with = "half_peak")]
    pub no_half_peak: bool,
    /// Every player sets daily limits on deposits, losses and stakes and a day's session limit
    /// first (never reached), so each wager is checked against their running totals and session:
    /// compare with a run without.
    #[arg(long)]
    pub limits: bool,
}

/// One anchor + djego pair.
struct Pair {
    anchor: Option<AnchorResult>,
    djego: RunResult,
    /// CPU time per request: the database's, djego's and the load generator's.
    djego_cpu: Option<Cost>,
}

pub fn wagers(args: WagersArgs) -> Result<ExitCode, String> {
    if args.backends.is_empty() || args.scenarios.is_empty() || args.clients.is_empty() {
        return Err("--backends, --scenarios and --clients must not be empty".into());
    }
    if args.clients.contains(&0) || args.seconds == 0 || args.repeats == 0 {
        return Err("--clients, --seconds and --repeats must be positive".into());
    }
    let half_peak = !args.no_half_peak;
    let max_clients = *args.clients.iter().max().expect("not empty");
    let uses_postgres = !args.no_anchor || args.backends.contains(&BenchBackend::Postgres);

    println!("djego bench wagers");
    print_machine_facts(&args, uses_postgres)?;
    println!(
        "settings: backends {} | scenarios {} | clients {} | {} s per run | {} repeat(s) | anchor {} | half-peak {} \
         | player limits {}",
        args.backends.iter().map(|b| b.name()).collect::<Vec<_>>().join(","),
        args.scenarios.iter().map(|s| s.name()).collect::<Vec<_>>().join(","),
        args.clients.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
        args.seconds,
        args.repeats,
        if args.no_anchor { "off" } else { "pgbench" },
        if half_peak { "on" } else { "off" },
        if args.limits { "on" } else { "off" },
    );

    let mut anchor = if args.no_anchor {
        None
    } else {
        eprintln!("preparing the pgbench anchor…");
        let a = Anchor::prepare(&args.database_url, max_clients)?;
        eprintln!("anchor database {}", a.database_name());
        Some(a)
    };

    let window = Duration::from_secs(args.seconds);
    let mut total_errors = 0u64;
    let mut summaries = Vec::new();
    for &backend in &args.backends {
        eprintln!("starting djego serve on a fresh {} database…", backend.name());
        let db = match backend {
            BenchBackend::Sqlite => ServerDb::Sqlite(
                tempfile::Builder::new()
                    .prefix("djego-bench-sqlite-")
                    .tempdir()
                    .map_err(|e| format!("cannot create a temporary directory: {e}"))?,
            ),
            BenchBackend::Postgres => ServerDb::Postgres(ScratchPg::create(&args.database_url)?),
        };
        let server = Server::start(db)?;
        eprintln!("djego ready at {} (log {})", server.base, server.log_path.display());
        eprintln!("setting up staff and {max_clients} funded players over the API…");
        let casino = Casino::set_up(&server, max_clients).map_err(|e| format!("{e}\n{}", server.log_tail()))?;
        if args.limits {
            eprintln!("every player sets daily limits on deposits, losses and stakes, and a session limit…");
            casino
                .set_limits(&server)
                .map_err(|e| format!("{e}\n{}", server.log_tail()))?;
        }

        for &scenario in &args.scenarios {
            for &clients in &args.clients {
                let mut pairs = Vec::new();
                for repeat in 1..=args.repeats {
                    let anchor_result = match anchor.as_mut() {
                        Some(a) => {
                            eprintln!("[{} {} c={clients} #{repeat}] anchor…", backend.name(), scenario.name());
                            Some(a.run(clients, args.seconds)?)
                        }
                        None => None,
                    };
                    eprintln!("[{} {} c={clients} #{repeat}] djego…", backend.name(), scenario.name());
                    let targets = targets(&server, &casino, scenario, clients)?;
                    let tag = format!("{}-{}-{clients}-{repeat}", backend.name(), scenario.name());
                    let before = cpu::snapshot(Some(server.pid()));
                    let djego = load::run(&targets, window, Pace::Closed, &tag, &server.url("/health"));
                    let djego_cpu = before
                        .zip(cpu::snapshot(Some(server.pid())))
                        .and_then(|(before, after)| before.cost(&after, djego.completed, false));
                    let pair = Pair {
                        anchor: anchor_result,
                        djego,
                        djego_cpu,
                    };
                    print_run(backend, scenario, clients, repeat, &pair);
                    total_errors += pair.djego.errors;
                    pairs.push(pair);
                }
                let summary = summary_line(backend, scenario, clients, &pairs);
                println!("{summary}");
                summaries.push(summary);

                if half_peak {
                    let rates = Data::new(pairs.iter().map(|p| p.djego.rate()).collect::<Vec<_>>());
                    let rate = rates.median() / 2.0;
                    if rate > 0.0 {
                        eprintln!(
                            "[{} {} c={clients}] half peak: open loop at {rate:.1} req/s…",
                            backend.name(),
                            scenario.name()
                        );
                        // The anchor at the same rate first (A, then B): what this machine's
                        // disk and PostgreSQL give a minimal wager's latency at that load.
                        let anchor_paced = match anchor.as_mut() {
                            Some(a) => Some(a.run_at_rate(clients, args.seconds, rate)?),
                            None => None,
                        };
                        let targets = targets(&server, &casino, scenario, clients)?;
                        let tag = format!("{}-{}-{clients}-half", backend.name(), scenario.name());
                        let server_before = server.post_latency();
                        let r = load::run(
                            &targets,
                            window,
                            Pace::Open { total_rate: rate },
                            &tag,
                            &server.url("/health"),
                        );
                        total_errors += r.errors;
                        let server_side = match (server_before, server.post_latency()) {
                            (Some(before), Some(after)) => after.since(&before).describe(),
                            _ => "server side: /metrics not read".into(),
                        };
                        let (lag_p99, lag_max) = r.send_lag_p99_max_ms();
                        let anchor_line = match &anchor_paced {
                            // Past the anchor's own peak its queue grows for the whole run: its
                            // latency then says nothing of the disk's.
                            Some(a) if a.tps < 0.95 * rate => format!(
                                "; anchor at the same rate (pgbench --rate): {:.1} tx/s, beyond its peak \
                                 (p99 {:.2} ms, its queue growing)",
                                a.tps, a.p99_ms
                            ),
                            Some(a) => format!(
                                "; anchor at the same rate (pgbench --rate): {:.1} tx/s, p50 {:.2} ms, \
                                 p99 {:.2} ms (from scheduled start), p99 djego/anchor {:.2}",
                                a.tps,
                                a.p50_ms,
                                a.p99_ms,
                                r.p99_ms() / a.p99_ms.max(1e-9)
                            ),
                            None => String::new(),
                        };
                        let line = format!(
                            "half-peak {} {} clients={clients}: target {rate:.1} req/s, sent {} of {} scheduled, \
                             achieved {:.1} req/s, p50 {:.2} ms, p99 {:.2} ms (from scheduled send), errors {}{}; \
                             {server_side}; load generator's own lateness p99 {lag_p99:.2} ms, max {lag_max:.2} ms\
                             {anchor_line}",
                            backend.name(),
                            scenario.name(),
                            r.completed,
                            r.scheduled,
                            r.rate(),
                            r.p50_ms(),
                            r.p99_ms(),
                            r.errors,
                            loud_errors(&r),
                        );
                        println!("{line}");
                        summaries.push(line);
                    }
                }
            }
        }
        drop(server);
    }
    drop(anchor);

    if summaries.len() > 1 {
        println!("--- summary ---");
        for s in &summaries {
            println!("{s}");
        }
    }
    if total_errors > 0 {
        println!("!!! {total_errors} REQUEST(S) FAILED (non-2xx or transport errors): these figures are not valid !!!");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// One request per client for the scenario, on fresh rounds for bets.
fn targets(server: &Server, casino: &Casino, scenario: Scenario, clients: usize) -> Result<Vec<Target>, String> {
    let bet = json!({ "kind": "prima", "suit": "cups", "amount": "1.00" }).to_string();
    let players = &casino.players[..clients];
    Ok(match scenario {
        Scenario::BetsOneRound => {
            let round = casino.fresh_rounds(server, 1)?.remove(0);
            players
                .iter()
                .map(|p| Target {
                    url: server.url(&format!("/api/v1/rounds/{round}/bets")),
                    token: p.token.clone(),
                    body: bet.clone(),
                })
                .collect()
        }
        Scenario::BetsManyRounds => {
            let rounds = casino.fresh_rounds(server, clients)?;
            players
                .iter()
                .zip(rounds)
                .map(|(p, round)| Target {
                    url: server.url(&format!("/api/v1/rounds/{round}/bets")),
                    token: p.token.clone(),
                    body: bet.clone(),
                })
                .collect()
        }
        Scenario::Deposits => players
            .iter()
            .map(|p| Target {
                url: server.url("/api/v1/cage/deposits"),
                token: casino.cashier.token.clone(),
                body: json!({ "player_id": p.id, "amount": "1.00" }).to_string(),
            })
            .collect(),
    })
}

fn loud_errors(r: &RunResult) -> String {
    if r.errors == 0 {
        String::new()
    } else {
        format!("  !!! ERRORS: {}", r.describe_errors())
    }
}

fn print_run(backend: BenchBackend, scenario: Scenario, clients: usize, repeat: usize, pair: &Pair) {
    let anchor = match &pair.anchor {
        Some(a) => format!(
            "anchor {:.1} tx/s p50 {:.2} ms p99 {:.2} ms{}",
            a.tps,
            a.p50_ms,
            a.p99_ms,
            if a.failed > 0 {
                format!(" ({} failed)", a.failed)
            } else {
                String::new()
            }
        ),
        None => "anchor -".to_string(),
    };
    let d = &pair.djego;
    let (lo, hi) = d.per_second_min_max();
    let ratio = match &pair.anchor {
        Some(a) if a.tps > 0.0 => format!("{:.3}", d.rate() / a.tps),
        _ => "-".to_string(),
    };
    println!(
        "run {} {} clients={clients} #{repeat}: {anchor} | djego {:.1} req/s p50 {:.2} ms p99 {:.2} ms, \
         per-second min {lo} max {hi} req/s, errors {} | ratio {ratio}{}",
        backend.name(),
        scenario.name(),
        d.rate(),
        d.p50_ms(),
        d.p99_ms(),
        d.errors,
        loud_errors(d),
    );
    if d.errors > 0 {
        eprintln!("!!! {} failed requests in this run: {}", d.errors, d.describe_errors());
    }
    if let Some(line) = cpu_line(pair) {
        println!(
            "cpu {} {} clients={clients} #{repeat}: {line}",
            backend.name(),
            scenario.name()
        );
    }
}

/// CPU time per wager in one pair, and the server side's djego/anchor: the
/// database's for the anchor, djego's and the database's for djego (on SQLite
/// the database is inside djego).
fn cpu_line(pair: &Pair) -> Option<String> {
    let anchor = pair.anchor.as_ref().and_then(|a| a.cpu);
    let djego = pair.djego_cpu;
    if anchor.is_none() && djego.is_none() {
        return None;
    }
    let anchor_text = anchor.map_or("anchor -".to_string(), |c| {
        format!(
            "anchor: database {:.0} µs, pgbench {:.0} µs",
            c.database_us, c.client_us
        )
    });
    let djego_text = djego.map_or("djego -".to_string(), |c| {
        format!(
            "djego: database {:.0} µs, djego {:.0} µs, load generator {:.0} µs",
            c.database_us, c.server_us, c.client_us
        )
    });
    let ratio = match (anchor, djego) {
        (Some(a), Some(d)) if a.database_us > 0.0 => format!("{:.3}", server_side_ratio(&a, &d)),
        _ => "-".to_string(),
    };
    Some(format!(
        "per wager {anchor_text} | {djego_text} | server-side cpu djego/anchor {ratio}"
    ))
}

fn server_side_ratio(anchor: &Cost, djego: &Cost) -> f64 {
    (djego.database_us + djego.server_us) / anchor.database_us
}

/// min/median/max of `values`, formatted.
fn spread(values: Vec<f64>, digits: usize) -> String {
    let data = Data::new(values);
    format!(
        "{:.digits$}/{:.digits$}/{:.digits$}",
        data.min(),
        data.median(),
        data.max()
    )
}

fn summary_line(backend: BenchBackend, scenario: Scenario, clients: usize, pairs: &[Pair]) -> String {
    let rates: Vec<f64> = pairs.iter().map(|p| p.djego.rate()).collect();
    // The median run by rate (the lower middle one for an even count).
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| rates[a].total_cmp(&rates[b]));
    let median_run = &pairs[order[(order.len() - 1) / 2]].djego;
    let errors: u64 = pairs.iter().map(|p| p.djego.errors).sum();
    let anchors: Vec<f64> = pairs.iter().filter_map(|p| p.anchor.as_ref().map(|a| a.tps)).collect();
    let (anchor, ratio) = if anchors.len() == pairs.len() {
        let ratios = pairs
            .iter()
            .map(|p| p.djego.rate() / p.anchor.as_ref().map_or(f64::NAN, |a| a.tps))
            .collect();
        (
            format!("anchor {} tx/s", spread(anchors, 1)),
            format!("ratio djego/anchor {}", spread(ratios, 3)),
        )
    } else {
        ("anchor not run".to_string(), "ratio -".to_string())
    };
    let cpu_ratios: Vec<f64> = pairs
        .iter()
        .filter_map(|p| {
            let a = p.anchor.as_ref()?.cpu?;
            let d = p.djego_cpu?;
            (a.database_us > 0.0).then(|| server_side_ratio(&a, &d))
        })
        .collect();
    let cpu = if cpu_ratios.len() == pairs.len() {
        format!("; server-side cpu per wager djego/anchor {}", spread(cpu_ratios, 3))
    } else {
        String::new()
    };
    format!(
        "summary {} {} clients={clients}: djego {} req/s (min/median/max), p50 {:.2} ms, p99 {:.2} ms (median run), \
         errors {errors}; {anchor}; {ratio}{cpu}{}",
        backend.name(),
        scenario.name(),
        spread(rates, 1),
        median_run.p50_ms(),
        median_run.p99_ms(),
        if errors > 0 { "  !!! RUNS HAD ERRORS" } else { "" },
    )
}

#[derive(QueryableByName)]
struct SettingRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    value: String,
}

fn print_machine_facts(args: &WagersArgs, uses_postgres: bool) -> Result<(), String> {
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("machine: host {hostname} | cores {cores} | cpu {cpu}");
    println!(
        "djego: version {} | serve defaults: one HTTP worker per core, 16 pooled database connections",
        env!("CARGO_PKG_VERSION")
    );
    if uses_postgres {
        let mut conn = server::admin_connection(&args.database_url)?;
        let mut setting = |name: &str| -> Result<String, String> {
            diesel::sql_query(format!("SELECT current_setting('{name}') AS value"))
                .get_result::<SettingRow>(&mut conn)
                .map(|r| r.value)
                .map_err(|e| format!("cannot read {name}: {e}"))
        };
        println!(
            "postgresql: {} | server_version {} | fsync {} | synchronous_commit {}",
            server::redact(&args.database_url),
            setting("server_version")?,
            setting("fsync")?,
            setting("synchronous_commit")?,
        );
    } else {
        println!("postgresql: not used");
    }
    Ok(())
}
