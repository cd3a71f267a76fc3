//! Who is dealing where (docs/floor.md, "Dealers"): dealers signing in and out of tables, each
//! as a significant event, and the dealer in a table's box read back from them.

use super::*;

/// The dealer in the box at a table: who, and since when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct DealerInBox {
    pub dealer_id: String,
    pub username: String,
    /// Microseconds since the Unix epoch.
    pub since_us: i64,
}

/// The latest sign-in, sign-out or closing of a table before `before_us`:
/// (kind, dealer, instant).
pub(super) fn latest_box_event(
    conn: &mut AnyConnection,
    table_id: &str,
    before_us: i64,
) -> Result<Option<(String, Option<String>, i64)>, FloorError> {
    use crate::store::schema::significant_events as se;
    let kinds = [
        EventKind::DealerSignedIn,
        EventKind::DealerSignedOut,
        EventKind::TableClosed,
    ]
    .map(EventKind::as_str);
    let row: Option<(String, String, i64)> = se::table
        .filter(se::kind.eq_any(kinds))
        .filter(se::subject.eq(table_id))
        .filter(se::at_us.lt(before_us))
        .order((se::at_us.desc(), se::id.desc()))
        .select((se::kind, se::details, se::at_us))
        .first(conn)
        .optional()?;
    Ok(row.map(|(kind, details, at_us)| (kind, dealer_of(&details), at_us)))
}

/// The `dealer_id` a sign-in or sign-out event names.
pub(super) fn dealer_of(details: &str) -> Option<String> {
    let details: serde_json::Value = serde_json::from_str(details).ok()?;
    details["dealer_id"].as_str().map(str::to_owned)
}

/// Who is dealing at a table now. Every end of a spell is written as its own
/// `dealer_signed_out` (a relief, a move, a break), or is the table's closing,
/// so the table's latest such event tells.
pub fn dealer_in_box(conn: &mut AnyConnection, table_id: &str) -> Result<Option<DealerInBox>, FloorError> {
    use crate::store::schema::users as u;
    let Some((kind, Some(dealer_id), since_us)) = latest_box_event(conn, table_id, i64::MAX)? else {
        return Ok(None);
    };
    if kind != EventKind::DealerSignedIn.as_str() {
        return Ok(None);
    }
    let username: String = u::table.find(&dealer_id).select(u::username).first(conn)?;
    Ok(Some(DealerInBox {
        dealer_id,
        username,
        since_us,
    }))
}

/// Signs a dealer in at an open table they are assigned to, signing out
/// whoever was dealing there (a relief) and the dealer from any other table
/// (one box at a time), each as its own event. Signing in the dealer already
/// there changes nothing.
pub fn sign_in(
    conn: &mut AnyConnection,
    table_id: &str,
    dealer_id: &str,
    actor_id: &str,
) -> Result<DealerInBox, FloorError> {
    use crate::store::schema::{casino_tables as ct, table_dealers as td};
    let status: Option<String> = ct::table.find(table_id).select(ct::status).first(conn).optional()?;
    match status.as_deref() {
        None => return Err(FloorError::NoSuchTable),
        Some("open") => {}
        Some(_) => return Err(FloorError::TableClosed),
    }
    let assigned: i64 = td::table
        .filter(td::table_id.eq(table_id).and(td::dealer_id.eq(dealer_id)))
        .count()
        .get_result(conn)?;
    if assigned == 0 {
        return Err(FloorError::NotAssigned);
    }
    if let Some(current) = dealer_in_box(conn, table_id)? {
        if current.dealer_id == dealer_id {
            return Ok(current);
        }
        record_box(
            conn,
            EventKind::DealerSignedOut,
            table_id,
            &current.dealer_id,
            actor_id,
            "relieved",
        )?;
    }
    let open_tables: Vec<String> = ct::table.filter(ct::status.eq("open")).select(ct::id).load(conn)?;
    for other in open_tables.iter().filter(|t| t.as_str() != table_id) {
        if dealer_in_box(conn, other)?.is_some_and(|d| d.dealer_id == dealer_id) {
            record_box(conn, EventKind::DealerSignedOut, other, dealer_id, actor_id, "moved")?;
        }
    }
    record_box(
        conn,
        EventKind::DealerSignedIn,
        table_id,
        dealer_id,
        actor_id,
        "signed in",
    )?;
    dealer_in_box(conn, table_id)?.ok_or(FloorError::NotSignedIn)
}

/// Signs the dealer out of the table (a break, the end of a shift).
pub fn sign_out(conn: &mut AnyConnection, table_id: &str, dealer_id: &str, actor_id: &str) -> Result<(), FloorError> {
    match dealer_in_box(conn, table_id)? {
        Some(current) if current.dealer_id == dealer_id => record_box(
            conn,
            EventKind::DealerSignedOut,
            table_id,
            dealer_id,
            actor_id,
            "signed out",
        ),
        _ => Err(FloorError::NotSignedIn),
    }
}

fn record_box(
    conn: &mut AnyConnection,
    kind: EventKind,
    table_id: &str,
    dealer_id: &str,
    actor_id: &str,
    reason: &str,
) -> Result<(), FloorError> {
    let details = serde_json::json!({ "dealer_id": dealer_id, "reason": reason });
    significant_events::record(conn, kind, Some(actor_id), Some(table_id), details)?;
    Ok(())
}
