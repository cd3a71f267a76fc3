//! `djego report …`: the floor's reports read straight from the database
//! (docs/floor.md). Reads only: works against a read-only replica (the table
//! report reads the minute meters as far as they go, and the rows after them).
//! `djego meters …` writes: it brings those meters up to the ledger.

use std::process::ExitCode;

use djego::config::DatabaseArgs;
use djego::floor::{self, FloorError, Period};
use djego::store::AnyConnection;

use crate::{ReportClosedDayArgs, ReportDayArgs, ReportPeriodArgs, ReportPlayersArgs, ReportPlotsArgs};

/// A gaming day's (or a period's) table performance, as JSON or CSV on standard output.
pub fn tables(args: ReportDayArgs) -> Result<ExitCode, String> {
    let period = period(&args.period)?;
    let report = read(&args.period.database, |conn| {
        let period = floor::period_or_today(conn, period)?;
        floor::day_report(conn, period)
    })?;
    if args.csv {
        let label = floor::period_label(&report.gaming_day, &report.last_gaming_day);
        print!("{}", floor::performance::to_csv(&label, &report.lines));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// A gaming day's (or a period's) dealer performance, as JSON or CSV on standard output.
pub fn dealers(args: ReportDayArgs) -> Result<ExitCode, String> {
    let period = period(&args.period)?;
    let report = read(&args.period.database, |conn| {
        let period = floor::period_or_today(conn, period)?;
        floor::dealer_report(conn, period)
    })?;
    if args.csv {
        print!("{}", floor::dealer_csv(&report));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// A gaming day's (or a period's) player ratings, as JSON or CSV on standard output.
pub fn players(args: ReportPlayersArgs) -> Result<ExitCode, String> {
    let period = period(&args.period)?;
    let report = read(&args.period.database, |conn| {
        let period = floor::period_or_today(conn, period)?;
        floor::rating_report(conn, period, args.player.as_deref())
    })?;
    if args.csv {
        print!("{}", floor::ratings::to_csv(&report.sessions));
    } else {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// A gaming day's closing report, frozen if the day is closed, as JSON or CSV
/// on standard output. A closed day is checked (its `intact`: the stored report
/// against its hash, the `gaming_day_closed` event, a signed checkpoint covering
/// it, and the report recomputed from the ledger); with `--verify`, so are the
/// ledger, the events chain and every checkpoint. Exit 1 when anything does not
/// check, each problem said on standard error.
pub fn day(args: ReportClosedDayArgs) -> Result<ExitCode, String> {
    let pinned = super::verify::pinned_keys(&args.public_key)?;
    let from_file = match &args.checkpoints {
        Some(path) => Some((super::verify::read_checkpoints(path)?, path.display().to_string())),
        None => None,
    };
    let (view, audit) = read(&args.database, |conn| {
        let (list, source) = match &from_file {
            Some((list, path)) => (list.clone(), path.clone()),
            None => (djego::checkpoints::all(conn)?, "database".to_string()),
        };
        let day = floor::day_or_today(conn, args.gaming_day)?;
        let view = floor::close::view_checked(conn, day, &list, &pinned)?;
        let audit = match args.verify {
            true => Some(djego::checkpoints::verify::verify(conn, &list, &source, &pinned)?),
            false => None,
        };
        Ok((view, audit))
    })?;
    if args.csv {
        print!("{}", floor::close::to_csv(&view).map_err(|e| e.to_string())?);
    } else {
        println!("{}", serde_json::to_string_pretty(&view).map_err(|e| e.to_string())?);
    }
    let mut failed = false;
    match &view.close {
        Some(close) if !close.intact => {
            failed = true;
            eprintln!("gaming day {}: NOT INTACT", view.gaming_day);
            for problem in &close.problems {
                eprintln!("FAIL: {problem}");
            }
        }
        Some(close) => eprintln!(
            "gaming day {}: intact; its close is covered by checkpoint {}, signed by key {}",
            view.gaming_day,
            close.checkpoint.map(|c| c.to_string()).unwrap_or_default(),
            close.checkpoint_key_id.as_deref().unwrap_or_default()
        ),
        None if args.verify => eprintln!("gaming day {}: not closed: nothing frozen to check", view.gaming_day),
        None => {}
    }
    if let Some(audit) = audit {
        for key in &audit.checkpoints.keys {
            eprintln!(
                "checkpoints {}: {} signed by key {} (public key {})",
                audit.checkpoints.source, key.checkpoints, key.key_id, key.public_key
            );
        }
        if let Some(b) = &audit.ledger.first_broken_link {
            eprintln!("FAIL: transfer {}: {}", b.seq, b.reason);
        }
        if let Some(b) = &audit.event_chain.first_broken_link {
            eprintln!("FAIL: events chain link {}: {}", b.seq, b.reason);
        }
        for f in &audit.checkpoints.failures {
            eprintln!("FAIL: {}", f.reason);
        }
        failed |= !audit.ledger.ok;
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The plots over a gaming day or a period, written as SVG files; their paths on standard output.
pub fn plots(args: ReportPlotsArgs) -> Result<ExitCode, String> {
    let period = period(&args.period)?;
    let days = read(&args.period.database, |conn| {
        let period = floor::period_or_today(conn, period)?;
        floor::daily_lines(conn, period)
    })?;
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))?;
    for figure in floor::plots::Figure::ALL {
        let svg = floor::plots::svg(figure, &days).map_err(|e| e.to_string())?;
        let path = args.dir.join(format!("{}.svg", figure.name()));
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The period the arguments name; None for the present gaming day.
fn period(args: &ReportPeriodArgs) -> Result<Option<Period>, String> {
    match (args.gaming_day, args.from, args.to) {
        (Some(day), ..) => Ok(Some(Period::day(day))),
        (None, Some(first), Some(last)) => Period::new(first, last).map(Some).map_err(|e| e.to_string()),
        _ => Ok(None),
    }
}

/// `djego meters catch-up | rebuild`: prints the `seq` the meters have read through.
pub fn meters(database: DatabaseArgs, rebuild: bool) -> Result<ExitCode, String> {
    let db = djego::store::Database::connect(&database.database_url, 2).map_err(|e| e.to_string())?;
    let through_seq = if rebuild {
        floor::meters::rebuild(&db)
    } else {
        floor::meters::catch_up(&db)
    }
    .map_err(|e| e.to_string())?;
    println!("the floor's minute meters have read the ledger through transfer {through_seq}");
    Ok(ExitCode::SUCCESS)
}

fn read<T>(database: &DatabaseArgs, f: impl FnOnce(&mut AnyConnection) -> Result<T, FloorError>) -> Result<T, String> {
    let db = djego::store::Database::connect(&database.database_url, 2).map_err(|e| e.to_string())?;
    db.read(f).map_err(|e: FloorError| e.to_string())
}
