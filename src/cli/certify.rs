//! `djego certify …`: the shuffle's statistical certification (docs/shuffle.md), pay-table
//! certification (docs/math.md) and the operator's pay suggestions.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use serde::Serialize;

use djego::bets::{BetKind, PayTable};
use djego::cards::certify::{certify_shuffles, CertificationReport, CertifyConfig};
use djego::games::prima_carta::first_pass_count;
use djego::math::{
    cached_n_distribution, certify_pay_table, plots, simulate_first_pass, suggest_pays, NDistribution, NSource,
    RtpBounds, N_MAX, N_MIN,
};

use super::{progress, threads_or_all_cores};
use crate::{CertifyPayTableArgs, CertifyShuffleArgs, PayTableChoice, SuggestArgs, VerifierDataArgs};

/// certification.json: the report's own fields, plus where its expected
/// distribution of N came from (a reader of CertificationReport ignores it).
#[derive(Serialize)]
struct ShuffleCertificationFile<'a> {
    #[serde(flatten)]
    report: &'a CertificationReport,
    expected_first_pass_source: ExpectedSource,
}

#[derive(Serialize)]
struct ExpectedSource {
    description: String,
    #[serde(flatten)]
    simulation: NSource,
}

fn n_source(dist: &NDistribution) -> NSource {
    NSource {
        algorithm: dist.algorithm.clone(),
        code_version: dist.code_version.clone(),
        seed: dist.seed,
        deals: dist.total,
    }
}

/// P(N = n) for n in 0..=50 as the distribution's relative frequencies.
pub fn probability_table(dist: &NDistribution) -> [f64; 51] {
    let total = dist.total.max(1) as f64;
    std::array::from_fn(|n| {
        let n = n as u8;
        if (N_MIN..=N_MAX).contains(&n) {
            dist.count(n) as f64 / total
        } else {
            0.0
        }
    })
}

pub fn shuffle(args: CertifyShuffleArgs) -> Result<ExitCode, String> {
    if args.shuffles == 0 {
        return Err("--shuffles must be at least 1".into());
    }
    if !(args.significance > 0.0 && args.significance < 1.0) {
        return Err(format!(
            "--significance must be between 0 and 1, got {}",
            args.significance
        ));
    }
    let threads = threads_or_all_cores(args.threads);
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;

    let dist = cached_n_distribution();
    let expected = probability_table(dist);
    let source = ExpectedSource {
        description: "relative frequencies of N in djego's certified simulation of the first pass \
                      (math::cached_n_distribution, src/math/n_distribution_cache.json), made with the \
                      production shuffle and the Prima Carta engine's first_pass_count from seeds unrelated \
                      to this certification's"
            .into(),
        simulation: n_source(dist),
    };

    let config = CertifyConfig {
        shuffles: args.shuffles,
        seed: args.seed,
        significance: args.significance,
        threads,
    };
    let bar = progress::bar(args.shuffles, "shuffles");
    let started = Instant::now();
    let report = certify_shuffles(&config, &first_pass_count, &expected, &|k| bar.inc(k));
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();

    let mut about = String::new();
    let _ = writeln!(
        about,
        "expected first-pass distribution: djego's certified simulation of N ({} deals, seed {}, {}, code {}),",
        dist.total, dist.seed, dist.algorithm, dist.code_version
    );
    let _ = writeln!(
        about,
        "embedded as src/math/n_distribution_cache.json; each N's probability is its relative frequency there."
    );
    let _ = writeln!(about);
    let mut text = report.to_text();
    match text.find("first-pass count N (pooled bins)") {
        Some(at) => text.insert_str(at, &about),
        None => text.push_str(&about),
    }

    let json = serde_json::to_string_pretty(&ShuffleCertificationFile {
        report: &report,
        expected_first_pass_source: source,
    })
    .map_err(|e| e.to_string())?;
    write_file(&args.out.join("certification.json"), &(json + "\n"))?;
    write_file(&args.out.join("certification.txt"), &text)?;
    print!("{text}");
    println!(
        "{} shuffles in {seconds:.2} s on {threads} thread(s); wrote {} and {}",
        args.shuffles,
        args.out.join("certification.json").display(),
        args.out.join("certification.txt").display()
    );
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `djego certify verifier-data`: the distribution of N and the bounds the verifiers judge
/// pay tables with (docs/verify/first_pass_distribution.json).
pub fn verifier_data(args: VerifierDataArgs) -> Result<ExitCode, String> {
    let text = djego::math::verifier_data_json();
    match args.out {
        Some(path) => write_file(&path, &text)?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn write_file(path: &Path, contents: &str) -> Result<(), String> {
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The pay table a command names: a JSON file, --house, or (by default) --default.
pub fn load_table(choice: &PayTableChoice) -> Result<PayTable, String> {
    match &choice.file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            PayTable::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
        None if choice.house => Ok(PayTable::house_table()),
        None => Ok(PayTable::default_table()),
    }
}

pub fn pay_table(args: CertifyPayTableArgs) -> Result<ExitCode, String> {
    let table = load_table(&args.table)?;
    let bounds = RtpBounds::new(args.min, args.max)?;
    let simulated;
    let dist: &NDistribution = match (args.n_source.simulate, args.n_source.seed) {
        (Some(deals), Some(seed)) => {
            if deals == 0 {
                return Err("--simulate needs at least 1 deal".into());
            }
            let threads = threads_or_all_cores(args.n_source.threads);
            let bar = progress::bar(deals, "deals");
            let started = Instant::now();
            simulated = simulate_first_pass(deals, seed, threads, &|done| bar.set_position(done));
            bar.finish_and_clear();
            let seconds = started.elapsed().as_secs_f64();
            eprintln!(
                "simulated {deals} deals (seed {seed}) in {seconds:.2} s on {threads} thread(s): {:.0} deals/s",
                deals as f64 / seconds.max(1e-9)
            );
            &simulated
        }
        _ => cached_n_distribution(),
    };
    let cert = certify_pay_table(&table, dist, bounds);
    if args.json {
        println!("{}", cert.to_json_pretty());
    } else {
        print!("{}", cert.to_text());
    }
    if let Some(dir) = &args.plots {
        for path in plots::write_svgs(dir, dist, &cert)
            .map_err(|e| format!("cannot write plots into {}: {e}", dir.display()))?
        {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(if cert.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub fn suggest(args: SuggestArgs) -> Result<ExitCode, String> {
    let kind = BetKind::parse(&args.bet).ok_or_else(|| {
        let names: Vec<&str> = BetKind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown bet {:?}; one of {}", args.bet, names.join(", "))
    })?;
    if kind == BetKind::Cartas && args.number.is_none() {
        return Err("cartas needs --number (one the base table offers)".into());
    }
    if kind != BetKind::Cartas && args.number.is_some() {
        return Err("--number applies to cartas only".into());
    }
    let base = load_table(&args.table)?;
    let dist = cached_n_distribution();
    let s = suggest_pays(kind, args.number, args.target, &base, dist, args.step)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{}: target RTP {:.4}%, pays on a {} grid, base table {} v{}",
        s.bet,
        s.target_rtp * 100.0,
        args.step.normalize(),
        base.name(),
        base.version()
    );
    for (name, pays) in &s.pays {
        println!("    {name:<12} {}:1", pays.normalize());
    }
    println!("RTP {:.4}% (closest from below)", s.rtp * 100.0);
    println!(
        "N distribution: {} deals, seed {}, {} (code {})",
        dist.total, dist.seed, dist.algorithm, dist.code_version
    );
    Ok(ExitCode::SUCCESS)
}
