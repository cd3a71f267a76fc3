//! What a failover does to djego, reproduced on one PostgreSQL server through
//! a proxy that fails the way a lost primary does (tests/api/pg_proxy.rs):
//! every connection cut at once, a commit cut before or after the server has
//! it, a server that turns read-only. Each wager acknowledged is in the ledger
//! exactly once, and the service recovers by itself.
//!
//! PostgreSQL only: an embedded SQLite database has no server to lose.

use crate::helpers::{test_database_url, Backend, TestApp, TestResponse};
use crate::pg_proxy::{CommitCut, PgProxy};
use crate::prima_carta::{casino, full_round, TableOptions};
use diesel::{Connection, RunQueryDsl};
use djego::domain::Role;
use serde_json::json;
use std::time::{Duration, Instant};

async fn behind_proxy() -> (TestApp, PgProxy) {
    let first = TestApp::spawn(Backend::Postgres).await;
    let (proxy, url) = PgProxy::in_front_of(first.db.url()).await;
    let app = TestApp::spawn_on(first.db.clone(), |s| s.database_url = url).await;
    (app, proxy)
}

fn retry_after(r: &TestResponse) -> Option<String> {
    r.headers
        .get("retry-after")
        .map(|v| v.to_str().unwrap_or_default().to_string())
}

/// A deposit's request, with its key.
fn deposit(app: &TestApp, cashier: &str, player: &str, amount: &str, key: &str) -> reqwest::RequestBuilder {
    app.request(reqwest::Method::POST, "/api/v1/cage/deposits", Some(cashier))
        .header("Idempotency-Key", key)
        .json(&json!({ "player_id": player, "amount": amount }))
}

/// The commit of a batch is lost on its way to the server (nothing committed)
/// or on its way back (committed, unacknowledged). Either way the deposit is
/// answered 201 once the committer has found out, and is in the ledger once;
/// its retry replays the same answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_cut_before_or_after_the_server_has_it_is_applied_exactly_once() {
    for cut in [CommitCut::AfterServer, CommitCut::BeforeServer] {
        let (app, proxy) = behind_proxy().await;
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.send(deposit(&app, &cashier.token, &player.id, "10.00", "first"))
            .await
            .expect(201);

        proxy.cut_at_commit(cut);
        let cut_one = app
            .send(deposit(&app, &cashier.token, &player.id, "25.00", "cut"))
            .await;
        assert_eq!(proxy.commits_cut(), 1, "{cut:?}: the commit was cut");
        let receipt = cut_one.expect(201);
        assert_eq!(app.balance(&player.id).await, "35.00", "{cut:?}");

        let again = app
            .send(deposit(&app, &cashier.token, &player.id, "25.00", "cut"))
            .await
            .expect(201);
        assert_eq!(again, receipt, "{cut:?}: the retry replays the first answer");
        assert_eq!(app.balance(&player.id).await, "35.00", "{cut:?}: applied once");
        app.assert_ledger_sound().await;
    }
}

/// Every connection is cut (the old primary was killed): the pool does not
/// hand the dead ones out again. At most the first request that meets one is
/// answered 503 with Retry-After; a deposit goes through on a new connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_to_a_lost_server_are_replaced_not_reused() {
    let (app, proxy) = behind_proxy().await;
    let cashier = app.create_user(Role::Cashier).await;
    let player = app.create_user(Role::Player).await;
    app.send(deposit(&app, &cashier.token, &player.id, "10.00", "before"))
        .await
        .expect(201);
    // Several pooled connections, all idle.
    let reads = (0..4)
        .map(|_| app.request(reqwest::Method::GET, "/api/v1/me", Some(&player.token)))
        .collect();
    for (status, text) in app.send_all_at_once(reads).await {
        assert_eq!(status, 200, "{text}");
    }

    proxy.cut_all();
    let mut failed = 0;
    for _ in 0..8 {
        let me = app.get("/api/v1/me", Some(&player.token)).await;
        if me.status != 200 {
            failed += 1;
            me.assert_error(503, "database_unavailable");
            assert_eq!(retry_after(&me).as_deref(), Some("1"), "{}", me.text);
        }
    }
    assert!(failed <= 1, "{failed} of 8 reads failed after the cut");
    app.send(deposit(&app, &cashier.token, &player.id, "5.00", "after"))
        .await
        .expect(201);
    assert_eq!(app.balance(&player.id).await, "15.00");
    app.assert_ledger_sound().await;
}

/// Sets (or resets) whether new sessions on `database` are read-only, as a
/// demoted primary's are.
fn set_read_only(database: &str, on: bool) {
    let mut admin = diesel::PgConnection::establish(&test_database_url()).expect("the admin connection");
    let statement = if on {
        format!("ALTER DATABASE \"{database}\" SET default_transaction_read_only = on")
    } else {
        format!("ALTER DATABASE \"{database}\" RESET default_transaction_read_only")
    };
    diesel::sql_query(statement)
        .execute(&mut admin)
        .expect("ALTER DATABASE");
}

/// The server turns read-only under djego (a primary being demoted): writes
/// are answered 503 with Retry-After and move nothing, reads are served,
/// readiness says 503 `database_read_only`; once a server takes writes again,
/// the retried deposit is applied once and readiness says 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_turned_read_only_refuses_writes_503_and_serves_reads() {
    let (app, proxy) = behind_proxy().await;
    let database = app
        .db
        .url()
        .rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let cashier = app.create_user(Role::Cashier).await;
    let player = app.create_user(Role::Player).await;
    app.send(deposit(&app, &cashier.token, &player.id, "10.00", "before"))
        .await
        .expect(201);
    // The auditor who reads balances, made while accounts can be.
    app.auditor().await;

    set_read_only(&database, true);
    // Demotion restarts the server: every connection is new, and read-only.
    proxy.cut_all();
    let refused = app
        .send(deposit(&app, &cashier.token, &player.id, "7.00", "during"))
        .await;
    assert_eq!(refused.status, 503, "{}", refused.text);
    assert_eq!(retry_after(&refused).as_deref(), Some("1"), "{}", refused.text);
    let me = app.get("/api/v1/me", Some(&player.token)).await;
    assert_eq!(me.status, 200, "reads are served: {}", me.text);
    let ready = app.get("/ready", None).await;
    ready.assert_error(503, "database_read_only");
    assert_eq!(app.balance(&player.id).await, "10.00", "nothing moved");

    // A server takes writes again (the new primary); the old one's sessions end.
    set_read_only(&database, false);
    proxy.cut_all();
    let started = Instant::now();
    loop {
        let retried = app
            .send(deposit(&app, &cashier.token, &player.id, "7.00", "during"))
            .await;
        if retried.status == 201 {
            break;
        }
        assert_eq!(retried.status, 503, "{}", retried.text);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "writes never came back: {}",
            retried.text
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let started = Instant::now();
    while app.get("/ready", None).await.status != 200 {
        assert!(started.elapsed() < Duration::from_secs(20), "never ready again");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(app.balance(&player.id).await, "17.00", "the retried deposit, once");
    app.assert_ledger_sound().await;
}

/// Reports are read from the replica while it answers, from the primary when
/// it does not, and say which; nothing can be written through the replica.
/// (The "replica" here is the primary's own database through a second proxy:
/// it is level with itself, so its lag is 0.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_are_read_from_the_replica_while_it_answers() {
    let first = TestApp::spawn(Backend::Postgres).await;
    let (replica_proxy, replica_url) = PgProxy::in_front_of(first.db.url()).await;
    let url = replica_url.clone();
    let app = TestApp::spawn_on(first.db.clone(), |s| {
        s.read_replica = Some(djego::config::ReadReplica { url, max_lag_ms: 5_000 })
    })
    .await;
    let c = casino(&app, TableOptions::default()).await;
    full_round(&app, &c, 2, 1).await;
    let auditor = app.auditor().await;
    let reports = [
        ("/api/v1/floor/tables".to_string(), &c.pitboss.token),
        ("/api/v1/audit/ledger".to_string(), &auditor.token),
        ("/api/v1/audit/events".to_string(), &auditor.token),
        (
            format!("/api/v1/audit/transcripts?from_us=0&to_us={}", i64::MAX),
            &auditor.token,
        ),
    ];
    let from = |r: &TestResponse| {
        let header = |name: &str| r.headers.get(name).map(|v| v.to_str().unwrap().to_string());
        (header("djego-read-from"), header("djego-replica-lag-ms"))
    };
    let mut on_replica = Vec::new();
    for (path, token) in &reports {
        let r = app.get(path, Some(token)).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        assert_eq!(from(&r), (Some("replica".into()), Some("0".into())), "{path}");
        on_replica.push(r.text);
    }
    assert!(
        on_replica[3].lines().count() == 1,
        "the round's transcript: {}",
        on_replica[3]
    );

    // The replica is gone: the same reports, from the primary, the same.
    replica_proxy.down(true);
    for ((path, token), text) in reports.iter().zip(&on_replica) {
        let r = app.get(path, Some(token)).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        assert_eq!(from(&r), (Some("primary".into()), None), "{path}");
        if path.contains("ledger") || path.contains("transcripts") {
            assert_eq!(&r.text, text, "{path}: the same from either");
        }
    }
    replica_proxy.down(false);

    // Writes never go there: the replica's sessions are read-only.
    let replica = djego::store::Database::connect_replica(&replica_url, 1, None).expect("the replica's pool");
    let written = replica.write(|conn| -> Result<usize, djego::store::StoreError> {
        Ok(diesel::sql_query("UPDATE ledger_head SET seq = seq WHERE id = 1").execute(conn)?)
    });
    assert!(
        matches!(
            written,
            Err(djego::store::StoreError::Query(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ReadOnlyTransaction,
                _
            )))
        ),
        "{written:?}"
    );
}
