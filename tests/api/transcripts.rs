//! Round transcripts through HTTP: a Jasper round won at the copa shows its
//! deal-out's reshuffle, a round keeps the options it was dealt under, the
//! dealer sees `in_play` while the repasso is dealt, a player's transcript,
//! recall and round views name the other players only by pseudonym, the
//! verification needs no account, and the auditor's export replays in bulk.

use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::prima_carta::{
    casino, create_round, dealer_action, first_sse_event, play_copa, recall, s, seat, table_config, Casino,
    TableOptions, SUITS,
};

/// Saves `text` as a file and checks it with the three verifiers as their
/// users run them: `djego verify round FILE`, `docs/verify/verify_round.py
/// FILE`, and the browser's shuffle check (web/js/shuffle.js, under Node).
pub async fn every_verifier_accepts(what: &str, text: &str) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    let path = file.path().to_str().unwrap().to_string();
    let root = env!("CARGO_MANIFEST_DIR");
    let browser_check = format!(
        "import {{ readFileSync }} from 'node:fs';
         import {{ splitDocuments, verifyShuffle }} from '{root}/web/js/shuffle.js';
         const docs = splitDocuments(readFileSync('{path}', 'utf8'));
         if (docs.length === 0) process.exit(1);
         for (const doc of docs) {{
           const r = await verifyShuffle(doc);
           if (!r.ok) {{ console.log(JSON.stringify(r.checks)); process.exit(1); }}
         }}"
    );
    let runs = tokio::task::spawn_blocking(move || {
        let djego = std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["verify", "round", &path])
            .output()
            .unwrap();
        let python = std::process::Command::new("python3")
            .args([&format!("{root}/docs/verify/verify_round.py"), &path])
            .output()
            .unwrap();
        let node = std::process::Command::new("node")
            .args(["--input-type=module", "-e", &browser_check])
            .output()
            .unwrap();
        [
            ("djego verify round", djego),
            ("verify_round.py", python),
            ("the browser's check", node),
        ]
    })
    .await
    .unwrap();
    for (verifier, out) in runs {
        assert!(
            out.status.success(),
            "{verifier} refuses {what} as the API hands it out:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `docs/verify/verify_round.py --json FILE` on `text` saved as a file, as its users run it:
/// whether it exits 0, and its report of each document.
pub async fn python_verdict(text: &str) -> (bool, Vec<Value>) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    let path = file.path().to_str().unwrap().to_string();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify/verify_round.py");
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("python3")
            .args([script, "--json", &path])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let reports: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("verify_round.py: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.success(), reports.as_array().unwrap().clone())
}

/// Seats the players, closes, deals; returns the round id and the view after the deal.
async fn deal_round(app: &TestApp, c: &Casino, salt: usize) -> (String, Value) {
    let round = create_round(app, c).await;
    let id = s(&round["id"]).to_string();
    for (i, p) in c.players.iter().enumerate() {
        seat(app, p, &id, SUITS[(i + salt) % 5], None).await.expect(201);
    }
    dealer_action(app, c, &id, "close").await.expect(200);
    let dealt = dealer_action(app, c, &id, "deal").await.expect(200);
    (id, dealt)
}

/// Decides every pending copa: the first player to decide pays, everyone else folds.
async fn pay_then_fold(app: &TestApp, c: &Casino, id: &str, mut view: Value) -> Value {
    let mut first = true;
    while view["status"] == "copa" {
        let turn = &view["copa_turn"];
        let decision = if first { "pay" } else { "fold" };
        first = false;
        view = app
            .post(
                &format!("/api/v1/rounds/{id}/copa"),
                Some(&c.dealer.token),
                &json!({ "decision": decision, "suit": turn["suit"] }),
                None,
            )
            .await
            .expect(200);
    }
    view
}

both_backends!(
    async fn a_jasper_round_won_at_the_copa_shows_the_reshuffle_its_bets_settled_on(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                variant: "jasper",
                players: 3,
                ..Default::default()
            },
        )
        .await;
        let bettor = &c.players[2];
        let mut found = false;
        for attempt in 0..40 {
            let round = create_round(&app, &c).await;
            let id = s(&round["id"]).to_string();
            for (i, p) in c.players.iter().take(2).enumerate() {
                seat(&app, p, &id, SUITS[(i + attempt) % 5], None).await.expect(201);
            }
            // An Escúcha bet on every suit: exactly one wins, on the deal-out's first completion.
            for suit in SUITS {
                app.post(
                    &format!("/api/v1/rounds/{id}/bets"),
                    Some(&bettor.token),
                    &json!({ "kind": "escucha", "suit": suit, "amount": "1.00" }),
                    None,
                )
                .await
                .expect(201);
            }
            dealer_action(&app, &c, &id, "close").await.expect(200);
            let dealt = dealer_action(&app, &c, &id, "deal").await.expect(200);
            let view = pay_then_fold(&app, &c, &id, dealt).await;
            dealer_action(&app, &c, &id, "settle").await.expect(200);
            let rec = recall(&app, &id).await;
            let how = &rec["round"]["result"]["result"]["how"];
            let transcript = &rec["transcript"];
            let completed_in_first_pass = transcript["deal_out_events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["type"] == "suit_completed" && e["pass"] == 1);
            if how != "last_live" || completed_in_first_pass {
                continue;
            }
            assert_eq!(view["status"], "finished", "no repasso is dealt for the main game");
            let reshuffles = transcript["shuffle"]["reshuffles"].as_array().unwrap();
            assert_eq!(reshuffles.len(), 1, "the deal-out's reshuffle is in the transcript");
            let deal_out = transcript["deal_out_events"].as_array().unwrap();
            let reshuffled = deal_out
                .iter()
                .find(|e| e["type"] == "reshuffled")
                .expect("a reshuffled event");
            assert_eq!(reshuffled["after"], reshuffles[0]["after"]);
            let first_completed = deal_out
                .iter()
                .find(|e| e["type"] == "suit_completed")
                .map(|e| e["suit"].clone())
                .unwrap();
            assert_eq!(transcript["outcome"]["facts"]["first_to_complete"], first_completed);
            let won: Vec<&Value> = transcript["bets"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["status"] == "won")
                .collect();
            assert_eq!(won.len(), 1);
            assert_eq!(won[0]["suit"], first_completed, "the winning Escúcha is the deal-out's");
            let report = djego::transcript::verify_document(&rec);
            assert!(report.passed, "{}", report.to_text());
            // Without the reshuffle, or with another pile, the round does not verify.
            let mut doctored = transcript.clone();
            doctored["shuffle"]["reshuffles"] = json!([]);
            let report = djego::transcript::verify_document(&doctored);
            assert_eq!(report.checks.iter().find(|c| !c.passed).unwrap().name, "play");
            found = true;
            break;
        }
        assert!(
            found,
            "no Jasper round was won at the copa before a suit completed in 40 rounds"
        );
    }
);

both_backends!(
    async fn a_round_keeps_the_options_it_was_dealt_under(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                variant: "jasper",
                players: 2,
                ..Default::default()
            },
        )
        .await;
        let (id, dealt) = deal_round(&app, &c, 0).await;
        let view = play_copa(&app, &c, &id, dealt, 5).await;
        assert_eq!(view["rules"]["variant"], "jasper");
        // The pit boss closes the table and changes it to Cinco before settlement.
        dealer_action(&app, &c, &id, "settle").await.expect(200);
        app.post(
            &format!("/api/v1/tables/{}/close", c.table),
            Some(&c.pitboss.token),
            &json!({}),
            None,
        )
        .await
        .expect(200);
        app.two_person(
            reqwest::Method::PUT,
            &format!("/api/v1/tables/{}/config", c.table),
            &c.pitboss,
            &table_config(&TableOptions {
                variant: "cinco",
                corte: false,
                ..Default::default()
            }),
        )
        .await;
        let rec = recall(&app, &id).await;
        assert_eq!(rec["round"]["rules"]["variant"], "jasper");
        assert_eq!(rec["transcript"]["rules"]["variant"], "jasper");
        assert_eq!(rec["transcript"]["rules"]["corte"], true);
        assert!(djego::transcript::verify_document(&rec).passed);
    }
);

both_backends!(
    async fn the_round_is_in_play_while_the_repasso_is_dealt(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 3,
                ..Default::default()
            },
        )
        .await;
        let mut found = false;
        for attempt in 0..20 {
            let (id, dealt) = deal_round(&app, &c, attempt).await;
            if dealt["status"] != "copa" {
                continue;
            }
            // Everyone pays: two or more stay live, so a repasso decides.
            let mut view = dealt;
            while view["status"] == "copa" {
                view = app
                    .post(
                        &format!("/api/v1/rounds/{id}/copa"),
                        Some(&c.dealer.token),
                        &json!({ "decision": "pay", "suit": view["copa_turn"]["suit"] }),
                        None,
                    )
                    .await
                    .expect(200);
            }
            assert_eq!(view["status"], "in_play", "{view}");
            assert!(
                view["result"].is_null(),
                "the repasso's outcome is not shown before settlement"
            );
            let settled = dealer_action(&app, &c, &id, "settle").await.expect(200);
            assert_eq!(settled["status"], "settled");
            assert_eq!(
                recall(&app, &id).await["round"]["result"]["result"]["how"],
                "repasso_completion"
            );
            found = true;
            break;
        }
        assert!(found, "no round reached the copa in 20 deals");
    }
);

both_backends!(
    async fn a_player_sees_their_own_transcript_with_everyone_else_pseudonymous(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 3,
                ..Default::default()
            },
        )
        .await;
        let (id, dealt) = deal_round(&app, &c, 1).await;
        play_copa(&app, &c, &id, dealt, 9).await;
        dealer_action(&app, &c, &id, "settle").await.expect(200);
        let me = &c.players[1];
        let rec = app
            .get(&format!("/api/v1/rounds/{id}/recall"), Some(&me.token))
            .await
            .expect(200);
        for staff_only in ["bets", "transfers", "decisions"] {
            assert!(rec.get(staff_only).is_none(), "{staff_only} is for staff");
        }
        let players = rec["transcript"]["players"].as_array().unwrap();
        assert_eq!(players.len(), 3);
        for p in players {
            if p["you"] == true {
                assert_eq!(p["player_id"], me.id.as_str());
            } else {
                assert!(p.get("player_id").is_none(), "{p}");
            }
        }
        // Nowhere in the recall, its round view included: there the other seats carry the
        // transcript's pseudonyms, and only the caller's own seat their id.
        let text = rec.to_string();
        for other in [&c.players[0], &c.players[2]] {
            assert!(!text.contains(&other.id), "another player's id in the recall: {text}");
        }
        assert_eq!(
            seat_names(&rec["round"]["seats"]),
            seat_names(&rec["transcript"]["seats"]),
            "the round view's pseudonyms are the transcript's"
        );
        for seat in rec["round"]["seats"].as_array().unwrap() {
            let mine = seat["suit"] == SUITS[(1 + 1) % 5];
            assert_eq!(seat["player_id"].as_str(), mine.then_some(me.id.as_str()), "{seat}");
        }
        assert!(djego::transcript::verify_document(&rec).passed);
        // The public verification: the same round, nobody named.
        let outsider = app.create_user(djego::domain::Role::Player).await;
        let ver = app
            .get(&format!("/api/v1/rounds/{id}/verification"), Some(&outsider.token))
            .await
            .expect(200);
        assert!(!ver["transcript"].to_string().contains(&me.id));
        let report = djego::transcript::verify_document(&ver);
        assert!(report.passed, "{}", report.to_text());
        // Each answer, saved as it comes, is a file every verifier accepts.
        let staff_text = app
            .get(&format!("/api/v1/rounds/{id}/recall"), Some(&c.pitboss.token))
            .await
            .text;
        for (what, text) in [
            ("the player's recall", rec.to_string()),
            ("the verification", ver.to_string()),
            ("the staff recall", staff_text),
        ] {
            every_verifier_accepts(what, &text).await;
        }
        // Staff see who is who.
        let staff = recall(&app, &id).await;
        assert!(staff["transcript"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["player_id"].is_string()));
        assert!(staff["transfers"].is_array());
    }
);

/// Each seat's suit and the pseudonym it is shown under, in suit-name order.
fn seat_names(seats: &Value) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = seats
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (s(&x["suit"]).to_string(), s(&x["player"]).to_string()))
        .collect();
    names.sort();
    names
}

/// The round's view and the table's latest round, as `u` reads them.
async fn view_and_list(app: &TestApp, c: &Casino, id: &str, u: &crate::helpers::TestUser) -> (Value, Value) {
    let view = app
        .get(&format!("/api/v1/rounds/{id}"), Some(&u.token))
        .await
        .expect(200);
    let list = app
        .get(&format!("/api/v1/tables/{}/rounds?limit=1", c.table), Some(&u.token))
        .await
        .expect(200);
    (view, list)
}

/// Asserts that `text` names none of `others` by account id.
fn names_none(what: &str, text: &str, others: &[&crate::helpers::TestUser]) {
    for other in others {
        assert!(
            !text.contains(&other.id),
            "{what}: {}'s account id: {text}",
            other.username
        );
    }
}

both_backends!(
    async fn round_views_show_other_players_only_by_pseudonym(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 3,
                ..Default::default()
            },
        )
        .await;
        let outsider = app.create_user(djego::domain::Role::Player).await;
        let me = &c.players[1];
        let everyone: Vec<&crate::helpers::TestUser> = c.players.iter().collect();
        let others = [&c.players[0], &c.players[2]];
        // Deal until a copa is pending, so that the copa turn is seen too.
        let mut at_copa = None;
        for attempt in 0..20 {
            let (id, dealt) = deal_round(&app, &c, attempt).await;
            if dealt["status"] == "copa" {
                at_copa = Some((id, dealt));
                break;
            }
            dealer_action(&app, &c, &id, "settle").await.expect(200);
        }
        let (id, dealt) = at_copa.expect("no round reached the copa in 20 deals");
        for stage in ["at the copa", "settled"] {
            if stage == "settled" {
                play_copa(&app, &c, &id, dealt.clone(), 3).await;
                dealer_action(&app, &c, &id, "settle").await.expect(200);
            }
            // Staff see who holds each seat.
            let (staff, _) = view_and_list(&app, &c, &id, &c.pitboss).await;
            for seat in staff["seats"].as_array().unwrap() {
                assert!(seat["player_id"].is_string() && seat["player"].is_string(), "{seat}");
            }
            // A player not in the round sees pseudonyms only, in the view, the table's list
            // and the live stream.
            let (view, list) = view_and_list(&app, &c, &id, &outsider).await;
            names_none(
                &format!("the round {stage}, as an outsider"),
                &view.to_string(),
                &everyone,
            );
            names_none(
                &format!("the rounds {stage}, as an outsider"),
                &list.to_string(),
                &everyone,
            );
            assert_eq!(seat_names(&view["seats"]), seat_names(&staff["seats"]));
            let (event, state) = first_sse_event(&app, &outsider.token, &c.table).await;
            assert_eq!(event, "state");
            names_none(&format!("the live stream {stage}"), &state, &everyone);
            // A seated player sees their own id on their own seat only.
            let (view, list) = view_and_list(&app, &c, &id, me).await;
            names_none(&format!("the round {stage}, as a player"), &view.to_string(), &others);
            names_none(&format!("the rounds {stage}, as a player"), &list.to_string(), &others);
            let own: Vec<&Value> = view["seats"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| x["player_id"].is_string())
                .collect();
            assert_eq!(own.len(), 1, "{view}");
            assert_eq!(own[0]["player_id"], me.id.as_str());
            if stage == "at the copa" {
                let turn = &view["copa_turn"];
                assert_eq!(turn["player"], staff["copa_turn"]["player"], "{view}");
                let my_turn = staff["copa_turn"]["player_id"] == me.id.as_str();
                assert_eq!(turn["player_id"].is_string(), my_turn, "{turn}");
                continue;
            }
            // The result names the winner by pseudonym; their id only to them and to staff.
            let winner = &staff["result"];
            assert!(winner["winner_player_id"].is_string(), "{winner}");
            let winner_seat = staff["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["suit"] == winner["result"]["winner"])
                .unwrap();
            assert_eq!(winner["winner"], winner_seat["player"]);
            assert_eq!(view["result"]["winner"], winner["winner"]);
            let i_won = winner["winner_player_id"] == me.id.as_str();
            assert_eq!(view["result"]["winner_player_id"].is_string(), i_won, "{view}");
            // The pseudonyms are the transcript's.
            let rec = recall(&app, &id).await;
            assert_eq!(seat_names(&view["seats"]), seat_names(&rec["transcript"]["seats"]));
        }
    }
);

both_backends!(
    async fn anyone_reads_a_rounds_verification_without_an_account(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let round = create_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        let path = format!("/api/v1/rounds/{id}/verification");
        // Before the round is over: the commitment and no transcript, to anyone, as before.
        let signed_in = app.get(&path, Some(&c.players[0].token)).await.expect(200);
        for token in [None, Some("not-a-token"), Some("eyJhbGciOiJIUzI1NiJ9.e30.c2ln")] {
            let early = app.get(&path, token).await.expect(200);
            assert_eq!(early, signed_in, "with {token:?}");
            assert_eq!(early["commitment"], round["commitment"]);
            assert!(early["transcript"].is_null(), "{early}");
        }
        app.get("/api/v1/rounds/not-a-round/verification", None)
            .await
            .assert_error(404, "not_found");
        for (i, p) in c.players.iter().enumerate() {
            seat(&app, p, &id, SUITS[i], None).await.expect(201);
        }
        dealer_action(&app, &c, &id, "close").await.expect(200);
        let dealt = dealer_action(&app, &c, &id, "deal").await.expect(200);
        play_copa(&app, &c, &id, dealt, 7).await;
        dealer_action(&app, &c, &id, "settle").await.expect(200);
        // Settled: the whole transcript, nobody named, and it verifies.
        for token in [None, Some("not-a-token")] {
            let ver = app.get(&path, token).await;
            assert_eq!(ver.status, 200, "{token:?}: {}", ver.text);
            let everyone: Vec<&crate::helpers::TestUser> = c.players.iter().collect();
            names_none("the verification", &ver.text, &everyone);
            let report = djego::transcript::verify_document(&ver.json());
            assert!(report.passed, "{}", report.to_text());
        }
        every_verifier_accepts(
            "the verification read without an account",
            &app.get(&path, None).await.text,
        )
        .await;
    }
);

both_backends!(
    async fn the_auditor_exports_a_period_and_every_round_replays(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                variant: "jasper",
                players: 2,
                ..Default::default()
            },
        )
        .await;
        let from_us = djego::store::now_us();
        let mut ids = Vec::new();
        for k in 0..3 {
            let (id, dealt) = deal_round(&app, &c, k).await;
            play_copa(&app, &c, &id, dealt, k as u64).await;
            dealer_action(&app, &c, &id, "settle").await.expect(200);
            ids.push(id);
        }
        let voided = s(&create_round(&app, &c).await["id"]).to_string();
        seat(&app, &c.players[0], &voided, "cups", None).await.expect(201);
        app.post(
            &format!("/api/v1/rounds/{voided}/void"),
            Some(&c.pitboss.token),
            &json!({ "reason": "a card was exposed" }),
            None,
        )
        .await
        .expect(200);
        ids.push(voided);
        let to_us = djego::store::now_us() + 1;
        let auditor = app.auditor().await.token.clone();
        let export = app
            .get(
                &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}"),
                Some(&auditor),
            )
            .await;
        assert_eq!(export.status, 200, "{}", export.text);
        assert!(export.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/x-ndjson"));
        let lines: Vec<Value> = export.text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let exported: Vec<&str> = lines.iter().map(|l| s(&l["round_id"])).collect();
        assert_eq!(exported, ids.iter().map(String::as_str).collect::<Vec<_>>());
        for line in export.text.lines() {
            let report = djego::transcript::verify_text(line);
            assert!(report.passed, "{}", report.to_text());
        }
        assert_eq!(lines[3]["status"], "voided");
        // The independent verifier replays the same file.
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &export.text).unwrap();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify/verify_round.py");
        let out = std::process::Command::new("python3")
            .arg(script)
            .arg("--json")
            .arg(file.path())
            .output()
            .unwrap();
        let python: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let python = python.as_array().unwrap();
        assert_eq!(python.len(), 4);
        assert!(python.iter().all(|r| r["passed"] == true), "{python:?}");
        // Paged, and refused to players.
        let page = app
            .get(
                &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}&limit=2&offset=2"),
                Some(&auditor),
            )
            .await;
        assert_eq!(page.text.lines().count(), 2);
        app.get(
            &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}"),
            Some(&c.players[0].token),
        )
        .await
        .assert_error(403, "forbidden");
    }
);
