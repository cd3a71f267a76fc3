//! A patron's identity (docs/compliance.md, "Patron identity"): captured by a cashier, sealed
//! at rest under the service's key like the server seeds (the player's id as associated data,
//! so a sealed identity copied onto another patron does not open), opened only for the roles
//! that need it, and every opening recorded as a significant event naming who read whose
//! identity and why. Events never carry the identity itself.

use chrono::NaiveDate;
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use utoipa::ToSchema;

use crate::rounds::SeedVault;
use crate::significant_events::{self, EventKind};
use crate::store::schema::patron_identities as pi;
use crate::store::{now_us, AnyConnection};

/// Most characters in a name, an issuer or an occupation.
const MAX_NAME_CHARS: usize = 200;
/// Most characters in an address.
const MAX_ADDRESS_CHARS: usize = 300;
/// Most characters in a document number.
const MAX_DOCUMENT_NUMBER_CHARS: usize = 60;

/// The identity document a cashier examined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DocumentType {
    Passport,
    DrivingLicence,
    NationalIdentityCard,
    /// Another government-issued document with a photograph.
    Other,
}

/// Who a patron is, as a report needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatronIdentity {
    /// Full legal name, as on the document.
    #[schema(example = "Ana Beatriz Souza", max_length = 200)]
    pub full_name: String,
    /// "YYYY-MM-DD".
    #[schema(value_type = String, format = Date, example = "1980-04-12")]
    pub date_of_birth: NaiveDate,
    /// Permanent address: street, city, region, postal code, country.
    #[schema(example = "12 Rua das Flores, Lisboa 1100-001, Portugal", max_length = 300)]
    pub address: String,
    pub document_type: DocumentType,
    #[schema(example = "P1234567", max_length = 60)]
    pub document_number: String,
    /// Who issued the document: a country, or a state and its country.
    #[schema(example = "Portugal", max_length = 200)]
    pub document_issuer: String,
    /// The patron's occupation, if they gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub occupation: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("{0}")]
    Invalid(String),
    /// The sealed row does not open with the configured key (a changed key, or a row moved).
    #[error("the identity kept for {0} does not open with the configured key")]
    Unreadable(String),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

impl PatronIdentity {
    pub fn check(&self, today: NaiveDate) -> Result<(), IdentityError> {
        let text = |name: &str, value: &str, max: usize| {
            let chars = value.trim().chars().count();
            if chars == 0 || value.chars().count() > max || value.chars().any(char::is_control) {
                Err(IdentityError::Invalid(format!(
                    "{name} must be 1 to {max} characters, none of them control characters"
                )))
            } else {
                Ok(())
            }
        };
        text("full_name", &self.full_name, MAX_NAME_CHARS)?;
        text("address", &self.address, MAX_ADDRESS_CHARS)?;
        text("document_number", &self.document_number, MAX_DOCUMENT_NUMBER_CHARS)?;
        text("document_issuer", &self.document_issuer, MAX_NAME_CHARS)?;
        if let Some(occupation) = &self.occupation {
            text("occupation", occupation, MAX_NAME_CHARS)?;
        }
        if self.date_of_birth >= today {
            return Err(IdentityError::Invalid("date_of_birth must be in the past".into()));
        }
        Ok(())
    }
}

/// Why an identity was read: recorded with the read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// A cashier or an auditor looked at the patron's identity.
    Identity,
    /// The multiple-transaction log named the patron.
    CashLog,
    /// A currency transaction report named the patron.
    Report,
    /// An exclusion list was matched against patrons.
    ExclusionList,
}

/// A name as lists and documents are compared: accents, case, punctuation and spacing
/// ignored ("José  O'Neil" and "jose o neil" are one name).
pub fn normalise_name(name: &str) -> String {
    use unicode_normalization::{char::is_combining_mark, UnicodeNormalization};
    let plain: String = name
        .nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A document number as compared: its letters and digits, upper case.
pub fn normalise_document(number: &str) -> String {
    number
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_uppercase)
        .collect()
}

/// The blind index of a name with a date of birth.
pub fn name_key(vault: &SeedVault, name: &str, date_of_birth: NaiveDate) -> String {
    vault.blind(
        "name_and_date_of_birth",
        &format!("{}|{date_of_birth}", normalise_name(name)),
    )
}

/// The blind index of a document number.
pub fn document_key(vault: &SeedVault, number: &str) -> String {
    vault.blind("document", &normalise_document(number))
}

fn aad(player_id: &str) -> Vec<u8> {
    format!("patron_identity:{player_id}").into_bytes()
}

/// Records (or replaces) a patron's identity, sealed.
pub fn record(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    player_id: &str,
    identity: &PatronIdentity,
    cashier_id: &str,
) -> Result<(), IdentityError> {
    let plain = serde_json::to_vec(identity).expect("an identity serialises");
    let sealed = vault.seal_bytes(&aad(player_id), &plain);
    let name = name_key(vault, &identity.full_name, identity.date_of_birth);
    let document = document_key(vault, &identity.document_number);
    let now = now_us();
    let replaced = diesel::update(pi::table.find(player_id))
        .set((
            pi::sealed.eq(&sealed),
            pi::name_key.eq(&name),
            pi::document_key.eq(&document),
            pi::recorded_by.eq(cashier_id),
            pi::recorded_at_us.eq(now),
        ))
        .execute(conn)?;
    if replaced == 0 {
        diesel::insert_into(pi::table)
            .values((
                pi::player_id.eq(player_id),
                pi::sealed.eq(&sealed),
                pi::name_key.eq(&name),
                pi::document_key.eq(&document),
                pi::recorded_by.eq(cashier_id),
                pi::recorded_at_us.eq(now),
            ))
            .execute(conn)?;
    }
    significant_events::record(
        conn,
        EventKind::PatronIdentityRecorded,
        Some(cashier_id),
        Some(player_id),
        serde_json::json!({ "replaced": replaced > 0, "document_type": identity.document_type }),
    )?;
    // A patron newly known may be on a list imported before.
    super::exclusion_lists::match_patron(conn, player_id, &name, &document)?;
    Ok(())
}

/// Which of `players` have an identity on file (nothing is opened, nothing recorded).
pub fn on_file(conn: &mut AnyConnection, players: &[&str]) -> QueryResult<HashSet<String>> {
    if players.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(pi::table
        .filter(pi::player_id.eq_any(players))
        .select(pi::player_id)
        .load::<String>(conn)?
        .into_iter()
        .collect())
}

/// Whether two accounts are held by one person: their identities on file share the name with
/// the date of birth, or the document number (compared by blind index; nothing is opened).
pub fn linked(conn: &mut AnyConnection, a: &str, b: &str) -> QueryResult<bool> {
    let keys: Vec<(String, String, String)> = pi::table
        .filter(pi::player_id.eq_any([a, b]))
        .select((pi::player_id, pi::name_key, pi::document_key))
        .load(conn)?;
    let of = |p: &str| keys.iter().find(|k| k.0 == p);
    Ok(match (of(a), of(b)) {
        (Some(x), Some(y)) => x.1 == y.1 || x.2 == y.2,
        _ => false,
    })
}

/// An identity as its reader sees it: with who recorded it and when.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct IdentityOnFile {
    #[serde(flatten)]
    pub identity: PatronIdentity,
    pub recorded_by: String,
    pub recorded_at_us: i64,
}

/// Opens the identities of `players` that are on file, recording one read per patron by
/// `reader_id` for `purpose`.
pub fn read(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    players: &[&str],
    reader_id: &str,
    purpose: Purpose,
) -> Result<HashMap<String, IdentityOnFile>, IdentityError> {
    if players.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(String, String, String, i64)> = pi::table
        .filter(pi::player_id.eq_any(players))
        .select((pi::player_id, pi::sealed, pi::recorded_by, pi::recorded_at_us))
        .load(conn)?;
    let mut out = HashMap::with_capacity(rows.len());
    for (player_id, sealed, recorded_by, recorded_at_us) in rows {
        let identity = vault
            .open_bytes(&aad(&player_id), &sealed)
            .and_then(|plain| serde_json::from_slice::<PatronIdentity>(&plain).ok())
            .ok_or_else(|| IdentityError::Unreadable(player_id.clone()))?;
        significant_events::record(
            conn,
            EventKind::PatronIdentityRead,
            Some(reader_id),
            Some(&player_id),
            serde_json::json!({ "purpose": purpose }),
        )?;
        out.insert(
            player_id,
            IdentityOnFile {
                identity,
                recorded_by,
                recorded_at_us,
            },
        );
    }
    Ok(out)
}
