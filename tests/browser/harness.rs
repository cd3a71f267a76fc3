//! The browser tests' harness: a real djego (the built binary, `serve
//! --demo`, on a fresh database and a free port) and headless Chromium from
//! Debian's packages driven through ChromeDriver over WebDriver (fantoccini).
//! Nothing here downloads a browser: `/usr/bin/chromium` and
//! `/usr/bin/chromedriver` must be installed (`.ci/run` installs them).

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a step waits for the page to show what it expects.
pub const STEP_TIMEOUT_MS: u64 = 15_000;
pub const ADMIN_PASSWORD: &str = "browser-admin-pass";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start listening on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A process killed when dropped.
struct Reaped(Child);
impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// djego itself: `djego serve --demo` on SQLite in a temporary directory (or, for a test that
/// moves djego's clock, the same service inside the test program: `start_in_process`).
pub struct Djego {
    _process: Option<Reaped>,
    server: Option<actix_web::dev::ServerHandle>,
    _dir: tempfile::TempDir,
    pub base: String,
}

impl Drop for Djego {
    fn drop(&mut self) {
        if let Some(server) = &self.server {
            // Sends the stop command at once, before the directory goes.
            drop(server.stop(false));
        }
    }
}

/// `djego serve`'s options, parsed as the command line and the environment give them.
#[derive(clap::Parser)]
struct ServeCommand {
    #[command(flatten)]
    args: djego::config::ServeArgs,
}

impl Djego {
    pub fn start() -> Djego {
        use std::io::{BufRead, BufReader};
        let dir = tempfile::tempdir().unwrap();
        let log = std::fs::File::create(dir.path().join("djego.log")).unwrap();
        let mut process = Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["serve", "--demo", "--bind", "127.0.0.1:0"])
            .current_dir(dir.path())
            .env("DATABASE_URL", format!("sqlite://{}/djego.db", dir.path().display()))
            .env("DJEGO_ADMIN_PASSWORD", ADMIN_PASSWORD)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("djego starts");
        let mut lines = BufReader::new(process.stdout.take().unwrap());
        let process = Reaped(process);
        let base = loop {
            let mut line = String::new();
            assert!(
                lines.read_line(&mut line).unwrap() > 0,
                "djego serve ended before listening"
            );
            if let Some(rest) = line.strip_prefix("djego listening on ") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        // Keep reading its output so the pipe never fills.
        std::thread::spawn(move || for _ in lines.lines() {});
        Djego {
            _process: Some(process),
            server: None,
            _dir: dir,
            base,
        }
    }

    /// `djego serve --demo` on SQLite in a temporary directory, run inside this test program
    /// rather than as a process of its own, so that the test can move its clock forward
    /// (`move_clock_forward`). That clock is the whole test program's: only a test on a djego
    /// started here may move it, and every other browser test starts its own process (`start`),
    /// whose clock nothing moves. The demo's pit boss has a password of its own here (the
    /// process's environment does not give one); the other demo accounts are as `start` makes them.
    pub async fn start_in_process() -> Djego {
        use clap::Parser;
        let dir = tempfile::tempdir().unwrap();
        let database_url = format!("sqlite://{}/djego.db", dir.path().display());
        let ServeCommand { args } = ServeCommand::parse_from([
            "djego",
            "--demo",
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            database_url.as_str(),
        ]);
        let settings = djego::config::Settings::resolve(&args).expect("the settings resolve");
        let app = djego::startup::Application::build(settings.clone()).expect("djego starts");
        djego::bootstrap::demo(&app.state.db, &settings).expect("the demo casino is seeded");
        let base = format!("http://127.0.0.1:{}", app.port);
        let server = app.server.handle();
        tokio::spawn(app.server);
        // Checkpoints, Lobo's timeouts and the floor's meters stay off (their handles dropped
        // with `app`): nothing runs on a timer of its own while the clock jumps.
        wait_for_port(app.port, "djego");
        Djego {
            _process: None,
            server: Some(server),
            _dir: dir,
            base,
        }
    }

    /// djego's clock now, in microseconds since the epoch (a djego of `start_in_process`).
    pub fn now_us(&self) -> i64 {
        assert!(self.server.is_some(), "only a djego in this process has its clock here");
        djego::store::now_us()
    }

    /// Moves djego's clock forward by `by_us` (a djego of `start_in_process`): every later
    /// answer reads the moved clock. It never goes back.
    pub fn move_clock_forward(&self, by_us: i64) {
        assert!(
            self.server.is_some(),
            "only a djego in this process has its clock moved"
        );
        djego::store::clock::move_forward_for_tests(by_us);
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Creates an account as the operator does, on the server's command line (`djego user
    /// create`): the way a casino's second pit boss is made, since one pit boss alone cannot.
    pub fn operator_creates(&self, username: &str, role: &str, password: &str) {
        let status = Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["user", "create", "--username", username, "--role", role])
            .current_dir(self._dir.path())
            .env(
                "DATABASE_URL",
                format!("sqlite://{}/djego.db", self._dir.path().display()),
            )
            .env("DJEGO_NEW_PASSWORD", password)
            .stdout(Stdio::null())
            .status()
            .expect("djego user create runs");
        assert!(status.success(), "djego user create {username} failed");
    }
}

/// ChromeDriver, shared by the browsers of one test.
pub struct Driver {
    _process: Reaped,
    port: u16,
}

impl Driver {
    pub fn start() -> Driver {
        let port = free_port();
        let process = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("/usr/bin/chromedriver runs (Debian's chromium-driver package)");
        let process = Reaped(process);
        wait_for_port(port, "chromedriver");
        Driver {
            _process: process,
            port,
        }
    }

    /// A new headless browser window of `width`×`height` (its own cookies and storage).
    pub async fn browser(&self, width: u32, height: u32) -> Browser {
        let mut options = serde_json::json!({
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     format!("--window-size={width},{height}")],
        });
        // A headless window is at least 500 px wide: a phone's width needs its emulation.
        if width < 500 {
            options["mobileEmulation"] =
                serde_json::json!({ "deviceMetrics": { "width": width, "height": height, "pixelRatio": 1 } });
        }
        let mut caps = serde_json::Map::new();
        caps.insert("goog:chromeOptions".into(), options);
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("a ChromeDriver session");
        // A page that never settles fails its step in seconds, not in ChromeDriver's 300 s.
        let limit = Some(Duration::from_millis(STEP_TIMEOUT_MS));
        client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(limit, limit, None))
            .await
            .expect("timeouts set");
        Browser { client }
    }
}

/// One browser window, with the steps a person takes.
pub struct Browser {
    pub client: Client,
}

impl Browser {
    pub async fn open(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("cannot open {url}: {e}"));
    }

    /// The element matching a CSS selector, waiting for it to exist and be shown.
    pub async fn find(&self, css: &str) -> Element {
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        loop {
            if let Ok(e) = self.client.find(Locator::Css(css)).await {
                if e.is_displayed().await.unwrap_or(false) {
                    return e;
                }
            }
            if Instant::now() > deadline {
                panic!(
                    "no visible {css} after {STEP_TIMEOUT_MS} ms; page text:\n{}",
                    self.page_text().await
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks the element, once it is shown and enabled.
    pub async fn click(&self, css: &str) {
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        loop {
            let e = self.find(css).await;
            if e.is_enabled().await.unwrap_or(false) && e.clone().click().await.is_ok() {
                return;
            }
            if Instant::now() > deadline {
                panic!("{css} could not be clicked; page text:\n{}", self.page_text().await);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Replaces a field's value by typing; a field a live update replaced under us is found
    /// again.
    pub async fn type_into(&self, css: &str, text: &str) {
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        loop {
            let e = self.find(css).await;
            let typed = match e.clear().await {
                Ok(()) => e.send_keys(text).await,
                Err(err) => Err(err),
            };
            match typed {
                Ok(()) => return,
                Err(err) if Instant::now() > deadline => panic!("typing into {css}: {err}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// Chooses the option of a `<select>` whose visible text contains `label`.
    pub async fn choose(&self, css: &str, label: &str) {
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        loop {
            let select = self.find(css).await;
            if let Ok(options) = select.find_all(Locator::Css("option")).await {
                for o in options {
                    // A live update may rebuild the list under us: then look again.
                    if o.text().await.unwrap_or_default().contains(label) && o.click().await.is_ok() {
                        return;
                    }
                }
            }
            if Instant::now() > deadline {
                panic!(
                    "{css} has no option containing {label:?}; page text:\n{}",
                    self.page_text().await
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the element's text contains `expected`; returns the text.
    pub async fn wait_text(&self, css: &str, expected: &str) -> String {
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        loop {
            if let Ok(e) = self.client.find(Locator::Css(css)).await {
                let text = e.text().await.unwrap_or_default();
                if text.contains(expected) {
                    return text;
                }
                if Instant::now() > deadline {
                    panic!("{css} never showed {expected:?}; it shows {text:?}");
                }
            } else if Instant::now() > deadline {
                panic!(
                    "no {css} (waiting for {expected:?}); page text:\n{}",
                    self.page_text().await
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until `script` (a function body) returns something truthy; returns it.
    pub async fn wait_js(&self, script: &str, what: &str) -> serde_json::Value {
        use serde_json::Value;
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        loop {
            let v = self.run_js(script).await;
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(x) => *x,
                Value::String(s) => !s.is_empty(),
                Value::Number(n) => n.as_f64() != Some(0.0),
                _ => true,
            };
            if truthy {
                return v;
            }
            if Instant::now() > deadline {
                panic!("{what} never happened; page text:\n{}", self.page_text().await);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the element's `data-NAME` attribute is `value`.
    pub async fn wait_data(&self, css: &str, name: &str, value: &str) {
        let script = format!(
            "const n = document.querySelector({}); return !!n && n.getAttribute({}) === {};",
            serde_json::to_string(css).unwrap(),
            serde_json::to_string(&format!("data-{name}")).unwrap(),
            serde_json::to_string(value).unwrap()
        );
        self.wait_js(&script, &format!("{css} with data-{name}={value:?}"))
            .await;
    }

    /// The element's `data-NAME` attribute ("" when absent).
    pub async fn data(&self, css: &str, name: &str) -> String {
        let script = format!(
            "const n = document.querySelector({}); return n ? (n.getAttribute({}) || '') : '';",
            serde_json::to_string(css).unwrap(),
            serde_json::to_string(&format!("data-{name}")).unwrap()
        );
        self.run_js(&script).await.as_str().unwrap_or_default().to_string()
    }

    /// Whether an element matching `css` exists and is shown (no waiting).
    pub async fn is_shown(&self, css: &str) -> bool {
        match self.client.find(Locator::Css(css)).await {
            Ok(e) => e.is_displayed().await.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// Types keys into whatever has the focus ("\u{E004}" is Tab, "\u{E007}" Enter).
    pub async fn press_keys(&self, keys: &str) {
        use fantoccini::actions::{InputSource, KeyAction, KeyActions};
        let mut actions = KeyActions::new("keyboard".to_string());
        for c in keys.chars() {
            actions = actions
                .then(KeyAction::Down { value: c })
                .then(KeyAction::Up { value: c });
        }
        self.client
            .perform_actions(actions)
            .await
            .expect("the keys are pressed");
    }

    /// The text of the element, as shown.
    pub async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.unwrap()
    }

    pub async fn page_text(&self) -> String {
        match self.client.find(Locator::Css("body")).await {
            Ok(b) => b.text().await.unwrap_or_default(),
            Err(e) => format!("(no body: {e})"),
        }
    }

    /// Signs in on the sign-in page and waits for the role's page.
    pub async fn sign_in(&self, djego: &Djego, username: &str, password: &str, lands_on: &str) {
        self.open(&djego.url("/")).await;
        self.type_into("#username", username).await;
        self.type_into("#password", password).await;
        self.click("#signin-button").await;
        let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
        while !self.client.current_url().await.unwrap().path().starts_with(lands_on) {
            assert!(
                Instant::now() < deadline,
                "{username} did not land on {lands_on}:\n{}",
                self.page_text().await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Saves a screenshot of the window as NAME.png: in docs/screens/ when
    /// `DJEGO_UPDATE_SCREENS=1` (how the documentation's screenshots are
    /// refreshed), otherwise under the build's temporary directory, so a test
    /// run leaves the source tree as it was.
    pub async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.expect("a screenshot");
        let dir = if std::env::var("DJEGO_UPDATE_SCREENS").is_ok_and(|v| v == "1") {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/screens")
        } else {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screens")
        };
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    /// Runs JavaScript in the page and returns its value.
    pub async fn run_js(&self, script: &str) -> serde_json::Value {
        self.client.execute(script, vec![]).await.expect("the script runs")
    }

    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}

// ---- the API, to set up and to check what the pages show -------------------

/// One API call through reqwest: (status, body or Null).
pub async fn api(
    djego: &Djego,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    let mut request = reqwest::Client::new().request(method, djego.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("djego answers");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
}

/// Signs in through the API: the access token.
pub async fn login(djego: &Djego, username: &str, password: &str) -> String {
    let (status, body) = api(
        djego,
        reqwest::Method::POST,
        "/api/v1/auth/login",
        None,
        Some(serde_json::json!({ "username": username, "password": password })),
    )
    .await;
    assert_eq!(status, 200, "{username} logs in: {body}");
    body["access_token"].as_str().unwrap().to_string()
}

/// The id of the table named `name`.
pub async fn table_id(djego: &Djego, token: &str, name: &str) -> String {
    let (status, tables) = api(djego, reqwest::Method::GET, "/api/v1/tables", Some(token), None).await;
    assert_eq!(status, 200, "{tables}");
    tables
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no table {name}: {tables}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A settled Lobo round of the player whose token this is, through the API:
/// started at "Lobo 1" with unit 1.00 and folded (unless the deal ended it).
/// Its view once settled.
pub async fn settled_lobo_round(djego: &Djego, token: &str) -> serde_json::Value {
    let lobo = table_id(djego, token, "Lobo 1").await;
    let (status, round) = api(
        djego,
        reqwest::Method::POST,
        &format!("/api/v1/tables/{lobo}/lobo-rounds"),
        Some(token),
        Some(serde_json::json!({ "unit": "1.00" })),
    )
    .await;
    assert_eq!(status, 201, "{round}");
    if round["status"] != "in_play" {
        return round;
    }
    let (status, folded) = api(
        djego,
        reqwest::Method::POST,
        &format!("/api/v1/lobo-rounds/{}/fold", round["id"].as_str().unwrap()),
        Some(token),
        Some(serde_json::json!({ "expected_plays": round["plays_made"] })),
    )
    .await;
    assert_eq!(status, 200, "{folded}");
    assert_eq!(folded["status"], "settled", "{folded}");
    folded
}

/// The demo dealer signs in at "Prima Carta 1" and opens a round through the
/// API: (the dealer's token, the table id, the new round's view).
pub async fn open_prima_round(djego: &Djego) -> (String, String, serde_json::Value) {
    let (dealer, table) = dealer_signed_in_at(djego, "Prima Carta 1").await;
    let (status, round) = api(
        djego,
        reqwest::Method::POST,
        &format!("/api/v1/tables/{table}/rounds"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 201, "{round}");
    (dealer, table, round)
}

/// The demo dealer signs in at "Peg Leg 1", opens a round and deals `cards` cards through the
/// API: (the dealer's token, the round's view after the last card).
pub async fn peg_leg_round_dealt(djego: &Djego, cards: usize) -> (String, serde_json::Value) {
    let (dealer, table) = dealer_signed_in_at(djego, "Peg Leg 1").await;
    let (status, mut round) = api(
        djego,
        reqwest::Method::POST,
        &format!("/api/v1/tables/{table}/peg-leg-rounds"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 201, "{round}");
    let id = round["id"].as_str().unwrap().to_string();
    for _ in 0..cards {
        let (status, dealt) = api(
            djego,
            reqwest::Method::POST,
            &format!("/api/v1/peg-leg-rounds/{id}/deal"),
            Some(&dealer),
            None,
        )
        .await;
        assert_eq!(status, 200, "{dealt}");
        round = dealt["round"].clone();
    }
    (dealer, round)
}

/// The demo dealer, signed in at the table named `table_name`: (dealer's token, table id).
pub async fn dealer_signed_in_at(djego: &Djego, table_name: &str) -> (String, String) {
    let dealer = login(djego, "dealer", demo::PASSWORD_DEALER).await;
    let table = table_id(djego, &dealer, table_name).await;
    let (status, body) = api(
        djego,
        reqwest::Method::POST,
        &format!("/api/v1/tables/{table}/dealer/sign-in"),
        Some(&dealer),
        Some(serde_json::json!({})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    (dealer, table)
}

/// "12.50" or "-3.04" → cents, without floats.
pub fn cents(amount: &str) -> i64 {
    let (negative, digits) = match amount.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, amount),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let frac = format!("{frac:0<2}");
    let value = whole.parse::<i64>().unwrap() * 100 + frac[..2].parse::<i64>().unwrap();
    if negative {
        -value
    } else {
        value
    }
}

/// The demo accounts `serve --demo` creates.
pub mod demo {
    pub const PASSWORD_PLAYER: &str = "demo-player-pass";
    pub const PASSWORD_DEALER: &str = "demo-dealer-pass";
    pub const PASSWORD_CASHIER: &str = "demo-cashier-pass";
    pub const PASSWORD_AUDITOR: &str = "demo-auditor-pass";
    pub const PIT_BOSS: &str = "admin";
    pub use super::ADMIN_PASSWORD as PASSWORD_PIT_BOSS;
}
