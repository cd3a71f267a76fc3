//! PostgreSQL's role split (docs/operations.md, "Database roles"): the schema
//! owner migrates, deploy/postgres/roles.sql grants, and the service runs as
//! a role that may insert into the ledger but never change or delete it, nor
//! drop or disable the triggers. PostgreSQL only: SQLite has no roles.

use diesel::prelude::*;
use djego::domain::Role;
use serde_json::json;
use std::sync::Arc;

use crate::helpers::{test_database_url, Backend, TestApp, TestDb};
use crate::prima_carta::{casino, create_round, dealer_action, play_copa, s, seat, TableOptions, SUITS};

/// `url` with its user replaced (the test server trusts local connections).
fn as_user(url: &str, user: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL with a scheme");
    let host = rest.split_once('@').map_or(rest, |(_, host)| host);
    format!("{scheme}://{user}@{host}")
}

/// The roles of one test, cluster-wide: dropped with the test's database,
/// even when the test fails.
struct TestRoles {
    names: Vec<String>,
    db: Arc<TestDb>,
}

impl TestRoles {
    fn create(db: Arc<TestDb>, names: &[&str], owner: &str) -> TestRoles {
        let TestDb::Postgres(pg) = &*db else {
            panic!("roles are PostgreSQL's")
        };
        let roles = TestRoles {
            names: names.iter().map(|n| n.to_string()).collect(),
            db: db.clone(),
        };
        let mut admin = PgConnection::establish(&test_database_url()).expect("the PostgreSQL server");
        for name in names {
            diesel::sql_query(format!("CREATE ROLE \"{name}\" LOGIN"))
                .execute(&mut admin)
                .expect("CREATE ROLE");
        }
        diesel::sql_query(format!("ALTER DATABASE \"{}\" OWNER TO \"{owner}\"", pg.name))
            .execute(&mut admin)
            .expect("ALTER DATABASE OWNER");
        roles
    }
}

impl Drop for TestRoles {
    fn drop(&mut self) {
        if let TestDb::Postgres(pg) = &*self.db {
            pg.drop_now();
        }
        match PgConnection::establish(&test_database_url()) {
            Ok(mut admin) => {
                for name in &self.names {
                    if let Err(e) = diesel::sql_query(format!("DROP ROLE IF EXISTS \"{name}\"")).execute(&mut admin) {
                        eprintln!("warning: could not drop role {name}: {e}");
                    }
                }
            }
            Err(e) => eprintln!("warning: could not connect to drop roles {:?}: {e}", self.names),
        }
    }
}

/// deploy/postgres/roles.sql with its psql variables set, as
/// `psql -v owner=… -v service=…` would.
fn roles_sql(owner: &str, service: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/postgres/roles.sql");
    std::fs::read_to_string(&path)
        .expect("deploy/postgres/roles.sql")
        .replace(":\"owner\"", &format!("\"{owner}\""))
        .replace(":\"service\"", &format!("\"{service}\""))
}

fn sql_error(conn: &mut PgConnection, sql: &str) -> String {
    match diesel::sql_query(sql).execute(conn) {
        Ok(n) => panic!("{sql} was allowed ({n} rows)"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_service_role_inserts_into_the_ledger_and_changes_nothing_in_it() {
    let db = Arc::new(TestDb::create(Backend::Postgres));
    let suffix = &uuid::Uuid::new_v4().simple().to_string()[..12];
    let owner = format!("djego_owner_{suffix}");
    let service = format!("djego_service_{suffix}");
    let _roles = TestRoles::create(db.clone(), &[&owner, &service], &owner);
    let owner_url = as_user(db.url(), &owner);
    let service_url = as_user(db.url(), &service);

    // The owner migrates (`djego migrate` with the owner's URL given apart), then grants.
    let migrate = std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
        .args(["migrate", "--database-url", &service_url])
        .env("DJEGO_MIGRATION_DATABASE_URL", &owner_url)
        .env("RUST_LOG", "warn")
        .env_remove("DATABASE_URL")
        .output()
        .expect("djego migrate");
    assert_eq!(
        migrate.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&migrate.stderr)
    );
    let mut as_owner = PgConnection::establish(&owner_url).expect("the owner connects");
    let owners: Vec<String> =
        diesel::sql_query("SELECT tableowner::text AS tableowner FROM pg_tables WHERE tablename = 'transfers'")
            .load::<TableOwner>(&mut as_owner)
            .expect("pg_tables")
            .into_iter()
            .map(|t| t.tableowner)
            .collect();
    assert_eq!(owners, [owner.clone()]);
    // Twice: the file is meant to be run again after every upgrade.
    for _ in 0..2 {
        use diesel::connection::SimpleConnection;
        as_owner
            .batch_execute(&format!("BEGIN; {} COMMIT;", roles_sql(&owner, &service)))
            .expect("roles.sql applies as the owner");
    }

    // The service starts as the restricted role: nothing to migrate, so it
    // never needs the owner; bootstrap, money, rounds, bets and checkpoints all work.
    let app = TestApp::spawn_on(db.clone(), |s| s.database_url = service_url.clone()).await;
    let c = casino(&app, TableOptions::default()).await;
    let player = &c.players[0];
    app.cage(
        &c.cashier,
        "withdrawals",
        &json!({ "player_id": player.id, "amount": "10.00" }),
        None,
    )
    .await
    .expect(201);
    app.cage(
        &c.cashier,
        "corrections",
        &json!({ "player_id": player.id, "amount": "0.50", "direction": "credit", "reason": "short-paid" }),
        None,
    )
    .await
    .expect(201);
    let round = create_round(&app, &c).await;
    let id = s(&round["id"]).to_string();
    for (i, p) in c.players.iter().enumerate() {
        // With a key: the claim is filled in with its answer (an UPDATE).
        seat(&app, p, &id, SUITS[i], Some(&format!("seat-{i}")))
            .await
            .expect(201);
    }
    app.post(
        &format!("/api/v1/rounds/{id}/bets"),
        Some(&player.token),
        &json!({ "kind": "prima", "suit": SUITS[0], "amount": "2.00" }),
        None,
    )
    .await
    .expect(201);
    dealer_action(&app, &c, &id, "close").await.expect(200);
    let dealt = dealer_action(&app, &c, &id, "deal").await.expect(200);
    let view = play_copa(&app, &c, &id, dealt, 7).await;
    assert!(view["status"] == "finished" || view["status"] == "in_play", "{view}");
    dealer_action(&app, &c, &id, "settle").await.expect(200);
    let unassigned = app
        .send(app.request(
            reqwest::Method::DELETE,
            &format!("/api/v1/tables/{}/dealers/{}", c.table, c.dealer.id),
            Some(&c.pitboss.token),
        ))
        .await;
    assert!(unassigned.status < 300, "{unassigned:?}");
    let auditor = app.create_user(Role::Auditor).await;
    app.post("/api/v1/audit/checkpoints", Some(&auditor.token), &json!({}), None)
        .await
        .expect(201);
    // Login limits (counted, given back, lifted) and ending sessions.
    app.try_login(&player.username, "wrong-password")
        .await
        .assert_error(401, "unauthenticated");
    let unlocked = app
        .post(
            &format!("/api/v1/users/{}/unlock", player.id),
            Some(&c.pitboss.token),
            &json!({}),
            None,
        )
        .await;
    assert_eq!(unlocked.status, 204, "{}", unlocked.text);
    let token = app.login(&player.username, &player.password).await;
    let out = app.post("/api/v1/auth/logout", Some(&token), &json!({}), None).await;
    assert_eq!(out.status, 204, "{}", out.text);
    // The floor's settings are set, then changed (an UPDATE); a past gaming day is closed.
    for _ in 0..2 {
        let calendar =
            json!({ "timezone": "UTC", "day_starts_at": "06:00", "shifts": [{ "name": "all", "starts_at": "06:00" }] });
        app.set_calendar(&c.pitboss, &calendar).await;
        let pits = json!({ "pits": [{ "name": "Main", "table_ids": [c.table] }] });
        app.put("/api/v1/floor/pits", Some(&c.pitboss.token), &pits, None)
            .await
            .expect(200);
    }
    app.post(
        "/api/v1/floor/days/2020-01-01/close",
        Some(&c.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(201);
    // A two-person change: proposed, then approved (its status updated).
    let rule = json!({ "correction_limit": "50.00", "expires_after_minutes": 30 });
    app.two_person(reqwest::Method::PUT, "/api/v1/approval-rule", &c.pitboss, &rule)
        .await;
    // Every game's rounds are written under the service's role: one of each, holding money,
    // then voided; and the role may change the rows of every table the registry says each
    // game changes.
    let f = crate::game_registry::floor(&app).await;
    for game in djego::game_registry::Game::ALL {
        let id = crate::game_registry::round_left_going(&app, &f, game).await;
        crate::game_registry::void(&app, &f, game, &id).await;
    }
    let mut as_service = PgConnection::establish(&service_url).expect("the service connects");
    for game in djego::game_registry::games() {
        for table in game.service_updates {
            let sql = format!("SELECT has_table_privilege('{table}', 'UPDATE') AS granted");
            let granted = diesel::sql_query(&sql)
                .get_result::<Granted>(&mut as_service)
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
                .granted;
            assert!(granted, "{}: the service may not UPDATE {table}", game.name);
        }
    }
    app.assert_ledger_sound().await;

    // What the service's role may not do, whoever holds it.
    for sql in [
        "UPDATE transfers SET memo = 'nothing to see'",
        "DELETE FROM transfers",
        "TRUNCATE transfers CASCADE",
        "UPDATE significant_events SET details = '{}'",
        "DELETE FROM significant_events",
        "DELETE FROM event_chain",
        "UPDATE checkpoints SET signature = ''",
        "UPDATE gaming_day_closes SET report = '{}'",
        "DELETE FROM gaming_day_closes",
        "UPDATE proposals SET request = '{}'",
        "UPDATE proposals SET expires_at_us = 0",
        "UPDATE proposals SET proposed_by = decided_by",
        "DELETE FROM proposals",
        "INSERT INTO __diesel_schema_migrations (version) VALUES ('99999999999999')",
    ] {
        let e = sql_error(&mut as_service, sql);
        assert!(e.contains("permission denied"), "{sql}: {e}");
    }
    for sql in [
        "DROP TRIGGER transfers_insert_only ON transfers",
        "ALTER TABLE transfers DISABLE TRIGGER transfers_insert_only",
        "ALTER TABLE significant_events DISABLE TRIGGER USER",
        "DROP TABLE checkpoints",
    ] {
        let e = sql_error(&mut as_service, sql);
        assert!(e.contains("must be owner"), "{sql}: {e}");
    }
    // Nor may the owner change a row while the triggers stand.
    let e = sql_error(&mut as_owner, "UPDATE transfers SET memo = 'nothing to see'");
    assert!(e.contains("transfers is insert-only"), "{e}");
    app.assert_ledger_sound().await;
}

#[derive(QueryableByName)]
struct Granted {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    granted: bool,
}

#[derive(QueryableByName)]
struct TableOwner {
    #[diesel(sql_type = diesel::sql_types::Text)]
    tableowner: String,
}
