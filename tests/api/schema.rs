//! Migrations on an empty database, and `src/store/schema.rs` (kept by hand)
//! against what the migrations really create, on both backends.

use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};
use std::collections::{BTreeMap, BTreeSet};

use djego::store::schema::*;
use djego::store::{AnyConnection, Database};

use crate::helpers::{Backend, TestDb};

macro_rules! sync_both_backends {
    (fn $name:ident($backend:ident: Backend) $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            fn run($backend: Backend) $body
            #[test]
            fn sqlite() {
                run(Backend::Sqlite)
            }
            #[test]
            fn postgres() {
                run(Backend::Postgres)
            }
        }
    };
}

/// The shared migrations and the backend's own.
fn migrations_in_tree(backend: Backend) -> usize {
    let own = match backend {
        Backend::Sqlite => "migrations-sqlite",
        Backend::Postgres => "migrations-postgres",
    };
    ["migrations", own]
        .iter()
        .map(|dir| {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(Result::ok)
                .filter(|e| e.path().join("up.sql").is_file())
                .count()
        })
        .sum()
}

sync_both_backends!(
    fn migrations_apply_to_an_empty_database_once(backend: Backend) {
        let db = TestDb::create(backend);
        let first = Database::connect(db.url(), 2).expect("connect");
        assert_eq!(first.migrate().expect("migrate"), migrations_in_tree(backend));
        assert_eq!(first.migrate().expect("migrate again"), 0);
        // A second instance sharing the database finds nothing to do.
        let second = Database::connect(db.url(), 2).expect("connect again");
        assert_eq!(second.migrate().expect("migrate from another instance"), 0);
        first.ping(1_000).expect("ping");
    }
);

// Two instances starting together on one empty database: the migrations run
// once (PostgreSQL: under an advisory lock) and both succeed.
sync_both_backends!(
    fn concurrent_first_migrations_do_not_collide(backend: Backend) {
        if backend == Backend::Sqlite {
            // One process per embedded database by design; nothing to race.
            return;
        }
        let db = TestDb::create(backend);
        let url = db.url().to_string();
        let handles: Vec<_> = (0..3)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || Database::connect(&url, 2).expect("connect").migrate().expect("migrate"))
            })
            .collect();
        let applied: Vec<usize> = handles.into_iter().map(|h| h.join().expect("thread")).collect();
        assert_eq!(
            applied.iter().sum::<usize>(),
            migrations_in_tree(backend),
            "{applied:?}"
        );
    }
);

/// Every table of schema.rs, selected with all its columns through diesel's
/// query builder: fails if a column diesel expects is missing.
fn select_every_table(conn: &mut AnyConnection) {
    macro_rules! select_all {
        ($($t:ident),* $(,)?) => {
            $(
                $t::table
                    .select($t::all_columns)
                    .limit(0)
                    .execute(conn)
                    .unwrap_or_else(|e| panic!("SELECT all columns of {}: {e}", stringify!($t)));
            )*
        };
    }
    select_all!(
        users,
        login_throttles,
        significant_events,
        accounts,
        ledger_head,
        transfers,
        idempotency_keys,
        casino_tables,
        table_dealers,
        settings,
        event_chain,
        checkpoints,
        merkle_nodes,
    );
}

/// A table! block of schema.rs: column name → (diesel type, nullable).
type SchemaTables = BTreeMap<String, BTreeMap<String, (String, bool)>>;

/// Reads src/store/schema.rs, so that tables added there later are checked
/// without editing this test.
fn parse_schema_rs() -> SchemaTables {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/schema.rs");
    let text = std::fs::read_to_string(&path).expect("src/store/schema.rs");
    let mut tables = SchemaTables::new();
    let mut current: Option<String> = None;
    let mut in_block = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("diesel::table!") || l.starts_with("table!") {
            in_block = true;
            continue;
        }
        if !in_block {
            continue;
        }
        if current.is_none() {
            if let Some((name, _)) = l.split_once(" (") {
                if l.ends_with('{') {
                    current = Some(name.trim().to_string());
                    tables.insert(name.trim().to_string(), BTreeMap::new());
                }
            }
            continue;
        }
        if l == "}" {
            current = None;
            in_block = false;
            continue;
        }
        if l.starts_with('#') || l.starts_with("//") || l.is_empty() {
            continue;
        }
        if let Some((col, ty)) = l.split_once("->") {
            let ty = ty.trim().trim_end_matches(',').trim().to_string();
            let nullable = ty.starts_with("Nullable<");
            let base = ty.trim_start_matches("Nullable<").trim_end_matches('>').to_string();
            tables
                .get_mut(current.as_ref().unwrap())
                .unwrap()
                .insert(col.trim().to_string(), (base, nullable));
        }
    }
    assert!(tables.len() >= 10, "parsed too few tables from schema.rs: {tables:?}");
    tables
}

#[derive(QueryableByName, Debug)]
struct DbColumn {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    ty: String,
    #[diesel(sql_type = Bool)]
    nullable: bool,
}

#[derive(QueryableByName, Debug)]
struct DbTable {
    #[diesel(sql_type = Text)]
    name: String,
}

fn db_tables(backend: Backend, url: &str) -> BTreeMap<String, Vec<DbColumn>> {
    let mut out = BTreeMap::new();
    match backend {
        Backend::Sqlite => {
            let mut c = SqliteConnection::establish(url.strip_prefix("sqlite://").unwrap()).expect("sqlite");
            let tables: Vec<DbTable> = diesel::sql_query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
                 AND name <> '__diesel_schema_migrations'",
            )
            .load(&mut c)
            .unwrap();
            for t in tables {
                let cols: Vec<DbColumn> = diesel::sql_query(format!(
                    "SELECT name, type AS ty, (\"notnull\" = 0 AND NOT (pk > 0 AND upper(type) = 'INTEGER')) AS nullable FROM pragma_table_info('{}')",
                    t.name
                ))
                .load(&mut c)
                .unwrap();
                out.insert(t.name, cols);
            }
        }
        Backend::Postgres => {
            let mut c = PgConnection::establish(url).expect("postgres");
            let tables: Vec<DbTable> = diesel::sql_query(
                "SELECT table_name::text AS name FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
                 AND table_name <> '__diesel_schema_migrations'",
            )
            .load(&mut c)
            .unwrap();
            for t in tables {
                let cols: Vec<DbColumn> = diesel::sql_query(format!(
                    "SELECT column_name::text AS name, data_type::text AS ty, (is_nullable = 'YES') AS nullable \
                     FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '{}'",
                    t.name
                ))
                .load(&mut c)
                .unwrap();
                out.insert(t.name, cols);
            }
        }
    }
    out
}

/// The database type names a diesel type may map to (lower case).
fn compatible(diesel_ty: &str, db_ty: &str) -> bool {
    let db_ty = db_ty.to_ascii_lowercase();
    let ok: &[&str] = match diesel_ty {
        "Text" => &["text", "character varying", "varchar"],
        "BigInt" => &["bigint", "int8"],
        "Integer" => &["integer", "int", "int4"],
        "SmallInt" => &["smallint", "int2"],
        "Bool" => &["boolean", "bool"],
        "Double" => &["double precision", "double", "real"],
        "Binary" => &["bytea", "blob"],
        _ => return true,
    };
    ok.contains(&db_ty.as_str())
}

sync_both_backends!(
    fn schema_rs_matches_the_migrated_database(backend: Backend) {
        let db = TestDb::create(backend);
        let database = Database::connect(db.url(), 2).expect("connect");
        database.migrate().expect("migrate");
        let mut conn = database.conn().expect("a connection");
        select_every_table(&mut conn);
        drop(conn);

        let expected = parse_schema_rs();
        let actual = db_tables(backend, db.url());
        let mut problems = Vec::new();
        let expected_names: BTreeSet<&String> = expected.keys().collect();
        let actual_names: BTreeSet<&String> = actual.keys().collect();
        for t in expected_names.difference(&actual_names) {
            problems.push(format!("table {t} is in schema.rs but not in the database"));
        }
        for t in actual_names.difference(&expected_names) {
            problems.push(format!("table {t} is in the migrations but not in schema.rs"));
        }
        for (table, cols) in &expected {
            let Some(db_cols) = actual.get(table) else { continue };
            // Every column of schema.rs is selectable.
            let list = cols.keys().cloned().collect::<Vec<_>>().join(", ");
            let sql = format!("SELECT {list} FROM {table} LIMIT 0");
            if let Err(e) = diesel::sql_query(&sql).execute(&mut *database.conn().unwrap()) {
                problems.push(format!("{sql}: {e}"));
            }
            for (name, (ty, nullable)) in cols {
                match db_cols.iter().find(|c| &c.name == name) {
                    None => problems.push(format!("column {table}.{name} is in schema.rs but not in the database")),
                    Some(c) => {
                        if !compatible(ty, &c.ty) {
                            problems.push(format!(
                                "column {table}.{name}: schema.rs says {ty}, the database has {}",
                                c.ty
                            ));
                        }
                        if *nullable != c.nullable {
                            problems.push(format!(
                                "column {table}.{name}: schema.rs nullable={nullable}, the database nullable={}",
                                c.nullable
                            ));
                        }
                    }
                }
            }
            for c in db_cols {
                if !cols.contains_key(&c.name) {
                    problems.push(format!(
                        "column {table}.{} is in the database but not in schema.rs",
                        c.name
                    ));
                }
            }
        }
        drop(database);
        assert!(
            problems.is_empty(),
            "schema.rs and the {backend:?} migrations disagree:\n{}",
            problems.join("\n")
        );
    }
);
