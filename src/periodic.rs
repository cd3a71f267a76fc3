//! A task run every interval on a thread of its own, for as long as its handle lives: the
//! checkpoints, the Lobo timeout sweep and the floor's meters each keep one per instance.

use std::sync::mpsc;
use std::time::Duration;

/// Keeps the thread running; dropping it stops the thread (after the run in progress).
pub struct Periodic {
    _stop: mpsc::Sender<()>,
}

impl Periodic {
    /// Starts a thread named `name` that runs `task` every `interval`, or nothing when
    /// `interval` is zero.
    pub fn start(name: &str, interval: Duration, mut task: impl FnMut() + Send + 'static) -> Option<Periodic> {
        if interval.is_zero() {
            return None;
        }
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                    task();
                }
            })
            .unwrap_or_else(|e| panic!("spawning the {name} thread: {e}"));
        Some(Periodic { _stop: stop })
    }
}
