//! The per-instance committer: one thread that takes whatever wagers have
//! queued (up to [`MAX_BATCH`]) and commits them together.
//!
//! No timer holds a request back: a lone request is committed at once, and
//! requests that arrive while a batch commits form the next one, so batches
//! grow exactly as fast as requests outrun one commit.

use std::panic::{catch_unwind, AssertUnwindSafe};
use tokio::sync::{mpsc, oneshot};

use super::batch::Batcher;
use super::{Committed, WagerError, WagerRequest};
use crate::store::Database;

/// Requests committed in one transaction at most.
pub const MAX_BATCH: usize = 512;
/// Requests that may wait for the committer before submitters wait too.
const QUEUE_CAPACITY: usize = 8192;

struct Job {
    request: WagerRequest,
    answer: oneshot::Sender<Result<Committed, WagerError>>,
}

/// A handle to this instance's committer; cheap to clone.
#[derive(Clone)]
pub struct Committer {
    queue: mpsc::Sender<Job>,
}

impl Committer {
    /// Starts the committer thread. It stops when every handle is dropped.
    pub fn start(db: Database) -> Committer {
        let (queue, jobs) = mpsc::channel(QUEUE_CAPACITY);
        // On SQLite the committer leaves checkpoints to a thread of their own,
        // which lives as long as the committer does.
        let alive = std::sync::Arc::new(());
        let checkpointer = match db.spawn_wal_checkpointer(std::sync::Arc::downgrade(&alive)) {
            Ok(running) => running,
            Err(e) => {
                tracing::error!(error = %e, "no WAL checkpointer: the committer checkpoints as it commits");
                false
            }
        };
        std::thread::Builder::new()
            .name("djego-committer".into())
            .spawn(move || {
                let _alive = alive;
                run(Batcher::new(db, checkpointer), jobs)
            })
            .expect("spawning the wager committer thread");
        Committer { queue }
    }

    /// Queues a wager and waits until the transaction that holds it has
    /// committed (or it was refused).
    pub async fn submit(&self, request: WagerRequest) -> Result<Committed, WagerError> {
        let (answer, answered) = oneshot::channel();
        self.queue.send(Job { request, answer }).await.map_err(|_| stopped())?;
        answered.await.map_err(|_| stopped())?
    }
}

fn stopped() -> WagerError {
    WagerError::Unavailable("the wager committer has stopped".into())
}

fn run(mut batcher: Batcher, mut jobs: mpsc::Receiver<Job>) {
    while let Some(first) = jobs.blocking_recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let requests: Vec<&WagerRequest> = batch.iter().map(|j| &j.request).collect();
        // A bug must not take the wager path down with it: answer the batch
        // with an error and go on.
        let outcomes = catch_unwind(AssertUnwindSafe(|| batcher.commit(&requests))).unwrap_or_else(|_| {
            tracing::error!(size = requests.len(), "the wager committer panicked on a batch");
            batcher.discard_connection();
            requests
                .iter()
                .map(|_| Err(WagerError::Internal("the wager could not be committed".into())))
                .collect()
        });
        debug_assert_eq!(outcomes.len(), batch.len());
        for (job, outcome) in batch.into_iter().zip(outcomes) {
            // The requester may have gone (client disconnected): nothing to do.
            let _ = job.answer.send(outcome);
        }
    }
}
