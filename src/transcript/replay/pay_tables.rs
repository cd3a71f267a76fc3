//! The round's pay tables: each checked against its fingerprint and against the bounds
//! djego certifies pay tables within, and every bet naming one.

use std::collections::HashMap;
use std::rc::Rc;

use super::RoundTranscript;
use crate::bets::{PayTable, PayTableSpec};
use crate::math::{self, RtpBounds};

/// Pay tables already checked, by fingerprint, with the exact JSON text of
/// their spec: a bulk run over many rounds under the same few tables reads,
/// validates and hashes each table once.
pub(super) type CheckedPayTables = HashMap<String, (Box<str>, Rc<PayTable>)>;

/// Most pay tables [`CHECKED_PAY_TABLES`] keeps before it starts over.
pub(super) const CHECKED_PAY_TABLES_MAX: usize = 1_000;

thread_local! {
    static CHECKED_PAY_TABLES: std::cell::RefCell<CheckedPayTables> = Default::default();
}

/// A round's pay tables by fingerprint (a round has one or two: a list).
pub(super) struct RoundPayTables<'t>(Vec<(&'t str, Rc<PayTable>)>);

impl RoundPayTables<'_> {
    pub(super) fn get(&self, fingerprint: &str) -> Option<&PayTable> {
        self.0
            .iter()
            .find(|(f, _)| *f == fingerprint)
            .map(|(_, table)| table.as_ref())
    }
}

/// The round's pay tables by fingerprint, each checked against its
/// fingerprint; every bet must name one of them.
pub(super) fn pay_tables_of<'t>(t: &'t RoundTranscript) -> Result<RoundPayTables<'t>, String> {
    let mut tables = RoundPayTables(Vec::with_capacity(t.pay_tables.len()));
    for (i, entry) in t.pay_tables.iter().enumerate() {
        let spec = entry.spec.get();
        let known = CHECKED_PAY_TABLES.with(|c| {
            c.borrow()
                .get(entry.fingerprint.as_ref())
                .filter(|(text, _)| **text == *spec)
                .map(|(_, table)| Rc::clone(table))
        });
        let table = match known {
            Some(table) => table,
            None => {
                let at = |why: String| format!("pay table {i} ({}): {why}", entry.id);
                let parsed: PayTableSpec = serde_json::from_str(spec).map_err(|e| at(e.to_string()))?;
                let table = Rc::new(PayTable::new(parsed).map_err(|e| at(e.0))?);
                let fingerprint = table.fingerprint();
                if fingerprint != entry.fingerprint {
                    return Err(at(format!(
                        "its spec hashes to {fingerprint}, the transcript says {}",
                        entry.fingerprint
                    )));
                }
                if let Some((_, _, why)) =
                    math::first_uncertified_bet(&table, math::cached_n_distribution(), RtpBounds::default())
                {
                    return Err(at(format!("not a certifiable pay table: {why}")));
                }
                CHECKED_PAY_TABLES.with(|c| {
                    let mut c = c.borrow_mut();
                    if c.len() >= CHECKED_PAY_TABLES_MAX {
                        c.clear();
                    }
                    c.insert(fingerprint, (spec.into(), Rc::clone(&table)));
                });
                table
            }
        };
        tables.0.push((entry.fingerprint.as_ref(), table));
    }
    if let Some((i, bet)) = t
        .bets
        .iter()
        .enumerate()
        .find(|(_, b)| tables.get(&b.pay_table).is_none())
    {
        return Err(format!(
            "bet {i} names pay table {}, which is not listed",
            bet.pay_table
        ));
    }
    Ok(tables)
}
