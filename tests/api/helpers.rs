//! The test harness: one real djego server per test, on a fresh database of
//! either backend, driven over HTTP (Zero To Production style).
//!
//! - SQLite: a database file in a temporary directory, removed afterwards.
//! - PostgreSQL: a fresh database created on the server at `TEST_DATABASE_URL`
//!   (default `postgres://postgres@127.0.0.1:5432/postgres`), uniquely named
//!   per test and dropped `WITH (FORCE)` when the test ends. When no server can
//!   be reached the PostgreSQL tests FAIL naming `TEST_DATABASE_URL`; they are
//!   never skipped silently.
//!
//! No process-wide environment variable is set (tests run in parallel
//! threads): users of any role are created with `djego::users::create` on the
//! app's own database, then log in over HTTP.

#![allow(dead_code)] // not every test uses every helper

use diesel::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;

use djego::api::state::AppState;
use djego::config::Settings;
use djego::domain::{Role, Username};
use djego::startup::Application;
pub use djego::store::Backend;
use djego::store::{with_database_name, Database};

pub const DEFAULT_TEST_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// Generates one module per test with a `sqlite` and a `postgres` test, each
/// spawning its own app. After the body, the ledger's trial balance must be
/// 0.00 and `GET /api/v1/audit/ledger/verify` must be ok, unless the test is
/// marked `#[no_ledger_check]` (it tampers with the ledger on purpose).
///
/// ```ignore
/// both_backends!(async fn login_works(app: TestApp) { ... });
/// ```
macro_rules! both_backends {
    (#[no_ledger_check] async fn $name:ident($app:ident: TestApp) $body:block) => {
        both_backends!(@impl $name, $app, $body, false);
    };
    (async fn $name:ident($app:ident: TestApp) $body:block) => {
        both_backends!(@impl $name, $app, $body, true);
    };
    (@impl $name:ident, $app:ident, $body:block, $check:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                #[allow(unused_variables)]
                let $app = crate::helpers::TestApp::spawn(crate::helpers::Backend::Sqlite).await;
                $body
                if $check {
                    $app.assert_ledger_sound().await;
                }
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                #[allow(unused_variables)]
                let $app = crate::helpers::TestApp::spawn(crate::helpers::Backend::Postgres).await;
                $body
                if $check {
                    $app.assert_ledger_sound().await;
                }
            }
        }
    };
}

// ---------------------------------------------------------------------------
// Fresh databases
// ---------------------------------------------------------------------------

/// A fresh, empty database that disappears when dropped.
pub enum TestDb {
    Sqlite { _dir: tempfile::TempDir, url: String },
    Postgres(PgTestDb),
}

impl TestDb {
    pub fn create(backend: Backend) -> TestDb {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("a temporary directory for the SQLite database");
                let url = format!("sqlite://{}", dir.path().join("djego.db").display());
                TestDb::Sqlite { _dir: dir, url }
            }
            Backend::Postgres => TestDb::Postgres(PgTestDb::create()),
        }
    }

    pub fn url(&self) -> &str {
        match self {
            TestDb::Sqlite { url, .. } => url,
            TestDb::Postgres(pg) => &pg.url,
        }
    }

    pub fn backend(&self) -> Backend {
        match self {
            TestDb::Sqlite { .. } => Backend::Sqlite,
            TestDb::Postgres(_) => Backend::Postgres,
        }
    }
}

/// A uniquely named PostgreSQL database, dropped (forcibly disconnecting any
/// remaining session) when this guard is dropped.
pub struct PgTestDb {
    pub name: String,
    pub url: String,
    admin_url: String,
    dropped: std::sync::atomic::AtomicBool,
}

pub fn test_database_url() -> String {
    let url = std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| DEFAULT_TEST_DATABASE_URL.to_string());
    // Without this libpq first probes for Kerberos (GSSAPI) on every connection,
    // and Kerberos aborts the whole test process when a connection is still
    // being made as the process exits: a live relay reconnecting to a test
    // database already dropped. No test uses Kerberos.
    if url.contains("gssencmode=") {
        url
    } else if url.contains('?') {
        format!("{url}&gssencmode=disable")
    } else {
        format!("{url}?gssencmode=disable")
    }
}

fn admin_connection(admin_url: &str) -> PgConnection {
    // The first PostgreSQL test to find the server unreachable says how to fix
    // it; the others (about a hundred) say only that they failed for that reason.
    static EXPLAINED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    PgConnection::establish(admin_url).unwrap_or_else(|e| {
        if EXPLAINED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            panic!("PostgreSQL at TEST_DATABASE_URL={admin_url} is unreachable (see the first failure)");
        }
        panic!(
            "the PostgreSQL tests need a reachable PostgreSQL server, but connecting to \
             TEST_DATABASE_URL={admin_url} failed: {e}\n\
             Start PostgreSQL there (user with CREATEDB) or set TEST_DATABASE_URL=postgres://user@host:port/db. \
             These tests are never skipped; `cargo test --test api sqlite` runs the SQLite half alone."
        )
    })
}

impl PgTestDb {
    pub fn create() -> PgTestDb {
        let admin_url = test_database_url();
        let name = format!("djego_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = admin_connection(&admin_url);
        diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .unwrap_or_else(|e| panic!("cannot CREATE DATABASE {name} on TEST_DATABASE_URL={admin_url}: {e}"));
        let url = with_database_name(&admin_url, &name);
        PgTestDb {
            name,
            url,
            admin_url,
            dropped: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Drops the database now (terminating the app's sessions): the database is gone.
    pub fn drop_now(&self) {
        if self.dropped.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        match PgConnection::establish(&self.admin_url) {
            Ok(mut conn) => {
                if let Err(e) = diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name))
                    .execute(&mut conn)
                {
                    eprintln!("warning: could not drop test database {}: {e}", self.name);
                }
            }
            Err(e) => eprintln!("warning: could not connect to drop test database {}: {e}", self.name),
        }
    }
}

impl Drop for PgTestDb {
    fn drop(&mut self) {
        self.drop_now();
    }
}

/// Settings for tests: cheap argon2, random secrets, an ephemeral port, small pools.
pub fn test_settings(database_url: &str) -> Settings {
    let jwt_secret = hex::encode(rand::random::<[u8; 32]>()).into_bytes();
    Settings {
        database_url: database_url.to_string(),
        migration_database_url: None,
        db_max_connections: 10,
        // Generous: a loaded test machine is slow; the tests of a silent database set their own.
        db_timeout_ms: 30_000,
        read_replica: None,
        bind: "127.0.0.1:0".to_string(),
        jwt_secret,
        jwt_previous_secrets: Vec::new(),
        seed_key: rand::random::<[u8; 32]>(),
        checkpoint_key: djego::checkpoints::CheckpointKey::generate(),
        // Tests take checkpoints when they mean to; one test runs the timer.
        checkpoint_interval_seconds: 0,
        token_ttl_seconds: 3600,
        workers: 2,
        login_policy: djego::auth::throttle::LoginPolicy::default(),
        password_check_concurrency: 2,
        trusted_proxies: djego::auth::proxies::TrustedProxies::none(),
        json_limit_bytes: 64 * 1024,
        argon2_memory_kib: 1024,
        hint_limits: Default::default(),
        // Tests fold silent Lobo rounds when they mean to; the timeout tests run the sweep.
        lobo_timeout_sweep_ms: 0,
        // The table report catches the meters up itself; the meters' tests step them when they mean to.
        floor_meters_interval_ms: 0,
    }
}

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

#[derive(Debug)]
pub struct TestResponse {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl TestResponse {
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("response (status {}) is not JSON ({e}): {}", self.status, self.text))
    }

    /// Asserts the status and returns the JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16) -> Value {
        assert_eq!(
            self.status, status,
            "expected status {status}, got {}: {}",
            self.status, self.text
        );
        self.json()
    }

    /// Asserts djego's one error shape, `{ "error": { "code": "...", "message": "..." } }`,
    /// with this status and code.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(
            self.status, status,
            "expected status {status} ({code}), got {}: {}",
            self.status, self.text
        );
        assert_error_shape(&self.json(), code);
        let ct = self
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(ct.starts_with("application/json"), "error content-type is {ct:?}");
    }
}

#[track_caller]
pub fn assert_error_shape(body: &Value, code: &str) {
    let obj = body
        .as_object()
        .unwrap_or_else(|| panic!("error body is not an object: {body}"));
    assert_eq!(obj.len(), 1, "error body must hold only \"error\": {body}");
    let error = obj
        .get("error")
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no error object: {body}"));
    // A code, a message, and for some codes an object of details for programs.
    let details = error.get("details");
    assert!(
        details.is_none_or(Value::is_object),
        "details, when present, are an object: {body}"
    );
    assert_eq!(
        error.len(),
        2 + usize::from(details.is_some()),
        "error must hold exactly code, message and perhaps details: {body}"
    );
    assert_eq!(
        error.get("code").and_then(Value::as_str),
        Some(code),
        "error code: {body}"
    );
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no message: {body}"));
    assert!(!message.trim().is_empty(), "empty error message: {body}");
}

// ---------------------------------------------------------------------------
// The app
// ---------------------------------------------------------------------------

/// A user created for a test, logged in.
#[derive(Clone, Debug)]
pub struct TestUser {
    pub id: String,
    pub username: String,
    pub password: String,
    pub role: Role,
    pub token: String,
}

pub struct TestApp {
    pub address: String,
    pub port: u16,
    pub client: reqwest::Client,
    /// The running app's state: its database and settings.
    pub state: AppState,
    pub backend: Backend,
    pub db: Arc<TestDb>,
    server: actix_web::dev::ServerHandle,
    _checkpoint_schedule: Option<djego::checkpoints::schedule::CheckpointSchedule>,
    _lobo_timeouts: Option<djego::rounds::lobo_timeouts::TimeoutSweep>,
    auditor: tokio::sync::OnceCell<TestUser>,
    /// False for a handle on another instance ([`TestApp::through`]): this one's server runs on.
    owns_server: bool,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if !self.owns_server {
            return;
        }
        // Sends the stop command at once; the database guard drops after this.
        drop(self.server.stop(false));
        // The live relay (PostgreSQL) stops too, rather than reconnect to a
        // database about to be dropped for the rest of the test run.
        self.state.live.close_streams();
    }
}

impl TestApp {
    /// Starts djego on a fresh database of `backend`.
    pub async fn spawn(backend: Backend) -> TestApp {
        TestApp::spawn_with(backend, |_| {}).await
    }

    /// Starts djego on a fresh database with settings adjusted by `adjust`.
    pub async fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Settings)) -> TestApp {
        let db = Arc::new(TestDb::create(backend));
        TestApp::spawn_on(db, adjust).await
    }

    /// Starts another djego instance on this app's database (a restart, or a
    /// second instance sharing it).
    pub async fn spawn_another(&self) -> TestApp {
        self.spawn_another_with(|_| {}).await
    }

    /// Another instance on this app's database, with adjusted settings.
    pub async fn spawn_another_with(&self, adjust: impl FnOnce(&mut Settings)) -> TestApp {
        TestApp::spawn_on(self.db.clone(), adjust).await
    }

    /// Starts djego on `db` with the test settings as `adjust` leaves them.
    pub async fn spawn_on(db: Arc<TestDb>, adjust: impl FnOnce(&mut Settings)) -> TestApp {
        let mut settings = test_settings(db.url());
        adjust(&mut settings);
        let app = Application::build(settings).unwrap_or_else(|e| panic!("djego failed to start on {}: {e}", db.url()));
        let port = app.port;
        let state = app.state.clone();
        let server = app.server.handle();
        let checkpoint_schedule = app.checkpoint_schedule;
        let lobo_timeouts = app.lobo_timeouts;
        tokio::spawn(app.server);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a reqwest client");
        TestApp {
            address: format!("http://127.0.0.1:{port}"),
            port,
            client,
            state,
            backend: db.backend(),
            db,
            server,
            _checkpoint_schedule: checkpoint_schedule,
            _lobo_timeouts: lobo_timeouts,
            auditor: tokio::sync::OnceCell::new(),
            owns_server: true,
        }
    }

    /// This app's database and settings with its requests sent to `address`: another instance
    /// of djego serving the same database, started outside this process.
    pub fn through(&self, address: &str) -> TestApp {
        TestApp {
            address: address.trim_end_matches('/').to_string(),
            port: self.port,
            client: self.client.clone(),
            state: self.state.clone(),
            backend: self.backend,
            db: self.db.clone(),
            server: self.server.clone(),
            _checkpoint_schedule: None,
            _lobo_timeouts: None,
            auditor: tokio::sync::OnceCell::new(),
            owns_server: false,
        }
    }

    pub fn database(&self) -> &Database {
        &self.state.db
    }

    // --- HTTP ---------------------------------------------------------------

    pub async fn send(&self, builder: reqwest::RequestBuilder) -> TestResponse {
        let resp = builder.send().await.expect("the request reaches the server");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("a response body");
        TestResponse { status, headers, text }
    }

    pub fn request(&self, method: reqwest::Method, path: &str, token: Option<&str>) -> reqwest::RequestBuilder {
        let mut b = self.client.request(method, format!("{}{}", self.address, path));
        if let Some(t) = token {
            b = b.bearer_auth(t);
        }
        b
    }

    /// Sends every request at once (a barrier releases them together) and
    /// returns (status, body) in the order given. Each is (path, token, body,
    /// Idempotency-Key).
    pub async fn post_all_at_once(&self, requests: Vec<(String, String, Value, Option<String>)>) -> Vec<(u16, String)> {
        let builders = requests
            .into_iter()
            .map(|(path, token, body, key)| {
                let mut req = self.request(reqwest::Method::POST, &path, Some(&token)).json(&body);
                if let Some(k) = key {
                    req = req.header("Idempotency-Key", k);
                }
                req
            })
            .collect();
        self.send_all_at_once(builders).await
    }

    /// Sends every request at once (a barrier releases them together) and
    /// returns (status, body) in the order given.
    pub async fn send_all_at_once(&self, requests: Vec<reqwest::RequestBuilder>) -> Vec<(u16, String)> {
        let mut set = tokio::task::JoinSet::new();
        let start = Arc::new(tokio::sync::Barrier::new(requests.len()));
        for (i, req) in requests.into_iter().enumerate() {
            let start = start.clone();
            set.spawn(async move {
                start.wait().await;
                let r = req.send().await.unwrap_or_else(|e| panic!("request {i} failed: {e}"));
                (i, r.status().as_u16(), r.text().await.unwrap_or_default())
            });
        }
        let mut out = vec![(0, String::new()); set.len()];
        while let Some(r) = set.join_next().await {
            let (i, status, text) = r.expect("request task");
            out[i] = (status, text);
        }
        out
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> TestResponse {
        self.send(self.request(reqwest::Method::GET, path, token)).await
    }

    pub async fn post(
        &self,
        path: &str,
        token: Option<&str>,
        body: &Value,
        idempotency_key: Option<&str>,
    ) -> TestResponse {
        let mut b = self.request(reqwest::Method::POST, path, token).json(body);
        if let Some(k) = idempotency_key {
            b = b.header("Idempotency-Key", k);
        }
        self.send(b).await
    }

    pub async fn put(
        &self,
        path: &str,
        token: Option<&str>,
        body: &Value,
        idempotency_key: Option<&str>,
    ) -> TestResponse {
        let mut b = self.request(reqwest::Method::PUT, path, token).json(body);
        if let Some(k) = idempotency_key {
            b = b.header("Idempotency-Key", k);
        }
        self.send(b).await
    }

    // --- Users --------------------------------------------------------------

    pub async fn try_login(&self, username: &str, password: &str) -> TestResponse {
        self.post(
            "/api/v1/auth/login",
            None,
            &json!({ "username": username, "password": password }),
            None,
        )
        .await
    }

    /// Logs in and returns the access token (asserts 200).
    pub async fn login(&self, username: &str, password: &str) -> String {
        let body = self.try_login(username, password).await.expect(200);
        body["access_token"].as_str().expect("access_token").to_string()
    }

    /// Creates a user of `role` directly in the app's database and logs in over HTTP.
    pub async fn create_user(&self, role: Role) -> TestUser {
        let username = format!("{}-{}", role.as_str(), &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let password = format!("pw-{}", uuid::Uuid::new_v4().simple());
        let id = self.insert_user(&username, &password, role);
        let token = self.login(&username, &password).await;
        TestUser {
            id,
            username,
            password,
            role,
            token,
        }
    }

    /// Inserts a user with `djego::users::create`; returns its id.
    pub fn insert_user(&self, username: &str, password: &str, role: Role) -> String {
        let username = Username::parse(username).expect("a valid test username");
        let password_hash = djego::auth::hash_password(password, self.state.settings.argon2_memory_kib);
        let user = self
            .state
            .db
            .write(|conn| -> Result<_, djego::bootstrap::BootstrapError> {
                let new = djego::users::NewUser {
                    username: &username,
                    display_name: username.as_str(),
                    role,
                    password_hash: &password_hash,
                };
                Ok(djego::users::create(conn, &new, None)?)
            })
            .expect("test user created");
        user.id
    }

    /// Sets a user's password directly (e.g. the bootstrapped admin's, which is
    /// generated at first start and only printed).
    pub fn set_password(&self, username: &str, password: &str) {
        use djego::store::schema::users as u;
        let hash = djego::auth::hash_password(password, self.state.settings.argon2_memory_kib);
        let n = self
            .state
            .db
            .write(|conn| -> Result<usize, djego::store::StoreError> {
                Ok(diesel::update(u::table.filter(u::username.eq(username)))
                    .set(u::password_hash.eq(&hash))
                    .execute(conn)?)
            })
            .expect("password updated");
        assert_eq!(n, 1, "no user {username}");
    }

    /// A change under two-person control: `first` proposes it (202), a
    /// second pit boss approves it; returns the applied change's answer.
    pub async fn two_person(&self, method: reqwest::Method, path: &str, first: &TestUser, body: &Value) -> Value {
        let proposed = self
            .send(self.request(method, path, Some(&first.token)).json(body))
            .await
            .expect(202);
        assert_eq!(proposed["status"], "pending", "{proposed}");
        let applied = self.approve(&proposed).await;
        assert_eq!(applied["status"], "applied", "{applied}");
        applied["result"].clone()
    }

    /// Creates a table (`{ "name", "config" }`): `pitboss` proposes it, a second pit boss approves;
    /// returns the table.
    pub async fn create_table(&self, pitboss: &TestUser, body: &Value) -> Value {
        self.two_person(reqwest::Method::POST, "/api/v1/tables", pitboss, body)
            .await
    }

    /// Creates a table named `name` with `config` (through two pit bosses), assigns `dealers` and
    /// opens it; returns its id.
    pub async fn open_table(&self, pitboss: &TestUser, dealers: &[&TestUser], name: &str, config: Value) -> String {
        let table = self
            .create_table(pitboss, &serde_json::json!({ "name": name, "config": config }))
            .await;
        let id = table["id"].as_str().expect("a table's id").to_owned();
        for d in dealers {
            self.put(
                &format!("/api/v1/tables/{id}/dealers/{}", d.id),
                Some(&pitboss.token),
                &serde_json::json!({}),
                None,
            )
            .await
            .expect(200);
        }
        let opened = self
            .post(
                &format!("/api/v1/tables/{id}/open"),
                Some(&pitboss.token),
                &serde_json::json!({}),
                None,
            )
            .await
            .expect(200);
        assert_eq!(opened["status"], "open", "{opened}");
        id
    }

    /// Changes the floor calendar: `pitboss` proposes it, a second pit boss approves; returns the
    /// calendar as the approval answers it (the change pending from the next gaming day).
    pub async fn set_calendar(&self, pitboss: &TestUser, calendar: &Value) -> Value {
        self.two_person(reqwest::Method::PUT, "/api/v1/floor/calendar", pitboss, calendar)
            .await
    }

    /// Has a new pit boss approve a proposal (its JSON); returns the proposal as applied.
    pub async fn approve(&self, proposal: &Value) -> Value {
        let second = self.create_user(Role::Pitboss).await;
        let path = format!("/api/v1/proposals/{}/approve", proposal["id"].as_str().unwrap());
        self.post(&path, Some(&second.token), &serde_json::json!({}), None)
            .await
            .expect(200)
    }

    /// Makes `calendar` (a `CalendarSpec` as JSON) the floor calendar since ever, as if it had
    /// been in force before anything happened: a change through the API takes effect only from
    /// the next gaming day, and a test cannot wait for that.
    pub fn install_calendar(&self, calendar: &Value) {
        let spec: djego::floor::CalendarSpec = serde_json::from_value(calendar.clone()).expect("a calendar");
        self.state
            .db
            .write(|conn| djego::floor::install_calendar_since_ever_for_tests(conn, &spec))
            .unwrap_or_else(|e| panic!("installing the calendar: {e}"));
    }

    /// An auditor created on first use, for the harness's own checks.
    pub async fn auditor(&self) -> &TestUser {
        self.auditor.get_or_init(|| self.create_user(Role::Auditor)).await
    }

    // --- Money --------------------------------------------------------------

    pub async fn cage(&self, cashier: &TestUser, op: &str, body: &Value, key: Option<&str>) -> TestResponse {
        self.post(&format!("/api/v1/cage/{op}"), Some(&cashier.token), body, key)
            .await
    }

    /// Deposits `amount` into a player's wallet (asserts 201).
    pub async fn fund(&self, cashier: &TestUser, player_id: &str, amount: &str) -> Value {
        self.cage(
            cashier,
            "deposits",
            &json!({ "player_id": player_id, "amount": amount }),
            None,
        )
        .await
        .expect(201)
    }

    /// A wallet's balance as the auditor sees it.
    pub async fn balance(&self, player_id: &str) -> String {
        let token = self.auditor().await.token.clone();
        let body = self
            .get(&format!("/api/v1/wallets/{player_id}"), Some(&token))
            .await
            .expect(200);
        body["balance"].as_str().expect("balance").to_string()
    }

    pub async fn trial_balance(&self) -> Value {
        let token = self.auditor().await.token.clone();
        self.get("/api/v1/audit/ledger/trial-balance", Some(&token))
            .await
            .expect(200)
    }

    /// The number of transfers in the ledger.
    pub async fn last_seq(&self) -> i64 {
        self.trial_balance().await["last_seq"].as_i64().expect("last_seq")
    }

    pub async fn verify_ledger(&self) -> Value {
        let token = self.auditor().await.token.clone();
        self.get("/api/v1/audit/ledger/verify", Some(&token)).await.expect(200)
    }

    /// Significant events of one kind, newest first (as the auditor).
    pub async fn events(&self, kind: &str) -> Vec<Value> {
        let token = self.auditor().await.token.clone();
        let body = self
            .get(&format!("/api/v1/audit/events?kind={kind}&limit=500"), Some(&token))
            .await
            .expect(200);
        body.as_array().expect("a list of events").clone()
    }

    /// Runs `statements` in one transaction as someone who owns the database
    /// would: with the insert-only triggers out of the way first (SQLite:
    /// dropped; PostgreSQL: disabled, which the tables' owner may do).
    /// Returns each statement's row count.
    pub fn tamper(&self, statements: &[String]) -> Vec<usize> {
        const INSERT_ONLY: [&str; 6] = [
            "transfers",
            "significant_events",
            "event_chain",
            "checkpoints",
            "gaming_day_closes",
            "merkle_nodes",
        ];
        let backend = self.backend;
        self.state
            .db
            .write(|conn| -> Result<Vec<usize>, djego::store::StoreError> {
                for table in INSERT_ONLY {
                    let disable = match backend {
                        Backend::Sqlite => format!(
                            "DROP TRIGGER IF EXISTS {table}_refuse_update; DROP TRIGGER IF EXISTS {table}_refuse_delete"
                        ),
                        Backend::Postgres => format!("ALTER TABLE {table} DISABLE TRIGGER {table}_insert_only"),
                    };
                    for statement in disable.split("; ") {
                        diesel::sql_query(statement).execute(conn)?;
                    }
                }
                let mut counts = Vec::new();
                for statement in statements {
                    counts.push(diesel::sql_query(statement).execute(conn)?);
                }
                Ok(counts)
            })
            .unwrap_or_else(|e| panic!("tampering failed: {e}"))
    }

    /// The invariants every test must leave behind: the trial balance sums to
    /// 0.00 and the ledger's chain and balances verify.
    pub async fn assert_ledger_sound(&self) {
        let tb = self.trial_balance().await;
        assert_eq!(tb["total"], "0.00", "trial balance does not sum to zero: {tb}");
        assert_eq!(tb["balanced"], true, "trial balance: {tb}");
        let v = self.verify_ledger().await;
        assert_eq!(v["ok"], true, "ledger verification failed: {v}");
        assert_eq!(v["stored_total"], "0.00", "ledger verification: {v}");
    }
}
