//! `djego bench peg-leg`: how long a Peg Leg quote takes after each card, on
//! random deals, against an anchor measured in the same run: the plain Monte
//! Carlo through the general engine (the whole first pass of a full deck,
//! with its events, per sample), at the same number of samples. One core.

use clap::Args;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::process::ExitCode;
use std::time::Instant;

use djego::cards::{ordered_deck, Card};
use djego::games::peg_leg::{quote, PegLegPass, PricingConfig};
use djego::games::prima_carta::first_pass;
use djego::math::RtpBounds;

#[derive(Args)]
pub struct PegLegBenchArgs {
    /// Random deals; a quote is timed after each of their fifty cards.
    #[arg(long, default_value_t = 20)]
    pub deals: u64,
    /// Times each quote is repeated (min/median/max are over deals and repeats).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// Simulated deals per quote when the exact search gives way (default: the pricing's).
    #[arg(long)]
    pub samples: Option<u64>,
    /// States the exact search may store (default: the pricing's).
    #[arg(long)]
    pub exact_budget: Option<usize>,
    /// Samples of the anchor per card (its time is scaled to the quote's sample count).
    #[arg(long, default_value_t = 500)]
    pub anchor_samples: u64,
    /// Seed of the deals and of the quotes' simulation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The per-quote budget the run is judged against, in milliseconds.
    #[arg(long, default_value_t = 50.0)]
    pub budget_ms: f64,
}

/// The anchor: `samples` plain Monte Carlo ends of the pass through the
/// general engine; returns the key count's tally (so nothing is optimised away).
fn anchor(prefix: &[Card], undealt: &[Card], samples: u64, rng: &mut ChaCha8Rng) -> [u64; 11] {
    let key = prefix[0].suit();
    let mut tally = [0u64; 11];
    let mut rest = undealt.to_vec();
    for _ in 0..samples {
        rest.shuffle(rng);
        let deck: Vec<Card> = prefix.iter().chain(rest.iter()).copied().collect();
        let end = first_pass(&deck).expect("a permutation");
        tally[end.counts[key.index()] as usize] += 1;
    }
    tally
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() - 1) / 2]
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * q).round() as usize]
}

pub fn run(args: PegLegBenchArgs) -> Result<ExitCode, String> {
    if args.deals == 0 || args.repeats == 0 || args.anchor_samples == 0 {
        return Err("--deals, --repeats and --anchor-samples must be at least 1".into());
    }
    let mut config = PricingConfig::default();
    if let Some(s) = args.samples {
        config.samples = s;
    }
    if let Some(b) = args.exact_budget {
        config.exact_budget = b;
    }
    config.validate(&RtpBounds::default())?;
    println!("djego bench peg-leg");
    println!(
        "machine: {} cores, {}; one thread",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    println!(
        "settings: {} deals x 50 cards, {} repeats, seed {}; pricing: target {:.2}%, exact budget {} states, {} samples, delta {:e}; anchor: {} general-engine samples per card, scaled to {}",
        args.deals,
        args.repeats,
        args.seed,
        config.target_rtp_bp as f64 / 100.0,
        config.exact_budget,
        config.samples,
        config.delta,
        args.anchor_samples,
        config.samples,
    );
    // Per cards dealt (1..=50): quote times (ms), how many were exact, anchor times (ms, scaled).
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); Card::DECK_SIZE + 1];
    let mut exact = vec![0u64; Card::DECK_SIZE + 1];
    let mut anchors: Vec<Vec<f64>> = vec![Vec::new(); Card::DECK_SIZE + 1];
    let mut sink = 0u64;
    for d in 0..args.deals {
        let mut deck = ordered_deck(10);
        deck.shuffle(&mut ChaCha8Rng::seed_from_u64(args.seed.wrapping_add(d)));
        let mut pass = PegLegPass::new();
        for (i, &card) in deck.iter().enumerate() {
            pass.deal(card).map_err(|e| e.to_string())?;
            let dealt = i + 1;
            for rep in 0..args.repeats {
                let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ (d << 20) ^ ((dealt as u64) << 8) ^ rep as u64);
                let started = Instant::now();
                let q = quote(&pass, &config, &mut rng).ok_or("no key suit")?;
                times[dealt].push(started.elapsed().as_secs_f64() * 1e3);
                if rep == 0 && q.distribution.as_ref().is_some_and(|x| x.is_exact()) {
                    exact[dealt] += 1;
                }
                sink += q.counts.iter().filter(|c| c.multiplier_cents.is_some()).count() as u64;
            }
            let mut rng = ChaCha8Rng::seed_from_u64(!args.seed ^ (d << 20) ^ dealt as u64);
            let undealt = pass.undealt();
            let started = Instant::now();
            let tally = anchor(&deck[..dealt], &undealt, args.anchor_samples, &mut rng);
            let per_sample = started.elapsed().as_secs_f64() * 1e3 / args.anchor_samples as f64;
            anchors[dealt].push(per_sample * config.samples as f64);
            sink += tally[10];
        }
        eprint!("\rdeal {}/{}", d + 1, args.deals);
    }
    eprintln!();
    std::hint::black_box(sink);
    println!();
    println!("| cards dealt | exact | quote ms min/median/max | anchor ms (median) | quote/anchor |");
    println!("|---:|---:|---|---:|---:|");
    let mut all = Vec::new();
    let mut ratios = Vec::new();
    for dealt in 1..=Card::DECK_SIZE {
        let t = &times[dealt];
        all.extend_from_slice(t);
        let (min, med, max) = (quantile(t, 0.0), median(t.clone()), quantile(t, 1.0));
        let a = median(anchors[dealt].clone());
        ratios.push(med / a);
        println!(
            "| {dealt} | {}/{} | {min:.3}/{med:.3}/{max:.3} | {a:.1} | {:.4} |",
            exact[dealt],
            args.deals,
            med / a
        );
    }
    let worst = quantile(&all, 1.0);
    println!();
    println!(
        "summary: quote ms over all {} quotes min/median/p99/max {:.3}/{:.3}/{:.3}/{:.3}; exact {} of {} positions; quote/anchor median over cards {:.4}; worst {} the {} ms budget",
        all.len(),
        quantile(&all, 0.0),
        median(all.clone()),
        quantile(&all, 0.99),
        worst,
        exact.iter().sum::<u64>(),
        args.deals * Card::DECK_SIZE as u64,
        median(ratios),
        if worst <= args.budget_ms { "within" } else { "OVER" },
        args.budget_ms
    );
    Ok(ExitCode::SUCCESS)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
