//! `djego simulate …`: the simulation of N, the first-pass count (docs/math.md).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use djego::math::{extend_simulation, simulate_first_pass, NDistribution, N_MAX, N_MIN};

use super::{progress, threads_or_all_cores};
use crate::{SimulateBasicStrategyArgs, SimulateFirstPassArgs, SimulateFuerzaArgs};

/// The distribution as a Markdown table with 95% Wilson intervals (docs/math.md's format).
pub fn n_table(d: &NDistribution) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Run: {} deals, seed {}, {}, code {}; mean N = {:.4}",
        d.total,
        d.seed,
        d.algorithm,
        d.code_version,
        d.mean()
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "| N | deals | P(N) | 95% CI |");
    let _ = writeln!(s, "|---:|---:|---:|---|");
    let f = |x: f64| {
        if x < 1e-3 {
            format!("{x:.3e}")
        } else {
            format!("{x:.6}")
        }
    };
    for n in N_MIN..=N_MAX {
        if d.count(n) == 0 {
            continue;
        }
        let e = d.probability(n);
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} – {} |",
            d.count(n),
            f(e.value),
            f(e.low_95),
            f(e.high_95)
        );
    }
    let unseen: Vec<u8> = (N_MIN..=d.max_seen()).filter(|&n| d.count(n) == 0).collect();
    let _ = writeln!(s);
    let _ = writeln!(s, "largest N seen: {}; unseen below it: {unseen:?}", d.max_seen());
    s
}

pub fn first_pass(args: SimulateFirstPassArgs) -> Result<ExitCode, String> {
    if args.deals == 0 {
        return Err("--deals must be at least 1".into());
    }
    let threads = threads_or_all_cores(args.threads);
    let bar = progress::bar(args.deals, "deals");
    let progress = |done: u64| bar.set_position(done);
    let started;
    let dist = match &args.extend {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let mut d: NDistribution = serde_json::from_str(&text)
                .map_err(|e| format!("{} is not a distribution of N: {e}", path.display()))?;
            d.validate().map_err(|e| format!("{}: {e}", path.display()))?;
            started = Instant::now();
            extend_simulation(&mut d, args.deals, threads, &progress)?;
            d
        }
        None => {
            let seed = args.seed.ok_or("--seed is required")?;
            started = Instant::now();
            simulate_first_pass(args.deals, seed, threads, &progress)
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();

    print!("{}", n_table(&dist));
    let rate = args.deals as f64 / seconds.max(1e-9);
    println!();
    println!(
        "{} deals in {seconds:.2} s on {threads} thread(s): {rate:.0} deals/s in total, {:.0} deals/s per thread",
        args.deals,
        rate / threads as f64
    );
    if let Some(path) = &args.out {
        let json = serde_json::to_string_pretty(&dist).map_err(|e| e.to_string())?;
        std::fs::write(path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `djego simulate basic-strategy`: the copa analysis of docs/math.md §7.
pub fn basic_strategy(args: SimulateBasicStrategyArgs) -> Result<ExitCode, String> {
    if args.deals == 0 {
        return Err("--deals must be at least 1".into());
    }
    let threads = threads_or_all_cores(args.threads);
    let bar = progress::bar(args.deals, "rounds");
    let started = Instant::now();
    let report = djego::math::basic_strategy::analyse_basic_strategy(args.deals, args.seed, threads, &|done| {
        bar.set_position(done)
    });
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        println!("The Prima player's mean net result per round, in units (95% interval):");
        for (name, r) in [
            ("printed basic strategy", &report.basic_strategy),
            ("never fold", &report.never_fold),
            ("perfect knowledge of the deck", &report.perfect_knowledge),
        ] {
            println!(
                "  {name:<30} {:+.4}  ({:+.4} to {:+.4})",
                r.mean_units, r.low_95, r.high_95
            );
        }
        println!(
            "  basic strategy decides as perfect knowledge would in {:.2}% of copas",
            100.0 * report.basic_agrees_with_perfect
        );
        println!("  rounds ending in the first pass: {:.2}%", 100.0 * report.early_end);
        println!(
            "{} rounds, seed {}, in {seconds:.1} s on {threads} threads",
            args.deals, args.seed
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `djego simulate fuerza`: the calibration of the house's Fuerza quotes (docs/confidence-bets.md).
/// Fails (exit 1) when a band is more than 4 standard errors off, when the outcomes of quotes
/// made with decisions pending fall outside their bracket, or when a quote is more than 4 of its
/// standard errors from its reference.
pub fn fuerza(args: SimulateFuerzaArgs) -> Result<ExitCode, String> {
    use djego::games::prima_carta::fuerza::{QUOTE_SAMPLES, RETURN_BP};
    if args.positions == 0 {
        return Err("--positions must be at least 1".into());
    }
    let threads = threads_or_all_cores(args.threads);
    let bar = progress::bar(args.positions, "positions");
    let started = Instant::now();
    let c = djego::math::fuerza::calibrate(
        args.positions,
        args.seed,
        QUOTE_SAMPLES,
        args.reference_every,
        threads,
        &|done| bar.set_position(done),
    );
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let wins = c.pending_wins as f64;
    let pending_ok = c.pending_low_sum <= wins + 4.0 * wins.sqrt().max(1.0)
        && wins <= c.pending_high_sum + 4.0 * wins.sqrt().max(1.0);
    let ok = c.bands_beyond(4.0).is_empty() && pending_ok && c.beyond_4_se == 0;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&c).map_err(|e| e.to_string())?);
    } else {
        let quoted: u64 = c.bands.iter().map(|b| b.quotes).sum();
        println!(
            "The house's Fuerza, {} positions (seed {}): {} ended in the first pass; {quoted} quotes once the copa was over, {} with decisions pending; {QUOTE_SAMPLES} draws per quote",
            c.positions, c.seed, c.ended_in_first_pass, c.pending_quotes
        );
        println!();
        println!("| quoted chance | quotes | mean quoted | won | z |");
        println!("|---|---:|---:|---:|---:|");
        for b in c.bands.iter().filter(|b| b.quotes > 0) {
            println!(
                "| {:.2}–{:.2} | {} | {:.4} | {:.4} | {:+.2} |",
                b.from,
                b.to,
                b.quotes,
                b.mean_chance(),
                b.observed(),
                b.z()
            );
        }
        println!();
        println!(
            "With decisions pending: {} wins against {:.1} expected if the undecided all paid and {:.1} if they all folded",
            c.pending_wins, c.pending_low_sum, c.pending_high_sum
        );
        if let (Some((min, median, max)), Some(mean)) = (c.return_spread(), c.mean_return()) {
            println!(
                "Against a reference of {} draws ({} quotes): largest error {:.2} standard errors, {} beyond 4; the price returns min {min:.4} / median {median:.4} / max {max:.4}, mean {mean:.4} of the stake at the reference chance (stated: {:.4})",
                djego::math::fuerza::REFERENCE_SAMPLES,
                c.referenced,
                c.max_error_in_se,
                c.beyond_4_se,
                RETURN_BP as f64 / 10_000.0
            );
        }
        println!(
            "{} positions in {seconds:.1} s on {threads} threads: {}",
            c.positions,
            if ok { "calibrated" } else { "NOT CALIBRATED" }
        );
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
