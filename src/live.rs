//! Live table events for Server-Sent Events watchers (docs/architecture.md).
//!
//! Each table has a broadcast channel in this instance; handlers publish
//! after their transaction commits, so watchers never see a change that was
//! rolled back. A watcher that falls behind by more than the channel's
//! capacity is told to resynchronise from the table's current state.
//!
//! Across instances sharing one PostgreSQL, a change is also announced with
//! `NOTIFY djego_live` (table and round ids only, never game data); every
//! other instance's relay thread hears it, reloads the round from the
//! database and publishes it to its own watchers. No broker is needed.

use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Events buffered per table for slow watchers.
const CHANNEL_CAPACITY: usize = 1024;

#[derive(Clone, Debug)]
pub struct LiveEvent {
    /// The SSE `event:` name, e.g. `card_dealt`.
    pub name: String,
    /// The SSE `data:` JSON.
    pub data: String,
}

/// The PostgreSQL channel that carries change announcements between instances.
pub const NOTIFY_CHANNEL: &str = "djego_live";
/// How long a round's live view waits after a bet for more bets to land, so
/// that a burst of bets is one publication.
pub const REFRESH_COALESCE_MS: u64 = 50;
/// How often the relay thread polls its connection for announcements.
const RELAY_POLL_MS: u64 = 100;

/// A change announced by one instance to the others.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// The announcing instance (so it ignores its own).
    pub instance: String,
    pub table_id: String,
    pub round_id: Option<String>,
}

#[derive(Clone, Default)]
pub struct LiveHub {
    /// This instance's id in announcements.
    pub instance: Arc<String>,
    channels: Arc<Mutex<HashMap<String, broadcast::Sender<LiveEvent>>>>,
    /// Per round: how many of its events this instance has published.
    published: Arc<Mutex<HashMap<String, usize>>>,
    /// Held while a round's new events are sent, so a request and the relay
    /// publishing the same round never interleave.
    round_send: Arc<Mutex<()>>,
    /// Rounds with a live refresh scheduled (see [`LiveHub::claim_refresh`]).
    refresh_pending: Arc<Mutex<std::collections::HashSet<String>>>,
    /// Set when the service shuts down: every live stream ends.
    closing: Arc<Closing>,
}

/// Whether the service is shutting down, for the streams to watch.
struct Closing(tokio::sync::watch::Sender<bool>);

impl Default for Closing {
    fn default() -> Closing {
        Closing(tokio::sync::watch::channel(false).0)
    }
}

impl LiveHub {
    fn sender(&self, table_id: &str) -> broadcast::Sender<LiveEvent> {
        let mut map = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(table_id.to_string())
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .clone()
    }

    pub fn new() -> LiveHub {
        LiveHub {
            instance: Arc::new(uuid::Uuid::new_v4().to_string()),
            ..LiveHub::default()
        }
    }

    /// The SQL that announces a change to the other instances (PostgreSQL).
    pub fn announcement_sql(&self, table_id: &str, round_id: Option<&str>) -> String {
        let payload = serde_json::to_string(&Announcement {
            instance: self.instance.to_string(),
            table_id: table_id.to_string(),
            round_id: round_id.map(str::to_string),
        })
        .unwrap_or_default();
        // Ids are UUIDs and the payload is JSON we built: quoting '' suffices.
        format!(
            "SELECT pg_notify('{NOTIFY_CHANNEL}', '{}')",
            payload.replace('\'', "''")
        )
    }

    /// Listens for other instances' announcements on a dedicated PostgreSQL
    /// connection and hands each to `on_remote`, until the service shuts
    /// down ([`LiveHub::close_streams`]). Reconnects after a lost connection.
    pub fn start_relay(&self, database_url: String, on_remote: impl Fn(Announcement) + Send + 'static) {
        use diesel::{Connection, RunQueryDsl};
        let me = self.instance.to_string();
        let closing = self.closing.0.subscribe();
        std::thread::Builder::new()
            .name("djego-live-relay".into())
            .spawn(move || loop {
                if *closing.borrow() {
                    return;
                }
                let mut conn = match diesel::PgConnection::establish(&database_url) {
                    Ok(c) => c,
                    Err(e) => {
                        tracing::warn!(error = %e, "live relay cannot connect; retrying");
                        std::thread::sleep(std::time::Duration::from_secs(1));
                        continue;
                    }
                };
                if diesel::sql_query(format!("LISTEN {NOTIFY_CHANNEL}"))
                    .execute(&mut conn)
                    .is_err()
                {
                    continue;
                }
                while !*closing.borrow() {
                    // A round trip makes libpq read pending notifications.
                    if diesel::sql_query("SELECT 1").execute(&mut conn).is_err() {
                        break;
                    }
                    let received: Vec<_> = conn.notifications_iter().filter_map(Result::ok).collect();
                    for n in received {
                        match serde_json::from_str::<Announcement>(&n.payload) {
                            Ok(a) if a.instance != me => on_remote(a),
                            _ => {}
                        }
                    }
                    std::thread::sleep(std::time::Duration::from_millis(RELAY_POLL_MS));
                }
            })
            .expect("spawning the live relay thread");
    }

    /// Claims the one pending refresh of a round's view: true if the caller
    /// must schedule it, false if one is already scheduled.
    pub fn claim_refresh(&self, round_id: &str) -> bool {
        let mut pending = self.refresh_pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.insert(round_id.to_string())
    }

    /// Ends a claim made with [`LiveHub::claim_refresh`].
    pub fn release_refresh(&self, round_id: &str) {
        let mut pending = self.refresh_pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.remove(round_id);
    }

    /// Whether anyone on this instance watches the table.
    pub fn has_watchers(&self, table_id: &str) -> bool {
        let map = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        map.get(table_id).is_some_and(|s| s.receiver_count() > 0)
    }

    /// Ends every live stream of this instance, now and to come: a server
    /// stopping waits for its open responses, and a stream never ends alone.
    pub fn close_streams(&self) {
        self.closing.0.send_replace(true);
    }

    /// Resolves once the streams are to end.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closing = self.closing.0.subscribe();
        async move {
            // An error means the hub itself is gone: end too.
            let _ = closing.wait_for(|closing| *closing).await;
        }
    }

    pub fn subscribe(&self, table_id: &str) -> broadcast::Receiver<LiveEvent> {
        self.sender(table_id).subscribe()
    }

    /// Records that a round's first `count` events are published; returns how
    /// many were published before (so the caller sends only the rest).
    pub fn mark_published(&self, round_id: &str, count: usize) -> usize {
        let mut map = self.published.lock().unwrap_or_else(|p| p.into_inner());
        let before = map.get(round_id).copied().unwrap_or(0);
        map.insert(round_id.to_string(), before.max(count));
        before.min(count)
    }

    /// Sends a round's events not yet published (as `(name, data)` pairs,
    /// all of them each time), then `snapshot` under `snapshot_name`.
    pub fn publish_round<T: Serialize>(
        &self,
        table_id: &str,
        round_id: &str,
        events: &[(&str, T)],
        snapshot_name: &str,
        snapshot: &impl Serialize,
    ) {
        let _order = self.round_send.lock().unwrap_or_else(|p| p.into_inner());
        let already = self.mark_published(round_id, events.len());
        for (name, data) in events.iter().skip(already) {
            self.publish(table_id, name, data);
        }
        self.publish(table_id, snapshot_name, snapshot);
    }

    pub fn publish(&self, table_id: &str, name: &str, data: &impl Serialize) {
        let data = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
        // No receivers is fine: nobody is watching this table.
        let _ = self.sender(table_id).send(LiveEvent {
            name: name.to_string(),
            data,
        });
    }
}
