//! The `djego` command line, run as a built binary: certify, verify round (transcripts and
//! Lobo contest recalls) and ledger, simulate, solve lobo, serve stopping. (The checkpoint
//! commands and `verify ledger` against a database run in tests/api/checkpoints.rs, on both
//! databases.)
//! Each test is small (a few seconds at most).

use std::path::Path;
use std::process::{Command, Output};

fn djego(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_djego"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run djego")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn vectors() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/verify/test_vectors.json")
}

#[test]
fn certify_shuffle_small_run_passes_and_writes_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let o = djego(&[
        "certify",
        "shuffle",
        "--shuffles",
        "2000",
        "--seed",
        "1",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(text.contains("overall: PASS"), "{text}");
    assert!(
        text.contains("seed 20261122"),
        "the expected distribution's source is named: {text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("certification.json")).unwrap()).unwrap();
    assert_eq!(json["passed"], true);
    assert_eq!(json["shuffles"], 2000);
    assert_eq!(json["seed"], 1);
    assert_eq!(json["tests"].as_array().unwrap().len(), 8);
    assert_eq!(json["expected_first_pass_source"]["seed"], 20261122);
    let report: djego::cards::certify::CertificationReport = serde_json::from_value(json).unwrap();
    assert!(report.passed);
    let txt = std::fs::read_to_string(out.join("certification.txt")).unwrap();
    assert!(txt.contains("position_by_card") && txt.contains("overall: PASS"));
}

#[test]
fn certify_pay_table_house_passes_and_default_fails_naming_the_conto_bets() {
    let o = djego(&["certify", "pay-table", "--house"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("CERTIFIED: every bet within bounds"));

    // The rules' printed 8:1 and 14:1 fail certification (docs/math.md, section 5).
    let o = djego(&["certify", "pay-table", "--default"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("NOT CERTIFIED") && text.contains("failing: conto_alto, conto_bajo"),
        "{text}"
    );

    let o = djego(&["certify", "pay-table", "--default", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let cert: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let failing: Vec<&str> = cert["bets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["pass"] == false)
        .map(|b| b["bet"].as_str().unwrap())
        .collect();
    assert_eq!(failing, ["conto_alto", "conto_bajo"]);
}

#[test]
fn certify_pay_table_reads_a_file_and_rejects_an_unreadable_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("house.json");
    std::fs::write(&file, djego::bets::PayTable::house_table().to_json_pretty()).unwrap();
    let o = djego(&["certify", "pay-table", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let missing = dir.path().join("missing.json");
    let o = djego(&["certify", "pay-table", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn certify_suggest_prints_pays_below_the_target() {
    let o = djego(&[
        "certify", "suggest", "--bet", "prima", "--target", "0.96", "--step", "1",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(
        text.contains("pays         4:1") && text.contains("ace_pays     2:1"),
        "{text}"
    );
    assert!(text.contains("RTP 96.0000%"), "{text}");
}

#[test]
fn verify_round_passes_the_vectors_and_fails_a_corrupted_copy() {
    let o = djego(&["verify", "round", vectors().to_str().unwrap()]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(text.contains("6 of 6 transcripts verified"), "{text}");

    // Swap two dealt cards of the first transcript.
    let mut list: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(vectors()).unwrap()).unwrap();
    let deck = list[0]["deck"].as_array_mut().unwrap();
    deck.swap(3, 4);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("corrupted.json");
    std::fs::write(&bad, serde_json::to_string(&list).unwrap()).unwrap();
    let o = djego(&["verify", "round", bad.to_str().unwrap()]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL deck (first mismatch at 3)"), "{text}");
    assert!(text.contains("5 of 6 transcripts verified"), "{text}");

    // A single transcript (not a list) is accepted too.
    let one = dir.path().join("one.json");
    std::fs::write(&one, serde_json::to_string(&list[1]).unwrap()).unwrap();
    let o = djego(&["verify", "round", one.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).ends_with("VERIFIED\n"));
}

#[test]
fn verify_round_checks_a_lobo_contest_recall_entrant_by_entrant() {
    const CONTEST: &str = "0190f3a2-5b7e-7c1d-9a00-000000000042";
    let recall = djego::rounds::lobo_contests::sample_recall(CONTEST, [0x24; 32], &["north", "", "south"]);
    let doc = serde_json::to_value(&recall).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("contest.json");
    std::fs::write(&good, serde_json::to_string(&doc).unwrap()).unwrap();
    let o = djego(&["verify", "round", good.to_str().unwrap()]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    for n in 1..=3 {
        assert!(text.contains(&format!("PASS entry[{n}].deck")), "{text}");
        assert!(
            text.contains(&format!("PASS entry[{n}].deal: round id \"{CONTEST}/{n}\"")),
            "{text}"
        );
        assert!(text.contains(&format!("PASS entry[{n}].plays")), "{text}");
    }
    assert!(text.ends_with("VERIFIED\n"), "{text}");

    // Entrant 1 shown entrant 3's deck, round id and all: a shuffle that verifies, but not theirs.
    let mut swapped = doc.clone();
    swapped["entrants"][0]["shuffle"] = doc["entrants"][2]["shuffle"].clone();
    // With a round transcript in the same list, each is reported under its own label.
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(vectors()).unwrap()).unwrap();
    let bad = dir.path().join("swapped.json");
    std::fs::write(&bad, serde_json::to_string(&[swapped, vectors[0].clone()]).unwrap()).unwrap();
    let o = djego(&["verify", "round", bad.to_str().unwrap()]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("transcript 1 of 2: lobo_contest round \"{CONTEST}\"")),
        "{text}"
    );
    assert!(text.contains("FAIL entry[1].deal: round id"), "{text}");
    assert!(text.contains("PASS entry[3].deal"), "{text}");
    assert!(text.contains("1 of 2 transcripts verified"), "{text}");

    let o = djego(&["verify", "round", "--json", good.to_str().unwrap()]);
    let items: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(items[0]["game"], "lobo_contest");
    assert_eq!(items[0]["report"]["passed"], true);
}

#[test]
fn verify_round_on_garbage_exits_2_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    for (name, contents) in [
        ("garbage.json", "not json at all {"),
        ("wrong.json", r#"{"hello": "world"}"#),
        ("empty.json", "[]"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, contents).unwrap();
        let o = djego(&["verify", "round", path.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains("error:") && err.contains(name) && !err.contains("panicked"),
            "{name}: {err}"
        );
    }
    let o = djego(&["verify", "round", dir.path().join("absent.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"));
}

#[test]
fn verify_ledger_with_an_unusable_checkpoints_file_or_key_exits_2_naming_it() {
    // The file and the key are read before any database is opened.
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("never-opened.db").display());
    for (name, contents, says) in [
        ("garbage.json", "not json {", "is not valid JSON"),
        (
            "other.json",
            r#"{"format": "something-else", "checkpoints": []}"#,
            "is not \"djego-checkpoints-v1\"",
        ),
        (
            "wrong.json",
            r#"[{"seq": "one"}]"#,
            "does not hold a list of checkpoints",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, contents).unwrap();
        let o = djego(&[
            "verify",
            "ledger",
            "--database-url",
            &db,
            "--checkpoints",
            path.to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains(says), "{name}: {err}");
    }
    let o = djego(&["verify", "ledger", "--database-url", &db, "--public-key", "not-hex"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--public-key not-hex"), "{}", stderr(&o));
    assert!(!dir.path().join("never-opened.db").exists());
}

#[test]
fn simulate_first_pass_prints_the_table_and_writes_the_cache_format() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("n.json");
    let o = djego(&[
        "simulate",
        "first-pass",
        "--deals",
        "20000",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(text.contains("| N | deals | P(N) | 95% CI |"), "{text}");
    assert!(text.contains("| 13 | "), "{text}");
    assert!(text.contains("deals/s"), "{text}");
    let dist: djego::math::NDistribution = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    dist.validate().unwrap();
    assert_eq!((dist.total, dist.seed), (20000, 7));
    // The same run does not depend on the thread count.
    let again = dir.path().join("again.json");
    let o = djego(&[
        "simulate",
        "first-pass",
        "--deals",
        "20000",
        "--seed",
        "7",
        "--threads",
        "1",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&again).unwrap()
    );
}

#[test]
fn simulate_fuerza_prints_its_calibration_by_band() {
    // A small run at the service's 65,536 draws per quote (the debug build deals a few hundred
    // positions in seconds); no reference, which would draw sixteen times as many.
    let o = djego(&[
        "simulate",
        "fuerza",
        "--positions",
        "150",
        "--seed",
        "3",
        "--reference-every",
        "0",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(
        text.contains("| quoted chance | quotes | mean quoted | won | z |"),
        "{text}"
    );
    assert!(text.contains("With decisions pending:"), "{text}");
    assert!(text.contains("calibrated"), "{text}");
    let o = djego(&["simulate", "fuerza", "--positions", "0", "--seed", "3"]);
    assert_ne!(o.status.code(), Some(0));
}

// ---------------------------------------------------------------------------
// djego bench wagers
// ---------------------------------------------------------------------------

/// The `summary <backend> <scenario> clients=<n>:` line of a bench run.
fn bench_summary<'a>(text: &'a str, backend: &str, scenario: &str, clients: usize) -> &'a str {
    let head = format!("summary {backend} {scenario} clients={clients}:");
    text.lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no line {head:?} in:\n{text}"))
}

/// The median of the `min/median/max` figures that follow `label` in `line`.
fn bench_median(line: &str, label: &str) -> f64 {
    let after = line
        .split_once(label)
        .unwrap_or_else(|| panic!("no {label:?} in {line}"))
        .1;
    let figures = after.split_whitespace().next().unwrap_or("").trim_end_matches(';');
    let parts: Vec<f64> = figures
        .split('/')
        .map(|f| f.parse().unwrap_or_else(|_| panic!("{label:?} figures in {line}")))
        .collect();
    assert_eq!(parts.len(), 3, "min/median/max in {line}");
    assert!(parts[0] <= parts[1] && parts[1] <= parts[2], "ordered: {line}");
    parts[1]
}

#[test]
fn bench_wagers_small_sqlite_run_reports_rates_without_errors() {
    let o = djego(&[
        "bench",
        "wagers",
        "--backends",
        "sqlite",
        "--scenarios",
        "bets-one-round,deposits",
        "--clients",
        "2",
        "--seconds",
        "1",
        "--repeats",
        "1",
        "--no-anchor",
        "--no-half-peak",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(text.contains("machine: host ") && text.contains("cores "), "{text}");
    for scenario in ["bets-one-round", "deposits"] {
        let line = bench_summary(&text, "sqlite", scenario, 2);
        assert!(bench_median(line, "djego ") > 0.0, "{line}");
        assert!(line.contains("errors 0;"), "{line}");
        assert!(line.contains("anchor not run"), "{line}");
    }
    assert!(!text.contains("!!!"), "{text}");
}

#[test]
fn bench_wagers_with_the_pgbench_anchor_on_postgres_prints_its_rate_and_the_ratio() {
    use diesel::Connection;
    let url = std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string());
    // Like every PostgreSQL test here: fails, never skips, without a server.
    if let Err(e) = diesel::PgConnection::establish(&url) {
        panic!("PostgreSQL is not reachable at TEST_DATABASE_URL={url}: {e}");
    }
    let o = djego(&[
        "bench",
        "wagers",
        "--database-url",
        &url,
        "--backends",
        "postgres",
        "--scenarios",
        "bets-one-round",
        "--clients",
        "2",
        "--seconds",
        "1",
        "--repeats",
        "1",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(text.contains("server_version ") && text.contains("fsync "), "{text}");
    // The half-peak run, and the anchor paced at the same rate beside it.
    let half = text
        .lines()
        .find(|l| l.starts_with("half-peak postgres bets-one-round clients=2: "))
        .unwrap_or_else(|| panic!("no half-peak line: {text}"));
    let paced = half
        .split_once("; anchor at the same rate (pgbench --rate): ")
        .unwrap_or_else(|| panic!("no paced anchor: {half}"))
        .1;
    let p99 = paced
        .split_once("p99 ")
        .and_then(|(_, rest)| rest.split(" ms").next())
        .and_then(|f| f.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no p99 in {paced}"));
    assert!(
        p99 > 0.0 && (paced.contains("p99 djego/anchor ") || paced.contains("beyond its peak")),
        "{half}"
    );
    let line = bench_summary(&text, "postgres", "bets-one-round", 2);
    assert!(bench_median(line, "djego ") > 0.0, "{line}");
    assert!(bench_median(line, "anchor ") > 0.0, "{line}");
    assert!(bench_median(line, "ratio djego/anchor ") > 0.0, "{line}");
    // What a wager cost each side in CPU, read from /proc (this machine is Linux).
    assert!(
        bench_median(line, "server-side cpu per wager djego/anchor ") > 0.0,
        "{line}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("cpu postgres bets-one-round clients=2 #1: per wager anchor: database ")),
        "{text}"
    );
    assert!(line.contains("errors 0;"), "{line}");
}

#[test]
fn the_floor_day_benchmark_at_a_small_size_reports_its_generated_day() {
    // deploy/floor-day-bench.sh at 500 bets (10 rounds), twice: the command the
    // 1,000,000-bet figure in docs/floor.md comes from.
    let o = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/floor-day-bench.sh"))
        .args(["500", "2"])
        .env("DJEGO", env!("CARGO_BIN_EXE_djego"))
        .env(
            "BENCH_DATABASE_URL",
            std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into()),
        )
        .output()
        .expect("run the floor benchmark");
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    // 10 rounds of 50 bets of 1.00; the house's edge from the certificate, exactly as the report computes it.
    assert!(
        out.contains("the floor's day: 10 rounds, drop 500.00, theo_win "),
        "{out}"
    );
    assert_eq!(
        out.matches("djego report tables").count(),
        3,
        "two runs and the summary: {out}"
    );
    assert!(out.contains("ratio report/anchor min/median/max: "), "{out}");
    assert!(
        out.contains("djego meters catch-up of the whole day: "),
        "the day read into the meters first: {out}"
    );
}

/// `djego serve` stops at SIGTERM without waiting out the graceful-shutdown
/// timeout (30 s) for a live stream, which never ends by itself.
#[cfg(unix)]
#[test]
fn serve_stops_promptly_with_a_live_stream_open() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().expect("temporary directory");
    let mut server = Command::new(env!("CARGO_BIN_EXE_djego"))
        .args(["serve", "--demo", "--bind", "127.0.0.1:0"])
        .current_dir(dir.path())
        .env(
            "DATABASE_URL",
            format!("sqlite://{}", dir.path().join("live.db").display()),
        )
        .env("DJEGO_ADMIN_PASSWORD", "admin-password-for-the-test")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start djego serve");
    let mut lines = BufReader::new(server.stdout.take().expect("stdout"));
    let base = loop {
        let mut line = String::new();
        assert!(
            lines.read_line(&mut line).expect("read stdout") > 0,
            "djego serve ended before listening"
        );
        if let Some(rest) = line.strip_prefix("djego listening on ") {
            break rest.split_whitespace().next().expect("an address").to_string();
        }
    };
    let login = ureq::post(format!("{base}/api/v1/auth/login"))
        .header("content-type", "application/json")
        .send(r#"{"username":"admin","password":"admin-password-for-the-test"}"#)
        .expect("login")
        .body_mut()
        .read_to_string()
        .expect("token");
    let login: serde_json::Value = serde_json::from_str(&login).expect("JSON");
    let token = login["access_token"].as_str().expect("access_token").to_string();
    let tables = ureq::get(format!("{base}/api/v1/tables"))
        .header("authorization", format!("Bearer {token}"))
        .call()
        .expect("tables")
        .body_mut()
        .read_to_string()
        .expect("tables");
    let tables: serde_json::Value = serde_json::from_str(&tables).expect("JSON");
    let table = tables[0]["id"].as_str().expect("a demo table").to_string();

    // A live stream, open until the server ends it.
    let host = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "GET /api/v1/tables/{table}/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n"
    )
    .expect("request");
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("event: state") {
        let n = stream.read(&mut chunk).expect("read the stream");
        assert!(n > 0, "the stream ended early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }

    let asked = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = loop {
        if let Some(status) = server.try_wait().expect("wait") {
            break status;
        }
        if asked.elapsed() > Duration::from_secs(10) {
            let _ = server.kill();
            panic!("djego serve still running 10 s after SIGTERM with a live stream open");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    // The stream was ended, not cut: the response finished.
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
}

// ---------------------------------------------------------------------------
// djego solve lobo
// ---------------------------------------------------------------------------

/// The `json` lines of a `solve lobo` run: (what, limits, value).
fn solve_values(text: &str) -> Vec<(String, serde_json::Value, serde_json::Value)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("json "))
        .map(|j| serde_json::from_str(j).unwrap_or_else(|e| panic!("{e}: {j}")))
        .collect()
}

#[test]
fn solve_lobo_small_runs_print_each_bound_and_the_hint_player() {
    let run = |args: &[&str]| {
        let mut all = vec!["solve", "lobo", "--mode", "easy", "--seed", "1", "--cap", "40"];
        all.extend_from_slice(args);
        let o = djego(&all);
        let text = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {text}{}", stderr(&o));
        assert!(text.contains("peak memory"), "{text}");
        (text.clone(), solve_values(&text))
    };
    let (_, lower) = run(&["--bound", "lower", "--samples", "3"]);
    let (_, upper) = run(&["--bound", "upper", "--penalty", "none", "--samples", "40"]);
    let (_, tiered) = run(&["--bound", "upper", "--penalty", "tiered", "--samples", "2"]);
    assert!(
        tiered[0].0.contains("tiered information penalty on every play"),
        "{tiered:?}"
    );
    let (_, policies) = run(&["--bound", "policies", "--samples", "200"]);
    let (text, hints) = run(&["--bound", "hints", "--samples", "2"]);
    assert!(lower[0].0.starts_with("lower bound"), "{lower:?}");
    assert!(upper[0].0.starts_with("upper bound: clairvoyant"), "{upper:?}");
    assert_eq!(policies.len(), 3, "{policies:?}");
    assert!(text.contains("a player following djego's hints"), "{text}");
    let mean = |v: &(String, serde_json::Value, serde_json::Value)| v.2["mean_points"].as_f64().unwrap();
    // Folding at once pays the Wolf's opening hand: about 18 points in easy mode, capped at 40.
    assert!((-18.5..=-17.0).contains(&mean(&policies[0])), "{policies:?}");
    // Every player's value lies between losing the cap and winning the richest hand.
    for v in lower.iter().chain(&upper).chain(&tiered).chain(&policies).chain(&hints) {
        assert!((-40.0..=60.0).contains(&mean(v)), "{v:?}");
        assert_eq!(v.1["loss_cap_points"], 40, "{v:?}");
    }
    // The hint player is asked once per decision at least.
    assert!(hints[0].2["states"].as_u64().unwrap() > 0, "{hints:?}");
    // Seeded: the same run gives the same figures.
    let (_, again) = run(&["--bound", "hints", "--samples", "2"]);
    assert_eq!(again[0].2["mean_points"], hints[0].2["mean_points"]);
}

#[test]
fn bench_peg_leg_small_run_times_a_quote_after_every_card_against_the_anchor() {
    let o = djego(&[
        "bench",
        "peg-leg",
        "--deals",
        "1",
        "--repeats",
        "1",
        "--samples",
        "300",
        "--anchor-samples",
        "5",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    for dealt in 1..=50 {
        assert!(
            text.contains(&format!("\n| {dealt} | ")),
            "card {dealt} missing: {text}"
        );
    }
    // After the last card the count is known: that quote is exact.
    assert!(text.contains("\n| 50 | 1/1 |"), "{text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("summary:"))
        .expect("a summary line");
    assert!(summary.contains("quote/anchor median over cards"), "{summary}");
    assert!(summary.contains("50 quotes"), "{summary}");
}
