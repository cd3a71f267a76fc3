//! Named settings, kept in the `settings` table as JSON: the floor's calendar,
//! rating rule and pits, and the approval rule. A setting is read where it is
//! used (never cached, so every instance sees a change at once), and every
//! change is a significant event naming who made it, with the old value and
//! the new.

use diesel::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::significant_events::{self, EventKind};
use crate::store::schema::settings;
use crate::store::AnyConnection;

#[derive(Debug, thiserror::Error)]
pub enum SettingError {
    #[error("the stored setting {0} does not read: {1}")]
    Stored(&'static str, String),
    #[error(transparent)]
    Database(#[from] diesel::result::Error),
}

/// A stored setting: None until it is first set.
pub fn read<T: DeserializeOwned>(conn: &mut AnyConnection, name: &'static str) -> Result<Option<T>, SettingError> {
    let stored: Option<String> = settings::table
        .find(name)
        .select(settings::value)
        .first(conn)
        .optional()?;
    stored
        .map(|json| serde_json::from_str(&json).map_err(|e| SettingError::Stored(name, e.to_string())))
        .transpose()
}

/// Replaces a setting, recording `event` by `actor_id` with the old and the new value.
pub fn replace<T: Serialize>(
    conn: &mut AnyConnection,
    name: &'static str,
    actor_id: &str,
    event: EventKind,
    old: &T,
    new: &T,
) -> Result<(), SettingError> {
    replace_recording(
        conn,
        name,
        actor_id,
        event,
        new,
        serde_json::json!({ "old": old, "new": new }),
    )
}

/// Replaces a setting with `value`, recording `event` by `actor_id` with `details`.
pub fn replace_recording<T: Serialize>(
    conn: &mut AnyConnection,
    name: &'static str,
    actor_id: &str,
    event: EventKind,
    value: &T,
    details: serde_json::Value,
) -> Result<(), SettingError> {
    let value = serde_json::to_string(value).expect("a setting serialises");
    write(conn, name, &value)?;
    significant_events::record(conn, event, Some(actor_id), None, details)?;
    Ok(())
}

/// Stores a setting's JSON text, recording nothing.
pub fn write(conn: &mut AnyConnection, name: &'static str, value: &str) -> Result<(), SettingError> {
    let updated = diesel::update(settings::table.find(name))
        .set(settings::value.eq(value))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(settings::table)
            .values((settings::name.eq(name), settings::value.eq(value)))
            .execute(conn)?;
    }
    Ok(())
}
