//! `djego bench peg-leg`: how long a Peg Leg quote takes after each card, on
//! random deals, against an anchor measured in the same run: the plain Monte
//! Carlo through the general engine (the whole first pass of a full deck,
//! with its events, per sample), at the same number of samples. One core.

use clap::Args;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::process::ExitCode;
use std::time::Instant;

use djego::cards::{ordered_deck, Card};
use djego::games::peg_leg::{exact_order_counts, quote, sample_counts, PegLegPass, PricingConfig, Returns, COUNTS};
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
    /// Random positions whose offered prices' returns are measured against a reference
    /// (0: none). Each is a random deal cut after a random number of cards.
    #[arg(long, default_value_t = 0)]
    pub bands: u64,
    /// The fewest cards left undealt at a measured position.
    #[arg(long, default_value_t = 1)]
    pub band_min_undealt: u32,
    /// The most cards left undealt at a measured position.
    #[arg(long, default_value_t = 49)]
    pub band_max_undealt: u32,
    /// Up to this many cards undealt the reference is exact (the search run to the end);
    /// above, it is `--reference-samples` simulated ends of the pass.
    /// (The full search's states grow about fourfold per two cards: some 10^5 at 14, past
    /// 10^6 at 16; keep this low.)
    #[arg(long, default_value_t = 13)]
    pub reference_exact_undealt: u32,
    /// Samples of the simulated reference.
    #[arg(long, default_value_t = 1_000_000)]
    pub reference_samples: u64,
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
    if (args.deals == 0 && args.bands == 0) || args.repeats == 0 || args.anchor_samples == 0 {
        return Err("--deals (or --bands), --repeats and --anchor-samples must be at least 1".into());
    }
    if args.band_min_undealt == 0 || args.band_min_undealt > args.band_max_undealt || args.band_max_undealt > 49 {
        return Err("need 1 <= --band-min-undealt <= --band-max-undealt <= 49".into());
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
    if args.deals == 0 {
        return bands(&args, &config);
    }
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
    if args.bands > 0 {
        return bands(&args, &config);
    }
    Ok(ExitCode::SUCCESS)
}

/// The return of every offered price on `--bands` random positions, per band of true
/// probability, against an exact or simulated reference; exit 1 when a band misses its target.
fn bands(args: &PegLegBenchArgs, config: &PricingConfig) -> Result<ExitCode, String> {
    println!();
    println!(
        "returns: {} positions with {}..={} cards undealt, seed {}; reference exact up to {} undealt, else {} samples",
        args.bands,
        args.band_min_undealt,
        args.band_max_undealt,
        args.seed,
        args.reference_exact_undealt,
        args.reference_samples
    );
    let started = Instant::now();
    let mut returns = Returns::default();
    let (mut exact_refs, mut exact_quotes, mut sampled_error) = (0u64, 0u64, 0.0f64);
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ 0x5eed_ba4d);
    for i in 0..args.bands {
        let mut deck = ordered_deck(10);
        deck.shuffle(&mut rng);
        let undealt = rng.gen_range(args.band_min_undealt..=args.band_max_undealt) as usize;
        let pass = PegLegPass::from_dealt(&deck[..Card::DECK_SIZE - undealt]).map_err(|e| e.to_string())?;
        let q = quote(&pass, config, &mut rng).ok_or("no key suit")?;
        exact_quotes += u64::from(q.distribution.as_ref().is_some_and(|d| d.is_exact()));
        let key = pass.key_suit().ok_or("no key suit")?;
        let mask = !pass.dealt_mask() & ((1u64 << Card::DECK_SIZE) - 1);
        let search = if undealt as u32 <= args.reference_exact_undealt {
            exact_order_counts(pass.cursor(), key, mask, usize::MAX)
        } else {
            exact_order_counts(pass.cursor(), key, mask, config.exact_budget)
        };
        let truth: [f64; COUNTS] = match search.counts {
            Some(orders) => {
                exact_refs += 1;
                std::array::from_fn(|k| orders[k] as f64 / search.total as f64)
            }
            None => {
                let hits = sample_counts(pass.cursor(), key, &pass.undealt(), args.reference_samples, &mut rng);
                // The reference's own error, relative, at p = 0.01 (one standard error).
                sampled_error = sampled_error.max((0.99 / (0.01 * args.reference_samples as f64)).sqrt());
                std::array::from_fn(|k| hits[k] as f64 / args.reference_samples as f64)
            }
        };
        returns.record(&q, &truth);
        if (i + 1) % 100 == 0 {
            eprint!("\rposition {}/{}", i + 1, args.bands);
        }
    }
    eprintln!();
    println!(
        "{} positions ({} priced exactly, {} with an exact reference) in {:.1} s",
        args.bands,
        exact_quotes,
        exact_refs,
        started.elapsed().as_secs_f64()
    );
    println!();
    print!("{}", returns.table());
    // A sampled reference is itself off by a few standard errors; an exact one only by rounding.
    let slack = 4.0 * sampled_error * config.target_rtp_bp as f64 / 10_000.0 + 1e-9;
    let misses = returns.misses(config.target_rtp_bp as f64 / 10_000.0, slack);
    println!();
    if misses.is_empty() {
        println!("every band meets its target");
        Ok(ExitCode::SUCCESS)
    } else {
        for m in &misses {
            println!("MISSED: {m}");
        }
        Ok(ExitCode::FAILURE)
    }
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
