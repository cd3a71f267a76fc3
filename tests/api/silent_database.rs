//! A database that stops answering without closing anything: every request is
//! still answered within its bound (503), and all is well once it answers again.
//!
//! PostgreSQL is reached through a TCP proxy in the test that can be frozen
//! (tests/api/pg_proxy.rs): it stops forwarding bytes but keeps every
//! connection open, as a hung server or a network that drops packets would. SQLite cannot go silent that way; its
//! counterpart is another process holding the write lock.

use crate::helpers::{Backend, TestApp};
use crate::pg_proxy::PgProxy;
use djego::domain::Role;
use serde_json::json;
use std::time::{Duration, Instant};

/// The service's database timeout in these tests.
const DB_TIMEOUT_MS: u64 = 2_000;
/// What a loaded test machine may add to a bound.
const SLACK_MS: u64 = 1_500;

async fn timed<T>(work: impl std::future::Future<Output = T>) -> (T, Duration) {
    let started = Instant::now();
    let out = work.await;
    (out, started.elapsed())
}

fn within(elapsed: Duration, bound_ms: u64, what: &str) {
    assert!(
        elapsed <= Duration::from_millis(bound_ms + SLACK_MS),
        "{what} took {elapsed:?}, more than its bound of {bound_ms} ms"
    );
}

both_backends!(
    async fn a_silent_database_is_answered_503_within_its_bound(app: TestApp) {
        let mut proxy = None;
        let mut lock_holder = None;
        let app = match app.backend {
            Backend::Postgres => {
                let (p, url) = PgProxy::in_front_of(app.db.url()).await;
                proxy = Some(p);
                TestApp::spawn_on(app.db.clone(), |s| {
                    s.database_url = url;
                    s.db_timeout_ms = DB_TIMEOUT_MS;
                })
                .await
            }
            Backend::Sqlite => TestApp::spawn_on(app.db.clone(), |s| s.db_timeout_ms = DB_TIMEOUT_MS).await,
        };
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let deposit = |key: &'static str| {
            app.request(reqwest::Method::POST, "/api/v1/cage/deposits", Some(&cashier.token))
                .header("Idempotency-Key", key)
                .json(&json!({ "player_id": player.id, "amount": "10.00" }))
        };
        app.send(deposit("before")).await.expect(201);

        // The database goes silent.
        match &proxy {
            Some(p) => p.freeze(true),
            None => {
                // Another process's writer holds SQLite's lock for a while.
                let path = app.db.url().trim_start_matches("sqlite://").to_string();
                let (release, held) = std::sync::mpsc::channel::<()>();
                let (taken, is_taken) = std::sync::mpsc::channel::<()>();
                lock_holder = Some((
                    release,
                    std::thread::spawn(move || {
                        use diesel::connection::SimpleConnection;
                        use diesel::Connection;
                        let mut c = diesel::SqliteConnection::establish(&path).expect("a second connection");
                        c.batch_execute("BEGIN IMMEDIATE").expect("the write lock");
                        taken.send(()).unwrap();
                        let _ = held.recv();
                        c.batch_execute("ROLLBACK").unwrap();
                    }),
                ));
                is_taken.recv().unwrap();
            }
        }

        // Readiness answers within its probe's second, three at once; PostgreSQL's as 503.
        let readies = (0..3)
            .map(|_| app.request(reqwest::Method::GET, "/ready", None))
            .collect();
        let (answers, elapsed) = timed(app.send_all_at_once(readies)).await;
        within(elapsed, djego::api::health::READY_TIMEOUT_MS, "/ready");
        for (status, text) in &answers {
            match app.backend {
                Backend::Postgres => {
                    assert_eq!(*status, 503, "{text}");
                    crate::helpers::assert_error_shape(&serde_json::from_str(text).unwrap(), "database_unavailable");
                }
                // Reading needs no write lock.
                Backend::Sqlite => assert_eq!(*status, 200, "{text}"),
            }
        }
        // A deposit answers 503 within the database timeout, and says it may still be applied.
        let (frozen_deposit, elapsed) = timed(app.send(deposit("during"))).await;
        within(elapsed, DB_TIMEOUT_MS, "a deposit");
        // A 503 either way: the query timed out on a pooled connection, or (under load, when the
        // pool must open one through the frozen proxy) the connection could not be made at all.
        assert_eq!(frozen_deposit.status, 503, "{}", frozen_deposit.text);
        let code = frozen_deposit.json()["error"]["code"].clone();
        assert!(
            code == "database_timeout" || code == "database_unavailable",
            "{}",
            frozen_deposit.text
        );
        if code == "database_timeout" {
            assert!(
                frozen_deposit.text.contains("Idempotency-Key"),
                "{}",
                frozen_deposit.text
            );
        }
        if app.backend == Backend::Postgres {
            // So does anything that reads the caller's account.
            let (me, elapsed) = timed(app.get("/api/v1/me", Some(&player.token))).await;
            within(elapsed, DB_TIMEOUT_MS, "/api/v1/me");
            me.assert_error(503, "database_timeout");
        }

        // The database answers again.
        match &proxy {
            Some(p) => p.freeze(false),
            None => {
                let (release, thread) = lock_holder.take().unwrap();
                release.send(()).unwrap();
                thread.join().unwrap();
            }
        }
        let started = Instant::now();
        loop {
            let r = app.get("/ready", None).await;
            if r.status == 200 {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "never ready again: {}",
                r.text
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // The deposit that was answered 503, retried with its key, is made once.
        let retried = app.send(deposit("during")).await;
        assert_eq!(retried.status, 201, "{}", retried.text);
        app.send(deposit("after")).await.expect(201);
        assert_eq!(app.balance(&player.id).await, "30.00");
        drop(proxy);
    }
);
