//! Casino tables: their game, options, status and assigned dealers.

pub mod config;

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

pub use config::TableConfig;

use crate::significant_events::{self, EventKind};
use crate::store::schema::{casino_tables as ct, table_dealers as td};
use crate::store::{new_id, now_us, AnyConnection};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    Closed,
    Open,
}

impl TableStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TableStatus::Closed => "closed",
            TableStatus::Open => "open",
        }
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = ct)]
struct TableRow {
    id: String,
    name: String,
    game: String,
    status: String,
    config: String,
    created_at_us: i64,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct Table {
    pub id: String,
    pub name: String,
    pub status: TableStatus,
    pub config: TableConfig,
    pub dealer_ids: Vec<String>,
    pub created_at_us: i64,
}

impl Table {
    pub fn is_open(&self) -> bool {
        self.status == TableStatus::Open
    }
}

fn load_dealers(conn: &mut AnyConnection, table_id: &str) -> QueryResult<Vec<String>> {
    td::table
        .filter(td::table_id.eq(table_id))
        .select(td::dealer_id)
        .order(td::dealer_id.asc())
        .load(conn)
}

fn to_table(conn: &mut AnyConnection, row: TableRow) -> QueryResult<Table> {
    let config: TableConfig =
        serde_json::from_str(&row.config).map_err(|e| diesel::result::Error::DeserializationError(Box::new(e)))?;
    let dealer_ids = load_dealers(conn, &row.id)?;
    let status = if row.status == "open" {
        TableStatus::Open
    } else {
        TableStatus::Closed
    };
    debug_assert_eq!(row.game, config.game());
    Ok(Table {
        id: row.id,
        name: row.name,
        status,
        config,
        dealer_ids,
        created_at_us: row.created_at_us,
    })
}

pub fn create(conn: &mut AnyConnection, name: &str, config: &TableConfig, actor: Option<&str>) -> QueryResult<Table> {
    let id = new_id();
    diesel::insert_into(ct::table)
        .values((
            ct::id.eq(&id),
            ct::name.eq(name),
            ct::game.eq(config.game()),
            ct::status.eq(TableStatus::Closed.as_str()),
            ct::config.eq(serde_json::to_string(config).expect("table configs serialize")),
            ct::created_at_us.eq(now_us()),
        ))
        .execute(conn)?;
    significant_events::record(
        conn,
        EventKind::TableCreated,
        actor,
        Some(&id),
        serde_json::json!({ "name": name, "config": config }),
    )?;
    find(conn, &id)?.ok_or(diesel::result::Error::NotFound)
}

pub fn find(conn: &mut AnyConnection, id: &str) -> QueryResult<Option<Table>> {
    match ct::table
        .find(id)
        .select(TableRow::as_select())
        .first(conn)
        .optional()?
    {
        Some(row) => Ok(Some(to_table(conn, row)?)),
        None => Ok(None),
    }
}

/// Whether a table has this name (names are unique).
pub fn name_taken(conn: &mut AnyConnection, name: &str) -> QueryResult<bool> {
    let found: Option<String> = ct::table
        .filter(ct::name.eq(name))
        .select(ct::id)
        .first(conn)
        .optional()?;
    Ok(found.is_some())
}

pub fn list(conn: &mut AnyConnection) -> QueryResult<Vec<Table>> {
    let rows: Vec<TableRow> = ct::table
        .select(TableRow::as_select())
        .order(ct::name.asc())
        .load(conn)?;
    rows.into_iter().map(|r| to_table(conn, r)).collect()
}

pub fn set_status(
    conn: &mut AnyConnection,
    id: &str,
    status: TableStatus,
    actor: &str,
    details: serde_json::Value,
) -> QueryResult<()> {
    diesel::update(ct::table.find(id))
        .set(ct::status.eq(status.as_str()))
        .execute(conn)?;
    let kind = match status {
        TableStatus::Open => EventKind::TableOpened,
        TableStatus::Closed => EventKind::TableClosed,
    };
    significant_events::record(conn, kind, Some(actor), Some(id), details)
}

pub fn update_config(conn: &mut AnyConnection, id: &str, config: &TableConfig) -> QueryResult<()> {
    diesel::update(ct::table.find(id))
        .set(ct::config.eq(serde_json::to_string(config).expect("table configs serialize")))
        .execute(conn)?;
    Ok(())
}

pub fn assign_dealer(
    conn: &mut AnyConnection,
    table_id: &str,
    dealer_id: &str,
    actor: Option<&str>,
) -> QueryResult<()> {
    if load_dealers(conn, table_id)?.iter().any(|d| d == dealer_id) {
        return Ok(());
    }
    diesel::insert_into(td::table)
        .values((td::table_id.eq(table_id), td::dealer_id.eq(dealer_id)))
        .execute(conn)?;
    significant_events::record(
        conn,
        EventKind::DealerAssigned,
        actor,
        Some(table_id),
        serde_json::json!({ "dealer_id": dealer_id }),
    )
}

pub fn unassign_dealer(conn: &mut AnyConnection, table_id: &str, dealer_id: &str) -> QueryResult<usize> {
    diesel::delete(
        td::table
            .filter(td::table_id.eq(table_id))
            .filter(td::dealer_id.eq(dealer_id)),
    )
    .execute(conn)
}

/// The demo casino's tables (one per game), open, with the demo dealer assigned.
pub fn seed_demo_tables(conn: &mut AnyConnection, admin: Option<&str>, dealer_id: Option<&str>) -> QueryResult<()> {
    for (name, config) in [
        ("Prima Carta 1", TableConfig::demo_prima_carta()),
        ("Lobo 1", TableConfig::demo_lobo()),
        ("Peg Leg 1", TableConfig::demo_peg_leg()),
    ] {
        let table = create(conn, name, &config, admin)?;
        if let Some(dealer) = dealer_id {
            assign_dealer(conn, &table.id, dealer, admin)?;
        }
        set_status(
            conn,
            &table.id,
            TableStatus::Open,
            admin.unwrap_or("system"),
            serde_json::json!({ "demo": true }),
        )?;
    }
    Ok(())
}
