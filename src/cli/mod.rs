//! Implementations of the `djego` subcommands, one file per command group.
//! main.rs holds the clap definitions and dispatches here. Each function
//! returns the process's exit code, or an error message (exit 2).

pub mod bench;
pub mod certify;
pub mod checkpoint;
pub mod progress;
pub mod report;
pub mod serve;
pub mod simulate;
pub mod solve;
pub mod user;
pub mod verify;

/// Worker threads: the requested number, or all cores.
pub fn threads_or_all_cores(requested: Option<usize>) -> usize {
    requested
        .filter(|&t| t > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}
