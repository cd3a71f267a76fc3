//! The load generator of `djego bench wagers`. Measured runs are one thread
//! of tasks: each client a task with its own persistent HTTP/1.1 connection
//! (keep-alive, hyper), sending POSTs either closed loop (the next request as
//! soon as the last one answered) or open loop at a fixed rate (send times
//! scheduled in advance; latency measured from the scheduled time, so
//! queueing behind a slow response is counted, not hidden). One thread
//! rather than one per client: the load generator shares the machine with
//! djego and the database, and a thread switch per request would cost it
//! more CPU than the request itself. Setup (users, deposits, tables) uses
//! blocking ureq calls.

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use std::collections::BTreeMap;
use std::sync::Arc;
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
    /// Open loop: how late the load generator itself sent the requests whose client was idle
    /// at their scheduled time (microseconds). Large values mean the generator, not the server,
    /// was held up.
    pub send_lag_us: Histogram<u64>,
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
            send_lag_us: histogram(),
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

    /// Open loop: the load generator's own lateness, p99 and max, in ms.
    pub fn send_lag_p99_max_ms(&self) -> (f64, f64) {
        (
            self.send_lag_us.value_at_quantile(0.99) as f64 / 1000.0,
            self.send_lag_us.max() as f64 / 1000.0,
        )
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
        self.send_lag_us
            .add(&other.send_lag_us)
            .expect("histograms of equal bounds add");
        for (a, b) in self.per_second.iter_mut().zip(other.per_second) {
            *a += b;
        }
    }

    /// A client that could not start: an error, so the run says it failed.
    fn record_unsent(&mut self, why: &str) {
        self.errors += 1;
        self.error_kinds.entry(0).or_insert((0, why.to_string())).0 += 1;
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

/// One client's request, parsed once.
struct Prepared {
    /// host:port, for the connection and the Host header.
    authority: String,
    path: String,
    authorization: String,
    body: Bytes,
}

impl Prepared {
    fn new(target: &Target) -> Result<Prepared, String> {
        let uri: Uri = target.url.parse().map_err(|e| format!("{}: {e}", target.url))?;
        let authority = uri
            .authority()
            .ok_or_else(|| format!("{}: no host", target.url))?
            .to_string();
        let path = uri.path_and_query().map_or("/".to_string(), |p| p.to_string());
        Ok(Prepared {
            authority,
            path,
            authorization: format!("Bearer {}", target.token),
            body: Bytes::from(target.body.clone()),
        })
    }
}

/// Runs every client for `window` and merges what they saw. `run_tag` makes
/// the Idempotency-Keys unique across runs; `warm_url` is fetched on each
/// client's connection before the start, to open it outside the measurement.
pub fn run(targets: &[Target], window: Duration, pace: Pace, run_tag: &str, warm_url: &str) -> RunResult {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the load generator");
    runtime.block_on(async {
        let mut total = RunResult::empty(window);
        let clients = targets.len();
        let warm_path = warm_url
            .parse::<Uri>()
            .ok()
            .and_then(|u| u.path_and_query().map(|p| p.to_string()))
            .unwrap_or_else(|| "/".to_string());
        let mut ready = Vec::with_capacity(clients);
        for target in targets {
            let prepared = match Prepared::new(target) {
                Ok(p) => Arc::new(p),
                Err(e) => {
                    total.record_unsent(&e);
                    continue;
                }
            };
            match connect(&prepared.authority).await {
                Ok(mut sender) => {
                    let warm = Request::get(warm_path.as_str())
                        .header(HOST, prepared.authority.as_str())
                        .body(Full::new(Bytes::new()))
                        .expect("a GET from parsed parts");
                    let _ = send(&mut sender, warm).await;
                    ready.push((sender, prepared));
                }
                Err(e) => total.record_unsent(&e),
            }
        }
        let start = Instant::now();
        let tasks: Vec<_> = ready
            .into_iter()
            .enumerate()
            .map(|(c, (sender, prepared))| {
                let run_tag = run_tag.to_string();
                tokio::spawn(client(sender, prepared, c, clients, start, window, pace, run_tag))
            })
            .collect();
        for task in tasks {
            total.merge(task.await.expect("a load client task panicked"));
        }
        total
    })
}

/// A keep-alive HTTP/1.1 connection to `authority`, driven by its own task.
async fn connect(authority: &str) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = tokio::net::TcpStream::connect(authority)
        .await
        .map_err(|e| format!("connect {authority}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake {authority}: {e}"))?;
    tokio::spawn(connection);
    Ok(sender)
}

/// Sends one request and reads the whole response: the status (0 for a
/// transport error) and, for a non-2xx answer, the body.
async fn send(sender: &mut SendRequest<Full<Bytes>>, request: Request<Full<Bytes>>) -> (u16, String) {
    if let Err(e) = sender.ready().await {
        return (0, e.to_string());
    }
    match sender.send_request(request).await {
        Ok(response) => {
            let status = response.status().as_u16();
            match response.into_body().collect().await {
                Ok(_) if (200..300).contains(&status) => (status, String::new()),
                Ok(body) => (status, String::from_utf8_lossy(&body.to_bytes()).into_owned()),
                Err(e) => (0, format!("<body: {e}>")),
            }
        }
        Err(e) => (0, e.to_string()),
    }
}

#[allow(clippy::too_many_arguments)]
async fn client(
    mut sender: SendRequest<Full<Bytes>>,
    target: Arc<Prepared>,
    c: usize,
    clients: usize,
    start: Instant,
    window: Duration,
    pace: Pace,
    run_tag: String,
) -> RunResult {
    let mut result = RunResult::empty(window);
    let deadline = start + window;
    let mut seq: u64 = 0;
    let mut next_request = || {
        let key = format!("bench-{run_tag}-{c}-{seq}");
        seq += 1;
        Request::post(target.path.as_str())
            .header(HOST, target.authority.as_str())
            .header(CONTENT_TYPE, "application/json")
            .header(AUTHORIZATION, target.authorization.as_str())
            .header("idempotency-key", key)
            .body(Full::new(target.body.clone()))
            .expect("a POST from parsed parts")
    };
    match pace {
        Pace::Closed => loop {
            let sent_at = Instant::now();
            if sent_at >= deadline {
                break;
            }
            let (status, body) = send(&mut sender, next_request()).await;
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
                let idle = Instant::now() < scheduled;
                tokio::time::sleep_until(tokio::time::Instant::from_std(scheduled)).await;
                if idle {
                    let lag = Instant::now().saturating_duration_since(scheduled).as_micros();
                    result
                        .send_lag_us
                        .saturating_record((lag as u64).clamp(1, MAX_LATENCY_US));
                }
                result.scheduled += 1;
                let (status, body) = send(&mut sender, next_request()).await;
                // Latency from the scheduled send time: time spent waiting
                // behind a slow earlier response counts.
                result.record(start, scheduled, Instant::now(), status, &body);
                scheduled += interval;
            }
        }
    }
    result
}
