//! Cash-transaction compliance as the cage and the auditor use it (docs/compliance.md): a
//! cashier takes a patron's deposits at a window, sees how far the day is from the report
//! threshold, is stopped for identity on the deposit that would pass it, records the identity
//! from the patron's document and makes the deposit; the auditor reads the day's
//! multiple-transaction log with the patron's name on file, opens the day's currency
//! transaction report, is told in words why it cannot be marked filed yet, and escalates the
//! alert the split deposits raised. Patterns, directions and documents in words; people by
//! name; never a code or an id.

use crate::harness::{api, demo, login, Browser, Djego, Driver};
use reqwest::Method;
use serde_json::{json, Value};

/// The id of the player named `username`, as a cashier lists them.
async fn player_id(djego: &Djego, token: &str, username: &str) -> String {
    let (status, users) = api(
        djego,
        Method::GET,
        "/api/v1/users?role=player&limit=500",
        Some(token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{users}");
    users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["username"] == username)
        .unwrap_or_else(|| panic!("no player {username}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Deposits `amount` from the cage's deposit form, at the location already typed.
async fn deposit(b: &Browser, amount: &str) {
    b.type_into("#deposit-amount", amount).await;
    b.click("#deposit-button").await;
}

/// Makes `URL.createObjectURL` keep the text of the blob it is given, so what a download
/// button offers can be read back (`window.__downloaded`).
async fn catch_downloads(b: &Browser) {
    b.run_js(
        "window.__downloaded = null;
         if (!window.__realCreateObjectURL) window.__realCreateObjectURL = URL.createObjectURL;
         URL.createObjectURL = (blob) => { blob.text().then((t) => { window.__downloaded = t; });
           return window.__realCreateObjectURL(blob); };
         return true;",
    )
    .await;
}

/// Asserts that none of `codes` shows in `text`.
fn no_codes(text: &str, codes: &[&str], what: &str) {
    for code in codes {
        assert!(!text.contains(code), "{code} shown to a person in {what}:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cashier_is_stopped_for_identity_records_it_and_the_auditor_reads_the_log_report_and_alert() {
    let djego = Djego::start();
    let driver = Driver::start();
    let cashier_token = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let bruno = player_id(&djego, &cashier_token, "bruno").await;

    // The cashier at Window 2: bruno's day so far, with the room before identity is needed.
    let cage = driver.browser(1280, 900).await;
    cage.sign_in(&djego, "cashier", demo::PASSWORD_CASHIER, "/console")
        .await;
    cage.click("#tab-cage").await;
    cage.type_into("#cage-search", "bru").await;
    cage.click(r#"button.cage-player[data-username="bruno"]"#).await;
    cage.wait_text("#cage-balance", "1000.00").await;
    cage.wait_text(
        "#cage-identity-line",
        "10000.00 more in deposits (10000.00 in withdrawals) today before identity is needed.",
    )
    .await;
    cage.type_into("#cage-location", "Window 2").await;

    // Two deposits of 4,000.00 at Window 2.
    deposit(&cage, "4000.00").await;
    cage.wait_text("#cage-result", "Deposited 4000.00: the balance is now 5000.00.")
        .await;
    cage.wait_text("#cage-today-totals", "deposits 4000.00, withdrawals 0.00")
        .await;
    cage.wait_text(
        "#cage-identity-line",
        "6000.00 more in deposits (10000.00 in withdrawals) today before identity is needed.",
    )
    .await;
    deposit(&cage, "4000.00").await;
    cage.wait_text("#cage-result", "the balance is now 9000.00").await;
    cage.wait_text(
        "#cage-identity-line",
        "2000.00 more in deposits (10000.00 in withdrawals) today before identity is needed.",
    )
    .await;
    // The location stays for the next patron's cash, as the window does.
    assert_eq!(
        cage.run_js("return document.getElementById('cage-location').value;")
            .await,
        json!("Window 2")
    );

    // bruno moves to Window 3; the third 4,000.00 would take his day to 12,000.00: identity first.
    cage.type_into("#cage-location", "Window 3").await;
    deposit(&cage, "4000.00").await;
    let refusal = cage.wait_text("#cage-problem", "Identity needed first").await;
    assert!(
        refusal.contains(
            "this deposit of 4000.00 would bring bruno's deposits this gaming day from 8000.00 to 12000.00, over 10000.00"
        ),
        "{refusal}"
    );
    no_codes(
        &refusal,
        &["identity_required", "day_total", "report_threshold"],
        "the refusal",
    );
    assert_eq!(cage.text("#cage-balance").await, "9000.00", "nothing moved");
    cage.find("#identity-box").await;
    cage.screenshot("console-cage-identity").await;

    // The identity, from bruno's driving licence.
    cage.type_into("#identity-full-name", "Bruno Almeida Costa").await;
    cage.run_js("document.getElementById('identity-date-of-birth').value = '1985-06-15'; return true;")
        .await;
    cage.type_into("#identity-address", "4 Rua do Carmo, Porto 4050-164, Portugal")
        .await;
    cage.choose("#identity-document-type", "Driving licence").await;
    cage.type_into("#identity-document-number", "P-7781234").await;
    cage.type_into("#identity-document-issuer", "Portugal").await;
    cage.type_into("#identity-occupation", "Engineer").await;
    cage.click("#identity-save").await;
    cage.wait_text("#identity-result", "Identity recorded for bruno.").await;
    cage.wait_text("#cage-identity-line", "Identity on file.").await;
    assert!(!cage.is_shown("#cage-problem").await, "the refusal is answered");

    // The deposit that waited, made now.
    cage.wait_text("#identity-retry", "Deposit 4000.00 now").await;
    cage.click("#identity-retry").await;
    cage.wait_text("#cage-result", "Deposited 4000.00: the balance is now 13000.00.")
        .await;
    cage.wait_text("#cage-today-totals", "deposits 12000.00").await;
    assert!(!cage.is_shown("#identity-box").await, "the form closes");
    let (status, wallet) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/wallets/{bruno}"),
        Some(&cashier_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{wallet}");
    assert_eq!(wallet["balance"], "13000.00");
    cage.close().await;

    // The auditor's console has a Compliance tab (the cashier's does not).
    let b = driver.browser(1280, 900).await;
    b.sign_in(&djego, "auditor", demo::PASSWORD_AUDITOR, "/console").await;
    b.click("#tab-compliance").await;

    // The day's multiple-transaction log: three lines, bruno by name and by the name on file.
    b.click("#compliance-show-log").await;
    b.wait_data("#cash-log-list", "count", "3").await;
    let log = b.text("#cash-log-list").await;
    for expected in [
        "Bruno Almeida Costa",
        "bruno",
        "Deposit",
        "4000.00",
        "cashier",
        "Window 2",
        "Window 3",
    ] {
        assert!(log.contains(expected), "the log lacks {expected:?}:\n{log}");
    }
    let rows = b
        .run_js("return [...document.querySelectorAll('#cash-log-list tbody tr')].map((r) => r.textContent);")
        .await;
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].as_str().unwrap().contains("Window 2"), "{rows:?}");
    assert!(rows[2].as_str().unwrap().contains("Window 3"), "{rows:?}");
    no_codes(&log, &["deposit ", bruno.as_str()], "the log");
    // Its CSV, as the download offers it.
    catch_downloads(&b).await;
    b.click("#cash-log-csv").await;
    let csv = b
        .wait_js("return window.__downloaded;", "the log's CSV")
        .await
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        csv.starts_with("at_us,gaming_day,direction,amount,patron,patron_name"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 4, "a header and three lines:\n{csv}");
    assert!(csv.contains("Bruno Almeida Costa") && csv.contains("Window 3"), "{csv}");

    // The day's currency transaction report, whole.
    b.click("#compliance-show-reports").await;
    b.click(r#"button.report-open[data-patron="bruno"]"#).await;
    b.wait_text("#report-document", "12000.00").await;
    let report = b.text("#report-document").await;
    for expected in [
        "Bruno Almeida Costa",
        "1985-06-15",
        "Driving licence P-7781234, issued by Portugal",
        "Engineer",
        "Window 3",
        "the casino's legal name",
        "Not filed yet",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
    no_codes(
        &report,
        &[
            "driving_licence",
            "casino_name",
            "casino_tax_id",
            "cash_in",
            bruno.as_str(),
        ],
        "the report",
    );
    // Marked filed only once its gaming day is over, said in words.
    b.type_into("#report-reference", "FinCEN-2026-0001").await;
    b.click("#report-file").await;
    let not_yet = b
        .wait_text("#report-file-problem", "so it is filed once that day is over")
        .await;
    no_codes(&not_yet, &["gaming_day_not_over"], "the filing's refusal");
    b.wait_data("#report-document", "filed", "false").await;
    b.screenshot("console-compliance-report").await;

    // The alert the deposits split across two windows raised, in words, with its evidence.
    b.click("#compliance-show-alerts").await;
    let alert = r#"#alerts-list article.alert-item[data-pattern="split_transactions"][data-patron="bruno"]"#;
    b.find(alert).await;
    let text = b.text(alert).await;
    for expected in [
        "Cash split across cashiers, places or days",
        "bruno",
        "Window 2",
        "Window 3",
        "cashier",
    ] {
        assert!(text.contains(expected), "the alert lacks {expected:?}:\n{text}");
    }
    no_codes(
        &text,
        &["split_transactions", "near_threshold", bruno.as_str()],
        "the alert",
    );
    // A review needs a note.
    b.click(&format!("{alert} button.alert-escalate")).await;
    b.wait_text(
        &format!("{alert} .alert-problem"),
        "Write a note saying why before you escalate this alert.",
    )
    .await;
    b.type_into(
        &format!("{alert} textarea.alert-note"),
        "Deposits split between two windows to stay under the report threshold.",
    )
    .await;
    b.screenshot("console-compliance-alerts").await;
    b.click(&format!("{alert} button.alert-escalate")).await;
    b.wait_text(
        "#alerts-result",
        "Escalated: a suspicious-activity record about bruno was made",
    )
    .await;
    // It leaves the open queue, and its record lists it.
    b.wait_js(
        r#"return !document.querySelector('#alerts-list article.alert-item[data-patron="bruno"]');"#,
        "the escalated alert to leave the open queue",
    )
    .await;
    b.wait_text("#alerts-list", "No open alert.").await;
    b.wait_text("#suspicious-list", "Deposits split between two windows")
        .await;
    b.wait_text("#suspicious-list", "Cash split across cashiers, places or days")
        .await;
    let auditor_token = login(&djego, "auditor", demo::PASSWORD_AUDITOR).await;
    let (status, open) = api(
        &djego,
        Method::GET,
        "/api/v1/compliance/alerts?status=open",
        Some(&auditor_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{open}");
    assert_eq!(open, json!([]), "no alert left open");
    let (status, records) = api(
        &djego,
        Method::GET,
        "/api/v1/compliance/suspicious-activity",
        Some(&auditor_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{records}");
    let records: &Vec<Value> = records.as_array().unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["patron"]["username"], "bruno");

    // The significant events say what happened to the identity, in words.
    b.click("#tab-audit").await;
    b.click("#audit-show-events").await;
    b.choose("#events-kind", "Patron's identity recorded").await;
    b.click("#events-load").await;
    b.wait_text("#events-list", "Document type: Driving licence").await;
    b.choose("#events-kind", "Patron's identity read").await;
    b.click("#events-load").await;
    b.wait_text("#events-list", "Purpose: a currency transaction report")
        .await;
    let events = b.text("#events-list").await;
    no_codes(&events, &["patron_identity", "cash_log", bruno.as_str()], "the events");
    b.close().await;
}

/// The id of the one pending exclusion-list match, and its list's, as an auditor reads them.
async fn pending_match(djego: &Djego, auditor_token: &str) -> (String, String) {
    let (status, pending) = api(
        djego,
        Method::GET,
        "/api/v1/exclusion-lists/matches?status=pending",
        Some(auditor_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{pending}");
    let pending = pending.as_array().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    (
        pending[0]["id"].as_str().unwrap().to_string(),
        pending[0]["list_id"].as_str().unwrap().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pit_boss_imports_an_exclusion_list_and_an_auditor_confirms_its_match_from_the_console() {
    let djego = Djego::start();
    let driver = Driver::start();
    let cashier_token = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let auditor_token = login(&djego, "auditor", demo::PASSWORD_AUDITOR).await;
    let pit_boss_token = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let bruno = player_id(&djego, &cashier_token, "bruno").await;

    // A cashier has recorded bruno's identity from his driving licence.
    let (status, body) = api(
        &djego,
        Method::PUT,
        &format!("/api/v1/players/{bruno}/identity"),
        Some(&cashier_token),
        Some(json!({
            "full_name": "Bruno Almeida Costa",
            "date_of_birth": "1985-06-15",
            "address": "4 Rua do Carmo, Porto 4050-164, Portugal",
            "document_type": "driving_licence",
            "document_number": "P-7781234",
            "document_issuer": "Portugal",
        })),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // The state's list, as the file the regulator sent: bruno as the list writes him (case and
    // spacing its own), and someone who is no patron here.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state-exclusions-2026-12.csv");
    std::fs::write(
        &file,
        "full_name,date_of_birth,document_number,ends_on\n\
         BRUNO  ALMEIDA COSTA,1985-06-15,,\n\
         Marta Vieira Lopes,1979-02-28,X9911223,2031-12-31\n",
    )
    .unwrap();
    let list_name = "State voluntary exclusion list, Gaming Control Board, December 2026";

    // The pit boss imports it from the Compliance tab, where exclusion lists are their one section.
    let pit = driver.browser(1280, 900).await;
    pit.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    pit.click("#tab-compliance").await;
    pit.find("#compliance-exclusions").await;
    assert!(
        !pit.is_shown("#compliance-show-alerts").await && !pit.is_shown("#compliance-alerts").await,
        "the alerts are the auditor's"
    );
    pit.wait_data("#exclusion-lists", "count", "0").await;
    pit.type_into("#exclusion-name", list_name).await;
    pit.find("#exclusion-file")
        .await
        .send_keys(file.to_str().unwrap())
        .await
        .expect("the file is chosen");
    pit.wait_text("#exclusion-import-result", "Read state-exclusions-2026-12.csv: 3 lines")
        .await;
    pit.wait_js(
        "return document.getElementById('exclusion-csv').value.includes('Marta Vieira Lopes');",
        "the file's text in the CSV field",
    )
    .await;
    pit.click("#exclusion-import").await;
    let imported = pit.wait_text("#exclusion-import-result", "It matches 1 patron").await;
    assert!(
        imported.contains(&format!("Imported “{list_name}”: 2 people excluded.")),
        "{imported}"
    );

    // The list, with who imported it and what it matched.
    pit.wait_data("#exclusion-lists", "count", "1").await;
    let row = "#exclusion-lists tr.exclusion-list";
    pit.wait_data(row, "matches", "1").await;
    pit.wait_data(row, "pending", "1").await;
    let cells = pit
        .run_js("return [...document.querySelectorAll('#exclusion-lists tr.exclusion-list > *')].map((c) => c.textContent);")
        .await;
    let cells: Vec<&str> = cells.as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(cells[0], list_name, "{cells:?}");
    assert_eq!(cells[1], "admin (you)", "{cells:?}");
    assert!(!cells[2].is_empty(), "when: {cells:?}");
    assert_eq!(
        &cells[3..],
        ["2", "1", "1"],
        "people on it, matched, waiting: {cells:?}"
    );

    // The match, bruno by name beside the list's entry, and why it matched.
    let card = r#"#exclusion-matches article.exclusion-match[data-patron="bruno"]"#;
    pit.wait_data(card, "status", "pending").await;
    let text = pit.text(card).await;
    for expected in [
        &format!("bruno, on “{list_name}”"),
        "Matched on the name and date of birth, by line 2 of the list, which admin (you) imported at",
        "The list excludes this person permanently.",
        "BRUNO ALMEIDA COSTA",
        "Bruno Almeida Costa",
        "1985-06-15",
        "Driving licence P-7781234, issued by Portugal",
        "Waiting for review.",
    ] {
        assert!(text.contains(expected), "the match lacks {expected:?}:\n{text}");
    }
    // Whoever imported the list is told why its matches are not theirs to review.
    let own = pit.text(&format!("{card} .exclusion-own")).await;
    assert!(
        own.starts_with(&format!(
            "You imported “{list_name}”, so you cannot review its matches: a second person, another pit boss or an auditor,"
        )),
        "{own}"
    );
    assert!(
        !pit.is_shown(&format!("{card} button.exclusion-confirm")).await,
        "no confirm button for the importer"
    );
    pit.screenshot("console-exclusion-lists").await;
    // And djego refuses them anyway.
    let (match_id, list_id) = pending_match(&djego, &auditor_token).await;
    let (status, body) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/exclusion-lists/matches/{match_id}/review"),
        Some(&pit_boss_token),
        Some(json!({ "decision": "confirm", "note": "mine" })),
    )
    .await;
    assert_eq!((status, &body["error"]["code"]), (403, &json!("forbidden")), "{body}");
    let (status, me) = api(&djego, Method::GET, "/api/v1/me", Some(&pit_boss_token), None).await;
    assert_eq!(status, 200, "{me}");
    let codes = [
        bruno.as_str(),
        me["id"].as_str().unwrap(),
        match_id.as_str(),
        list_id.as_str(),
        "name_and_date_of_birth",
        "pending",
        "forbidden",
        "driving_licence",
    ];
    let section = pit.text("#compliance-exclusions").await;
    no_codes(&section, &codes, "the pit boss's exclusion lists");
    pit.close().await;

    // Nothing is excluded until a second person confirms.
    let (status, standing) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/players/{bruno}/protection"),
        Some(&cashier_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{standing}");
    assert!(standing["excluded"].is_null(), "{standing}");

    // The auditor reviews it: a note first, then asked twice, and confirmed.
    let b = driver.browser(1280, 900).await;
    b.sign_in(&djego, "auditor", demo::PASSWORD_AUDITOR, "/console").await;
    b.click("#tab-compliance").await;
    b.click("#compliance-show-exclusions").await;
    b.wait_data(card, "status", "pending").await;
    let text = b.text(card).await;
    assert!(
        text.contains("which admin imported at") && !text.contains("You imported"),
        "{text}"
    );
    b.click(&format!("{card} button.exclusion-confirm")).await;
    b.wait_text(
        &format!("{card} .exclusion-review-problem"),
        "Write a note saying why before you confirm this match.",
    )
    .await;
    b.type_into(
        &format!("{card} textarea.exclusion-note"),
        "Name and date of birth agree with his driving licence; the photograph on the state's record is his.",
    )
    .await;
    b.click(&format!("{card} button.exclusion-confirm")).await;
    b.wait_text(
        &format!("{card} .exclusion-sure"),
        "Exclude bruno from play and deposits permanently? It cannot be undone or shortened.",
    )
    .await;
    b.screenshot("console-exclusion-list-review").await;
    b.click(&format!("{card} button.exclusion-confirm-yes")).await;
    b.wait_text(
        "#exclusion-review-result",
        &format!("Confirmed: bruno is excluded from play and deposits permanently, as “{list_name}” says."),
    )
    .await;
    // It leaves the queue; the list counts it, reviewed.
    b.wait_text("#exclusion-matches", "No match is waiting for review.")
        .await;
    b.wait_data(row, "pending", "0").await;
    b.wait_data(row, "matches", "1").await;
    b.choose("#exclusion-match-status", "Confirmed").await;
    b.click("#exclusion-matches-load").await;
    b.wait_data(card, "status", "confirmed").await;
    let text = b
        .wait_text(card, "Confirmed by auditor (you): bruno is excluded as the list says.")
        .await;
    assert!(text.contains("Note: Name and date of birth agree"), "{text}");
    let section = b.text("#compliance-exclusions").await;
    no_codes(&section, &codes, "the auditor's exclusion lists");
    b.close().await;

    // bruno is excluded: the cage refuses his deposit, and his standing says so, for good.
    let (status, body) = api(
        &djego,
        Method::POST,
        "/api/v1/cage/deposits",
        Some(&cashier_token),
        Some(json!({ "player_id": bruno, "amount": "10.00", "location": "Window 1" })),
    )
    .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("excluded_from_play")),
        "{body}"
    );
    let (status, standing) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/players/{bruno}/protection"),
        Some(&cashier_token),
        None,
    )
    .await;
    assert_eq!(status, 200, "{standing}");
    assert_eq!(standing["excluded"]["kind"], "self_exclusion", "{standing}");
    assert!(standing["excluded"]["ends_at_us"].is_null(), "permanent: {standing}");
}
