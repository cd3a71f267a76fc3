//! A player's own limits and breaks, as a player on a phone uses them: a loss limit in force at
//! once, a raise that waits 24 hours, a time-out asked twice before it starts, all in words; and
//! the reality check, which stops the player at the interval they chose to show the session so
//! far, then waits for the next interval or takes them to their limits.

use crate::accessibility::{assert_none, audit};
use crate::harness::{api, demo, login, settled_lobo_round, Browser, Djego, Driver};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn a_player_sets_a_limit_and_takes_a_time_out_from_the_phone() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(390, 844).await;
    b.sign_in(&djego, "bruno", demo::PASSWORD_PLAYER, "/player").await;
    b.click("#tab-limits").await;
    b.wait_text("#protection-status", "Your play is open").await;
    b.wait_text("#protection-totals", "24 hours").await;

    // Losses over 24 hours to 20.00: in force at once.
    b.type_into("#limit-amount", "20.00").await;
    b.click("#limit-button").await;
    b.wait_text("#limit-result", "Losses over 24 hours: 20.00, from now")
        .await;
    b.wait_text("[data-limit='loss-day']", "20.00").await;
    // A raise waits.
    b.type_into("#limit-amount", "50.00").await;
    b.click("#limit-button").await;
    b.wait_text("#limit-result", "50.00 waits 24 hours").await;
    b.wait_text("#limit-list", "which you may confirm from").await;
    b.wait_text("[data-limit='loss-day']", "20.00").await;

    // A reality check every 30 minutes of play, with the session in words.
    b.wait_text("#session-line", "You see no reality check").await;
    b.choose("#reality-minutes", "every 30 minutes").await;
    b.click("#reality-button").await;
    b.wait_text("#session-line", "You see a reality check every 30 minutes of play")
        .await;

    // Sessions of at most 2 hours, at once; a longer length waits, the 2 hours still apply.
    b.wait_text("#session-limit-line", "Your sessions have no length limit")
        .await;
    b.choose("#session-limit-minutes", "2 hours").await;
    b.click("#session-limit-button").await;
    b.wait_text("#session-limit-line", "Your sessions end after 2 hours.")
        .await;
    b.choose("#session-limit-minutes", "3 hours").await;
    b.click("#session-limit-button").await;
    b.wait_text(
        "#session-limit-line",
        "Your sessions end after 2 hours. You asked for 3 hours, which you may confirm from",
    )
    .await;

    // Deposits over 7 days to 500.00, for the cage to see.
    b.choose("#limit-kind", "deposits").await;
    b.choose("#limit-period", "7 days").await;
    b.type_into("#limit-amount", "500.00").await;
    b.click("#limit-button").await;
    b.wait_text("#limit-result", "Deposits over 7 days: 500.00, from now")
        .await;

    // A time-out, asked twice.
    b.choose("#break-length", "24 hours (time-out)").await;
    b.click("#break-button").await;
    b.wait_text("#break-confirm-text", "It cannot be undone").await;
    b.click("#break-confirm").await;
    b.wait_text(
        "#protection-status",
        "Time-out: your play and deposits are stopped until",
    )
    .await;
    b.wait_text("#exclusion-list", "in force").await;

    // Words, never codes.
    let text = b.page_text().await;
    for code in ["excluded_from_play", "loss-day", "time_out", "session_length", "1440"] {
        assert!(!text.contains(code), "{code} shown to a person:\n{text}");
    }
    b.close().await;

    // The cashier sees the time-out and the deposit limit before taking a deposit.
    let cage = driver.browser(1280, 900).await;
    cage.sign_in(&djego, "cashier", demo::PASSWORD_CASHIER, "/console")
        .await;
    cage.click("#tab-cage").await;
    cage.type_into("#cage-search", "bru").await;
    cage.click(r#"button.cage-player[data-username="bruno"]"#).await;
    cage.wait_text("#cage-protection-line", "On a time-out until").await;
    cage.wait_text(
        "#cage-protection-line",
        "no deposit and no play. Withdrawals stay open.",
    )
    .await;
    cage.wait_text(
        "#cage-protection",
        "The patron limits their deposits to 500.00 over 7 days:",
    )
    .await;
    cage.close().await;
}

const MINUTE_US: i64 = 60_000_000;

/// Gives the page a clock the test moves forward: `Date` (its `now()` and a `new Date()`) reads
/// the system's clock plus however far the test moved it (`window.__clock.advance(ms)`), and a
/// timer the page sets runs when its time comes on that clock: at once when a move passes it,
/// otherwise as it would have. Timers set before this ran keep the system's clock.
const PAGE_CLOCK: &str = r#"
if (window.__clock) return true;
const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
const realSetTimeout = window.setTimeout.bind(window);
const realClearTimeout = window.clearTimeout.bind(window);
let ahead = 0;
const now = () => realNow() + ahead;
function MovedDate(...args) {
  if (!new.target) return new RealDate(now()).toString();
  return args.length === 0 ? new RealDate(now()) : new RealDate(...args);
}
MovedDate.prototype = RealDate.prototype;
MovedDate.now = now;
MovedDate.parse = RealDate.parse;
MovedDate.UTC = RealDate.UTC;
window.Date = MovedDate;
const timers = new Map();
window.setTimeout = (fn, delay, ...args) => {
  const wait = Math.max(0, Number(delay) || 0);
  const fire = () => { if (typeof fn === "function") fn(...args); };
  const id = realSetTimeout(() => { timers.delete(id); fire(); }, wait);
  timers.set(id, { due: now() + wait, fire });
  return id;
};
window.clearTimeout = (id) => { timers.delete(id); realClearTimeout(id); };
window.__clock = {
  advance(ms) {
    ahead += ms;
    const due = [...timers.entries()].filter(([, t]) => t.due <= now()).sort((a, b) => a[1].due - b[1].due);
    for (const [id, t] of due) {
      timers.delete(id);
      realClearTimeout(id);
      realSetTimeout(t.fire, 0);
    }
    return due.length;
  },
  dues: () => [...timers.values()].map((t) => t.due),
};
return true;
"#;

/// The player's session as djego reads it now.
async fn session(djego: &Djego, token: &str) -> serde_json::Value {
    let (status, s) = api(djego, reqwest::Method::GET, "/api/v1/me/session", Some(token), None).await;
    assert_eq!(status, 200, "{s}");
    s
}

/// Time passes, `by_us`, for djego and for the page alike (djego's first: the page asks it).
async fn time_passes(djego: &Djego, b: &Browser, by_us: i64) {
    djego.move_clock_forward(by_us);
    b.run_js(&format!("window.__clock.advance({}); return true;", by_us / 1000))
        .await;
}

async fn dialog_open(b: &Browser) -> bool {
    b.run_js("return document.getElementById('reality-check').open;").await == serde_json::json!(true)
}

/// Whether the page has a timer due at `at_us` (to the second).
async fn timer_due_at(b: &Browser, at_us: i64) -> bool {
    b.run_js(&format!(
        "return window.__clock.dues().some((d) => Math.abs(d - {}) < 1000);",
        at_us / 1000
    ))
    .await
        == serde_json::json!(true)
}

/// The session in the words the dialog uses: "staked 2.00, won back 0.50, down 1.50".
fn money_words(s: &serde_json::Value) -> String {
    let net = s["net"].as_str().unwrap();
    let net = match net.strip_prefix('-') {
        Some(down) => format!("down {down}"),
        None => format!("up {net}"),
    };
    format!(
        "staked {}, won back {}, {net}.",
        s["staked"].as_str().unwrap(),
        s["returned"].as_str().unwrap()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reality_check_opens_at_the_interval_then_waits_for_the_next_or_shows_the_limits() {
    // djego in this program, so that its clock moves with the page's.
    let djego = Djego::start_in_process().await;
    let driver = Driver::start();
    let token = login(&djego, "bruno", demo::PASSWORD_PLAYER).await;
    let b = driver.browser(390, 844).await;
    b.sign_in(&djego, "bruno", demo::PASSWORD_PLAYER, "/player").await;
    b.wait_text("#wallet-balance", "1000.00").await;
    b.run_js(PAGE_CLOCK).await;

    // bruno plays a Lobo round: his session starts. He asks to see it every 15 minutes.
    settled_lobo_round(&djego, &token).await;
    b.click("#tab-limits").await;
    b.wait_text("#session-line", "You have played for 0 minutes").await;
    b.choose("#reality-minutes", "every 15 minutes").await;
    b.click("#reality-button").await;
    b.wait_text("#session-line", "You see a reality check every 15 minutes of play")
        .await;
    let started = session(&djego, &token).await;
    let start = started["started_at_us"].as_i64().unwrap();
    let first = started["next_check_at_us"].as_i64().unwrap();
    assert_eq!(first, start + 15 * MINUTE_US, "{started}");
    assert!(timer_due_at(&b, first).await, "the page waits for the check's time");
    assert!(!dialog_open(&b).await);

    // Fourteen minutes on, nothing yet.
    time_passes(&djego, &b, 14 * MINUTE_US).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!dialog_open(&b).await, "no reality check before its time");

    // The phone's clock runs two minutes ahead of djego's: its timer fires at what it takes
    // for the fifteenth minute, but djego says the check is not due, so none shows (and the
    // page asks again, rather than showing it early or over and over).
    b.run_js(&format!(
        "window.__clock.advance({}); return true;",
        2 * MINUTE_US / 1000
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !dialog_open(&b).await,
        "no reality check before djego's fifteenth minute"
    );

    // Past the fifteenth minute: the session so far, in words.
    time_passes(&djego, &b, first - djego.now_us() + 500_000).await;
    b.wait_js(
        "return document.getElementById('reality-check').open;",
        "the reality check at 15 minutes",
    )
    .await;
    let now = session(&djego, &token).await;
    assert_eq!(now["minutes_played"], 15, "{now}");
    let text = b.text("#reality-check-text").await;
    assert!(text.starts_with("You have played for 15 minutes since "), "{text}");
    assert!(text.ends_with(&money_words(&now)), "{text} / {now}");
    b.screenshot("player-reality-check").await;
    let mut found = Vec::new();
    audit(&b, "player, the reality check open", &mut found).await;
    assert_none(&found);

    // Keep playing: the dialog closes, and the next check waits for the thirtieth minute.
    let second = now["next_check_at_us"].as_i64().unwrap();
    assert_eq!(second, start + 30 * MINUTE_US, "{now}");
    b.click("#reality-keep").await;
    b.wait_js(
        "return !document.getElementById('reality-check').open;",
        "the dialog to close",
    )
    .await;
    b.wait_js(
        &format!(
            "return window.__clock.dues().some((d) => Math.abs(d - {}) < 1000);",
            second / 1000
        ),
        "the next check to be scheduled",
    )
    .await;
    // He goes back to the tables and plays on.
    b.click("#tab-tables").await;
    settled_lobo_round(&djego, &token).await;
    time_passes(&djego, &b, 14 * MINUTE_US).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!dialog_open(&b).await, "no second check before the thirtieth minute");
    time_passes(&djego, &b, second - djego.now_us() + 500_000).await;
    b.wait_js(
        "return document.getElementById('reality-check').open;",
        "the reality check at 30 minutes",
    )
    .await;
    let now = session(&djego, &token).await;
    let text = b.text("#reality-check-text").await;
    assert!(text.starts_with("You have played for 30 minutes since "), "{text}");
    assert!(text.ends_with(&money_words(&now)), "{text} / {now}");

    // "See my limits": the dialog closes on the player's limits.
    b.click("#reality-stop").await;
    b.wait_js(
        "return !document.getElementById('reality-check').open && location.hash === '#limits';",
        "the limits after the check",
    )
    .await;
    b.find("#view-limits").await;
    b.wait_text("#session-line", "You have played for 30 minutes").await;
    assert_eq!(
        b.run_js("return document.getElementById('tab-limits').getAttribute('aria-selected');")
            .await,
        serde_json::json!("true")
    );
    let page = b.page_text().await;
    for code in ["next_check_at_us", "minutes_played", "in_session"] {
        assert!(!page.contains(code), "{code} shown to a person:\n{page}");
    }
    b.close().await;
}
