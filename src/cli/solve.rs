//! `djego solve lobo …`: the Lobo solver's values and bounds (docs/lobo.md).
//! Draws the progress bar, measures time and peak memory, prints the report; all game logic
//! is in `djego::games::lobo::solver`.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use djego::games::lobo::solver::{self, deals, FreshValue, GameLimits, PenaltyChoice, SimplePolicy, Tiers};
use djego::games::lobo::{default_house_rule, house_edge_percent, HouseRule, Mode};

use super::{progress, threads_or_all_cores};
use crate::{SolveBound, SolveLoboArgs};

/// Peak resident memory of this process (Linux `VmHWM`), in MB.
fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The label of the bracket's width in a `--bound upper` run with a penalty.
const WIDTH: &str = "the bracket's width on the same deals (upper − lower, deal by deal)";

pub fn parse_mode(text: &str) -> Result<Mode, String> {
    Mode::parse(text).ok_or_else(|| "mode must be hard, ordinary or easy".to_string())
}

pub fn parse_rule(text: &str) -> Result<HouseRule, String> {
    HouseRule::parse(text)
}

/// `none`, `tiered`, or the Over limit of the restricted game whose values are the penalty's.
pub fn parse_penalty(text: &str, max_over_charged: u8, tiers: Tiers) -> Result<PenaltyChoice, String> {
    match text {
        "none" => Ok(PenaltyChoice::None),
        "tiered" => Ok(PenaltyChoice::Tiered(tiers)),
        _ => text
            .parse()
            .map(|k| PenaltyChoice::Restricted { k, max_over_charged })
            .map_err(|_| "penalty must be none, tiered or an Over difference 1..=9".to_string()),
    }
}

pub fn lobo(args: SolveLoboArgs) -> Result<ExitCode, String> {
    let mode = args.mode;
    let rule = args.rule.unwrap_or_else(|| default_house_rule(mode));
    let threads = threads_or_all_cores(args.threads);
    let cap = args.cap;
    let penalty = parse_penalty(&args.penalty, args.penalty_over, args.tiers)?;
    if args.samples == 0 {
        return Err("--samples must be at least 1".into());
    }
    let limits = |default_over: u8| GameLimits {
        max_over_difference: args.over.unwrap_or(default_over),
        loss_cap_points: cap,
    };
    let total = if args.full && matches!(args.bound, SolveBound::Lower | SolveBound::Exact) {
        deals::all_openings(mode).len() as u64
    } else if args.bound == SolveBound::Policies {
        3 * args.samples as u64
    } else {
        args.samples as u64
    };
    let unit = if args.full { "openings" } else { "deals" };
    let bar = progress::bar(total, unit);
    let done = AtomicU64::new(0);
    let offset = AtomicU64::new(0);
    let report = |n: u64| {
        let at = offset.load(Ordering::Relaxed) + n;
        let shown = done.fetch_max(at, Ordering::Relaxed).max(at);
        bar.set_position(shown);
    };
    let started = Instant::now();
    let mut results: Vec<(String, GameLimits, FreshValue)> = Vec::new();
    match args.bound {
        SolveBound::Lower => {
            let l = limits(1);
            let v = if args.full {
                solver::exact_value(mode, l, threads, &report)
            } else {
                solver::sampled_value(mode, l, args.samples, args.seed, threads, &report)
            };
            results.push((
                format!(
                    "lower bound: best play with Overs limited to difference {}",
                    l.max_over_difference
                ),
                l,
                v,
            ));
        }
        SolveBound::Exact => {
            let l = limits(GameLimits::FULL_RULES);
            let v = if args.full {
                solver::exact_value(mode, l, threads, &report)
            } else {
                match solver::sampled_value_within(mode, l, args.samples, args.seed, args.budget, threads, &report) {
                    Ok(v) => v,
                    Err(states) => {
                        bar.finish_and_clear();
                        println!(
                            "mode {mode}, loss cap {cap:?}: the exact value (Overs up to {}) was NOT reached: the state budget of {} \
                             ran out ({states} positions stored) before {} openings solved; see --bound lower and --bound upper for the bracket",
                            l.max_over_difference, args.budget, args.samples
                        );
                        print_cost(started, threads);
                        return Ok(ExitCode::from(1));
                    }
                }
            };
            let what = if l.is_full_rules() {
                "perfect play (full rules)".to_string()
            } else {
                format!("perfect play with Overs limited to {}", l.max_over_difference)
            };
            results.push((what, l, v));
        }
        SolveBound::Upper => {
            let l = limits(GameLimits::FULL_RULES);
            let (v, low) = solver::clairvoyant_value(mode, l, penalty, args.samples, args.seed, threads, &report);
            let what = match penalty {
                PenaltyChoice::None => "upper bound: clairvoyant player (knows the deck order)".to_string(),
                PenaltyChoice::Restricted { k, max_over_charged } => format!(
                    "upper bound: clairvoyant player charged the information penalty of the Overs-limited-to-{k} values \
                     (Overs up to {max_over_charged} penalised)"
                ),
                PenaltyChoice::Tiered(t) => format!(
                    "upper bound: clairvoyant player charged the tiered information penalty on every play \
                     (V = Overs-limited-to-1 values up to {} Wolf cards, no-Overs values up to {}, \
                     the uniform-draws estimate up to {}, the fold beyond)",
                    t.overs_1_up_to_cards, t.solved_up_to_cards, t.estimated_up_to_cards
                ),
            };
            results.push((what, l, v));
            if let Some(bracket) = low {
                let k = match penalty {
                    PenaltyChoice::Restricted { k, .. } => k,
                    _ => 1,
                };
                let restricted = GameLimits {
                    max_over_difference: k,
                    ..l
                };
                results.push((
                    format!("lower bound on the same deals: best play with Overs limited to difference {k}"),
                    restricted,
                    bracket.lower,
                ));
                results.push((WIDTH.to_string(), l, bracket.width));
            }
        }
        SolveBound::Hints => {
            let budget = djego::rounds::lobo::HINT_STATE_BUDGET;
            let (v, [exact, restricted, heuristic]) =
                solver::hint_player_value(mode, cap, args.samples, args.seed, budget, threads, &report);
            results.push((
                format!(
                    "a player following djego's hints ({budget} positions per attempt, as the service): \
                     {exact} exact, {restricted} with Overs restricted, {heuristic} heuristic"
                ),
                limits(GameLimits::FULL_RULES),
                v,
            ));
        }
        SolveBound::Policies => {
            for (i, p) in SimplePolicy::ALL.into_iter().enumerate() {
                offset.store(i as u64 * args.samples as u64, Ordering::Relaxed);
                let l = limits(1);
                let v = solver::policy_value(mode, p, l, args.samples, args.seed, threads, &report);
                results.push((format!("simple strategy {p:?}"), l, v));
            }
        }
    }
    bar.finish_and_clear();
    for (what, l, v) in &results {
        let edge = house_edge_percent(mode, &rule, l.loss_cap_points, v.mean_points);
        println!(
            "mode {mode}, loss cap {:?}, rule {}: {what}",
            l.loss_cap_points,
            rule.describe()
        );
        match v.samples {
            None => println!("  value {:+.4} points per round (exact weighted average over all openings)", v.mean_points),
            Some(n) => println!(
                "  value {:+.4} points per round, 95% CI [{:+.4}, {:+.4}], one-sided 99.9% [{:+.4}, {:+.4}] ({n} deals, seed {})",
                v.mean_points,
                v.ci95_low,
                v.ci95_high,
                v.low_999,
                v.high_999,
                v.seed.unwrap_or(0)
            ),
        }
        // A width is no player's value: no charge applies to it.
        if what != WIDTH {
            println!(
                "  with the rule's charge: player {:+.4} units per round; house edge {:+.3}% of the expected amount at risk",
                v.mean_points - rule.expected_charge_units(mode),
                edge
            );
        }
        println!("  states {}", v.states);
        println!(
            "  json {}",
            serde_json::to_string(&(what, l, v)).map_err(|e| e.to_string())?
        );
    }
    print_cost(started, threads);
    Ok(ExitCode::SUCCESS)
}

fn print_cost(started: Instant, threads: usize) {
    println!(
        "time {:.1} s, peak memory {:.0} MB, threads {threads}",
        started.elapsed().as_secs_f64(),
        peak_memory_mb().unwrap_or(f64::NAN)
    );
}
