//! The solvers' memo: position key → value, sharded behind mutexes so threads share it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

const SHARDS: usize = 64;

pub struct SharedMemo {
    shards: Vec<Mutex<HashMap<u128, f32>>>,
    len: AtomicU64,
}

impl SharedMemo {
    pub fn new() -> SharedMemo {
        SharedMemo {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            len: AtomicU64::new(0),
        }
    }

    /// Distinct keys stored.
    pub fn len(&self) -> u64 {
        self.len.load(Ordering::Relaxed)
    }

    pub fn get(&self, key: u128) -> Option<f64> {
        self.shard(key).lock().unwrap().get(&key).map(|&v| v as f64)
    }

    /// Stores `value` as f32 and returns what is stored, so the caller answers the stored value
    /// from the first call on (a penalty's `V̂` built on it is one function), and the number of
    /// keys stored once this one is new.
    pub fn insert(&self, key: u128, value: f64) -> (f64, Option<u64>) {
        let stored = value as f32;
        let new = self.shard(key).lock().unwrap().insert(key, stored).is_none();
        let len = new.then(|| self.len.fetch_add(1, Ordering::Relaxed) + 1);
        (stored as f64, len)
    }

    fn shard(&self, key: u128) -> &Mutex<HashMap<u128, f32>> {
        let h = (key ^ (key >> 61) ^ (key >> 29)) as u64;
        &self.shards[(h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARDS]
    }
}

impl Default for SharedMemo {
    fn default() -> Self {
        SharedMemo::new()
    }
}
