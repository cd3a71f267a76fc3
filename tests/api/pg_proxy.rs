//! A TCP proxy between djego and PostgreSQL that a test turns against it, as a
//! failing server or network would:
//! - **freeze**: stop forwarding bytes but keep every connection open (a hung
//!   server, a network dropping packets);
//! - **cut**: close every connection at once (a server killed or restarted, as
//!   a failover does to the old primary);
//! - **down**: cut every connection and refuse new ones (a server gone);
//! - **cut at commit**: close the connection that writes the ledger at its
//!   next `COMMIT`, either before passing the `COMMIT` on (nothing committed)
//!   or after (committed, and the reply lost).
//!
//! The proxy reads the client's side of the PostgreSQL protocol to find
//! messages (a connection is the ledger's writer once it sends a statement
//! inserting into `transfers`); URLs through it disable TLS so it can.

use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::watch;

/// Where [`PgProxy::cut_at_commit`] cuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitCut {
    /// The `COMMIT` never reaches the server: the transaction rolls back.
    BeforeServer,
    /// The server gets the `COMMIT` and commits; its reply never comes back.
    AfterServer,
}

struct Control {
    frozen: watch::Sender<bool>,
    /// New connections are closed at once (a server that is down).
    refusing: std::sync::atomic::AtomicBool,
    /// Bumped to close every connection open at that moment.
    cuts: watch::Sender<u64>,
    at_commit: Mutex<Option<CommitCut>>,
    /// Commits cut so far.
    commits_cut: std::sync::atomic::AtomicUsize,
}

pub struct PgProxy {
    pub port: u16,
    control: Arc<Control>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PgProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PgProxy {
    /// A proxy to `upstream` (`host:port`).
    pub async fn start(upstream: String) -> PgProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().unwrap().port();
        let control = Arc::new(Control {
            frozen: watch::channel(false).0,
            refusing: Default::default(),
            cuts: watch::channel(0).0,
            at_commit: Mutex::new(None),
            commits_cut: Default::default(),
        });
        let shared = control.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (upstream, control) = (upstream.clone(), shared.clone());
                if control.refusing.load(std::sync::atomic::Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                tokio::spawn(async move {
                    let mut cuts = control.cuts.subscribe();
                    cuts.borrow_and_update();
                    let Ok(server) = tokio::net::TcpStream::connect(&upstream).await else {
                        return;
                    };
                    let (cr, cw) = client.into_split();
                    let (sr, sw) = server.into_split();
                    // Either side closing, or a cut, closes both.
                    tokio::select! {
                        _ = client_to_server(cr, sw, control.clone()) => {}
                        _ = pump(sr, cw, control.frozen.subscribe()) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        PgProxy { port, control, task }
    }

    /// A proxy in front of `url`'s server, and `url` through it (TLS off).
    pub async fn in_front_of(url: &str) -> (PgProxy, String) {
        let (_, upstream) = through_proxy(url, 0);
        let proxy = PgProxy::start(upstream).await;
        let url = through_proxy(url, proxy.port).0;
        (proxy, url)
    }

    pub fn freeze(&self, frozen: bool) {
        self.control.frozen.send_replace(frozen);
    }

    /// Closes every connection open now; new ones go through as before.
    pub fn cut_all(&self) {
        self.control.cuts.send_modify(|n| *n += 1);
    }

    /// While true, the server is down: every connection open now is cut and
    /// new ones are closed as soon as they are made.
    pub fn down(&self, down: bool) {
        self.control.refusing.store(down, std::sync::atomic::Ordering::SeqCst);
        if down {
            self.cut_all();
        }
    }

    /// Cuts the ledger writer's connection at its next `COMMIT`, once.
    pub fn cut_at_commit(&self, cut: CommitCut) {
        *self.control.at_commit.lock().unwrap() = Some(cut);
    }

    /// How many commits were cut.
    pub fn commits_cut(&self) -> usize {
        self.control.commits_cut.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// `url` with its host and port replaced by the proxy's and TLS disabled (so
/// the proxy can read the protocol); the upstream's `host:port`.
pub fn through_proxy(url: &str, proxy_port: u16) -> (String, String) {
    let (scheme_user, rest) = url.split_once('@').expect("a PostgreSQL URL with a user");
    let (host_port, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let upstream = if host_port.contains(':') {
        host_port.to_string()
    } else {
        format!("{host_port}:5432")
    };
    let separator = if path.contains('?') { '&' } else { '?' };
    (
        format!("{scheme_user}@127.0.0.1:{proxy_port}{path}{separator}sslmode=disable&gssencmode=disable"),
        upstream,
    )
}

/// Copies bytes from `from` to `to`, holding them while the gate says frozen.
async fn pump(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mut gate: watch::Receiver<bool>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if gate.wait_for(|frozen| !frozen).await.is_err() {
            return;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// The protocol's code of a startup message (version 3.0).
const PROTOCOL_3: u32 = 196_608;

/// Copies the client's messages to the server, whole, watching for the ledger
/// writer's `COMMIT` while a cut at commit is armed.
async fn client_to_server(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, control: Arc<Control>) {
    let mut gate = control.frozen.subscribe();
    let (mut pending, mut started, mut ledger_writer) = (Vec::<u8>::new(), false, false);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        // Whole messages at the front of `pending`.
        let mut whole = 0;
        let mut cut: Option<(usize, CommitCut)> = None;
        loop {
            let rest = &pending[whole..];
            let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
            if !started {
                // Untyped: length, code (startup, or a TLS or GSS request).
                if rest.len() < 8 || rest.len() < be32(rest) {
                    break;
                }
                started = be32(&rest[4..]) as u32 == PROTOCOL_3;
                whole += be32(rest);
                continue;
            }
            if rest.len() < 5 || rest.len() < 1 + be32(&rest[1..]) {
                break;
            }
            let (kind, end) = (rest[0], 1 + be32(&rest[1..]));
            let body = &rest[5..end];
            if (kind == b'P' || kind == b'Q') && contains(body, b"INSERT INTO transfers") {
                ledger_writer = true;
            }
            if kind == b'Q' && body.starts_with(b"COMMIT") && ledger_writer {
                if let Some(how) = control.at_commit.lock().unwrap().take() {
                    cut = Some((whole, how));
                    whole += end;
                    break;
                }
            }
            whole += end;
        }
        if gate.wait_for(|frozen| !frozen).await.is_err() {
            return;
        }
        let forward = match cut {
            Some((before_commit, CommitCut::BeforeServer)) => before_commit,
            _ => whole,
        };
        if to.write_all(&pending[..forward]).await.is_err() {
            return;
        }
        if cut.is_some() {
            let _ = to.flush().await;
            control.commits_cut.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            // Give the server the COMMIT before the connection closes under it.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            return;
        }
        pending.drain(..whole);
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
