//! External exclusion lists (docs/compliance.md, "Exclusion lists"): a state's or a
//! regulator's list of people excluded from gambling, imported as CSV, kept sealed like
//! identities, and matched against patrons by blind index (the normalised name with the date
//! of birth, or the document number) without opening either side. A match only waits: a second
//! person, not the one who imported the list, opens both and confirms it (the patron is then
//! excluded as the entry says) or rejects it with a reason. A patron whose identity is recorded
//! later is matched against every list already imported.

use chrono::{NaiveDate, TimeZone, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use utoipa::ToSchema;

use super::identity::{self, PatronIdentity, Purpose};
use super::Roster;
use crate::protection::exclusions::{self, ExclusionError};
use crate::rounds::SeedVault;
use crate::significant_events::{self, EventKind};
use crate::store::schema::{
    exclusion_list_entries as le, exclusion_list_matches as lm, exclusion_lists as el, patron_identities as pi,
};
use crate::store::{new_id, AnyConnection};
use crate::users::RosterEntry;

/// Most entries one import holds (the request's size limit usually comes first).
pub const MAX_ENTRIES: usize = 10_000;
/// Most characters in a list's name or a review note.
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_NOTE_CHARS: usize = 2000;
/// Keys per `IN (…)` on SQLite.
const KEYS_PER_QUERY: usize = 400;

/// One person on a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ListedPerson {
    pub full_name: String,
    #[schema(value_type = String, format = Date)]
    pub date_of_birth: NaiveDate,
    pub document_number: Option<String>,
    /// The last day of the exclusion; None: permanent.
    #[schema(value_type = Option<String>, format = Date)]
    pub ends_on: Option<NaiveDate>,
}

#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    #[error("{0}")]
    Invalid(String),
    #[error("match not found")]
    NotFound,
    #[error("this match was already reviewed")]
    AlreadyReviewed,
    #[error("the person who imported a list does not review its matches: a second person does")]
    SamePerson,
    #[error("a stored list entry does not open with the configured key")]
    Unreadable,
    #[error(transparent)]
    Identity(#[from] identity::IdentityError),
    #[error(transparent)]
    Exclusion(#[from] ExclusionError),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// The columns a list has: `full_name` and `date_of_birth` always; `document_number` and
/// `ends_on` ("YYYY-MM-DD", empty for permanent) when the list gives them.
pub fn parse(text: &str) -> Result<Vec<(usize, ListedPerson)>, ListError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| ListError::Line {
            line: 1,
            why: e.to_string(),
        })?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let (Some(name_at), Some(born_at)) = (column("full_name"), column("date_of_birth")) else {
        return Err(ListError::Line {
            line: 1,
            why: "the header must name full_name and date_of_birth (and may name document_number and ends_on)".into(),
        });
    };
    let (document_at, ends_at) = (column("document_number"), column("ends_on"));
    let mut out = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let bad = |why: String| ListError::Line { line, why };
        let record = record.map_err(|e| bad(e.to_string()))?;
        if out.len() == MAX_ENTRIES {
            return Err(bad(format!(
                "a list holds at most {MAX_ENTRIES} entries; import it in parts"
            )));
        }
        let field = |at: Option<usize>| at.and_then(|k| record.get(k)).filter(|v| !v.is_empty());
        let date = |text: &str, what: &str| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|_| bad(format!("{what} must be a date \"YYYY-MM-DD\", not \"{text}\"")))
        };
        let full_name = field(Some(name_at)).ok_or_else(|| bad("full_name is empty".into()))?;
        if identity::normalise_name(full_name).is_empty() || full_name.chars().count() > MAX_NAME_CHARS {
            return Err(bad(format!(
                "full_name must be 1 to {MAX_NAME_CHARS} characters with a letter"
            )));
        }
        let born = field(Some(born_at)).ok_or_else(|| bad("date_of_birth is empty".into()))?;
        out.push((
            line,
            ListedPerson {
                full_name: full_name.to_owned(),
                date_of_birth: date(born, "date_of_birth")?,
                document_number: field(document_at).map(str::to_owned),
                ends_on: field(ends_at).map(|d| date(d, "ends_on")).transpose()?,
            },
        ));
    }
    if out.is_empty() {
        return Err(ListError::Invalid("the list has no entries".into()));
    }
    Ok(out)
}

/// What an import found.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ImportSummary {
    pub list_id: String,
    pub name: String,
    /// The SHA-256 of the CSV as imported.
    pub sha256: String,
    pub entries: usize,
    /// Entries whose exclusion had already ended, kept out.
    pub ended: usize,
    /// Patron matches waiting for review.
    pub matches: usize,
}

fn entry_aad(list_id: &str, line: i32) -> Vec<u8> {
    format!("exclusion_list:{list_id}:{line}").into_bytes()
}

/// Imports a list and matches it against every patron with an identity on file.
pub fn import(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    name: &str,
    text: &str,
    importer_id: &str,
    now_us: i64,
) -> Result<ImportSummary, ListError> {
    if name.trim().is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(ListError::Invalid(format!(
            "name must be 1 to {MAX_NAME_CHARS} characters, none of them control characters"
        )));
    }
    let people = parse(text)?;
    let today = Utc.timestamp_micros(now_us).single().unwrap_or_default().date_naive();
    let list_id = new_id();
    let sha256 = hex::encode(Sha256::digest(text.as_bytes()));
    let (live, ended): (Vec<_>, Vec<_>) = people
        .into_iter()
        .partition(|(_, p)| p.ends_on.is_none_or(|end| end >= today));
    diesel::insert_into(el::table)
        .values((
            el::id.eq(&list_id),
            el::name.eq(name),
            el::sha256.eq(&sha256),
            el::entries.eq(live.len() as i32),
            el::imported_by.eq(importer_id),
            el::imported_at_us.eq(now_us),
        ))
        .execute(conn)?;
    let mut by_name: HashMap<String, Vec<i32>> = HashMap::new();
    let mut by_document: HashMap<String, Vec<i32>> = HashMap::new();
    for (line, person) in &live {
        let line = *line as i32;
        let name_key = identity::name_key(vault, &person.full_name, person.date_of_birth);
        let document_key = person
            .document_number
            .as_deref()
            .map(|n| identity::document_key(vault, n));
        let sealed = vault.seal_bytes(
            &entry_aad(&list_id, line),
            &serde_json::to_vec(person).expect("a listed person serialises"),
        );
        diesel::insert_into(le::table)
            .values((
                le::list_id.eq(&list_id),
                le::line.eq(line),
                le::sealed.eq(&sealed),
                le::name_key.eq(&name_key),
                le::document_key.eq(document_key.as_deref()),
                le::ends_on.eq(person.ends_on.map(|d| d.to_string())),
            ))
            .execute(conn)?;
        by_name.entry(name_key).or_default().push(line);
        if let Some(key) = document_key {
            by_document.entry(key).or_default().push(line);
        }
    }
    // (line, patron) → basis.
    let mut found: HashMap<(i32, String), Basis> = HashMap::new();
    for (keys, basis, by_key) in [
        (
            by_name.keys().cloned().collect::<Vec<_>>(),
            Basis::NameAndDateOfBirth,
            &by_name,
        ),
        (
            by_document.keys().cloned().collect::<Vec<_>>(),
            Basis::Document,
            &by_document,
        ),
    ] {
        for chunk in keys.chunks(KEYS_PER_QUERY) {
            let query = pi::table
                .select((pi::player_id, pi::name_key, pi::document_key))
                .into_boxed();
            let query = match basis {
                Basis::Document => query.filter(pi::document_key.eq_any(chunk)),
                _ => query.filter(pi::name_key.eq_any(chunk)),
            };
            let rows: Vec<(String, String, String)> = query.load(conn)?;
            for (player, name_key, document_key) in rows {
                let key = if basis == Basis::Document {
                    document_key
                } else {
                    name_key
                };
                for line in by_key.get(&key).into_iter().flatten() {
                    found
                        .entry((*line, player.clone()))
                        .and_modify(|b| *b = Basis::Both)
                        .or_insert(basis);
                }
            }
        }
    }
    for ((line, player), basis) in &found {
        insert_match(conn, &list_id, *line, player, *basis, now_us)?;
    }
    significant_events::record(
        conn,
        EventKind::ExclusionListImported,
        Some(importer_id),
        None,
        serde_json::json!({ "list_id": list_id, "name": name, "sha256": sha256, "entries": live.len(),
            "ended": ended.len(), "matches": found.len() }),
    )?;
    Ok(ImportSummary {
        list_id,
        name: name.to_owned(),
        sha256,
        entries: live.len(),
        ended: ended.len(),
        matches: found.len(),
    })
}

/// How an entry matched a patron.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    NameAndDateOfBirth,
    Document,
    Both,
}

impl Basis {
    fn as_str(self) -> &'static str {
        match self {
            Basis::NameAndDateOfBirth => "name_and_date_of_birth",
            Basis::Document => "document",
            Basis::Both => "both",
        }
    }

    fn parse(text: &str) -> Basis {
        match text {
            "document" => Basis::Document,
            "both" => Basis::Both,
            _ => Basis::NameAndDateOfBirth,
        }
    }
}

fn insert_match(
    conn: &mut AnyConnection,
    list_id: &str,
    line: i32,
    player: &str,
    basis: Basis,
    now_us: i64,
) -> QueryResult<()> {
    let known: i64 = lm::table
        .filter(
            lm::list_id
                .eq(list_id)
                .and(lm::line.eq(line))
                .and(lm::player_id.eq(player)),
        )
        .count()
        .get_result(conn)?;
    if known == 0 {
        diesel::insert_into(lm::table)
            .values((
                lm::id.eq(new_id()),
                lm::list_id.eq(list_id),
                lm::line.eq(line),
                lm::player_id.eq(player),
                lm::basis.eq(basis.as_str()),
                lm::found_at_us.eq(now_us),
                lm::status.eq("pending"),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Matches one patron (whose identity was just recorded) against the lists' entries still in
/// force.
pub fn match_patron(conn: &mut AnyConnection, player: &str, name_key: &str, document_key: &str) -> QueryResult<()> {
    let today = Utc::now().date_naive().to_string();
    let rows: Vec<(String, i32, String, Option<String>)> = le::table
        .filter(le::name_key.eq(name_key).or(le::document_key.eq(document_key)))
        .filter(le::ends_on.is_null().or(le::ends_on.ge(&today)))
        .select((le::list_id, le::line, le::name_key, le::document_key))
        .load(conn)?;
    let now = crate::store::now_us();
    for (list_id, line, entry_name, entry_document) in rows {
        let basis = match (entry_name == name_key, entry_document.as_deref() == Some(document_key)) {
            (true, true) => Basis::Both,
            (false, true) => Basis::Document,
            _ => Basis::NameAndDateOfBirth,
        };
        insert_match(conn, &list_id, line, player, basis, now)?;
    }
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    Pending,
    Confirmed,
    Rejected,
}

impl MatchStatus {
    fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Pending => "pending",
            MatchStatus::Confirmed => "confirmed",
            MatchStatus::Rejected => "rejected",
        }
    }

    fn parse(text: &str) -> MatchStatus {
        match text {
            "confirmed" => MatchStatus::Confirmed,
            "rejected" => MatchStatus::Rejected,
            _ => MatchStatus::Pending,
        }
    }
}

/// A match as its reviewer sees it: the list's entry beside the patron's identity.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchView {
    pub id: String,
    pub list_id: String,
    pub list_name: String,
    pub line: i32,
    pub patron: RosterEntry,
    pub basis: Basis,
    pub listed: ListedPerson,
    /// The patron's identity on file (its reading is recorded).
    pub identity: Option<PatronIdentity>,
    pub status: MatchStatus,
    pub reviewed_by: Option<String>,
    pub review_note: Option<String>,
}

/// Matches in one state, oldest first, each opened for `reader_id` (recorded).
pub fn matches(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    status: Option<MatchStatus>,
    reader_id: &str,
    limit: i64,
    offset: i64,
) -> Result<Vec<MatchView>, ListError> {
    let mut query = lm::table
        .inner_join(el::table.on(el::id.eq(lm::list_id)))
        .inner_join(le::table.on(le::list_id.eq(lm::list_id).and(le::line.eq(lm::line))))
        .select((
            lm::id,
            lm::list_id,
            el::name,
            lm::line,
            lm::player_id,
            lm::basis,
            le::sealed,
            lm::status,
            lm::reviewed_by,
            lm::review_note,
        ))
        .into_boxed();
    if let Some(status) = status {
        query = query.filter(lm::status.eq(status.as_str()));
    }
    type Row = (
        String,
        String,
        String,
        i32,
        String,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
    );
    let rows: Vec<Row> = query
        .order((lm::found_at_us.asc(), lm::id.asc()))
        .limit(limit)
        .offset(offset)
        .load(conn)?;
    let mut players: Vec<&str> = rows.iter().map(|r| r.4.as_str()).collect();
    players.sort_unstable();
    players.dedup();
    let identities = identity::read(conn, vault, &players, reader_id, Purpose::ExclusionList)?;
    let names = Roster::read(conn, players.iter().map(|p| p.to_string()).collect())?;
    rows.into_iter()
        .map(|r| {
            let listed: ListedPerson = vault
                .open_bytes(&entry_aad(&r.1, r.3), &r.6)
                .and_then(|plain| serde_json::from_slice(&plain).ok())
                .ok_or(ListError::Unreadable)?;
            Ok(MatchView {
                patron: names.of(&r.4),
                identity: identities.get(&r.4).map(|i| i.identity.clone()),
                id: r.0,
                list_id: r.1,
                list_name: r.2,
                line: r.3,
                basis: Basis::parse(&r.5),
                listed,
                status: MatchStatus::parse(&r.7),
                reviewed_by: r.8,
                review_note: r.9,
            })
        })
        .collect()
}

/// A reviewer's decision on a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchDecision {
    /// The patron is the person listed: excluded as the entry says.
    Confirm,
    /// Not the same person.
    Reject,
}

/// Confirms or rejects a pending match; the reviewer is not the list's importer.
pub fn review(
    conn: &mut AnyConnection,
    id: &str,
    decision: MatchDecision,
    note: &str,
    reviewer_id: &str,
    now_us: i64,
) -> Result<MatchStatus, ListError> {
    if note.trim().is_empty() || note.chars().count() > MAX_NOTE_CHARS {
        return Err(ListError::Invalid(format!(
            "note must say why, in 1 to {MAX_NOTE_CHARS} characters"
        )));
    }
    let (list_id, line, player, status, importer): (String, i32, String, String, String) = lm::table
        .inner_join(el::table.on(el::id.eq(lm::list_id)))
        .filter(lm::id.eq(id))
        .select((lm::list_id, lm::line, lm::player_id, lm::status, el::imported_by))
        .first(conn)
        .optional()?
        .ok_or(ListError::NotFound)?;
    if importer == reviewer_id {
        return Err(ListError::SamePerson);
    }
    if status != "pending" {
        return Err(ListError::AlreadyReviewed);
    }
    let (new_status, exclusion_id) = match decision {
        MatchDecision::Reject => (MatchStatus::Rejected, None),
        MatchDecision::Confirm => {
            let ends_on: Option<String> = le::table.find((&list_id, line)).select(le::ends_on).first(conn)?;
            // Through the entry's last day: to the next day's first instant, UTC.
            let ends_at_us = ends_on
                .and_then(|d| NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok())
                .and_then(|d| d.succ_opt())
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|t| t.and_utc().timestamp_micros());
            let exclusion = exclusions::from_list(conn, &player, ends_at_us, now_us, reviewer_id, &list_id)?;
            (MatchStatus::Confirmed, Some(exclusion.id))
        }
    };
    let updated = diesel::update(lm::table.find(id).filter(lm::status.eq("pending")))
        .set((
            lm::status.eq(new_status.as_str()),
            lm::reviewed_by.eq(reviewer_id),
            lm::reviewed_at_us.eq(now_us),
            lm::review_note.eq(note),
            lm::exclusion_id.eq(exclusion_id.as_deref()),
        ))
        .execute(conn)?;
    if updated == 0 {
        return Err(ListError::AlreadyReviewed);
    }
    significant_events::record(
        conn,
        EventKind::ExclusionListMatchReviewed,
        Some(reviewer_id),
        Some(&player),
        serde_json::json!({ "match_id": id, "list_id": list_id, "line": line, "decision": decision }),
    )?;
    Ok(new_status)
}

/// A list as imported.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ListView {
    pub id: String,
    pub name: String,
    pub sha256: String,
    pub entries: i32,
    pub imported_by: String,
    pub imported_at_us: i64,
    /// The patrons it matched, when it was imported or since: every match, reviewed or not.
    pub matches: i64,
    /// Of those, the matches waiting for review.
    pub pending: i64,
}

pub fn lists(conn: &mut AnyConnection, limit: i64, offset: i64) -> QueryResult<Vec<ListView>> {
    let rows: Vec<(String, String, String, i32, String, i64)> = el::table
        .order((el::imported_at_us.desc(), el::id.asc()))
        .limit(limit)
        .offset(offset)
        .select((
            el::id,
            el::name,
            el::sha256,
            el::entries,
            el::imported_by,
            el::imported_at_us,
        ))
        .load(conn)?;
    // (matches, pending) by list.
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let mut counts: HashMap<String, (i64, i64)> = HashMap::new();
    if !ids.is_empty() {
        let found: Vec<(String, String)> = lm::table
            .filter(lm::list_id.eq_any(&ids))
            .select((lm::list_id, lm::status))
            .load(conn)?;
        for (list, status) in found {
            let count = counts.entry(list).or_default();
            count.0 += 1;
            if status == MatchStatus::Pending.as_str() {
                count.1 += 1;
            }
        }
    }
    Ok(rows
        .into_iter()
        .map(|(id, name, sha256, entries, imported_by, imported_at_us)| {
            let (matches, pending) = counts.get(&id).copied().unwrap_or_default();
            ListView {
                id,
                name,
                sha256,
                entries,
                imported_by,
                imported_at_us,
                matches,
                pending,
            }
        })
        .collect())
}
