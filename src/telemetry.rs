//! Structured logs: JSON lines when `DJEGO_LOG_FORMAT=json`, readable text
//! otherwise; the level from `RUST_LOG` (default `info`). Each request's log
//! lines carry its request id (tracing-actix-web).

use tracing_subscriber::{fmt, EnvFilter};

pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let json = std::env::var("DJEGO_LOG_FORMAT").map(|v| v == "json").unwrap_or(false);
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
