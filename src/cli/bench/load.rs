//! The load generator of `djego bench wagers`: one OS thread per client, each
//! with its own ureq agent holding one persistent HTTP/1.1 connection
//! (keep-alive), sending POSTs either closed loop (the next request as soon as
//! the last one answered) or open loop at a fixed rate (send times scheduled
//! in advance; latency measured from the scheduled time, so queueing behind a
//! slow response is counted, not hidden).

use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

/// Latencies are recorded in microseconds, up to a minute.
const MAX_LATENCY_US: u64 = 60_000_000;

/// One client's request: a POST of `body` to `url` with a bearer token.
#[derive(Clone, Debug)]
pub struct Target {
    pub url: String,
    pub token: String,
    pub body: String,
}

#[derive(Clone, Copy, Debug)]
pub enum Pace {
    /// Closed loop: each client sends its next request when the last one answered.
    Closed,
    /// Open loop: `total_rate` requests per second over all clients, each client
    /// at `total_rate / clients`, on a fixed schedule.
    Open { total_rate: f64 },
}

/// A HTTP agent for one client: keep-alive, no redirects, non-2xx statuses
/// returned as responses rather than errors.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_idle_connections(4)
        .max_idle_connections_per_host(2)
        .max_idle_age(Duration::from_secs(600))
        .timeout_global(Some(Duration::from_secs(60)))
        .no_delay(true)
        .build()
        .into()
}

/// A POST; returns the status (0 for a transport error) and the body (or the error).
pub fn post(agent: &ureq::Agent, url: &str, token: Option<&str>, key: Option<&str>, body: &str) -> (u16, String) {
    let mut req = agent.post(url).header("content-type", "application/json");
    if let Some(t) = token {
        req = req.header("authorization", &format!("Bearer {t}"));
    }
    if let Some(k) = key {
        req = req.header("idempotency-key", k);
    }
    match req.send(body) {
        Ok(mut resp) => {
            let status = resp.status().as_u16();
            // Reading the whole body returns the connection to the agent's pool.
            let text = resp
                .body_mut()
                .read_to_string()
                .unwrap_or_else(|e| format!("<body: {e}>"));
            (status, text)
        }
        Err(e) => (0, e.to_string()),
    }
}

/// A GET (no body); the status, or 0 for a transport error.
pub fn get(agent: &ureq::Agent, url: &str) -> (u16, String) {
    match agent.get(url).call() {
        Ok(mut resp) => {
            let status = resp.status().as_u16();
            let text = resp.body_mut().read_to_string().unwrap_or_default();
            (status, text)
        }
        Err(e) => (0, e.to_string()),
    }
}

/// What one measured run saw.
pub struct RunResult {
    /// Responses (any status) counted in the run.
    pub completed: u64,
    /// Non-2xx responses and transport errors among them.
    pub errors: u64,
    /// Per status (0 = transport error): how many, and the first body seen.
    pub error_kinds: BTreeMap<u16, (u64, String)>,
    /// Latency in microseconds of every counted request.
    pub latency_us: Histogram<u64>,
    /// Completions in each whole second of the run.
    pub per_second: Vec<u64>,
    /// The measured window.
    pub window: Duration,
    /// Open loop: requests scheduled in the window.
    pub scheduled: u64,
}

impl RunResult {
    fn empty(window: Duration) -> RunResult {
        RunResult {
            completed: 0,
            errors: 0,
            error_kinds: BTreeMap::new(),
            latency_us: histogram(),
            per_second: vec![0; whole_seconds(window)],
            window,
            scheduled: 0,
        }
    }

    /// Completed requests per second over the window.
    pub fn rate(&self) -> f64 {
        self.completed as f64 / self.window.as_secs_f64()
    }

    pub fn p50_ms(&self) -> f64 {
        self.latency_us.value_at_quantile(0.50) as f64 / 1000.0
    }

    pub fn p99_ms(&self) -> f64 {
        self.latency_us.value_at_quantile(0.99) as f64 / 1000.0
    }

    /// The lowest and highest completions in one whole second.
    pub fn per_second_min_max(&self) -> (u64, u64) {
        let min = self.per_second.iter().copied().min().unwrap_or(0);
        let max = self.per_second.iter().copied().max().unwrap_or(0);
        (min, max)
    }

    /// "409 ×12 (first: …); transport ×1 (…)"
    pub fn describe_errors(&self) -> String {
        self.error_kinds
            .iter()
            .map(|(status, (n, first))| {
                let what = if *status == 0 {
                    "transport".to_string()
                } else {
                    format!("HTTP {status}")
                };
                let first: String = first.chars().take(200).collect();
                format!("{what} x{n} (first: {first})")
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn merge(&mut self, other: RunResult) {
        self.completed += other.completed;
        self.errors += other.errors;
        self.scheduled += other.scheduled;
        for (status, (n, first)) in other.error_kinds {
            self.error_kinds.entry(status).or_insert((0, first)).0 += n;
        }
        self.latency_us
            .add(&other.latency_us)
            .expect("histograms of equal bounds add");
        for (a, b) in self.per_second.iter_mut().zip(other.per_second) {
            *a += b;
        }
    }

    fn record(&mut self, start: Instant, sent_at: Instant, done: Instant, status: u16, body: &str) {
        self.completed += 1;
        let us = done
            .saturating_duration_since(sent_at)
            .as_micros()
            .min(MAX_LATENCY_US as u128) as u64;
        self.latency_us.saturating_record(us.max(1));
        let second = done.saturating_duration_since(start).as_secs() as usize;
        if let Some(slot) = self.per_second.get_mut(second) {
            *slot += 1;
        }
        if !(200..300).contains(&status) {
            self.errors += 1;
            self.error_kinds.entry(status).or_insert((0, body.to_string())).0 += 1;
        }
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid histogram bounds")
}

fn whole_seconds(window: Duration) -> usize {
    (window.as_secs() as usize).max(1)
}

/// Runs every client for `window` and merges what they saw. `run_tag` makes
/// the Idempotency-Keys unique across runs; `warm_url` is fetched by each
/// client before the start, to open its connection outside the measurement.
pub fn run(targets: &[Target], window: Duration, pace: Pace, run_tag: &str, warm_url: &str) -> RunResult {
    let clients = targets.len();
    let barrier = Barrier::new(clients);
    let start_cell: OnceLock<Instant> = OnceLock::new();
    let mut total = RunResult::empty(window);
    std::thread::scope(|scope| {
        let handles: Vec<_> = targets
            .iter()
            .enumerate()
            .map(|(c, target)| {
                let barrier = &barrier;
                let start_cell = &start_cell;
                scope.spawn(move || {
                    let agent = agent();
                    let _ = get(&agent, warm_url);
                    barrier.wait();
                    let start = *start_cell.get_or_init(Instant::now);
                    client(&agent, target, c, clients, start, window, pace, run_tag)
                })
            })
            .collect();
        for h in handles {
            total.merge(h.join().expect("a load client thread panicked"));
        }
    });
    total
}

#[allow(clippy::too_many_arguments)]
fn client(
    agent: &ureq::Agent,
    target: &Target,
    c: usize,
    clients: usize,
    start: Instant,
    window: Duration,
    pace: Pace,
    run_tag: &str,
) -> RunResult {
    let mut result = RunResult::empty(window);
    let deadline = start + window;
    let mut seq: u64 = 0;
    match pace {
        Pace::Closed => loop {
            let sent_at = Instant::now();
            if sent_at >= deadline {
                break;
            }
            let key = format!("bench-{run_tag}-{c}-{seq}");
            seq += 1;
            let (status, body) = post(agent, &target.url, Some(&target.token), Some(&key), &target.body);
            let done = Instant::now();
            // A request still in flight at the deadline is not counted.
            if done <= deadline {
                result.record(start, sent_at, done, status, &body);
            }
        },
        Pace::Open { total_rate } => {
            let per_client = total_rate / clients as f64;
            let interval = Duration::from_secs_f64(1.0 / per_client.max(1e-3));
            // Clients are staggered evenly over one interval.
            let mut scheduled = start + interval.mul_f64(c as f64 / clients as f64);
            while scheduled < deadline {
                let now = Instant::now();
                if now < scheduled {
                    std::thread::sleep(scheduled - now);
                }
                let key = format!("bench-{run_tag}-{c}-{seq}");
                seq += 1;
                result.scheduled += 1;
                let (status, body) = post(agent, &target.url, Some(&target.token), Some(&key), &target.body);
                // Latency from the scheduled send time: time spent waiting
                // behind a slow earlier response counts.
                result.record(start, scheduled, Instant::now(), status, &body);
                scheduled += interval;
            }
        }
    }
    result
}
