//! `djego verify …`: the ledger's hash chain against signed checkpoints, and
//! round recalls checked offline.

use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

use djego::cards::transcript::{verify, ShuffleTranscript, VerificationReport};
use djego::checkpoints::{Checkpoint, PublicKey, EXPORT_FORMAT};

use crate::{VerifyLedgerArgs, VerifyRoundArgs};

/// Reads only: works against a read-only replica or a restored backup, and
/// never migrates the database it is asked to check. Prints the report as
/// JSON, and to standard error the keys that signed the checkpoints and each
/// failure in a sentence.
pub fn ledger(args: VerifyLedgerArgs) -> Result<ExitCode, String> {
    let pinned = args
        .public_key
        .iter()
        .map(|k| PublicKey::parse_hex(k).map_err(|e| format!("--public-key {k}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
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
    Ok(if report.ledger.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// An exported checkpoints file, or a JSON list of checkpoints (a saved
/// `GET /api/v1/audit/checkpoints` page).
fn read_checkpoints(path: &Path) -> Result<Vec<Checkpoint>, String> {
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

/// Reads one transcript, a JSON list of them, or an object holding one under
/// `transcript` (as a verification response might). Errors name the file.
pub fn read_transcripts(path: &Path) -> Result<Vec<ShuffleTranscript>, String> {
    let shown = path.display();
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{shown} is not valid JSON: {e}"))?;
    let not_a_transcript =
        |e: serde_json::Error| format!("{shown} is not a shuffle transcript or a JSON list of them: {e}");
    let transcripts = match value {
        serde_json::Value::Array(_) => {
            serde_json::from_value::<Vec<ShuffleTranscript>>(value).map_err(not_a_transcript)?
        }
        serde_json::Value::Object(ref map) if !map.contains_key("algorithm") && map.contains_key("transcript") => {
            vec![serde_json::from_value(map["transcript"].clone()).map_err(not_a_transcript)?]
        }
        other => vec![serde_json::from_value(other).map_err(not_a_transcript)?],
    };
    if transcripts.is_empty() {
        return Err(format!("{shown} holds an empty list: no transcript to verify"));
    }
    Ok(transcripts)
}

pub fn round(args: VerifyRoundArgs) -> Result<ExitCode, String> {
    let transcripts = read_transcripts(&args.transcript)?;
    let reports: Vec<VerificationReport> = transcripts.iter().map(verify).collect();
    let verified = reports.iter().filter(|r| r.passed).count();
    if args.json {
        let items: Vec<serde_json::Value> = transcripts
            .iter()
            .zip(&reports)
            .map(|(t, r)| serde_json::json!({ "game": t.game, "round_id": t.round_id, "report": r }))
            .collect();
        println!("{}", serde_json::to_string_pretty(&items).map_err(|e| e.to_string())?);
    } else {
        for (i, (t, r)) in transcripts.iter().zip(&reports).enumerate() {
            if transcripts.len() > 1 {
                if i > 0 {
                    println!();
                }
                println!(
                    "transcript {} of {}: {} round {:?}",
                    i + 1,
                    transcripts.len(),
                    t.game,
                    t.round_id
                );
            }
            print!("{}", r.to_text());
        }
        if transcripts.len() > 1 {
            println!();
            println!("{verified} of {} transcripts verified", transcripts.len());
        }
    }
    Ok(if verified == reports.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
