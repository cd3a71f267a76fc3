//! `djego report …`: the floor's reports read straight from the database
//! (docs/floor.md). Reads only: works against a read-only replica.

use std::process::ExitCode;

use djego::config::DatabaseArgs;
use djego::floor::{self, FloorError};
use djego::store::AnyConnection;

use crate::{ReportPlayersArgs, ReportDayArgs};

/// A gaming day's table performance, as JSON or CSV on standard output.
pub fn tables(args: ReportDayArgs) -> Result<ExitCode, String> {
    let report = read(&args.database, |conn| {
        let day = floor::day_or_today(conn, args.gaming_day)?;
        floor::day_report(conn, day)
    })?;
    if args.csv {
        print!("{}", floor::performance::to_csv(&report.gaming_day, &report.lines));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// A gaming day's dealer performance, as JSON or CSV on standard output.
pub fn dealers(args: ReportDayArgs) -> Result<ExitCode, String> {
    let report = read(&args.database, |conn| {
        let day = floor::day_or_today(conn, args.gaming_day)?;
        floor::dealer_report(conn, day)
    })?;
    if args.csv {
        print!("{}", floor::dealer_csv(&report));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// A gaming day's player ratings, as JSON or CSV on standard output.
pub fn players(args: ReportPlayersArgs) -> Result<ExitCode, String> {
    let report = read(&args.database, |conn| {
        let day = floor::day_or_today(conn, args.gaming_day)?;
        floor::rating_report(conn, day, args.player.as_deref())
    })?;
    if args.csv {
        print!("{}", floor::ratings::to_csv(&report.gaming_day, &report.sessions));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

fn read<T>(database: &DatabaseArgs, f: impl FnOnce(&mut AnyConnection) -> Result<T, FloorError>) -> Result<T, String> {
    let db = djego::store::Database::connect(&database.database_url, 2).map_err(|e| e.to_string())?;
    db.read(f).map_err(|e: FloorError| e.to_string())
}

