//! Live table events for Server-Sent Events watchers (SPEC §8).
//!
//! Each table has a broadcast channel in this instance; handlers publish
//! after their transaction commits, so watchers never see a change that was
//! rolled back. A watcher that falls behind by more than the channel's
//! capacity is told to resynchronise from the table's current state.

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

#[derive(Clone, Default)]
pub struct LiveHub {
    channels: Arc<Mutex<HashMap<String, broadcast::Sender<LiveEvent>>>>,
    /// Per round: how many of its events this instance has published.
    published: Arc<Mutex<HashMap<String, usize>>>,
}

impl LiveHub {
    fn sender(&self, table_id: &str) -> broadcast::Sender<LiveEvent> {
        let mut map = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(table_id.to_string()).or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0).clone()
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

    pub fn publish(&self, table_id: &str, name: &str, data: &impl Serialize) {
        let data = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
        // No receivers is fine: nobody is watching this table.
        let _ = self.sender(table_id).send(LiveEvent { name: name.to_string(), data });
    }
}
