//! Whether a closed gaming day is still as it was closed (docs/floor.md,
//! "What a closed day's `intact` checks"): its stored report against its
//! hash, against the `gaming_day_closed` event, against a checkpoint signed
//! with the key kept outside the database, and against the report recomputed
//! now from the ledger.

use chrono::NaiveDate;
use diesel::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;

use super::{report_with, sha256_hex, CloseReport, StoredClose, Until};
use crate::checkpoints::{event_chain, Checkpoint, PublicKey};
use crate::floor::{FloorError, Pits};
use crate::significant_events::EventKind;
use crate::store::schema::{event_chain as ec, significant_events as se};
use crate::store::AnyConnection;

/// Most differences a check lists; the rest are counted.
const MAX_DIFFERENCES: usize = 40;

/// What the checks found.
pub(crate) struct DayCheck {
    pub problems: Vec<String>,
    /// The checkpoint covering the close, and its key's id.
    pub checkpoint: Option<(i64, String)>,
}

/// Checks a closed day's stored record against `checkpoints`, each signed by
/// one of `pinned` when any are given, else by the key it carries.
pub(crate) fn check(
    conn: &mut AnyConnection,
    day: NaiveDate,
    stored: &StoredClose,
    checkpoints: &[Checkpoint],
    pinned: &[PublicKey],
) -> Result<DayCheck, FloorError> {
    let (_, _, text, sha, last_seq, last_hash) = stored;
    let mut problems = Vec::new();
    if sha256_hex(text) != *sha {
        problems.push(format!(
            "the stored report hashes to {}, not to its recorded SHA-256 {sha}",
            sha256_hex(text)
        ));
    }

    // The event that recorded the close, which the signed checkpoints chain.
    let events: Vec<(String, String)> = se::table
        .filter(se::kind.eq(EventKind::GamingDayClosed.as_str()))
        .filter(se::subject.eq(day.to_string()))
        .order((se::at_us.asc(), se::id.asc()))
        .select((se::id, se::details))
        .load(conn)?;
    if events.len() != 1 {
        problems.push(format!(
            "there are {} gaming_day_closed events for this day, not one",
            events.len()
        ));
    }
    let mut checkpoint = None;
    if let Some((event_id, details)) = events.first() {
        let d: Value = serde_json::from_str(details).unwrap_or(Value::Null);
        let recorded = |key: &str| d.get(key).cloned().unwrap_or(Value::Null);
        for (key, want) in [
            ("report_sha256", Value::from(sha.as_str())),
            ("last_seq", Value::from(*last_seq)),
            ("last_hash", Value::from(last_hash.as_str())),
        ] {
            if recorded(key) != want {
                problems.push(format!(
                    "the gaming_day_closed event records {key} {}, the stored close {want}",
                    recorded(key)
                ));
            }
        }
        match covering_checkpoint(conn, event_id, checkpoints, pinned)? {
            Ok(found) => checkpoint = Some(found),
            Err(why) => problems.push(why),
        }
    }

    // The report recomputed from the ledger, with the calendar and pits it was closed with.
    match serde_json::from_str::<CloseReport>(text) {
        Err(e) => problems.push(format!("the stored report does not read as a closing report: {e}")),
        Ok(frozen) => {
            let pits = match &frozen.pits {
                Some(spec) => {
                    Pits::new(spec).map_err(|e| FloorError::StoredSetting("gaming_day_closes.report", e.to_string()))?
                }
                None => crate::floor::pits(conn)?,
            };
            let mut now = report_with(conn, day, &pits, Until::DayEnd)?;
            // Recorded at the close, not a figure of the day.
            now.reconciliation.meters_agree = frozen.reconciliation.meters_agree;
            let frozen = serde_json::to_value(&frozen).expect("a report serialises");
            let now = serde_json::to_value(&now).expect("a report serialises");
            let mut found = Vec::new();
            differences("report", &frozen, &now, ("frozen", "from the ledger now"), &mut found);
            if !found.is_empty() {
                problems.push(format!(
                    "the report recomputed from the ledger is not the frozen one: {}",
                    listed(found)
                ));
            }
        }
    }
    Ok(DayCheck { problems, checkpoint })
}

/// The first checkpoint that covers the event: signed (by a pinned key, when
/// any), later than the event in the events chain, and whose events hash the
/// chain recomputed from the events as stored reaches. Or why none does.
fn covering_checkpoint(
    conn: &mut AnyConnection,
    event_id: &str,
    checkpoints: &[Checkpoint],
    pinned: &[PublicKey],
) -> Result<Result<(i64, String), String>, FloorError> {
    let chained: Option<i64> = ec::table
        .filter(ec::event_id.eq(event_id))
        .select(ec::seq)
        .first(conn)
        .optional()?;
    let Some(event_seq) = chained else {
        return Ok(Err(
            "the gaming_day_closed event is in no signed checkpoint: it has not been chained yet".into(),
        ));
    };
    let mut refused = Vec::new();
    let mut signed = Vec::new();
    let mut in_order: Vec<&Checkpoint> = checkpoints.iter().collect();
    in_order.sort_by_key(|c| c.seq);
    for c in in_order {
        if c.events_seq < event_seq {
            continue;
        }
        match crate::checkpoints::verify::check_signature(c, pinned) {
            Ok(()) => signed.push(c),
            Err(why) => refused.push(why),
        }
    }
    let wanted: BTreeSet<i64> = signed.iter().map(|c| c.events_seq).collect();
    let (_, points) = event_chain::verify_at(conn, &wanted)?;
    for c in &signed {
        if points.hashes.get(&c.events_seq) == Some(&c.events_hash) {
            return Ok(Ok((c.seq, c.key_id.clone())));
        }
        refused.push(format!(
            "checkpoint {} (signed at {}) covers events up to {}, but the events chain recomputed from the \
             log does not reach its hash: the log was rewritten at or before event {}",
            c.seq,
            c.taken_at(),
            c.events_seq,
            c.events_seq
        ));
    }
    let why = if refused.is_empty() {
        format!("no checkpoint covers the gaming_day_closed event (event {event_seq} of the chain)")
    } else {
        format!(
            "no signed checkpoint that verifies covers the gaming_day_closed event (event {event_seq} of the chain): {}",
            listed(refused)
        )
    };
    Ok(Err(why))
}

/// The items joined, at most [`MAX_DIFFERENCES`] of them.
fn listed(mut items: Vec<String>) -> String {
    let more = items.len().saturating_sub(MAX_DIFFERENCES);
    items.truncate(MAX_DIFFERENCES);
    if more > 0 {
        items.push(format!("and {more} more"));
    }
    items.join("; ")
}

/// The fields that name a line of a report, in the order a path shows them.
const IDENTITY: [&str; 6] = ["table_id", "dealer_id", "pit", "shift", "bet", "transfer_id"];

/// Where `a` and `b` differ, one sentence each: lines of a report are matched
/// by what names them (table, dealer, pit, shift, bet, transfer), not by position.
pub(crate) fn differences(path: &str, a: &Value, b: &Value, labels: (&str, &str), out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: Vec<&String> = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))).collect();
            for k in keys {
                let (u, v) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                differences(&format!("{path}.{k}"), u, v, labels, out);
            }
        }
        (Value::Array(x), Value::Array(y)) => match (identities(x), identities(y)) {
            (Some(ix), Some(iy)) => {
                for (id, u) in ix.iter().zip(x) {
                    match iy.iter().position(|j| j == id) {
                        Some(at) => differences(&format!("{path}[{id}]"), u, &y[at], labels, out),
                        None => out.push(format!("{path}[{id}]: only {}", labels.0)),
                    }
                }
                for id in iy.iter().filter(|id| !ix.contains(id)) {
                    out.push(format!("{path}[{id}]: only {}", labels.1));
                }
            }
            _ => {
                for i in 0..x.len().max(y.len()) {
                    let (u, v) = (x.get(i).unwrap_or(&Value::Null), y.get(i).unwrap_or(&Value::Null));
                    differences(&format!("{path}[{i}]"), u, v, labels, out);
                }
            }
        },
        _ if a != b => out.push(format!("{path}: {} {a}, {} {b}", labels.0, labels.1)),
        _ => {}
    }
}

/// Each line's name, when every line of the list has one and no two share it.
fn identities(lines: &[Value]) -> Option<Vec<String>> {
    let ids: Vec<String> = lines
        .iter()
        .map(|line| {
            let o = line.as_object()?;
            let named: Vec<String> = IDENTITY
                .iter()
                .filter_map(|k| o.get(*k).map(|v| format!("{k}={v}")))
                .collect();
            (!named.is_empty()).then(|| named.join(", "))
        })
        .collect::<Option<_>>()?;
    let unique: BTreeSet<&String> = ids.iter().collect();
    (unique.len() == ids.len()).then_some(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_the_line_and_the_figure() {
        let frozen = json!({ "tables": [
            { "table_id": "a", "shift": null, "house_win": "1002.86" },
            { "table_id": "b", "shift": null, "house_win": "5.00" },
        ], "last_seq": 7 });
        let now = json!({ "tables": [
            { "table_id": "b", "shift": null, "house_win": "5.00" },
            { "table_id": "a", "shift": null, "house_win": "1102.86" },
            { "table_id": "c", "shift": null, "house_win": "0.00" },
        ], "last_seq": 7 });
        let mut out = Vec::new();
        differences("report", &frozen, &now, ("frozen", "now"), &mut out);
        assert_eq!(
            out,
            [
                "report.tables[table_id=\"a\", shift=null].house_win: frozen \"1002.86\", now \"1102.86\"",
                "report.tables[table_id=\"c\", shift=null]: only now",
            ]
        );
        let mut none = Vec::new();
        differences("report", &frozen, &frozen, ("frozen", "now"), &mut none);
        assert!(none.is_empty());
        // Lines without names are compared by position.
        let mut by_position = Vec::new();
        differences("x", &json!([1, 2]), &json!([1, 3, 4]), ("a", "b"), &mut by_position);
        assert_eq!(by_position, ["x[1]: a 2, b 3", "x[2]: a null, b 4"]);
    }

    #[test]
    fn long_lists_are_cut() {
        let items: Vec<String> = (0..MAX_DIFFERENCES + 3).map(|i| i.to_string()).collect();
        assert!(listed(items).ends_with("; and 3 more"));
    }
}
