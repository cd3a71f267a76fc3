//! `djego report …`: the floor's reports read straight from the database
//! (docs/floor.md). Reads only: works against a read-only replica.

use std::process::ExitCode;

use djego::floor;

use crate::ReportTablesArgs;

/// A gaming day's table performance, as JSON or CSV on standard output.
pub fn tables(args: ReportTablesArgs) -> Result<ExitCode, String> {
    let db = djego::store::Database::connect(&args.database.database_url, 2).map_err(|e| e.to_string())?;
    let report = db
        .read(|conn| {
            let day = match args.gaming_day {
                Some(day) => day,
                None => floor::calendar(conn)?.place(chrono::Utc::now()).gaming_day,
            };
            floor::day_report(conn, day)
        })
        .map_err(|e: floor::FloorError| e.to_string())?;
    if args.csv {
        print!("{}", floor::performance::to_csv(&report.gaming_day, &report.lines));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}
