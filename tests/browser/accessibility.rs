//! Every page as its role sees it, audited in the page itself: form fields
//! without a label, buttons and links without a name, duplicated ids, images
//! without alt, heading levels that skip, a positive tabindex, and text below
//! WCAG AA contrast (4.5:1) against its effective background. And signing in
//! with the keyboard alone.

use crate::harness::{
    api, demo, login, open_prima_round, peg_leg_round_dealt, settled_lobo_round, Browser, Djego, Driver,
    STEP_TIMEOUT_MS,
};
use serde_json::json;
use std::time::{Duration, Instant};

const PHONE: (u32, u32) = (390, 844);
const DESKTOP: (u32, u32) = (1280, 900);

/// The audit, run in the page: returns a list of problems, each a sentence
/// naming the element (empty when the page passes).
const AUDIT: &str = r##"
const problems = [];
const shown = (e) => e.checkVisibility
  ? e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
  : e.getClientRects().length > 0;
const describe = (e) => {
  let s = e.tagName.toLowerCase();
  if (e.id) s += "#" + e.id;
  else {
    if (e.classList.length) s += "." + [...e.classList].join(".");
    const holder = e.parentElement && e.parentElement.closest("[id]");
    if (holder) s = "#" + holder.id + " " + s;
  }
  const t = (e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 50);
  return t ? `${s} "${t}"` : s;
};
const textOfId = (id) => { const n = document.getElementById(id); return n ? n.textContent.trim() : ""; };
const ariaNamed = (e) => !!(e.getAttribute("aria-label") || "").trim()
  || (e.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean).some(textOfId);

// Form fields: a <label> (for= or around it), or aria-label / aria-labelledby.
for (const f of document.querySelectorAll("input, select, textarea")) {
  if (f.type === "hidden") continue;
  const labelled = f.labels && [...f.labels].some((l) => l.textContent.trim());
  if (!labelled && !ariaNamed(f)) problems.push("a field without a label: " + describe(f));
}
// Buttons and links: text, aria-label / aria-labelledby, or an image with alt text.
for (const b of document.querySelectorAll("button, a[href], [role=button], input[type=submit], input[type=button]")) {
  const text = b.tagName === "INPUT" ? b.value : b.textContent;
  if ((text || "").trim() || ariaNamed(b) || b.querySelector("img[alt]:not([alt=''])")) continue;
  problems.push(`a ${b.tagName === "A" ? "link" : "button"} without a name: ` + describe(b));
}
// Ids: each once.
const ids = new Map();
for (const e of document.querySelectorAll("[id]")) ids.set(e.id, (ids.get(e.id) || 0) + 1);
for (const [id, n] of ids) if (n > 1) problems.push(`the id "${id}" is used ${n} times`);
// Images: an alt attribute (empty for decoration).
for (const i of document.querySelectorAll("img")) if (!i.hasAttribute("alt")) problems.push("an image without alt: " + describe(i));
// Headings, as shown: no level skipped on the way down.
let previous = 0;
for (const h of document.querySelectorAll("h1, h2, h3, h4, h5, h6")) {
  if (!shown(h)) continue;
  const level = Number(h.tagName[1]);
  if (level > previous + 1) problems.push(`a heading skips from h${previous} to h${level}: ` + describe(h));
  previous = level;
}
// Tab order: the document's own.
for (const e of document.querySelectorAll("[tabindex]")) {
  if (e.tabIndex > 0) problems.push(`tabindex ${e.tabIndex}: ` + describe(e));
}
// Contrast of shown text against its effective background (WCAG AA, normal text: 4.5:1).
const parse = (c) => {
  const m = /rgba?\(([^)]*)\)/.exec(c || "");
  if (!m) return null;
  const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
};
const over = (top, under) => ({
  r: top.r * top.a + under.r * (1 - top.a),
  g: top.g * top.a + under.g * (1 - top.a),
  b: top.b * top.a + under.b * (1 - top.a),
  a: 1,
});
const luminance = (c) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
};
const ratio = (x, y) => {
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p);
  return (hi + 0.05) / (lo + 0.05);
};
const hex = (c) => "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
const backdrop = (e) => {
  const layers = [];
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
    const bg = parse(getComputedStyle(n).backgroundColor);
    if (bg && bg.a > 0) { layers.push(bg); if (bg.a >= 1) break; }
  }
  let color = { r: 255, g: 255, b: 255, a: 1 };
  for (let i = layers.length - 1; i >= 0; i--) color = over(layers[i], color);
  return color;
};
const opacity = (e) => {
  let o = 1;
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
  return o;
};
const inactive = "button:disabled, input:disabled, select:disabled, textarea:disabled, fieldset:disabled, [aria-disabled=true]";
for (const e of document.body.querySelectorAll("*")) {
  if (!shown(e) || e.closest("svg, option, select, script, style, template") || e.closest(inactive)) continue;
  const text = [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
  if (!text) continue;
  const fg = parse(getComputedStyle(e).color);
  if (!fg) continue;
  const bg = backdrop(e);
  const seen = over({ ...fg, a: fg.a * opacity(e) }, bg);
  const r = ratio(seen, bg);
  if (r < 4.5) problems.push(`contrast ${r.toFixed(2)}:1 (${hex(seen)} on ${hex(bg)}): ` + describe(e));
}
return [...new Set(problems)];
"##;

/// Waits until the page is quiet: nothing changed in the DOM for 250 ms and
/// nothing shown says it is still loading.
const QUIET: &str = r#"
if (window.__quietSince === undefined) {
  window.__quietSince = performance.now();
  new MutationObserver(() => { window.__quietSince = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  return false;
}
const shown = (e) => e.checkVisibility ? e.checkVisibility() : e.getClientRects().length > 0;
const loading = [...document.querySelectorAll("body *")].some((e) => e.children.length === 0
  && /^(Loading|Checking|Connecting|Recomputing|Thinking|Asking)/.test(e.textContent.trim()) && shown(e));
return !loading && performance.now() - window.__quietSince > 250;
"#;

/// The problems the audit finds on what the window shows now, each prefixed with `state`.
pub async fn audit(b: &Browser, state: &str, found: &mut Vec<String>) {
    b.wait_js(QUIET, &format!("{state}: the page to settle")).await;
    let problems = b.run_js(AUDIT).await;
    for p in problems.as_array().expect("the audit returns a list") {
        found.push(format!("{state}: {}", p.as_str().unwrap_or_default()));
    }
}

pub fn assert_none(found: &[String]) {
    assert!(
        found.is_empty(),
        "{} accessibility problem(s):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The ids of the shown buttons matching `css`, in page order.
async fn shown_ids(b: &Browser, css: &str) -> Vec<String> {
    let script = format!(
        "return [...document.querySelectorAll({})].filter((e) => e.id && e.getClientRects().length).map((e) => e.id);",
        serde_json::to_string(css).unwrap()
    );
    b.run_js(&script)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sign_in_page_and_verify_pass_the_audit_signed_out() {
    let djego = Djego::start();
    let driver = Driver::start();
    let mut found = Vec::new();
    for (w, h) in [PHONE, DESKTOP] {
        let b = driver.browser(w, h).await;
        b.open(&djego.url("/")).await;
        b.find("#signin-button").await;
        audit(&b, &format!("sign-in page at {w}px"), &mut found).await;
        // A refusal shown in its alert.
        b.type_into("#username", "ana").await;
        b.type_into("#password", "not-the-password").await;
        b.click("#signin-button").await;
        let refusal = b.wait_text("#signin-problem", "Wrong username or password").await;
        assert_eq!(refusal, "Wrong username or password.", "one sentence, one full stop");
        audit(&b, &format!("sign-in page with a refusal at {w}px"), &mut found).await;

        b.open(&djego.url("/verify")).await;
        b.find("#verify-button").await;
        audit(&b, &format!("/verify at {w}px"), &mut found).await;
        b.click("#verify-button").await;
        b.wait_text("#verify-alert", "Choose, drop or paste a transcript first.")
            .await;
        audit(&b, &format!("/verify with a problem at {w}px"), &mut found).await;
        b.close().await;
    }
    assert_none(&found);
}

#[tokio::test(flavor = "multi_thread")]
async fn signing_in_works_from_the_keyboard_alone() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(PHONE.0, PHONE.1).await;
    b.open(&djego.url("/")).await;
    // The page puts the focus in the username field.
    b.wait_js(
        "return document.activeElement && document.activeElement.id === 'username';",
        "the focus on #username",
    )
    .await;
    b.press_keys("ana").await;
    b.press_keys("\u{E004}").await; // Tab
    assert_eq!(
        b.run_js("return document.activeElement.id;").await,
        json!("password"),
        "Tab goes to the password"
    );
    b.press_keys(demo::PASSWORD_PLAYER).await;
    b.press_keys("\u{E007}").await; // Enter
    let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
    while !b.client.current_url().await.unwrap().path().starts_with("/player") {
        assert!(
            Instant::now() < deadline,
            "Enter did not sign in:\n{}",
            b.page_text().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.wait_text("#wallet-balance", "1000.00").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_player_app_passes_the_audit() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(PHONE.0, PHONE.1).await;
    let mut found = Vec::new();
    b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player").await;

    // The Tables view, then with a pay table and the wallet's history open.
    b.wait_text("#wallet-balance", "1000.00").await;
    b.find(r#"article.table-card[data-table-name="Lobo 1"]"#).await;
    audit(&b, "player, Tables", &mut found).await;
    b.click(r#"article.table-card[data-table-name="Prima Carta 1"] details.paytable-details summary"#)
        .await;
    b.find("article.table-card table.paytable").await;
    b.click("#wallet-history-toggle").await;
    b.find("#wallet-history-table table").await;
    audit(
        &b,
        "player, Tables with a pay table and the wallet's history",
        &mut found,
    )
    .await;
    b.click("#wallet-history-toggle").await;

    // My rounds.
    b.click("#tab-rounds").await;
    b.find("#rounds-refresh").await;
    audit(&b, "player, My rounds", &mut found).await;

    // My limits, with a limit set and a raise waiting (on deposits, which the rest of this
    // test does not make).
    b.click("#tab-limits").await;
    b.wait_text("#protection-status", "Your play is open").await;
    b.choose("#limit-kind", "deposits").await;
    b.choose("#limit-period", "30 days").await;
    b.type_into("#limit-amount", "3000.00").await;
    b.click("#limit-button").await;
    b.wait_text("[data-limit='deposit-month']", "3000.00").await;
    b.type_into("#limit-amount", "4000.00").await;
    b.click("#limit-button").await;
    b.wait_text("#limit-list", "which you may confirm from").await;
    audit(&b, "player, My limits", &mut found).await;

    // A Prima Carta table with no round yet; then the dealer (through the API) opens one, and
    // ana takes a seat and places a side bet.
    b.click("#tab-tables").await;
    b.click(r#"article.table-card[data-table-name="Prima Carta 1"] button.open-table"#)
        .await;
    b.wait_text("#live-status", "Live").await;
    audit(&b, "player, Prima Carta table without a round", &mut found).await;
    open_prima_round(&djego).await;
    b.wait_data("#prima-round", "status", "betting").await;
    b.find("#seat-button").await;
    audit(&b, "player, Prima Carta round, betting open", &mut found).await;
    b.click("#seat-button").await;
    b.find("#seat-mine").await;
    b.click("#bet-button").await;
    b.find("#my-bets-table").await;
    audit(&b, "player, Prima Carta round, seated with a side bet", &mut found).await;

    // A Lobo round: the start form, the round in play, and its hint.
    b.click("#prima-back").await;
    b.click(r#"article.table-card[data-table-name="Lobo 1"] button.open-table"#)
        .await;
    b.find("#lobo-start").await;
    // The table's price in words: the fee, the house's proven edge, the best player's loss.
    b.wait_text("#lobo-house-edge", "The house's edge is at least").await;
    b.wait_text("#lobo-house-edge", "The best possible player loses between")
        .await;
    audit(&b, "player, Lobo start", &mut found).await;
    b.click("#lobo-start").await;
    b.find("#lobo-round").await;
    let over = b.run_js("return !document.getElementById('lobo-result').hidden;").await == json!(true);
    audit(&b, "player, Lobo round", &mut found).await;
    if !over {
        b.click("#lobo-hint").await;
        b.wait_text("#lobo-hint-text", "Hint:").await;
        audit(&b, "player, Lobo round with a hint", &mut found).await;
        b.click("#lobo-fold").await;
    }
    b.wait_js(
        "return !document.getElementById('lobo-result').hidden;",
        "the Lobo result",
    )
    .await;
    b.click("#lobo-verify").await;
    b.wait_text("#lobo-verify-result", "✓").await;
    audit(&b, "player, Lobo result verified", &mut found).await;

    // A Peg Leg table with no round; then the dealer (through the API) opens one and deals a card,
    // and ana bets at the prices shown.
    b.click("#lobo-back").await;
    b.click(r#"article.table-card[data-table-name="Peg Leg 1"] button.open-table"#)
        .await;
    b.wait_text("#peg-live-status", "Live").await;
    audit(&b, "player, Peg Leg table without a round", &mut found).await;
    peg_leg_round_dealt(&djego, 1).await;
    b.find("#peg-ladder").await;
    b.find("#peg-bet-button").await;
    audit(&b, "player, Peg Leg round, prices shown", &mut found).await;
    b.click("#peg-bet-button").await;
    b.find("#peg-my-bets-table button.surrender").await;
    audit(&b, "player, Peg Leg round with a bet", &mut found).await;
    b.click("#tab-rounds").await;
    b.find("li.my-round.open button.resume-round").await;
    audit(&b, "player, My rounds with a Peg Leg round going", &mut found).await;
    b.close().await;
    assert_none(&found);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dealer_terminal_passes_the_audit() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(1024, 768).await;
    let mut found = Vec::new();
    b.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer").await;
    b.wait_text("#table-list", "assigned to you").await;
    audit(&b, "dealer, tables", &mut found).await;
    b.click(r#"button.table-pick[data-table-name="Prima Carta 1"]"#).await;
    b.wait_text("#live-status", "Live").await;
    b.click("#dealer-sign-in").await;
    b.wait_data("#dealer-now", "dealing", "me").await;
    audit(&b, "dealer, at the table", &mut found).await;
    b.click("#open-round").await;
    b.wait_data("#round-status", "status", "betting").await;
    audit(&b, "dealer, a round open", &mut found).await;
    // The refusal to close with nobody seated, in its alert.
    b.click("#close-betting").await;
    b.wait_js(
        "return !document.getElementById('round-problem').hidden;",
        "the refusal",
    )
    .await;
    audit(&b, "dealer, a refusal shown", &mut found).await;

    // The Peg Leg table: a round opened and its first card dealt, with its prices.
    b.click("#change-table").await;
    b.click(r#"button.table-pick[data-table-name="Peg Leg 1"]"#).await;
    b.wait_text("#live-status", "Live").await;
    b.click("#dealer-sign-in").await;
    b.wait_data("#dealer-now", "dealing", "me").await;
    audit(&b, "dealer, at the Peg Leg table", &mut found).await;
    b.click("#peg-open-round").await;
    b.wait_data("#peg-round-status", "status", "seeding").await;
    audit(&b, "dealer, a Peg Leg round open", &mut found).await;
    b.click("#peg-next-card").await;
    b.wait_data("#peg-round-status", "cards-dealt", "1").await;
    b.find("#peg-ladder").await;
    audit(&b, "dealer, a Peg Leg round dealing", &mut found).await;
    b.close().await;
    assert_none(&found);
}

/// Audits every tab the role sees, and every section inside each tab.
async fn audit_console(b: &Browser, role: &str, found: &mut Vec<String>) {
    b.find("#console-tabs").await;
    for tab in shown_ids(b, "#console-tabs button[role=tab]").await {
        b.click(&format!("#{tab}")).await;
        let panel = format!("#panel-{}", tab.trim_start_matches("tab-"));
        b.wait_js(
            &format!("return !document.querySelector('{panel}').hidden && document.querySelector('{panel}').children.length > 0;"),
            &format!("{panel} to show"),
        )
        .await;
        audit(b, &format!("console as {role}, {tab}"), found).await;
        // One item chosen where the tab lists them (a table of each game that has rounds to list).
        let picks: &[&str] = match tab.as_str() {
            "tab-tables" => &[
                r#"button.table-select[data-table-name="Prima Carta 1"]"#,
                r#"button.table-select[data-table-name="Peg Leg 1"]"#,
            ],
            "tab-users" => &[r#"button.user-select[data-username="bruno"]"#],
            "tab-cage" => &[r#"button.cage-player[data-username="bruno"]"#],
            _ => &[],
        };
        for css in picks {
            b.click(css).await;
            audit(b, &format!("console as {role}, {tab} with {css} chosen"), found).await;
        }
        for section in shown_ids(b, &format!("{panel} button.subtab")).await {
            b.click(&format!("#{section}")).await;
            audit(b, &format!("console as {role}, {tab}, {section}"), found).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_passes_the_audit_for_the_pit_boss_on_every_tab() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(DESKTOP.0, DESKTOP.1).await;
    let mut found = Vec::new();
    b.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    audit_console(&b, "pit boss", &mut found).await;

    // The floor's settings being edited: a shift and a pit added, a refusal shown.
    b.click("#tab-floor").await;
    b.click("#floor-show-settings").await;
    b.wait_text("#calendar-in-force", "graveyard").await;
    b.click("#calendar-add-shift").await;
    b.type_into("#shift-name-3", "late").await;
    b.type_into("#shift-start-3", "25:00").await;
    b.click("#calendar-save").await;
    b.wait_text("#calendar-problem", "Not proposed").await;
    b.click("#pits-add").await;
    b.type_into("#pit-name-0", "Main pit").await;
    b.click(r#"input.pit-table[data-pit-index="0"][data-table-name="Prima Carta 1"]"#)
        .await;
    b.click("#pits-save").await;
    b.wait_text("#pits-result", "Saved").await;
    audit(
        &b,
        "console as pit boss, floor settings edited, a refusal shown",
        &mut found,
    )
    .await;

    // A new approval rule proposed, waiting for a second pit boss.
    b.click("#tab-proposals").await;
    b.wait_text("#approval-rule-in-force", "100.00").await;
    b.type_into("#approval-limit", "250.00").await;
    b.type_into("#approval-expires", "120").await;
    b.click("#approval-rule-propose").await;
    b.wait_text("#approval-rule-result", "Proposed").await;
    b.find("li.approval-rule-proposal").await;
    audit(&b, "console as pit boss, an approval rule proposed", &mut found).await;

    // A period's transcripts exported (none yet) and a refusal of a backwards period.
    b.click("#tab-audit").await;
    b.click("#audit-show-export").await;
    b.click("#export-last-24h").await;
    b.click("#export-load").await;
    b.wait_data("#export-count", "count", "0").await;
    audit(&b, "console as pit boss, an empty export", &mut found).await;

    // An exclusion list: a malformed one refused, then one imported (no patron has an identity
    // on file here, so it matches nobody).
    b.click("#tab-compliance").await;
    b.type_into("#exclusion-name", "State voluntary exclusion list, December 2026")
        .await;
    b.type_into("#exclusion-csv", "name,born\nAna,1970-01-01\n").await;
    b.click("#exclusion-import").await;
    b.wait_text("#exclusion-import-problem", "Nothing was imported").await;
    audit(&b, "console as pit boss, an exclusion list refused", &mut found).await;
    b.type_into(
        "#exclusion-csv",
        "full_name,date_of_birth\nMarta Vieira Lopes,1979-02-28\n",
    )
    .await;
    b.click("#exclusion-import").await;
    b.wait_text("#exclusion-import-result", "It matches no patron").await;
    b.wait_data("#exclusion-lists", "count", "1").await;
    audit(&b, "console as pit boss, an exclusion list imported", &mut found).await;
    b.close().await;
    assert_none(&found);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_passes_the_audit_for_the_cashier_and_the_auditor() {
    let djego = Djego::start();
    let driver = Driver::start();

    // A settled Lobo round, for the auditor to recall.
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let round_id = settled_lobo_round(&djego, &ana).await["id"]
        .as_str()
        .unwrap()
        .to_string();

    // bruno's cash today: two deposits of 4,000.00 at Window 1, through the API, so the cage
    // shows how far his day is from the report threshold and the next deposit needs his identity.
    let cashier_token = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let (status, players) = api(
        &djego,
        reqwest::Method::GET,
        "/api/v1/users?role=player",
        Some(&cashier_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{players}");
    let bruno = players
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["username"] == "bruno")
        .expect("the demo's bruno")["id"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..2 {
        let (status, body) = api(
            &djego,
            reqwest::Method::POST,
            "/api/v1/cage/deposits",
            Some(&cashier_token),
            Some(json!({ "player_id": bruno, "amount": "4000.00", "location": "Window 1" })),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }

    let mut found = Vec::new();
    let cashier = driver.browser(DESKTOP.0, DESKTOP.1).await;
    cashier
        .sign_in(&djego, "cashier", demo::PASSWORD_CASHIER, "/console")
        .await;
    audit_console(&cashier, "cashier", &mut found).await;
    // A deposit stopped for identity, the identity form open; then the identity recorded and
    // the deposit offered again.
    cashier.click("#tab-cage").await;
    cashier.click(r#"button.cage-player[data-username="bruno"]"#).await;
    cashier
        .wait_text("#cage-identity-line", "2000.00 more in deposits")
        .await;
    cashier.type_into("#cage-location", "Window 2").await;
    cashier.type_into("#deposit-amount", "4000.00").await;
    cashier.click("#deposit-button").await;
    cashier.wait_text("#cage-problem", "Identity needed first").await;
    cashier.find("#identity-form").await;
    audit(
        &cashier,
        "console as cashier, a deposit stopped for identity",
        &mut found,
    )
    .await;
    cashier.type_into("#identity-full-name", "Bruno Almeida Costa").await;
    cashier
        .run_js("document.getElementById('identity-date-of-birth').value = '1985-06-15'; return true;")
        .await;
    cashier
        .type_into("#identity-address", "4 Rua do Carmo, Porto 4050-164, Portugal")
        .await;
    cashier.type_into("#identity-document-number", "P1234567").await;
    cashier.type_into("#identity-document-issuer", "Portugal").await;
    cashier.click("#identity-save").await;
    cashier.find("#identity-retry").await;
    cashier.wait_text("#cage-identity-line", "Identity on file.").await;
    audit(&cashier, "console as cashier, the identity recorded", &mut found).await;
    cashier.click("#identity-retry").await;
    cashier.wait_text("#cage-result", "the balance is now 13000.00").await;
    cashier.close().await;

    // A state's exclusion list naming bruno, imported by the pit boss: its match waits for the
    // auditor.
    let pit_boss = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let (status, body) = api(
        &djego,
        reqwest::Method::POST,
        "/api/v1/exclusion-lists",
        Some(&pit_boss),
        Some(json!({
            "name": "State voluntary exclusion list, December 2026",
            "csv": "full_name,date_of_birth\nBruno Almeida Costa,1985-06-15\nMarta Vieira Lopes,1979-02-28\n",
        })),
    )
    .await;
    assert_eq!((status, &body["matches"]), (201, &json!(1)), "{body}");

    let auditor = driver.browser(DESKTOP.0, DESKTOP.1).await;
    auditor
        .sign_in(&djego, "auditor", demo::PASSWORD_AUDITOR, "/console")
        .await;
    audit_console(&auditor, "auditor", &mut found).await;
    // The ledger verified and a round recalled, with its cards.
    auditor.click("#tab-audit").await;
    auditor.click("#audit-show-ledger").await;
    auditor.click("#verify-ledger").await;
    auditor.wait_text("#verify-verdict", "✓").await;
    auditor.click("#audit-show-recall").await;
    auditor.type_into("#recall-id", &round_id).await;
    auditor.click("#recall-load").await;
    auditor.wait_text("#recall-view", "Recall of Lobo round").await;
    auditor.wait_text("#recall-shuffle-check", "✓").await;
    audit(&auditor, "console as auditor, a round recalled", &mut found).await;
    // The period's transcripts exported and their shuffles checked.
    auditor.click("#audit-show-export").await;
    auditor.click("#export-last-24h").await;
    auditor.click("#export-load").await;
    auditor.wait_data("#export-count", "count", "1").await;
    auditor.click("#export-verify").await;
    auditor
        .wait_text("#export-verify-verdict", "1 of 1 shuffles verify")
        .await;
    audit(
        &auditor,
        "console as auditor, transcripts exported and checked",
        &mut found,
    )
    .await;
    // Compliance: bruno's report opened and a filing refused; the alert his split deposits
    // raised escalated, and its record listed.
    auditor.click("#tab-compliance").await;
    auditor.click("#compliance-show-reports").await;
    auditor.click(r#"button.report-open[data-patron="bruno"]"#).await;
    auditor.wait_text("#report-document", "12000.00").await;
    auditor.click("#report-file").await;
    auditor.wait_text("#report-file-problem", "once that day is over").await;
    audit(
        &auditor,
        "console as auditor, a report opened, its filing refused",
        &mut found,
    )
    .await;
    auditor.click("#compliance-show-alerts").await;
    let alert = r#"article.alert-item[data-patron="bruno"]"#;
    auditor
        .type_into(&format!("{alert} textarea.alert-note"), "Split between windows.")
        .await;
    auditor.click(&format!("{alert} button.alert-escalate")).await;
    auditor.wait_text("#alerts-result", "Escalated").await;
    auditor.wait_text("#suspicious-list", "Split between windows.").await;
    audit(&auditor, "console as auditor, an alert escalated", &mut found).await;
    // bruno's exclusion-list match: a confirmation without a note refused, then asked twice.
    auditor.click("#compliance-show-exclusions").await;
    let card = r#"article.exclusion-match[data-patron="bruno"]"#;
    auditor.click(&format!("{card} button.exclusion-confirm")).await;
    auditor
        .wait_text(&format!("{card} .exclusion-review-problem"), "Write a note")
        .await;
    audit(
        &auditor,
        "console as auditor, an exclusion-list match without a note",
        &mut found,
    )
    .await;
    auditor
        .type_into(&format!("{card} textarea.exclusion-note"), "The same person.")
        .await;
    auditor.click(&format!("{card} button.exclusion-confirm")).await;
    auditor
        .wait_text(&format!("{card} .exclusion-sure"), "It cannot be undone")
        .await;
    audit(
        &auditor,
        "console as auditor, an exclusion-list match being confirmed",
        &mut found,
    )
    .await;
    auditor.close().await;
    assert_none(&found);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_finds_each_kind_of_problem_planted_in_a_page() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(PHONE.0, PHONE.1).await;
    b.open(&djego.url("/verify")).await;
    b.find("#verify-button").await;
    b.run_js(
        r##"const main = document.querySelector("main");
        const add = (html) => { const d = document.createElement("div"); d.innerHTML = html; main.append(d); return d; };
        add('<input id="planted-field"><button id="planted-button"></button><a href="/" id="planted-link"></a>');
        add('<p id="verify-button">twice</p><img src="data:," id="planted-img"><h4 id="planted-h4">Deep</h4>');
        add('<span tabindex="3" id="planted-tab">first</span>');
        document.getElementById("planted-tab").style.color = "#999999";
        return true;"##,
    )
    .await;
    let problems = b.run_js(AUDIT).await;
    let text = problems.to_string();
    for expected in [
        "a field without a label: input#planted-field",
        "a button without a name: button#planted-button",
        "a link without a name: a#planted-link",
        r#"the id \"verify-button\" is used 2 times"#,
        "an image without alt: img#planted-img",
        "a heading skips from h2 to h4: h4#planted-h4",
        "tabindex 3: span#planted-tab",
        "contrast 2.73:1 (#999999 on #fbfaf7)",
    ] {
        assert!(text.contains(expected), "the audit misses {expected:?}: {text}");
    }
    assert_eq!(problems.as_array().unwrap().len(), 8, "{text}");
    b.close().await;
}
