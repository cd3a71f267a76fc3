//! The significant-events log's hash chain.
//!
//! Recording an event takes no lock: events are chained when a checkpoint is
//! taken ("sealed"). Every event not chained yet, ordered by (`at_us`, `id`),
//! gets the next `seq` and `hash = hex(SHA-256(prev_hash + "\n" + canonical))`
//! with `canonical` the JSON array `["djego-event-v1", seq, id, at_us, kind,
//! actor_id, subject, details]` (docs/ledger.md).

use diesel::prelude::*;
use serde::Serialize;
use std::collections::BTreeSet;
use utoipa::ToSchema;

use crate::ledger::verify::ChainPoints;
use crate::ledger::{link_hash, GENESIS_HASH};
use crate::significant_events::SignificantEvent;
use crate::store::schema::{event_chain as ec, significant_events as se};
use crate::store::{on_backend, AnyConnection};

/// Events chained per query while sealing or verifying: bounds memory.
const PAGE_ROWS: i64 = 10_000;
/// Rows per multi-row INSERT (4 columns each).
const ROWS_PER_INSERT: usize = 1000;

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = ec)]
pub struct ChainLink {
    pub seq: i64,
    pub event_id: String,
    pub prev_hash: String,
    pub hash: String,
}

pub fn canonical(seq: i64, e: &SignificantEvent) -> String {
    serde_json::json!([
        "djego-event-v1",
        seq,
        e.id,
        e.at_us,
        e.kind,
        e.actor_id,
        e.subject,
        e.details,
    ])
    .to_string()
}

pub fn event_hash(prev_hash: &str, seq: i64, e: &SignificantEvent) -> String {
    link_hash(prev_hash, &canonical(seq, e))
}

/// The chain's last link: (seq, hash), or (0, the genesis hash).
pub fn head(conn: &mut AnyConnection) -> QueryResult<(i64, String)> {
    Ok(ec::table
        .select((ec::seq, ec::hash))
        .order(ec::seq.desc())
        .first(conn)
        .optional()?
        .unwrap_or_else(|| (0, GENESIS_HASH.to_string())))
}

/// Whether some event is not chained yet.
pub fn has_unsealed(conn: &mut AnyConnection) -> QueryResult<bool> {
    Ok(se::table
        .left_join(ec::table)
        .filter(ec::seq.is_null())
        .select(se::id)
        .first::<String>(conn)
        .optional()?
        .is_some())
}

/// Chains every event not chained yet; returns the new head. The caller holds
/// the checkpoint lock, so two sealers never append at once.
pub fn seal(conn: &mut AnyConnection) -> QueryResult<(i64, String)> {
    let (mut seq, mut prev) = head(conn)?;
    loop {
        // This transaction's own inserts drop out of the next page.
        let page: Vec<SignificantEvent> = se::table
            .left_join(ec::table)
            .filter(ec::seq.is_null())
            .select(SignificantEvent::as_select())
            .order((se::at_us.asc(), se::id.asc()))
            .limit(PAGE_ROWS)
            .load(conn)?;
        if page.is_empty() {
            return Ok((seq, prev));
        }
        let mut links = Vec::with_capacity(page.len());
        for event in &page {
            seq += 1;
            let hash = event_hash(&prev, seq, event);
            links.push(ChainLink {
                seq,
                event_id: event.id.clone(),
                prev_hash: std::mem::replace(&mut prev, hash.clone()),
                hash,
            });
        }
        for chunk in links.chunks(ROWS_PER_INSERT) {
            on_backend!(conn, |c| diesel::insert_into(ec::table).values(chunk).execute(c))?;
        }
    }
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct BrokenEventLink {
    pub seq: i64,
    pub event_id: String,
    pub reason: String,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct EventChainVerification {
    /// True when every link of the chain checks.
    pub ok: bool,
    pub events_checked: i64,
    pub head_seq: i64,
    pub head_hash: String,
    /// The first link whose sequence, previous hash, event or hash does not check.
    pub first_broken_link: Option<BrokenEventLink>,
    /// Events recorded since the last seal: the next checkpoint chains them.
    pub events_unsealed: i64,
}

/// Recomputes every link from the events themselves; also returns the hash
/// recomputed from the genesis hash at each of `wanted`'s positions.
pub fn verify_at(
    conn: &mut AnyConnection,
    wanted: &BTreeSet<i64>,
) -> QueryResult<(EventChainVerification, ChainPoints)> {
    let mut points = ChainPoints::default();
    let mut recomputed_prev = GENESIS_HASH.to_string();
    let mut expected_prev = GENESIS_HASH.to_string();
    let mut expected_seq = 1i64;
    let mut first_broken: Option<BrokenEventLink> = None;
    let mut checked = 0i64;
    let mut after_seq = 0i64;
    loop {
        let page: Vec<(ChainLink, Option<SignificantEvent>)> = ec::table
            .left_join(se::table)
            .filter(ec::seq.gt(after_seq))
            .select((ChainLink::as_select(), Option::<SignificantEvent>::as_select()))
            .order(ec::seq.asc())
            .limit(PAGE_ROWS)
            .load(conn)?;
        let Some((last, _)) = page.last() else { break };
        after_seq = last.seq;
        for (link, event) in &page {
            checked += 1;
            let (stored_link_hash, recomputed_hash) = match event {
                Some(e) => {
                    let stored = event_hash(&link.prev_hash, link.seq, e);
                    let recomputed = if link.prev_hash == recomputed_prev {
                        stored.clone()
                    } else {
                        event_hash(&recomputed_prev, link.seq, e)
                    };
                    (Some(stored), recomputed)
                }
                // A deleted event: nothing recomputes to any checkpoint's hash.
                None => (None, String::new()),
            };
            if wanted.contains(&link.seq) {
                points.hashes.insert(link.seq, recomputed_hash.clone());
            }
            points.last_seq = link.seq;
            recomputed_prev = recomputed_hash;
            if first_broken.is_none() {
                let reason = if link.seq != expected_seq {
                    Some(format!("sequence gap: expected {expected_seq}, found {}", link.seq))
                } else if link.prev_hash != expected_prev {
                    Some("prev_hash does not match the previous link's hash".to_string())
                } else if stored_link_hash.is_none() {
                    Some("the chained event is missing from the log".to_string())
                } else if stored_link_hash.as_deref() != Some(link.hash.as_str()) {
                    Some("hash does not match the event's contents".to_string())
                } else {
                    None
                };
                if let Some(reason) = reason {
                    first_broken = Some(BrokenEventLink {
                        seq: link.seq,
                        event_id: link.event_id.clone(),
                        reason,
                    });
                }
            }
            expected_seq = link.seq + 1;
            expected_prev = link.hash.clone();
        }
    }
    let total_events: i64 = se::table.count().get_result(conn)?;
    Ok((
        EventChainVerification {
            ok: first_broken.is_none(),
            events_checked: checked,
            head_seq: expected_seq - 1,
            head_hash: expected_prev,
            first_broken_link: first_broken,
            events_unsealed: (total_events - checked).max(0),
        },
        points,
    ))
}
