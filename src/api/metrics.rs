//! Prometheus metrics: request counts and latencies by route pattern (never by
//! raw path, which would let clients create unbounded label values).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};
use std::sync::LazyLock;
use std::time::Instant;

struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency_seconds: HistogramVec,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let registry = Registry::new();
    let requests = IntCounterVec::new(
        Opts::new("djego_http_requests_total", "HTTP requests by method, route and status"),
        &["method", "route", "status"],
    )
    .expect("static metric definition");
    let latency_seconds = HistogramVec::new(
        HistogramOpts::new(
            "djego_http_request_duration_seconds",
            "HTTP request latency by method and route",
        )
        .buckets(vec![0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5]),
        &["method", "route"],
    )
    .expect("static metric definition");
    registry.register(Box::new(requests.clone())).expect("registered once");
    registry
        .register(Box::new(latency_seconds.clone()))
        .expect("registered once");
    // The wager path's own: wagers answered by kind and outcome, and batch sizes.
    registry
        .register(Box::new(crate::wagers::WAGERS_ANSWERED.clone()))
        .expect("registered once");
    registry
        .register(Box::new(crate::wagers::BATCH_SIZE.clone()))
        .expect("registered once");
    Metrics {
        registry,
        requests,
        latency_seconds,
    }
});

pub async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let res = next.call(req).await?;
    // Read after routing: the router has recorded the matched resource, so
    // this is a lookup, not a second match of the path against every route.
    let route = res.request().match_pattern().unwrap_or_else(|| "unmatched".to_string());
    let status = res.status().as_u16().to_string();
    METRICS.requests.with_label_values(&[&method, &route, &status]).inc();
    METRICS
        .latency_seconds
        .with_label_values(&[&method, &route])
        .observe(started.elapsed().as_secs_f64());
    Ok(res)
}

pub fn render() -> String {
    let mut buffer = Vec::new();
    let _ = TextEncoder::new().encode(&METRICS.registry.gather(), &mut buffer);
    String::from_utf8(buffer).unwrap_or_default()
}
