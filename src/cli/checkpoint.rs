//! `djego checkpoint take`, `export` and `public-key`.

use std::process::ExitCode;

use djego::checkpoints::{self, CheckpointsFile, Trigger};
use djego::store::{now_us, Database};

use crate::{CheckpointExportArgs, CheckpointTakeArgs};

pub fn take(args: CheckpointTakeArgs) -> Result<ExitCode, String> {
    let key = args.key.resolve(&args.database.database_url)?;
    let db = super::serve::open_db(&args.database)?;
    let checkpoint = db
        .write(|conn| checkpoints::take(conn, &key, None, Trigger::Command))
        .map_err(|e| e.to_string())?;
    println!(
        "{}",
        serde_json::to_string_pretty(&checkpoint.view()).map_err(|e| e.to_string())?
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints `key_id public_key`: the line the casino publishes for players and auditors to pin.
pub fn public_key(args: CheckpointTakeArgs) -> Result<ExitCode, String> {
    let public = args.key.resolve(&args.database.database_url)?.public_key();
    println!("{} {}", public.key_id(), public.to_hex());
    Ok(ExitCode::SUCCESS)
}

/// Reads only: works against a read-only replica.
pub fn export(args: CheckpointExportArgs) -> Result<ExitCode, String> {
    let db = Database::connect(&args.database.database_url, 2).map_err(|e| e.to_string())?;
    let all = db
        .read(|conn| checkpoints::all(conn).map_err(djego::store::StoreError::from))
        .map_err(|e| e.to_string())?;
    let file = CheckpointsFile {
        format: checkpoints::EXPORT_FORMAT.to_string(),
        exported_at_us: now_us(),
        checkpoints: all.iter().map(|c| c.view()).collect(),
    };
    let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
    std::fs::write(&args.out, text + "\n").map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    let mut keys: Vec<&str> = all.iter().map(|c| c.key_id.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    match (all.first(), all.last()) {
        (Some(first), Some(last)) => println!(
            "exported checkpoints {} to {} (ledger seq {}, events seq {}) to {}, signed by key {}",
            first.seq,
            last.seq,
            last.ledger_seq,
            last.events_seq,
            args.out.display(),
            keys.join(", ")
        ),
        _ => println!("no checkpoint yet: exported an empty list to {}", args.out.display()),
    }
    Ok(ExitCode::SUCCESS)
}
