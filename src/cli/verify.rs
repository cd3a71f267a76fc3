//! `djego verify …`: the ledger's hash chain against signed checkpoints, and
//! round recalls checked offline.

use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

use djego::cards::transcript::VerificationReport;
use djego::checkpoints::{Checkpoint, PublicKey, EXPORT_FORMAT};
use djego::rounds::{lobo_contests, peg_leg};
use djego::transcript::ledger_proof::ProofPolicy;
use djego::transcript::{verify, verify_document_with, verify_text, RoundTranscript};

use crate::{VerifyLedgerArgs, VerifyRoundArgs, VerifyRoundsArgs};

/// Reads only: works against a read-only replica or a restored backup, and
/// never migrates the database it is asked to check. Prints the report as
/// JSON, and to standard error the keys that signed the checkpoints and each
/// failure in a sentence.
pub fn ledger(args: VerifyLedgerArgs) -> Result<ExitCode, String> {
    let pinned = pinned_keys(&args.public_key)?;
    let from_file = match &args.checkpoints {
        Some(path) => Some((read_checkpoints(path)?, path.display().to_string())),
        None => None,
    };
    let db = djego::store::Database::connect(&args.database.database_url, 2).map_err(|e| e.to_string())?;
    let report = db
        .read(|conn| {
            let (list, source) = match &from_file {
                Some((list, path)) => (list.clone(), path.clone()),
                None => (djego::checkpoints::all(conn)?, "database".to_string()),
            };
            djego::checkpoints::verify::verify(conn, &list, &source, &pinned).map_err(djego::store::StoreError::from)
        })
        .map_err(|e| e.to_string())?;
    println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    let checked = &report.checkpoints;
    for key in &checked.keys {
        eprintln!(
            "checkpoints {}: {} signed by key {} (public key {})",
            checked.source, key.checkpoints, key.key_id, key.public_key
        );
    }
    if let Some(b) = &report.ledger.first_broken_link {
        eprintln!("FAIL: transfer {}: {}", b.seq, b.reason);
    }
    if let Some(b) = &report.event_chain.first_broken_link {
        eprintln!("FAIL: events chain link {}: {}", b.seq, b.reason);
    }
    for f in &checked.failures {
        eprintln!("FAIL: {}", f.reason);
    }
    for f in &report.bookings.failures {
        eprintln!("FAIL: {}", f.reason);
    }
    Ok(if report.ledger.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The `--public-key` arguments.
pub(crate) fn pinned_keys(hex: &[String]) -> Result<Vec<PublicKey>, String> {
    hex.iter()
        .map(|k| PublicKey::parse_hex(k).map_err(|e| format!("--public-key {k}: {e}")))
        .collect()
}

/// An exported checkpoints file, or a JSON list of checkpoints (a saved
/// `GET /api/v1/audit/checkpoints` page).
pub(crate) fn read_checkpoints(path: &Path) -> Result<Vec<Checkpoint>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{shown} is not valid JSON: {e}"))?;
    let list = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut map) => {
            match map.get("format").and_then(|f| f.as_str()) {
                Some(EXPORT_FORMAT) => {}
                other => return Err(format!("{shown}: format {other:?} is not {EXPORT_FORMAT:?}")),
            }
            map.remove("checkpoints").unwrap_or_default()
        }
        _ => return Err(format!("{shown} is not a checkpoints file")),
    };
    serde_json::from_value(list).map_err(|e| format!("{shown} does not hold a list of checkpoints: {e}"))
}

/// The file's text ("-": standard input).
fn read_text(path: &Path) -> Result<String, String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }
}

/// The documents of a file: one JSON document (a transcript, a response
/// holding one, a Lobo contest's recall, or a list of these), or JSON Lines.
pub fn read_documents(path: &Path) -> Result<Vec<serde_json::Value>, String> {
    let shown = path.display();
    let text = read_text(path)?;
    let docs = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Array(list)) => list,
        Ok(one) => vec![one],
        Err(whole) => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .map_err(|e| format!("{shown} is neither JSON ({whole}) nor JSON Lines (line {}: {e})", i + 1))
            })
            .collect::<Result<Vec<_>, String>>()?,
    };
    if docs.is_empty() {
        return Err(format!("{shown} holds no transcript to verify"));
    }
    // A transcript of either version names its version or its algorithm, a contest's recall
    // holds its contest and entrants, a Peg Leg recall its quotes and shuffle; anything else
    // is the wrong file, not a round that fails to verify.
    let looks_like_one = |d: &serde_json::Value| {
        let t = d.get("transcript").filter(|t| t.is_object()).unwrap_or(d);
        t.get("version").is_some()
            || t.get("algorithm").is_some()
            || lobo_contests::is_recall_document(d)
            || peg_leg::is_recall_document(d)
    };
    if let Some(i) = docs.iter().position(|d| !looks_like_one(d)) {
        return Err(format!(
            "{shown}: document {} is not a round transcript (docs/transcript.md)",
            i + 1
        ));
    }
    Ok(docs)
}

/// What a document says it is, for the report.
fn label(doc: &serde_json::Value) -> (String, String) {
    if lobo_contests::is_recall_document(doc) {
        let id = doc["contest"].get("id").and_then(|v| v.as_str()).unwrap_or("?");
        return ("lobo_contest".to_owned(), id.to_owned());
    }
    if peg_leg::is_recall_document(doc) {
        let id = doc["round"].get("id").and_then(|v| v.as_str()).unwrap_or("?");
        return ("peg_leg".to_owned(), id.to_owned());
    }
    let t = doc.get("transcript").filter(|t| t.is_object()).unwrap_or(doc);
    let field = |k: &str| t.get(k).and_then(|v| v.as_str()).unwrap_or("?").to_owned();
    (field("game"), field("round_id"))
}

/// Verifies any document `read_documents` accepts, by what it is.
fn verify_any(doc: &serde_json::Value, policy: &ProofPolicy) -> VerificationReport {
    if lobo_contests::is_recall_document(doc) {
        lobo_contests::verify_recall_document(doc, policy)
    } else if peg_leg::is_recall_document(doc) {
        peg_leg::verify_recall_document(doc, policy)
    } else {
        verify_document_with(doc, policy)
    }
}

/// One line of an export: a round's transcript read straight into its types
/// (the bulk of any export, and the fast path), else any other document.
fn verify_line(line: &str) -> VerificationReport {
    match serde_json::from_str::<RoundTranscript>(line) {
        Ok(t) => verify(&t),
        Err(_) => match serde_json::from_str::<serde_json::Value>(line) {
            Ok(doc) => verify_any(&doc, &ProofPolicy::default()),
            Err(_) => verify_text(line),
        },
    }
}

pub fn round(args: VerifyRoundArgs) -> Result<ExitCode, String> {
    let docs = read_documents(&args.transcript)?;
    // A pinned key: the document must prove its transfers against a head that key signed.
    let policy = ProofPolicy::pinned(pinned_keys(&args.public_key)?);
    let reports: Vec<VerificationReport> = docs.iter().map(|d| verify_any(d, &policy)).collect();
    let verified = reports.iter().filter(|r| r.passed).count();
    if args.json {
        let items: Vec<serde_json::Value> = docs
            .iter()
            .zip(&reports)
            .map(|(d, r)| {
                let (game, round_id) = label(d);
                serde_json::json!({ "game": game, "round_id": round_id, "report": r })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&items).map_err(|e| e.to_string())?);
    } else {
        for (i, (d, r)) in docs.iter().zip(&reports).enumerate() {
            if docs.len() > 1 {
                if i > 0 {
                    println!();
                }
                let (game, round_id) = label(d);
                println!("transcript {} of {}: {game} round {round_id:?}", i + 1, docs.len());
            }
            print!("{}", r.to_text());
        }
        if docs.len() > 1 {
            println!();
            println!("{verified} of {} transcripts verified", docs.len());
        }
    }
    Ok(if verified == reports.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Verifies a JSON Lines export (`GET /api/v1/audit/transcripts`) line by
/// line, streaming (an export of any size in constant memory): prints each
/// failure with its first failed check, then the count and the rate.
pub fn rounds(args: VerifyRoundsArgs) -> Result<ExitCode, String> {
    let shown = args.file.display();
    let mut input: Box<dyn std::io::BufRead> = if args.file.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(&args.file).map_err(|e| format!("cannot read {shown}: {e}"))?;
        Box::new(std::io::BufReader::with_capacity(1 << 20, file))
    };
    let started = std::time::Instant::now();
    let (mut total, mut failed) = (0usize, 0usize);
    let mut line = String::new();
    for i in 0.. {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read {shown} at line {}: {e}", i + 1)),
        }
        if line.trim().is_empty() {
            continue;
        }
        total += 1;
        let report = verify_line(&line);
        if !report.passed {
            failed += 1;
            let c = report
                .checks
                .iter()
                .find(|c| !c.passed)
                .expect("a failed report has a failed check");
            let (game, round_id) = serde_json::from_str::<serde_json::Value>(&line)
                .map(|d| label(&d))
                .unwrap_or_else(|_| ("?".into(), "?".into()));
            println!("line {}: {game} round {round_id}: FAIL {}: {}", i + 1, c.name, c.detail);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if total == 0 {
        return Err(format!("{shown} holds no transcript to verify"));
    }
    println!(
        "{} of {total} rounds verified, {failed} failed; {seconds:.3} s, {:.0} rounds/s on one core",
        total - failed,
        total as f64 / seconds.max(1e-9)
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
