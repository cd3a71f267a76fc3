//! `djego bench verify`: the bulk round replay (`djego verify rounds`) on
//! random rounds of every kind, against an anchor measured in the same run:
//! parsing the same JSON Lines into untyped JSON values and nothing else.

use clap::Args;
use std::process::ExitCode;
use std::time::Instant;

use djego::transcript::{sample::sample_round, verify_text};

#[derive(Args)]
pub struct VerifyBenchArgs {
    /// Rounds in the sample (transcripts as exported, without events).
    #[arg(long, default_value_t = 50_000)]
    pub rounds: u64,
    /// Alternated runs of the anchor and the replay.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Also write the sample as JSON Lines (for `djego verify rounds FILE`).
    #[arg(long, value_name = "FILE")]
    pub write: Option<std::path::PathBuf>,
}

pub fn run(args: VerifyBenchArgs) -> Result<ExitCode, String> {
    if args.rounds == 0 || args.repeats == 0 {
        return Err("--rounds and --repeats must be at least 1".into());
    }
    let lines: Vec<String> = (0..args.rounds)
        .map(|seed| {
            let mut t = sample_round(seed);
            t.events = None;
            t.deal_out_events = None;
            serde_json::to_string(&t).expect("transcripts serialise")
        })
        .collect();
    let bytes: usize = lines.iter().map(String::len).sum();
    if let Some(path) = &args.write {
        std::fs::write(path, lines.join("\n") + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!(
        "{} rounds, {:.0} bytes per transcript on average; {} alternated runs, one core",
        lines.len(),
        bytes as f64 / lines.len() as f64,
        args.repeats
    );
    let (mut anchor, mut replay) = (Vec::new(), Vec::new());
    for run in 0..args.repeats {
        let started = Instant::now();
        let parsed = lines
            .iter()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            .count();
        let a = lines.len() as f64 / started.elapsed().as_secs_f64();
        let started = Instant::now();
        let verified = lines.iter().filter(|l| verify_text(l).passed).count();
        let r = lines.len() as f64 / started.elapsed().as_secs_f64();
        if parsed != lines.len() || verified != lines.len() {
            return Err(format!("run {run}: {verified} of {} rounds verified", lines.len()));
        }
        println!(
            "run {run}: anchor (JSON parse) {a:.0} rounds/s, replay {r:.0} rounds/s, ratio {:.3}",
            r / a
        );
        anchor.push(a);
        replay.push(r);
    }
    let ratios: Vec<f64> = replay.iter().zip(&anchor).map(|(r, a)| r / a).collect();
    println!(
        "summary: replay {} rounds/s (min/median/max), anchor {} rounds/s, replay/anchor {}",
        super::spread(replay, 0),
        super::spread(anchor, 0),
        super::spread(ratios, 3)
    );
    Ok(ExitCode::SUCCESS)
}
