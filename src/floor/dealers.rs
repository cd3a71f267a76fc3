//! Dealer tracking (docs/floor.md, "Dealer tracking"): who was in the box at
//! which table, when. Pure: the tables' significant events in, spells out.
//!
//! The spells are derived from the append-only event log, never stored: a
//! `dealer_signed_in` at a table ends the spell of the dealer there before
//! (a relief), and the dealer's own spell at any other table (one box at a
//! time); a `dealer_signed_out` ends the named dealer's spell at that table;
//! a `table_closed` ends the spell of whoever was in at that table. The same
//! log read twice gives the same spells, however requests raced.

use std::collections::HashMap;

/// What happened, in the log's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoxEvent<'a> {
    SignedIn {
        table_id: &'a str,
        dealer_id: &'a str,
        at_us: i64,
    },
    SignedOut {
        table_id: &'a str,
        dealer_id: &'a str,
        at_us: i64,
    },
    TableClosed {
        table_id: &'a str,
        at_us: i64,
    },
}

/// A dealer in the box at a table from `from_us` to `to_us` (exclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealerSpell<'a> {
    pub table_id: &'a str,
    pub dealer_id: &'a str,
    pub from_us: i64,
    pub to_us: i64,
}

/// The spells the events make; a spell still running ends at `until_us`.
/// Events must be in the log's order (by time).
pub fn spells<'a>(events: &[BoxEvent<'a>], until_us: i64) -> Vec<DealerSpell<'a>> {
    // Who is in at each table, since when.
    let mut in_box: HashMap<&str, (&str, i64)> = HashMap::new();
    let mut out = Vec::new();
    let mut end = |in_box: &mut HashMap<&'a str, (&'a str, i64)>, table_id: &'a str, at_us: i64| {
        if let Some((dealer_id, from_us)) = in_box.remove(table_id) {
            out.push(DealerSpell {
                table_id,
                dealer_id,
                from_us,
                to_us: at_us,
            });
        }
    };
    for event in events {
        match *event {
            BoxEvent::SignedIn {
                table_id,
                dealer_id,
                at_us,
            } => {
                end(&mut in_box, table_id, at_us);
                let elsewhere: Vec<&str> = in_box
                    .iter()
                    .filter(|(_, (d, _))| *d == dealer_id)
                    .map(|(t, _)| *t)
                    .collect();
                for other in elsewhere {
                    end(&mut in_box, other, at_us);
                }
                in_box.insert(table_id, (dealer_id, at_us));
            }
            BoxEvent::SignedOut {
                table_id,
                dealer_id,
                at_us,
            } => {
                if in_box.get(table_id).is_some_and(|(d, _)| *d == dealer_id) {
                    end(&mut in_box, table_id, at_us);
                }
            }
            BoxEvent::TableClosed { table_id, at_us } => end(&mut in_box, table_id, at_us),
        }
    }
    let running: Vec<&str> = in_box.keys().copied().collect();
    for table_id in running {
        end(&mut in_box, table_id, until_us);
    }
    out.retain(|s| s.from_us < s.to_us);
    out.sort_by(|a, b| (a.table_id, a.from_us).cmp(&(b.table_id, b.from_us)));
    out
}

/// The dealer in the box at `table_id` at `at_us`, given `spells` sorted by
/// table then start (as [`spells`] returns them).
pub fn dealer_at<'a>(spells: &[DealerSpell<'a>], table_id: &str, at_us: i64) -> Option<&'a str> {
    let end = spells.partition_point(|s| (s.table_id, s.from_us) <= (table_id, at_us));
    let spell = spells[..end].last()?;
    (spell.table_id == table_id && at_us < spell.to_us).then_some(spell.dealer_id)
}

#[cfg(test)]
mod tests;
