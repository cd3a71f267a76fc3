//! The console (web/console.html) as the pit boss, the cashier and the auditor
//! use it: two pit bosses install a pay table, the cashier deposits, the pit
//! boss resets a player's password, the auditor verifies the ledger and
//! recalls a round, and the floor's day and plots show; bets, transfers and
//! events show in words and people by username, never as codes or ids.

use crate::harness::{
    api, demo, open_prima_round, settled_lobo_round, table_id, Browser, Djego, Driver, STEP_TIMEOUT_MS,
};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Signs in through the API: (token, user id).
async fn login(djego: &Djego, username: &str, password: &str) -> (String, String) {
    let (status, body) = api(
        djego,
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({ "username": username, "password": password })),
    )
    .await;
    assert_eq!(status, 200, "{username} logs in: {body}");
    (
        body["access_token"].as_str().unwrap().to_string(),
        body["user_id"].as_str().unwrap().to_string(),
    )
}

/// The id of the account named `username`, as a pit boss lists them.
async fn user_id(djego: &Djego, token: &str, username: &str) -> String {
    let (status, users) = api(djego, Method::GET, "/api/v1/users?limit=500", Some(token), None).await;
    assert_eq!(status, 200, "{users}");
    users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["username"] == username)
        .unwrap_or_else(|| panic!("no account {username}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Waits until the window's path starts with `path`.
async fn wait_path(b: &Browser, path: &str) {
    let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
    loop {
        if b.client.current_url().await.unwrap().path().starts_with(path) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "never reached {path}:\n{}",
            b.page_text().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The rules' own pays (docs/side-bets.md, "djego-default"): Conto Alto at 8:1
/// and Conto Bajo at 14:1 return more than the stake, so certification refuses it.
fn uncertified_spec() -> Value {
    spec("djego-default", "8", "14")
}

/// The house table's pays under a new name: certifies (docs/side-bets.md).
fn certified_spec() -> Value {
    spec("djego-house-b", "6.75", "8")
}

fn spec(name: &str, conto_alto: &str, conto_bajo: &str) -> Value {
    json!({
        "name": name,
        "version": 1,
        "prima": { "pays": "4", "ace_pays": "2" },
        "escucha": { "pays": "4", "ace_pays": "2" },
        "maximo": { "pays": "4", "pair_tie": "lose" },
        "conto_alto": conto_alto,
        "conto_bajo": conto_bajo,
        "conto_medio": "2",
        "cartas": [
            { "number": 12, "pays": "5.40" },
            { "number": 13, "pays": "4.10" },
            { "number": 16, "pays": "8.50" }
        ],
        "comeco": [
            { "n_from": 10, "n_to": 10, "pays": "6" },
            { "n_from": 11, "n_to": 11, "pays": "1" },
            { "n_from": 17, "n_to": 17, "pays": "1" },
            { "n_from": 18, "n_to": 18, "pays": "3" },
            { "n_from": 19, "n_to": 19, "pays": "5" },
            { "n_from": 20, "n_to": 20, "pays": "10" },
            { "n_from": 21, "n_to": 21, "pays": "20" },
            { "n_from": 22, "n_to": 22, "pays": "30" },
            { "n_from": 23, "n_to": 50, "pays": "50" }
        ]
    })
}

/// A second pit boss, `second-boss` / `second-boss-pass`, made by the operator on the server's
/// command line (one pit boss alone cannot make another).
fn second_pit_boss(djego: &Djego) {
    djego.operator_creates("second-boss", "pitboss", "second-boss-pass");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pay_table_is_refused_uncertified_and_installed_when_a_second_pit_boss_approves() {
    let djego = Djego::start();
    let driver = Driver::start();
    // The second pit boss, made by the operator.
    let (admin, _) = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    second_pit_boss(&djego);
    let prima = table_id(&djego, &admin, "Prima Carta 1").await;

    let b = driver.browser(1280, 800).await;
    b.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    b.click("#tab-tables").await;
    b.wait_text("#tables-list", "Lobo 1").await;
    b.click(r#"button.table-select[data-table-name="Prima Carta 1"]"#).await;
    b.wait_text("#pay-table-current", "djego-house v1").await;
    b.wait_text("#pay-table-current", "✓ certified").await;
    b.screenshot("console-tables").await;

    // The rules' printed pays: refused, with the certification's reasons.
    b.type_into("#pay-table-spec", &uncertified_spec().to_string()).await;
    b.click("#pay-table-install").await;
    let refusal = b.wait_text("#pay-table-problem", "not certified").await;
    assert!(refusal.contains("conto_alto has RTP 112.33%"), "{refusal}");
    assert!(refusal.contains("conto_bajo has RTP"), "{refusal}");
    b.screenshot("console-pay-table-refused").await;

    // A certified one: only proposed, and the table keeps its pay table meanwhile.
    b.type_into("#pay-table-spec", &certified_spec().to_string()).await;
    b.click("#pay-table-install").await;
    b.wait_text("#pay-table-result", "Proposed, waiting for a second pit boss")
        .await;
    let proposal = b
        .run_js("return document.querySelector('#pay-table-result [data-proposal-id]').dataset.proposalId")
        .await
        .as_str()
        .expect("the proposal's id is shown")
        .to_string();
    let (_, installed) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/tables/{prima}/pay-table"),
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(
        installed["name"], "djego-house",
        "nothing installed before the approval"
    );
    // The proposer cannot approve their own proposal: no button for them.
    b.click("#tab-proposals").await;
    let own = format!(r#"article.proposal[data-proposal-id="{proposal}"]"#);
    b.wait_text(&own, "another pit boss must approve it").await;
    let approve_buttons = b
        .run_js(&format!(
            "return document.querySelectorAll('button.proposal-approve[data-proposal-id=\"{proposal}\"]').length"
        ))
        .await;
    assert_eq!(approve_buttons, json!(0));

    // The second pit boss approves it in their own window.
    let b2 = driver.browser(1280, 800).await;
    b2.sign_in(&djego, "second-boss", "second-boss-pass", "/console").await;
    b2.click("#tab-proposals").await;
    b2.wait_text(&own, "djego-house-b v1").await;
    b2.click(&format!(r#"button.proposal-approve[data-proposal-id="{proposal}"]"#))
        .await;
    b2.wait_text(&format!("{own} .proposal-status"), "applied").await;
    b2.close().await;

    // The first window shows the new pay table at the table.
    b.click("#tab-tables").await;
    b.click("#table-refresh").await;
    b.wait_text("#pay-table-current", "djego-house-b v1").await;
    let (_, installed) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/tables/{prima}/pay-table"),
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(installed["name"], "djego-house-b");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cashier_deposits_and_the_wallet_shown_is_the_ledgers() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (cashier, _) = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let bruno = user_id(&djego, &cashier, "bruno").await;

    let b = driver.browser(1280, 800).await;
    b.sign_in(&djego, "cashier", demo::PASSWORD_CASHIER, "/console").await;
    // A cashier's console: users and the cage only.
    b.find("#tab-cage").await;
    let tabs = b
        .run_js(
            "return [...document.querySelectorAll('#console-tabs button[role=tab]')]\
             .filter(t => !t.hidden).map(t => t.id)",
        )
        .await;
    assert_eq!(tabs, json!(["tab-users", "tab-cage"]));
    b.click("#tab-cage").await;
    b.type_into("#cage-search", "bru").await;
    b.click(r#"button.cage-player[data-username="bruno"]"#).await;
    b.wait_text("#cage-balance", "1000.00").await;

    b.type_into("#deposit-amount", "25.00").await;
    b.type_into("#deposit-memo", "cash at the cage").await;
    b.click("#deposit-button").await;
    b.wait_text("#cage-result", "the balance is now 1025.00").await;
    b.wait_text("#cage-history", "cash at the cage").await;
    let shown = b.text("#cage-balance").await;
    let (status, wallet) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/wallets/{bruno}"),
        Some(cashier.as_str()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{wallet}");
    assert_eq!(wallet["balance"], "1025.00");
    assert_eq!(shown, wallet["balance"].as_str().unwrap());
    b.screenshot("console-cage").await;

    // Cash out more than the wallet holds: refused with a sentence, nothing moves.
    b.type_into("#withdraw-amount", "5000.00").await;
    b.click("#withdraw-button").await;
    b.wait_text("#cage-problem", "Not enough money in the wallet").await;
    assert_eq!(b.text("#cage-balance").await, "1025.00");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pit_boss_resets_a_password_and_the_player_chooses_a_new_one() {
    let djego = Djego::start();
    let driver = Driver::start();

    let b = driver.browser(1280, 800).await;
    b.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    b.click("#tab-users").await;
    b.click(r#"button.user-select[data-username="bruno"]"#).await;
    b.wait_text("#user-detail", "bruno").await;
    b.type_into("#user-temp-password", "temporary-pass-42").await;
    b.click("#user-reset-password").await;
    b.wait_text("#user-result", "is reset").await;
    b.wait_text(r#"#users-table tr[data-username="bruno"]"#, "must choose a new one")
        .await;
    b.screenshot("console-users").await;
    b.close().await;

    // bruno signs in with the temporary password and is asked for his own.
    let p = driver.browser(390, 844).await;
    p.open(&djego.url("/")).await;
    p.type_into("#username", "bruno").await;
    p.type_into("#password", "temporary-pass-42").await;
    p.click("#signin-button").await;
    p.find("#change").await;
    p.type_into("#new-password", "brunos-own-pass-7").await;
    p.type_into("#again", "brunos-own-pass-7").await;
    p.click("#change-button").await;
    wait_path(&p, "/player").await;
    p.close().await;

    // The old password is gone; the new one works.
    let (status, _) = api(
        &djego,
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({ "username": "bruno", "password": demo::PASSWORD_PLAYER })),
    )
    .await;
    assert_eq!(status, 401);
    let (status, body) = api(
        &djego,
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({ "username": "bruno", "password": "brunos-own-pass-7" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_ne!(body["must_change_password"], json!(true));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_auditor_verifies_the_ledger_recalls_a_round_and_reads_the_floor() {
    let djego = Djego::start();
    let driver = Driver::start();
    // ana plays a Lobo round through the API and folds: a settled round.
    let (ana, _) = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let folded = settled_lobo_round(&djego, &ana).await;
    let round_id = folded["id"].as_str().unwrap().to_string();
    let server_seed = folded["server_seed"]
        .as_str()
        .expect("revealed at settlement")
        .to_string();

    let b = driver.browser(1280, 800).await;
    b.sign_in(&djego, "auditor", demo::PASSWORD_AUDITOR, "/console").await;
    b.click("#tab-audit").await;
    b.click("#audit-show-ledger").await;
    b.click("#verify-ledger").await;
    let verdict = b.wait_text("#verify-verdict", "✓").await;
    assert!(verdict.contains("The ledger verifies"), "{verdict}");
    b.click("#trial-balance-load").await;
    b.wait_text("#trial-balance-verdict", "✓ Balanced").await;
    b.screenshot("console-audit").await;

    // The round is found at its table, and recalled from there.
    b.click("#tab-tables").await;
    b.click(r#"button.table-select[data-table-name="Lobo 1"]"#).await;
    b.wait_text("#table-rounds", "settled").await;
    b.click(&format!(r#"button.round-recall[data-round-id="{round_id}"]"#))
        .await;
    b.wait_text("#recall-view", "Recall of Lobo round").await;
    assert_eq!(b.text("#recall-status").await, "settled");
    b.wait_text("#recall-seeds", &server_seed).await;
    b.wait_text("#recall-shuffle-check", "✓").await;
    b.wait_text("#recall-play", "fold").await;
    // Transfers in words, never as the ledger's codes.
    b.wait_text("#recall-money", "Lobo loss cap held").await;
    assert!(!b.text("#recall-money").await.contains("lobo_escrow"));
    b.find("#recall-download").await;
    b.screenshot("console-recall").await;

    b.click("#tab-floor").await;
    b.wait_text("#floor-day-status", "in progress").await;
    b.wait_text("#floor-reconciliation", "✓ Reconciled").await;
    let can_close = b.run_js("return !!document.getElementById('floor-close')").await;
    assert_eq!(can_close, json!(false), "only a pit boss closes a day");
    b.click("#floor-show-tables").await;
    b.wait_text("#floor-part-tables", "Lobo 1").await;
    b.click("#floor-show-plots").await;
    b.find(r#"#floor-plot-hold img[data-figure="hold"]"#).await;
    b.find(r#"#floor-plot-rounds-per-hour img[data-figure="rounds-per-hour"]"#)
        .await;
    b.screenshot("console-floor").await;
    b.close().await;
}

/// A GET answered with text (JSON Lines): (status, text).
async fn api_text(djego: &Djego, path: &str, token: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .get(djego.url(path))
        .bearer_auth(token)
        .send()
        .await
        .expect("djego answers");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pit_boss_sets_the_floor_calendar_pits_and_rating_rule_and_a_wrong_calendar_changes_nothing() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (admin, _) = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let prima = table_id(&djego, &admin, "Prima Carta 1").await;

    let b = driver.browser(1280, 1500).await;
    b.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    b.click("#tab-floor").await;
    b.click("#floor-show-settings").await;
    b.wait_text("#calendar-in-force-shifts", "graveyard from 22:00").await;

    // A fourth shift after midnight: it belongs to the gaming day that started the evening before.
    b.click("#calendar-add-shift").await;
    b.type_into("#shift-name-3", "late").await;
    b.type_into("#shift-start-3", "02:00").await;
    b.click("#calendar-save").await;
    // A second pit boss approves it; it takes effect from the next gaming day: shown as pending,
    // the calendar in force unchanged.
    b.wait_text("#calendar-result", "Proposed, waiting for a second pit boss")
        .await;
    b.wait_text("#calendar-result", "takes effect from the next gaming day")
        .await;
    let proposal = b
        .run_js("return document.querySelector('#calendar-result [data-proposal-id]').dataset.proposalId")
        .await;
    second_pit_boss(&djego);
    let (second, _) = login(&djego, "second-boss", "second-boss-pass").await;
    let (status, applied) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/proposals/{}/approve", proposal.as_str().unwrap()),
        Some(second.as_str()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{applied}");
    b.click("#calendar-reset").await;
    b.wait_text("#calendar-pending-shifts", "late from 02:00").await;
    let in_force = b.text("#calendar-in-force-shifts").await;
    assert!(
        in_force.contains("graveyard from 22:00") && !in_force.contains("late"),
        "{in_force}"
    );
    b.wait_text("#floor-calendar", "A new calendar takes effect").await;
    let (status, calendar) = api(
        &djego,
        Method::GET,
        "/api/v1/floor/calendar",
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{calendar}");
    assert_eq!(calendar["pending"]["timezone"], "UTC");
    assert_eq!(calendar["shifts"].as_array().map(Vec::len), Some(3), "{calendar}");
    assert_eq!(
        calendar["pending"]["shifts"],
        json!([
            { "name": "day", "starts_at": "06:00:00" },
            { "name": "swing", "starts_at": "14:00:00" },
            { "name": "graveyard", "starts_at": "22:00:00" },
            { "name": "late", "starts_at": "02:00:00" }
        ])
    );

    // An hour that does not exist, then a repeated name: each refused with its sentence.
    b.type_into("#shift-start-3", "25:00").await;
    b.click("#calendar-save").await;
    let refusal = b.wait_text("#calendar-problem", "Not proposed").await;
    assert!(
        refusal.contains(r#"shift 4's start "25:00" is not a local time"#),
        "{refusal}"
    );
    assert!(refusal.contains("The calendar in force is unchanged"), "{refusal}");
    b.type_into("#shift-start-3", "03:00").await;
    b.type_into("#shift-name-3", "swing").await;
    b.click("#calendar-save").await;
    b.wait_text("#calendar-problem", r#"the name "swing" is already another shift's"#)
        .await;
    // Nothing changed, on the page or in djego.
    let (_, after) = api(
        &djego,
        Method::GET,
        "/api/v1/floor/calendar",
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(after["pending"], calendar["pending"]);
    let shown = b.text("#calendar-pending-shifts").await;
    assert!(shown.contains("late from 02:00") && !shown.contains("03:00"), "{shown}");
    b.click("#calendar-reset").await;
    b.wait_js(
        "return document.getElementById('shift-name-3') && document.getElementById('shift-name-3').value === 'late';",
        "the calendar form back to what takes effect next",
    )
    .await;

    // A pit with Prima Carta 1 in it.
    b.click("#pits-add").await;
    b.type_into("#pit-name-0", "Main pit").await;
    b.click(r#"input.pit-table[data-pit-index="0"][data-table-name="Prima Carta 1"]"#)
        .await;
    b.click("#pits-save").await;
    b.wait_text("#pits-result", "Saved").await;
    b.wait_text(r#"#pits-in-force li[data-pit-name="Main pit"]"#, "Prima Carta 1")
        .await;
    let (status, pits) = api(&djego, Method::GET, "/api/v1/floor/pits", Some(admin.as_str()), None).await;
    assert_eq!(status, 200, "{pits}");
    assert_eq!(pits, json!({ "pits": [{ "name": "Main pit", "table_ids": [prima] }] }));

    // The rating rule: a longer pause between sessions.
    b.type_into("#rating-gap", "45").await;
    b.click("#rating-save").await;
    b.wait_text("#rating-rule-in-force", "more than 45 minutes").await;
    let (_, rule) = api(
        &djego,
        Method::GET,
        "/api/v1/floor/rating-rule",
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(rule["session_gap_minutes"], 45, "{rule}");

    // Each change is a significant event: one calendar change (the refusals are none).
    let (status, events) = api(
        &djego,
        Method::GET,
        "/api/v1/audit/events?kind=floor_calendar_changed",
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{events}");
    assert_eq!(events.as_array().unwrap().len(), 1, "{events}");
    b.run_js("document.getElementById('floor-part-settings').scrollIntoView(); return true;")
        .await;
    b.screenshot("console-floor-settings").await;

    // "See its changes" leads to those events in the Audit tab.
    b.click("#pits-history").await;
    b.wait_text("#events-list", "Pits changed").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_auditor_exports_a_periods_transcripts_and_checks_their_shuffles() {
    let djego = Djego::start();
    let driver = Driver::start();
    // ana plays a Lobo round through the API and folds (unless the deal ended it).
    let (ana, _) = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let round_id = settled_lobo_round(&djego, &ana).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Then a pit boss opens a contest at the same table, ana enters, and the pit boss voids it.
    let (boss, _) = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let lobo = table_id(&djego, &boss, "Lobo 1").await;
    let terms = json!({ "entry_fee": "1.00", "rake_basis_points": 500, "min_players": 2, "max_players": 4,
        "entry_seconds": 600, "play_seconds": 600 });
    let (status, contest) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/tables/{lobo}/lobo-contests"),
        Some(&boss),
        Some(terms),
    )
    .await;
    assert_eq!(status, 201, "{contest}");
    let contest_id = contest["id"].as_str().unwrap().to_string();
    for (token, action, body) in [
        (&ana, "entries", json!({ "client_seed": "ana's seed" })),
        (&boss, "void", json!({ "reason": "the table is needed" })),
    ] {
        let (status, answer) = api(
            &djego,
            Method::POST,
            &format!("/api/v1/lobo-contests/{contest_id}/{action}"),
            Some(token),
            Some(body),
        )
        .await;
        assert!(status == 200 || status == 201, "{action}: {status} {answer}");
    }

    let b = driver.browser(1280, 900).await;
    b.sign_in(&djego, "auditor", demo::PASSWORD_AUDITOR, "/console").await;
    b.click("#tab-audit").await;
    b.click("#audit-show-export").await;
    b.click("#export-last-24h").await;
    b.click("#export-load").await;
    b.wait_data("#export-count", "count", "2").await;
    b.wait_text("#export-count", "2 rounds settled or voided").await;
    let link = b
        .run_js(
            "const a = document.getElementById('export-download'); return [a.getAttribute('href'), a.getAttribute('download')];",
        )
        .await;
    assert!(link[0].as_str().unwrap().starts_with("blob:"), "{link}");
    let filename = link[1].as_str().unwrap().to_string();
    assert!(
        filename.starts_with("djego-rounds-") && filename.ends_with(".jsonl"),
        "{filename}"
    );
    b.wait_text("#export-replay", &format!("djego verify rounds {filename}"))
        .await;

    // The shuffles, re-derived in the browser: the round's deck and the contest entrant's.
    b.click("#export-verify").await;
    let verdict = b.wait_text("#export-verify-verdict", "2 of 2 shuffles verify").await;
    assert!(verdict.starts_with('✓'), "{verdict}");
    b.screenshot("console-export").await;

    // The same period through the API: the round, then the contest's recall.
    let period = b
        .run_js(
            "return ['export-from', 'export-to'].map((id) => String(new Date(document.getElementById(id).value).getTime() * 1000));",
        )
        .await;
    let auditor = login(&djego, "auditor", demo::PASSWORD_AUDITOR).await.0;
    let (status, text) = api_text(
        &djego,
        &format!(
            "/api/v1/audit/transcripts?from_us={}&to_us={}",
            period[0].as_str().unwrap(),
            period[1].as_str().unwrap()
        ),
        &auditor,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let lines: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["round_id"], round_id.as_str());
    assert_eq!(lines[1]["contest"]["id"], contest_id.as_str());
    assert_eq!(lines[1]["entrants"].as_array().unwrap().len(), 1);
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pit_boss_proposes_a_new_approval_rule_and_it_waits_for_a_second_pit_boss() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (admin, _) = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    second_pit_boss(&djego);

    let b = driver.browser(1280, 1100).await;
    b.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    b.click("#tab-proposals").await;
    b.wait_text("#approval-rule-in-force", "Cage corrections above 100.00")
        .await;
    b.wait_text("#approval-rule-in-force", "within 60 minutes").await;
    b.type_into("#approval-limit", "250.00").await;
    b.type_into("#approval-expires", "120").await;
    b.click("#approval-rule-propose").await;
    b.wait_text("#approval-rule-result", "Proposed, waiting for a second pit boss")
        .await;
    let proposal = b
        .run_js("return document.querySelector('#approval-rule-result [data-proposal-id]').dataset.proposalId")
        .await
        .as_str()
        .expect("the proposal's id is shown")
        .to_string();
    let pending = format!(r#"li.approval-rule-proposal[data-proposal-id="{proposal}"]"#);
    b.wait_text(&pending, "Corrections above 250.00").await;
    b.wait_text(&pending, "pending").await;
    b.wait_text(
        &format!(r#"article.proposal[data-proposal-id="{proposal}"] .proposal-status"#),
        "pending",
    )
    .await;
    // Still the old rule in force, on the page and in djego.
    assert!(b.text("#approval-rule-in-force").await.contains("100.00"));
    let (_, rule) = api(&djego, Method::GET, "/api/v1/approval-rule", Some(admin.as_str()), None).await;
    assert_eq!(
        rule,
        json!({ "correction_limit": "100.00", "correction_shift_total": "300.00",
            "correction_day_total": "1000.00", "expires_after_minutes": 60, "approver_wait_days": 7 })
    );
    let (_, p) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/proposals/{proposal}"),
        Some(admin.as_str()),
        None,
    )
    .await;
    assert_eq!(p["kind"], "change_approval_rule", "{p}");
    assert_eq!(p["status"], "pending", "{p}");
    b.run_js("document.getElementById('approval-rule').scrollIntoView(); return true;")
        .await;
    b.screenshot("console-approval-rule").await;

    // The second pit boss approves it (through the API); the page reads the new rule.
    let (second, _) = login(&djego, "second-boss", "second-boss-pass").await;
    let (status, done) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/proposals/{proposal}/approve"),
        Some(second.as_str()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["status"], "applied", "{done}");
    b.click("#proposals-refresh").await;
    b.wait_text("#approval-rule-in-force", "Cage corrections above 250.00")
        .await;
    b.wait_text("#approval-rule-pending", "No change of the rule is waiting")
        .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pit_boss_voids_a_lobo_round_left_in_play() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (ana, _) = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let lobo = table_id(&djego, &ana, "Lobo 1").await;
    // ana starts a round and walks away from it (a deal that leaves no capture settles: deal again).
    let mut round = json!(null);
    let mut before = String::new();
    for _ in 0..10 {
        before = my_balance(&djego, &ana).await;
        let (status, started) = api(
            &djego,
            Method::POST,
            &format!("/api/v1/tables/{lobo}/lobo-rounds"),
            Some(ana.as_str()),
            Some(json!({ "unit": "1.00" })),
        )
        .await;
        assert_eq!(status, 201, "{started}");
        if started["status"] == "in_play" {
            round = started;
            break;
        }
    }
    let round_id = round["id"].as_str().expect("a round in play").to_string();
    assert_ne!(
        my_balance(&djego, &ana).await,
        before,
        "the loss cap is held and the charge paid"
    );

    let b = driver.browser(1280, 800).await;
    b.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    b.click(r#"button.table-select[data-table-name="Lobo 1"]"#).await;
    b.wait_text("#table-rounds", "in play").await;
    b.wait_text("#void-form", "folded by itself").await;
    b.choose("#void-round", &format!("No. {} (in play)", round["number"]))
        .await;
    b.type_into("#void-reason", "the player left the casino").await;
    b.click("#void-button").await;
    b.wait_text("#void-result", "is voided").await;
    b.wait_text("#table-rounds", "voided").await;
    assert_eq!(
        my_balance(&djego, &ana).await,
        before,
        "everything went back to the player"
    );
    let (status, view) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/lobo-rounds/{round_id}"),
        Some(ana.as_str()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "voided");
    b.screenshot("console-lobo-void").await;
}

async fn my_balance(djego: &Djego, token: &str) -> String {
    let (status, body) = api(djego, Method::GET, "/api/v1/me/wallet", Some(token), None).await;
    assert_eq!(status, 200, "{body}");
    body["balance"].as_str().unwrap().to_string()
}

/// A Prima Carta round through the API, settled, with ana's Conto Alto side bet on it: its table's id.
async fn settled_round_with_a_conto_alto(djego: &Djego) -> String {
    let (dealer, table, round) = open_prima_round(djego).await;
    let round = round["id"].as_str().unwrap().to_string();
    let (ana, _) = login(djego, "ana", demo::PASSWORD_PLAYER).await;
    let (bruno, _) = login(djego, "bruno", demo::PASSWORD_PLAYER).await;
    for (token, suit) in [(&ana, "crowns"), (&bruno, "swords")] {
        let (status, body) = api(
            djego,
            Method::POST,
            &format!("/api/v1/rounds/{round}/seats"),
            Some(token),
            Some(json!({ "suit": suit })),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, bet) = api(
        djego,
        Method::POST,
        &format!("/api/v1/rounds/{round}/bets"),
        Some(&ana),
        Some(json!({ "kind": "conto_alto", "amount": "5.00" })),
    )
    .await;
    assert_eq!(status, 201, "{bet}");
    for step in ["close", "deal"] {
        let (status, body) = api(
            djego,
            Method::POST,
            &format!("/api/v1/rounds/{round}/{step}"),
            Some(&dealer),
            None,
        )
        .await;
        assert_eq!(status, 200, "{step}: {body}");
    }
    // Each copa is folded (the dealer records it), then the round is settled.
    for _ in 0..20 {
        let (status, view) = api(
            djego,
            Method::GET,
            &format!("/api/v1/rounds/{round}"),
            Some(&dealer),
            None,
        )
        .await;
        assert_eq!(status, 200, "{view}");
        let (path, body) = match view["status"].as_str().unwrap() {
            "settled" => return table,
            "copa" => (
                "copa",
                Some(json!({ "decision": "fold", "suit": view["copa_turn"]["suit"] })),
            ),
            _ => ("settle", None),
        };
        let (status, body) = api(
            djego,
            Method::POST,
            &format!("/api/v1/rounds/{round}/{path}"),
            Some(&dealer),
            body,
        )
        .await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    panic!("the round never settled");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_shows_bets_transfers_events_and_people_in_words() {
    let djego = Djego::start();
    let driver = Driver::start();
    let table = settled_round_with_a_conto_alto(&djego).await;
    let (auditor, _) = login(&djego, "auditor", demo::PASSWORD_AUDITOR).await;
    let dealer_id = user_id(
        &djego,
        &login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await.0,
        "dealer",
    )
    .await;
    let (status, pay_table) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/tables/{table}/pay-table"),
        Some(&auditor),
        None,
    )
    .await;
    assert_eq!(status, 200, "{pay_table}");
    let pay_table_name = format!("{} v{}", pay_table["name"].as_str().unwrap(), pay_table["version"]);
    let pay_table_id = pay_table["id"].as_str().unwrap();

    let b = driver.browser(1280, 800).await;
    b.sign_in(&djego, "auditor", demo::PASSWORD_AUDITOR, "/console").await;
    b.click("#tab-audit").await;

    // Observed RTP: the bet by its name, the pay table by its name and version.
    b.click("#audit-show-rtp").await;
    b.wait_text("#rtp-list", "Conto Alto").await;
    b.wait_text("#rtp-list", &pay_table_name).await;
    let rtp = b.text("#rtp-list").await;
    assert!(!rtp.contains("conto_alto"), "{rtp}");
    assert!(!rtp.contains(&pay_table_id[..8]), "the pay table shown by id: {rtp}");
    let plot = b.run_js("return document.getElementById('rtp-svg').textContent;").await;
    assert!(!plot.as_str().unwrap().contains("conto_alto"), "{plot}");
    b.choose("#rtp-kind", "Conto Alto").await;

    // Significant events: the kind in words, the dealer in the details by username.
    b.click("#audit-show-events").await;
    b.choose("#events-kind", "Dealer signed in").await;
    b.click("#events-load").await;
    b.wait_text("#events-list", "Dealer: dealer").await;
    let events = b.text("#events-list").await;
    assert!(events.contains("Dealer signed in"), "{events}");
    assert!(!events.contains("dealer_signed_in"), "{events}");
    assert!(!events.contains("dealer_id"), "{events}");
    assert!(!events.contains(&dealer_id), "the dealer shown by id: {events}");
    assert!(!events.contains(&dealer_id[..8]), "the dealer shown by id: {events}");
    b.screenshot("console-events-words").await;

    // The floor's day: the side bets settled, by name.
    b.click("#tab-floor").await;
    b.wait_text("#floor-day-view", "Conto Alto").await;
    let cells = b
        .run_js("return [...document.querySelectorAll('#floor-day-view td')].map((td) => td.textContent).join(' | ');")
        .await;
    assert!(!cells.as_str().unwrap().contains("conto_alto"), "{cells}");
    b.close().await;
}
