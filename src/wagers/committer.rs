//! The per-instance committer: one thread that takes whatever wagers have
//! queued (up to [`MAX_BATCH`]) and commits them together.
//!
//! No timer holds a request back: a lone request is committed at once, and
//! requests that arrive while a batch commits form the next one, so batches
//! grow exactly as fast as requests outrun one commit.
//!
//! On PostgreSQL two lanes, each with its own connection, take turns: once a
//! lane's batch has written everything and only its commit (and that commit's
//! fsync) is left, the other lane takes the next batch and does its reads that
//! need no ledger lock, then waits for the head lock, which the commit
//! releases. So a batch's reads overlap the previous batch's fsync, and the
//! ledger's serial section is only the head lock to the commit. SQLite has
//! one writer at a time, so it runs one lane.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

use super::batch::Batcher;
use super::{Committed, WagerError, WagerRequest};
use crate::store::{Backend, Database};

/// Requests committed in one transaction at most.
pub const MAX_BATCH: usize = 512;
/// Requests that may wait for the committer before submitters wait too.
const QUEUE_CAPACITY: usize = 8192;
/// Lanes on PostgreSQL: one committing while the other reads. A third would
/// only wait for the head lock.
const LANES_POSTGRES: usize = 2;

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
        let lanes = match db.backend() {
            Backend::Postgres => LANES_POSTGRES,
            Backend::Sqlite => 1,
        };
        let jobs = Arc::new(Mutex::new(jobs));
        for lane in 0..lanes {
            let (db, jobs, alive) = (db.clone(), jobs.clone(), alive.clone());
            std::thread::Builder::new()
                .name(format!("djego-committer-{lane}"))
                .spawn(move || {
                    let _alive = alive;
                    run(Batcher::new(db, checkpointer), &jobs)
                })
                .expect("spawning a wager committer thread");
        }
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

/// One lane: holds the queue from taking a batch until the batch hands off
/// (only its commit left), so batches are taken one after another and each
/// holds whatever queued while the one before it was written.
fn run(mut batcher: Batcher, jobs: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        let mut turn = jobs.lock().unwrap_or_else(|p| p.into_inner());
        let Some(first) = turn.blocking_recv() else {
            return;
        };
        // A wager whose requester stopped waiting (it was answered 503 after
        // the database timeout, or went away) before its batch began is not
        // committed: nobody would learn that it was.
        let mut batch: Vec<Job> = std::iter::once(first).filter(|j| !j.answer.is_closed()).collect();
        while batch.len() < MAX_BATCH {
            match turn.try_recv() {
                Ok(job) if job.answer.is_closed() => {}
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if batch.is_empty() {
            continue;
        }
        let mut turn = Some(turn);
        let mut hand_off = || drop(turn.take());
        let requests: Vec<&WagerRequest> = batch.iter().map(|j| &j.request).collect();
        // A bug must not take the wager path down with it: answer the batch
        // with an error and go on.
        let outcomes =
            catch_unwind(AssertUnwindSafe(|| batcher.commit(&requests, &mut hand_off))).unwrap_or_else(|_| {
                tracing::error!(size = requests.len(), "the wager committer panicked on a batch");
                batcher.discard_connection();
                requests
                    .iter()
                    .map(|_| Err(WagerError::Internal("the wager could not be committed".into())))
                    .collect()
            });
        debug_assert_eq!(outcomes.len(), batch.len());
        super::BATCH_SIZE.observe(batch.len() as f64);
        for (job, outcome) in batch.into_iter().zip(outcomes) {
            let answered = match &outcome {
                Ok(_) => "committed",
                Err(WagerError::Unavailable(_) | WagerError::OutcomeUnknown | WagerError::Internal(_)) => "failed",
                Err(_) => "refused",
            };
            super::WAGERS_ANSWERED
                .with_label_values(&[job.request.wager.kind(), answered])
                .inc();
            // The requester may have gone (client disconnected): nothing to do.
            let _ = job.answer.send(outcome);
        }
    }
}
