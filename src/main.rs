//! The `djego` command line: the clap definition and dispatch. Each command
//! group's implementation lives in `src/cli/` (serve, user, checkpoint, verify,
//! certify, simulate, solve, bench).
//!
//! Exit codes: 0 success (or PASS), 1 a check failed (verification, certification),
//! 2 the command could not run (bad input, unreadable file, I/O or database error).

mod cli;

use clap::{ArgGroup, Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

use djego::config::{CheckpointKeyArgs, DatabaseArgs, ServeArgs};
use djego::domain::Role;

/// mimalloc: the bulk replay (`djego verify rounds`) makes many small
/// short-lived allocations, which it serves markedly faster than the system
/// allocator (docs/performance.md, "Replaying rounds in bulk").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "djego", version, about = "Casino table-management and wagering backend")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service (SQLite under ./data by default; DATABASE_URL=postgres://… for PostgreSQL).
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate(DatabaseArgs),
    /// Seed the demo casino into the database and print its credentials.
    Demo(ServeArgs),
    /// Manage accounts.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Sign the ledger's head now, or export the signed checkpoints for an auditor.
    Checkpoint {
        #[command(subcommand)]
        command: CheckpointCommand,
    },
    /// Verify the ledger, or a round's shuffle transcript offline.
    Verify {
        #[command(subcommand)]
        command: VerifyCommand,
    },
    /// Certify the shuffle or a pay table; suggest pays for a target RTP.
    Certify {
        #[command(subcommand)]
        command: CertifyCommand,
    },
    /// Run the game-math simulations.
    Simulate {
        #[command(subcommand)]
        command: SimulateCommand,
    },
    /// Solve games: the value of Lobo under perfect play, its bounds, simple strategies.
    Solve {
        #[command(subcommand)]
        command: SolveCommand,
    },
    /// Floor reports from the database (docs/floor.md).
    Report {
        #[command(subcommand)]
        command: ReportCommand,
    },
    /// The floor's minute meters, which the table report reads (docs/floor.md, "How fast the reports are").
    Meters {
        #[command(subcommand)]
        command: MetersCommand,
    },
    /// Benchmark the service against a measured anchor (docs/performance.md).
    Bench {
        #[command(subcommand)]
        command: BenchCommand,
    },
    /// Print the OpenAPI document generated from the code.
    Openapi,
}

#[derive(Subcommand)]
enum MetersCommand {
    /// Bring the meters up to the ledger's head now (the service does it every 10 s, and before
    /// each table report) and print the transfer they have read through.
    CatchUp(DatabaseArgs),
    /// Forget the meters and read the whole ledger again: when a day close found them
    /// disagreeing with the ledger. On PostgreSQL, as the schema owner.
    Rebuild(DatabaseArgs),
}

#[derive(Subcommand)]
enum ReportCommand {
    /// Table performance over a gaming day: rounds, drop, house win, hold, theoretical win
    /// with its 99% band, per table and shift (as `GET /api/v1/floor/tables`).
    Tables(ReportDayArgs),
    /// Player ratings over a gaming day or a period: each player's sessions per table, with time, rounds,
    /// staked, average bet, actual result, theoretical loss and points (as `GET /api/v1/floor/players`).
    Players(ReportPlayersArgs),
    /// Dealer performance over a gaming day: per dealer and shift, the play while they were in the
    /// box, with hours, rounds per hour, hold and the theoretical win's 99% band (as `GET /api/v1/floor/dealers`).
    Dealers(ReportDayArgs),
    /// A gaming day's closing report (as `GET /api/v1/floor/days/{day}`): once closed, the report
    /// frozen at close with its hash and whether it is intact; before, the report as it reads now
    /// and the rounds not yet ended. Exits 1 when a closed day's report is not intact.
    Day(ReportClosedDayArgs),
    /// Plots over a gaming day or a period, as SVG files in a directory: per table, day by day,
    /// hold % (hold.svg), the side bets' actual − theoretical win with its 99% band
    /// (actual-minus-theo.svg) and rounds per hour (rounds-per-hour.svg).
    Plots(ReportPlotsArgs),
}

#[derive(Args)]
pub struct ReportPlotsArgs {
    #[command(flatten)]
    pub period: ReportPeriodArgs,
    /// Where to write the SVG files (created if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: std::path::PathBuf,
}

#[derive(Args)]
pub struct ReportClosedDayArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// The gaming day, YYYY-MM-DD (default: the present one under the floor calendar).
    #[arg(long, value_name = "DATE")]
    pub gaming_day: Option<chrono::NaiveDate>,
    /// Print CSV (a section per part of the report) instead of JSON.
    #[arg(long)]
    pub csv: bool,
    /// Also verify the ledger, the events chain and every checkpoint (`djego verify ledger`),
    /// and say on standard error what, if anything, does not check. The day's own checks
    /// (its `intact`) are made either way.
    #[arg(long)]
    pub verify: bool,
    /// Check against the checkpoints of this exported file instead of those in the database.
    #[arg(long, value_name = "FILE")]
    pub checkpoints: Option<PathBuf>,
    /// Every checkpoint must be signed by this Ed25519 public key (64 hex digits); repeat it
    /// for the keys of several periods.
    #[arg(long, value_name = "HEX")]
    pub public_key: Vec<String>,
}

#[derive(Args)]
pub struct ReportDayArgs {
    #[command(flatten)]
    pub period: ReportPeriodArgs,
    /// Print CSV instead of JSON.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Args)]
pub struct ReportPeriodArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// The gaming day, YYYY-MM-DD (default: the present one under the floor calendar).
    #[arg(long, value_name = "DATE", conflicts_with_all = ["from", "to"])]
    pub gaming_day: Option<chrono::NaiveDate>,
    /// Instead of one gaming day, a period: its first day (with --to).
    #[arg(long, value_name = "DATE", requires = "to")]
    pub from: Option<chrono::NaiveDate>,
    /// The period's last gaming day (at most 366 days from --from).
    #[arg(long, value_name = "DATE", requires = "from")]
    pub to: Option<chrono::NaiveDate>,
}

#[derive(Args)]
pub struct ReportPlayersArgs {
    #[command(flatten)]
    pub period: ReportPeriodArgs,
    /// Only this player's sessions (their user id).
    #[arg(long, value_name = "USER_ID")]
    pub player: Option<String>,
    /// Print CSV instead of JSON.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// The wager write path over HTTP (bets, deposits) on a real `djego serve`, alternated
    /// with a pgbench anchor on the same PostgreSQL; prints rates, latencies and ratios.
    Wagers(cli::bench::WagersArgs),
    /// The bulk round replay (`djego verify rounds`) on random rounds of every kind, alternated
    /// with an anchor (parsing the same JSON); prints rounds/s min/median/max and the ratio.
    Verify(cli::bench::VerifyBenchArgs),
    /// The failover drill on a Patroni cluster (deploy/ha/README.md): under bets, deposits and
    /// a dealer's rounds, kill and freeze the primary again and again; check every acknowledged
    /// wager is in the ledger once and the ledger verifies; print each failover's write outage.
    Failover(cli::bench::FailoverArgs),
    /// Peg Leg's quotes: the time to price every count after each card of random deals
    /// (min/median/max per card, exact or simulated), against a plain Monte Carlo anchor.
    PegLeg(cli::bench::PegLegBenchArgs),
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create an account; the password comes from DJEGO_NEW_PASSWORD.
    Create(UserCreateArgs),
    /// Lift an account's login lockouts (when no pit boss can log in to do it).
    Unlock(UserUnlockArgs),
    /// Set an account's password (when no pit boss can log in to reset it); the
    /// password comes from DJEGO_NEW_PASSWORD. Ends the account's sessions.
    SetPassword(UserSetPasswordArgs),
}

#[derive(Args)]
pub struct UserSetPasswordArgs {
    #[arg(long)]
    pub username: String,
    #[arg(long, env = "DJEGO_NEW_PASSWORD", hide_env_values = true)]
    pub password: String,
    /// The account must replace this password at its next sign-in.
    #[arg(long)]
    pub temporary: bool,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Args)]
pub struct UserUnlockArgs {
    #[arg(long)]
    pub username: String,
    /// The address the holder signs in from: its lockout is lifted and it
    /// becomes known to the account (exempt from the per-account backoff).
    #[arg(long)]
    pub address: Option<String>,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Args)]
pub struct UserCreateArgs {
    #[arg(long)]
    pub username: String,
    #[arg(long, value_parser = parse_role)]
    pub role: Role,
    #[arg(long)]
    pub display_name: Option<String>,
    #[arg(long, env = "DJEGO_NEW_PASSWORD", hide_env_values = true)]
    pub password: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Subcommand)]
enum CheckpointCommand {
    /// Take a checkpoint: seal the significant-events chain, sign both heads, print it.
    Take(CheckpointTakeArgs),
    /// Write every checkpoint to a JSON file, for `djego verify ledger --checkpoints`.
    Export(CheckpointExportArgs),
    /// Print the checkpoint key's id and public key (hex): what the casino publishes, and what
    /// `djego verify round --public-key` and `djego verify ledger --public-key` pin.
    PublicKey(CheckpointTakeArgs),
}

#[derive(Args)]
pub struct CheckpointTakeArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub key: CheckpointKeyArgs,
}

#[derive(Args)]
pub struct CheckpointExportArgs {
    /// The file to write.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Subcommand)]
enum VerifyCommand {
    /// Recompute the ledger's hash chain and balances and the significant-events chain, and
    /// check them against signed checkpoints (the database's, or --checkpoints FILE);
    /// exit 1 when anything does not check.
    Ledger(VerifyLedgerArgs),
    /// Replay rounds offline from their transcripts (docs/transcript.md): the shuffle, the
    /// play, the outcome, every bet and every transfer. Reads a transcript, a saved recall or
    /// verification response, a JSON list or JSON Lines; version-1 shuffle transcripts too,
    /// a saved Lobo contest recall (every entrant's deck, plays and the pot's transfers) and a
    /// saved Peg Leg recall (every quote repriced, every bet's return recomputed).
    /// Exit 0 if all verify, 1 if any does not, 2 if the file cannot be read.
    Round(VerifyRoundArgs),
    /// Replay a JSON Lines export of many rounds (`GET /api/v1/audit/transcripts`: round
    /// transcripts and Lobo contest recalls; any document `verify round` reads), printing
    /// each failure and the rate; exit 1 if any round does not verify.
    Rounds(VerifyRoundsArgs),
}

#[derive(Args)]
pub struct VerifyLedgerArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Check against the checkpoints of this exported file (or a saved
    /// `GET /api/v1/audit/checkpoints` list) instead of those in the database.
    #[arg(long, value_name = "FILE")]
    pub checkpoints: Option<PathBuf>,
    /// Every checkpoint must be signed by this Ed25519 public key (64 hex digits); repeat it
    /// for the keys of several periods. Without it, each checkpoint's own key is used and
    /// printed for you to compare.
    #[arg(long, value_name = "HEX")]
    pub public_key: Vec<String>,
}

#[derive(Args)]
pub struct VerifyRoundArgs {
    /// The transcript JSON file ("-" for standard input).
    pub transcript: PathBuf,
    /// Print the verification reports as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The casino's checkpoint public key (64 hex digits; repeat for several): each document
    /// must then carry a ledger proof whose signed head this key signed.
    #[arg(long = "public-key", value_name = "HEX")]
    pub public_key: Vec<String>,
}

#[derive(Args)]
pub struct VerifyRoundsArgs {
    /// The JSON Lines file, one transcript or recall per line ("-" for standard input).
    pub file: PathBuf,
}

#[derive(Subcommand)]
enum CertifyCommand {
    /// Statistical certification of shuffle-v1 over N production-path shuffles.
    /// Writes certification.json and certification.txt; exit 0 on PASS, 1 on FAIL.
    Shuffle(CertifyShuffleArgs),
    /// Certify a pay table: every bet's outcome probabilities, RTP, house edge, standard
    /// deviation and pass/fail against the bounds; exit 1 when any bet fails.
    PayTable(CertifyPayTableArgs),
    /// Suggest the pays for a bet that come closest to a target RTP from below.
    Suggest(SuggestArgs),
    /// Write the data the verifiers judge pay tables with: the first-pass distribution of N
    /// certification uses and the certified RTP bounds (docs/verify/first_pass_distribution.json).
    VerifierData(VerifierDataArgs),
}

#[derive(Args)]
pub struct VerifierDataArgs {
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Args)]
pub struct CertifyShuffleArgs {
    /// Number of shuffles.
    #[arg(long)]
    pub shuffles: u64,
    /// Certification seed: round i uses server seed SHA-256(seed BE ‖ i BE).
    #[arg(long)]
    pub seed: u64,
    /// Family-wise significance level (each test is judged at significance / tests).
    #[arg(long, default_value_t = 0.01)]
    pub significance: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Directory for certification.json and certification.txt (created if missing).
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
}

/// Which pay table: a JSON file, or one of the built-in tables.
#[derive(Args)]
#[command(group(ArgGroup::new("table").args(["file", "default", "house"])))]
pub struct PayTableChoice {
    /// A pay table JSON file (the PayTableSpec format). Without it, --default is assumed.
    pub file: Option<PathBuf>,
    /// The built-in default table (the rules' printed pays).
    #[arg(long)]
    pub default: bool,
    /// The built-in house table (Conto Alto and Bajo re-priced to certify).
    #[arg(long)]
    pub house: bool,
}

#[derive(Args)]
pub struct NSourceArgs {
    /// Certify on a fresh simulation of this many deals instead of the embedded distribution of N.
    #[arg(long, value_name = "DEALS", requires = "seed")]
    pub simulate: Option<u64>,
    /// The simulation's seed (with --simulate).
    #[arg(long, requires = "simulate")]
    pub seed: Option<u64>,
    /// Worker threads for --simulate (default: all cores).
    #[arg(long, requires = "simulate")]
    pub threads: Option<usize>,
}

#[derive(Args)]
pub struct CertifyPayTableArgs {
    #[command(flatten)]
    pub table: PayTableChoice,
    /// Lowest acceptable RTP, as a fraction.
    #[arg(long, default_value_t = 0.80)]
    pub min: f64,
    /// Highest acceptable RTP, as a fraction.
    #[arg(long, default_value_t = 0.995)]
    pub max: f64,
    /// Print the certificate as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub n_source: NSourceArgs,
    /// Write n_distribution.svg and rtp_by_bet.svg into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

#[derive(Args)]
pub struct SuggestArgs {
    /// The bet kind: prima, escucha, maximo, conto_alto, conto_bajo, conto_medio, cartas, comeco.
    #[arg(long)]
    pub bet: String,
    /// For cartas: the number (one the base table offers).
    #[arg(long)]
    pub number: Option<u8>,
    /// Target RTP, as a fraction (e.g. 0.96).
    #[arg(long)]
    pub target: f64,
    /// Pays are multiples of this step.
    #[arg(long, default_value = "0.25")]
    pub step: rust_decimal::Decimal,
    /// The base table (default: the built-in default table).
    #[command(flatten)]
    pub table: PayTableChoice,
    /// Print the suggestion, including the whole new pay table, as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
enum SimulateCommand {
    /// Simulate the distribution of N (the first-pass count) through the real shuffle and engine.
    FirstPass(SimulateFirstPassArgs),
    /// The first player's result under the printed basic strategy, never folding, and perfect knowledge.
    BasicStrategy(SimulateBasicStrategyArgs),
    /// Calibrate the house's Fuerza quotes at Jasper tables against simulated outcomes, by band of
    /// quoted chance, and the price's return against a reference with sixteen times the draws.
    Fuerza(SimulateFuerzaArgs),
}

#[derive(Args)]
pub struct SimulateFuerzaArgs {
    /// Random Jasper rounds to deal (each quoted once the copa is over and once before).
    #[arg(long)]
    pub positions: u64,
    #[arg(long)]
    pub seed: u64,
    /// Set every Nth position's quote against a reference of sixteen times the draws (0: none).
    #[arg(long, default_value_t = 100)]
    pub reference_every: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SimulateBasicStrategyArgs {
    /// Rounds to simulate.
    #[arg(long)]
    pub deals: u64,
    #[arg(long)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SimulateFirstPassArgs {
    /// Deals to simulate (with --extend: deals to add).
    #[arg(long)]
    pub deals: u64,
    /// The simulation seed (ignored with --extend, which continues that file's seed).
    #[arg(long, required_unless_present = "extend")]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the distribution as JSON (the format of src/math/n_distribution_cache.json).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Continue the simulation held in this JSON file (its seed) by --deals more deals.
    #[arg(long, value_name = "FILE")]
    pub extend: Option<PathBuf>,
}

#[derive(Subcommand)]
enum SolveCommand {
    /// Lobo's value per round under perfect play (points, positive = player's edge): a lower
    /// bound (Overs limited), an upper bound (clairvoyant player), the exact value within a state
    /// budget, or simple strategies; with the house edge of a rule (docs/lobo.md).
    Lobo(SolveLoboArgs),
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SolveBound {
    /// Exact best play with Overs limited to --over (default 1): a lower bound on perfect play.
    Lower,
    /// The clairvoyant player (optionally penalised): an upper bound on perfect play.
    Upper,
    /// Exact perfect play (Overs up to --over, default all) within --budget stored positions.
    Exact,
    /// Simple strategies: fold at once, Perfect-or-Sum, capture-without-risk.
    Policies,
    /// A player who always plays the service's hint (solved at every decision within the
    /// service's budget): slow, about 0.1–0.8 s of CPU per decision.
    Hints,
}

#[derive(Args)]
pub struct SolveLoboArgs {
    /// hard, ordinary or easy.
    #[arg(long, value_parser = cli::solve::parse_mode)]
    pub mode: djego::games::lobo::Mode,
    #[arg(long, value_enum, default_value = "lower")]
    pub bound: SolveBound,
    /// House rule for the edge, e.g. fee=500 or fee=50,ante=10 (hundredths of a unit);
    /// default: the mode's default rule.
    #[arg(long, value_parser = cli::solve::parse_rule)]
    pub rule: Option<djego::games::lobo::HouseRule>,
    /// Loss cap in points (default: no cap).
    #[arg(long)]
    pub cap: Option<u32>,
    /// Largest Over difference allowed (default 1 for lower, 9 = full rules otherwise).
    #[arg(long)]
    pub over: Option<u8>,
    /// Upper bound's information penalty: none; tiered (every play charged); or the Over limit
    /// of the restricted game whose exact values are charged.
    #[arg(long, default_value = "1")]
    pub penalty: String,
    /// Largest Over difference a restricted penalty charges.
    #[arg(long, default_value_t = 1)]
    pub penalty_over: u8,
    /// The tiered penalty's estimate by the Wolf's hand size, "o,s" or "o,s,e": the Overs-≤-1
    /// value up to o cards, the no-Overs value up to s, the uniform-draws estimate up to e (e = s
    /// when left out), the fold value beyond.
    #[arg(long, default_value = "4,5,7", value_parser = djego::games::lobo::solver::Tiers::parse)]
    pub tiers: djego::games::lobo::solver::Tiers,
    /// State budget of --bound exact (positions stored).
    #[arg(long, default_value_t = 20_000_000)]
    pub budget: u64,
    /// Sampled deals (seeded); ignored with --full.
    #[arg(long, default_value_t = 2000)]
    pub samples: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Enumerate every opening exactly instead of sampling (lower and exact).
    #[arg(long)]
    pub full: bool,
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text).ok_or_else(|| "role must be one of player, dealer, cashier, pitboss, auditor".to_string())
}

fn main() -> ExitCode {
    djego::telemetry::init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Serve(args) => cli::serve::serve(args),
        Command::Migrate(args) => cli::serve::migrate(args),
        Command::Demo(args) => cli::serve::demo(args),
        Command::User {
            command: UserCommand::Create(args),
        } => cli::user::create(args),
        Command::User {
            command: UserCommand::Unlock(args),
        } => cli::user::unlock(args),
        Command::User {
            command: UserCommand::SetPassword(args),
        } => cli::user::set_password(args),
        Command::Checkpoint {
            command: CheckpointCommand::Take(args),
        } => cli::checkpoint::take(args),
        Command::Checkpoint {
            command: CheckpointCommand::Export(args),
        } => cli::checkpoint::export(args),
        Command::Checkpoint {
            command: CheckpointCommand::PublicKey(args),
        } => cli::checkpoint::public_key(args),
        Command::Verify {
            command: VerifyCommand::Ledger(args),
        } => cli::verify::ledger(args),
        Command::Verify {
            command: VerifyCommand::Round(args),
        } => cli::verify::round(args),
        Command::Verify {
            command: VerifyCommand::Rounds(args),
        } => cli::verify::rounds(args),
        Command::Certify {
            command: CertifyCommand::Shuffle(args),
        } => cli::certify::shuffle(args),
        Command::Certify {
            command: CertifyCommand::PayTable(args),
        } => cli::certify::pay_table(args),
        Command::Certify {
            command: CertifyCommand::Suggest(args),
        } => cli::certify::suggest(args),
        Command::Certify {
            command: CertifyCommand::VerifierData(args),
        } => cli::certify::verifier_data(args),
        Command::Simulate {
            command: SimulateCommand::FirstPass(args),
        } => cli::simulate::first_pass(args),
        Command::Simulate {
            command: SimulateCommand::BasicStrategy(args),
        } => cli::simulate::basic_strategy(args),
        Command::Simulate {
            command: SimulateCommand::Fuerza(args),
        } => cli::simulate::fuerza(args),
        Command::Solve {
            command: SolveCommand::Lobo(args),
        } => cli::solve::lobo(args),
        Command::Bench {
            command: BenchCommand::Wagers(args),
        } => cli::bench::wagers(args),
        Command::Bench {
            command: BenchCommand::Failover(args),
        } => cli::bench::failover(args),
        Command::Bench {
            command: BenchCommand::Verify(args),
        } => cli::bench::verify(args),
        Command::Bench {
            command: BenchCommand::PegLeg(args),
        } => cli::bench::peg_leg(args),
        Command::Report {
            command: ReportCommand::Tables(args),
        } => cli::report::tables(args),
        Command::Report {
            command: ReportCommand::Players(args),
        } => cli::report::players(args),
        Command::Report {
            command: ReportCommand::Dealers(args),
        } => cli::report::dealers(args),
        Command::Report {
            command: ReportCommand::Day(args),
        } => cli::report::day(args),
        Command::Report {
            command: ReportCommand::Plots(args),
        } => cli::report::plots(args),
        Command::Meters {
            command: MetersCommand::CatchUp(args),
        } => cli::report::meters(args, false),
        Command::Meters {
            command: MetersCommand::Rebuild(args),
        } => cli::report::meters(args, true),
        Command::Openapi => cli::serve::openapi(),
    }
}
