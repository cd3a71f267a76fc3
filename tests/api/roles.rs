//! Every endpoint × each of the five roles: 2xx for the roles the handler
//! admits, 403 (in the error shape) for the others, 401 without a token.
//!
//! When an endpoint is added, add its row to `cases`.

use djego::domain::Role;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestUser;

/// The users every case may refer to.
struct Fixture {
    /// One logged-in user per role (the player is `players[0]`'s owner).
    by_role: Vec<(Role, TestUser)>,
    /// The player whose token is used for the player role.
    player: TestUser,
    /// Another player, funded, whose wallet only staff may touch.
    other_player: TestUser,
    /// A dealer that pit bosses may update.
    staff_target: TestUser,
    /// An open Peg Leg table and an open Lobo table.
    peg_leg_table: String,
    lobo_table: String,
    /// A contest at the Lobo table taking entries, and one voided (its recall readable).
    contest: String,
    voided_contest: String,
    /// A Prima Carta round taking seats.
    prima_round: String,
}

struct Case {
    name: &'static str,
    method: Method,
    path: Box<dyn Fn(&Fixture) -> String>,
    body: Box<dyn Fn(&Fixture) -> Option<Value>>,
    /// Roles the handler admits, and the status they get.
    allowed: &'static [Role],
    ok_status: u16,
    /// Whether a request without a token is refused with 401.
    authenticated: bool,
}

fn case(
    name: &'static str,
    method: Method,
    path: impl Fn(&Fixture) -> String + 'static,
    body: impl Fn(&Fixture) -> Option<Value> + 'static,
    allowed: &'static [Role],
    ok_status: u16,
) -> Case {
    Case {
        name,
        method,
        path: Box::new(path),
        body: Box::new(body),
        allowed,
        ok_status,
        authenticated: true,
    }
}

/// A table with `config`, opened.
fn open_table(app: &crate::helpers::TestApp, config: djego::tables::TableConfig) -> String {
    app.state
        .db
        .write(|conn| -> Result<String, djego::store::StoreError> {
            let t = djego::tables::create(conn, &fresh_name("table"), &config, None)?;
            djego::tables::set_status(conn, &t.id, djego::tables::TableStatus::Open, "test", json!({}))?;
            Ok(t.id)
        })
        .expect("table created")
}

/// A round taking seats at a fresh, open Prima Carta table, opened for `dealer`.
fn prima_round(app: &crate::helpers::TestApp, dealer: &str) -> String {
    let table_id = open_table(app, djego::tables::TableConfig::demo_prima_carta());
    app.state
        .db
        .write(|conn| -> Result<String, djego::api::error::ApiError> {
            let table = djego::rounds::prima_carta::find_table(conn, &table_id)?;
            Ok(djego::rounds::prima_carta::create_round(conn, &app.state.vault, &table, dealer)?.id)
        })
        .expect("a round opened")
}

fn contest_terms() -> Value {
    json!({ "entry_fee": "1.00", "rake_basis_points": 500, "min_players": 2, "max_players": 4,
        "entry_seconds": 600, "play_seconds": 600 })
}

fn fresh_name(prefix: &str) -> String {
    format!("{prefix}-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
}

use Role::{Auditor, Cashier, Dealer, Pitboss, Player};

const ALL: &[Role] = &[Player, Dealer, Cashier, Pitboss, Auditor];

fn cases() -> Vec<Case> {
    let none = |_: &Fixture| None;
    let mut list = vec![
        case("me", Method::GET, |_| "/api/v1/me".into(), none, ALL, 200),
        case(
            "floor calendar",
            Method::GET,
            |_| "/api/v1/floor/calendar".into(),
            none,
            ALL,
            200,
        ),
        case(
            "table performance",
            Method::GET,
            |_| "/api/v1/floor/tables".into(),
            none,
            &[Pitboss, Auditor],
            200,
        ),
        case(
            "dealer performance",
            Method::GET,
            |_| "/api/v1/floor/dealers".into(),
            none,
            &[Pitboss, Auditor],
            200,
        ),
        case(
            "rating rule",
            Method::GET,
            |_| "/api/v1/floor/rating-rule".into(),
            none,
            ALL,
            200,
        ),
        case(
            "player ratings",
            Method::GET,
            |_| "/api/v1/floor/players".into(),
            none,
            &[Pitboss, Auditor, Player],
            200,
        ),
        case(
            "set rating rule",
            Method::PUT,
            |_| "/api/v1/floor/rating-rule".into(),
            |_| Some(json!({ "session_gap_minutes": 20, "points_per_theo_unit": "1" })),
            &[Pitboss],
            200,
        ),
        case(
            "set floor calendar",
            Method::PUT,
            |_| "/api/v1/floor/calendar".into(),
            |_| {
                Some(json!({ "timezone": "Europe/Lisbon", "day_starts_at": "06:00",
                    "shifts": [{ "name": "day", "starts_at": "06:00" }, { "name": "night", "starts_at": "18:00" }] }))
            },
            &[Pitboss],
            202,
        ),
        case(
            "create user (player)",
            Method::POST,
            |_| "/api/v1/users".into(),
            |_| Some(json!({ "username": fresh_name("p"), "role": "player", "password": "a-long-password" })),
            &[Cashier, Pitboss],
            201,
        ),
        case(
            "create user (staff)",
            Method::POST,
            |_| "/api/v1/users".into(),
            |_| Some(json!({ "username": fresh_name("d"), "role": "dealer", "password": "a-long-password" })),
            &[Pitboss],
            201,
        ),
        case(
            "list users",
            Method::GET,
            |_| "/api/v1/users".into(),
            none,
            &[Cashier, Pitboss, Auditor],
            200,
        ),
        case(
            "name accounts on the roster",
            Method::GET,
            |f| format!("/api/v1/roster?ids={},{}", f.player.id, f.staff_target.id),
            none,
            &[Dealer, Cashier, Pitboss, Auditor],
            200,
        ),
        case(
            "list staff users",
            Method::GET,
            |_| "/api/v1/users?role=dealer".into(),
            none,
            &[Pitboss, Auditor],
            200,
        ),
        case(
            "update user",
            Method::PUT,
            |f| format!("/api/v1/users/{}", f.staff_target.id),
            |_| Some(json!({ "active": true })),
            &[Pitboss],
            200,
        ),
        case(
            "deposit",
            Method::POST,
            |_| "/api/v1/cage/deposits".into(),
            |f| Some(json!({ "player_id": f.other_player.id, "amount": "1.00" })),
            &[Cashier],
            201,
        ),
        case(
            "withdrawal",
            Method::POST,
            |_| "/api/v1/cage/withdrawals".into(),
            |f| Some(json!({ "player_id": f.other_player.id, "amount": "1.00" })),
            &[Cashier],
            201,
        ),
        case(
            "correction",
            Method::POST,
            |_| "/api/v1/cage/corrections".into(),
            |f| {
                Some(
                    json!({ "player_id": f.other_player.id, "amount": "0.50", "direction": "credit", "reason": "roles test" }),
                )
            },
            &[Cashier],
            201,
        ),
        case(
            "own wallet",
            Method::GET,
            |f| format!("/api/v1/wallets/{}", f.player.id),
            none,
            &[Player, Cashier, Pitboss, Auditor],
            200,
        ),
        case(
            "own wallet history",
            Method::GET,
            |f| format!("/api/v1/wallets/{}/transactions", f.player.id),
            none,
            &[Player, Cashier, Pitboss, Auditor],
            200,
        ),
        case(
            "another player's wallet",
            Method::GET,
            |f| format!("/api/v1/wallets/{}", f.other_player.id),
            none,
            &[Cashier, Pitboss, Auditor],
            200,
        ),
        case(
            "another player's wallet history",
            Method::GET,
            |f| format!("/api/v1/wallets/{}/transactions", f.other_player.id),
            none,
            &[Cashier, Pitboss, Auditor],
            200,
        ),
        case(
            "significant events",
            Method::GET,
            |_| "/api/v1/audit/events".into(),
            none,
            &[Pitboss, Auditor],
            200,
        ),
        case(
            "ledger",
            Method::GET,
            |_| "/api/v1/audit/ledger".into(),
            none,
            &[Auditor],
            200,
        ),
        case(
            "trial balance",
            Method::GET,
            |_| "/api/v1/audit/ledger/trial-balance".into(),
            none,
            &[Auditor],
            200,
        ),
        case(
            "verify ledger",
            Method::GET,
            |_| "/api/v1/audit/ledger/verify".into(),
            none,
            &[Auditor],
            200,
        ),
        case(
            "Peg Leg rounds of a table",
            Method::GET,
            |f| format!("/api/v1/tables/{}/peg-leg-rounds", f.peg_leg_table),
            none,
            ALL,
            200,
        ),
        case(
            "Peg Leg observed RTP",
            Method::GET,
            |f| format!("/api/v1/tables/{}/peg-leg-rtp", f.peg_leg_table),
            none,
            &[Pitboss, Auditor],
            200,
        ),
        case(
            "Lobo contests of a table",
            Method::GET,
            |f| format!("/api/v1/tables/{}/lobo-contests", f.lobo_table),
            none,
            ALL,
            200,
        ),
        case(
            "create a Lobo contest",
            Method::POST,
            |f| format!("/api/v1/tables/{}/lobo-contests", f.lobo_table),
            |_| Some(contest_terms()),
            &[Pitboss],
            201,
        ),
        case(
            "a Lobo contest",
            Method::GET,
            |f| format!("/api/v1/lobo-contests/{}", f.contest),
            none,
            ALL,
            200,
        ),
        case(
            "the recall of a contest the player did not enter",
            Method::GET,
            |f| format!("/api/v1/lobo-contests/{}/recall", f.voided_contest),
            none,
            &[Pitboss, Auditor],
            200,
        ),
        case(
            "a Prima Carta round",
            Method::GET,
            |f| format!("/api/v1/rounds/{}", f.prima_round),
            none,
            ALL,
            200,
        ),
        case(
            "export round transcripts",
            Method::GET,
            |_| "/api/v1/audit/transcripts?from_us=0&to_us=1".into(),
            none,
            &[Pitboss, Auditor],
            200,
        ),
    ];
    for (name, path) in [
        ("health", "/health"),
        ("ready", "/ready"),
        ("metrics", "/metrics"),
        ("list games", "/api/v1/games"),
    ] {
        let mut c = case(name, Method::GET, move |_| path.into(), none, ALL, 200);
        c.authenticated = false;
        list.push(c);
    }
    // Anyone checks a round, with no account (docs/transcript.md).
    let mut c = case(
        "a Prima Carta round's verification",
        Method::GET,
        |f| format!("/api/v1/rounds/{}/verification", f.prima_round),
        none,
        ALL,
        200,
    );
    c.authenticated = false;
    list.push(c);
    list
}

both_backends!(
    async fn each_endpoint_admits_exactly_its_roles(app: TestApp) {
        let mut by_role = Vec::new();
        for role in Role::ALL {
            by_role.push((role, app.create_user(role).await));
        }
        let player = by_role.iter().find(|(r, _)| *r == Player).unwrap().1.clone();
        let other_player = app.create_user(Player).await;
        let staff_target = app.create_user(Dealer).await;
        let cashier = by_role.iter().find(|(r, _)| *r == Cashier).unwrap().1.clone();
        app.fund(&cashier, &other_player.id, "100.00").await;
        let pit_boss = by_role.iter().find(|(r, _)| *r == Pitboss).unwrap().1.clone();
        let lobo_table = open_table(&app, djego::tables::TableConfig::demo_lobo());
        let mut contests = Vec::new();
        for _ in 0..2 {
            let made = app
                .post(
                    &format!("/api/v1/tables/{lobo_table}/lobo-contests"),
                    Some(&pit_boss.token),
                    &contest_terms(),
                    None,
                )
                .await
                .expect(201);
            contests.push(made["id"].as_str().unwrap().to_string());
        }
        app.post(
            &format!("/api/v1/lobo-contests/{}/void", contests[1]),
            Some(&pit_boss.token),
            &json!({ "reason": "roles test" }),
            None,
        )
        .await
        .expect(200);
        let prima_round = prima_round(&app, &staff_target.id);
        let fixture = Fixture {
            by_role,
            player,
            other_player,
            staff_target,
            peg_leg_table: open_table(&app, djego::tables::TableConfig::demo_peg_leg()),
            lobo_table,
            contest: contests[0].clone(),
            voided_contest: contests[1].clone(),
            prima_round,
        };

        let mut failures = Vec::new();
        for c in cases() {
            for (role, user) in &fixture.by_role {
                let mut req = app.request(c.method.clone(), &(c.path)(&fixture), Some(&user.token));
                if let Some(body) = (c.body)(&fixture) {
                    req = req.json(&body);
                }
                let r = app.send(req).await;
                let allowed = c.allowed.contains(role) || !c.authenticated;
                if allowed {
                    if r.status != c.ok_status {
                        failures.push(format!(
                            "{} as {role}: expected {}, got {} {}",
                            c.name, c.ok_status, r.status, r.text
                        ));
                    }
                } else if r.status != 403 {
                    failures.push(format!(
                        "{} as {role}: expected 403, got {} {}",
                        c.name, r.status, r.text
                    ));
                } else {
                    r.assert_error(403, "forbidden");
                }
            }
            // Without a token.
            let mut req = app.request(c.method.clone(), &(c.path)(&fixture), None);
            if let Some(body) = (c.body)(&fixture) {
                req = req.json(&body);
            }
            let r = app.send(req).await;
            if c.authenticated {
                if r.status != 401 {
                    failures.push(format!(
                        "{} without a token: expected 401, got {} {}",
                        c.name, r.status, r.text
                    ));
                } else {
                    r.assert_error(401, "unauthenticated");
                }
            } else if r.status != c.ok_status {
                failures.push(format!(
                    "{} without a token: expected {}, got {} {}",
                    c.name, c.ok_status, r.status, r.text
                ));
            }
        }
        assert!(failures.is_empty(), "role table mismatches:\n{}", failures.join("\n"));

        // Money moved only for the cashier: +1.00 -1.00 +0.50.
        assert_eq!(app.balance(&fixture.other_player.id).await, "100.50");
    }
);

both_backends!(
    async fn a_cashier_creates_players_only_and_a_pitboss_creates_staff(app: TestApp) {
        let cashier = app.create_user(Cashier).await;
        let boss = app.create_user(Pitboss).await;
        for role in ["dealer", "cashier", "pitboss", "auditor"] {
            let body = json!({ "username": fresh_name("s"), "role": role, "password": "a-long-password" });
            app.post("/api/v1/users", Some(&cashier.token), &body, None)
                .await
                .assert_error(403, "forbidden");
            let answer = app.post("/api/v1/users", Some(&boss.token), &body, None).await;
            // A pit boss's or an auditor's account waits for a second pit boss.
            let created = if matches!(role, "pitboss" | "auditor") {
                app.approve(&answer.expect(202)).await["result"].clone()
            } else {
                answer.expect(201)
            };
            assert_eq!(created["role"], role);
            // The new account can log in with its role.
            let login = app
                .try_login(body["username"].as_str().unwrap(), "a-long-password")
                .await
                .expect(200);
            assert_eq!(login["role"], role);
        }
        // A player created by the cashier has an empty wallet.
        let name = fresh_name("newp");
        let p = app
            .post(
                "/api/v1/users",
                Some(&cashier.token),
                &json!({ "username": name, "role": "player", "password": "a-long-password" }),
                None,
            )
            .await
            .expect(201);
        let id = p["id"].as_str().unwrap();
        assert_eq!(app.balance(id).await, "0.00");
        // A taken username is a 409.
        app.post(
            "/api/v1/users",
            Some(&cashier.token),
            &json!({ "username": name, "role": "player", "password": "a-long-password" }),
            None,
        )
        .await
        .assert_error(409, "username_taken");
        // A cashier lists players only.
        app.get("/api/v1/users?role=auditor", Some(&cashier.token))
            .await
            .assert_error(403, "forbidden");
        let players = app.get("/api/v1/users", Some(&cashier.token)).await.expect(200);
        assert!(
            players.as_array().unwrap().iter().all(|u| u["role"] == "player"),
            "{players}"
        );
    }
);

both_backends!(
    async fn role_changes_are_significant_events(app: TestApp) {
        let boss = app.create_user(Pitboss).await;
        let dealer = app.create_user(Dealer).await;
        let player = app.create_user(Player).await;
        let changed = app
            .put(
                &format!("/api/v1/users/{}", dealer.id),
                Some(&boss.token),
                &json!({ "role": "cashier" }),
                None,
            )
            .await
            .expect(200);
        assert_eq!(changed["role"], "cashier");
        // The dealer's old token still carries the old role until it expires, but a
        // fresh login carries the new one.
        let login = app.try_login(&dealer.username, &dealer.password).await.expect(200);
        assert_eq!(login["role"], "cashier");
        let events = app.events("role_changed").await;
        assert!(
            events
                .iter()
                .any(|e| e["subject"] == dealer.id.as_str() && e["actor_id"] == boss.id.as_str()),
            "{events:?}"
        );
        // Players and staff are not converted into each other; nobody edits themself.
        app.put(
            &format!("/api/v1/users/{}", player.id),
            Some(&boss.token),
            &json!({ "role": "dealer" }),
            None,
        )
        .await
        .assert_error(422, "role_change_not_allowed");
        app.put(
            &format!("/api/v1/users/{}", dealer.id),
            Some(&boss.token),
            &json!({ "role": "player" }),
            None,
        )
        .await
        .assert_error(422, "role_change_not_allowed");
        app.put(
            &format!("/api/v1/users/{}", boss.id),
            Some(&boss.token),
            &json!({ "active": false }),
            None,
        )
        .await
        .assert_error(422, "self_change");
        app.put(
            "/api/v1/users/no-such-user",
            Some(&boss.token),
            &json!({ "active": false }),
            None,
        )
        .await
        .assert_error(404, "not_found");
    }
);

both_backends!(
    async fn the_roster_names_accounts_to_staff_and_to_nobody_else(app: TestApp) {
        let dealer = app.create_user(Dealer).await;
        let player = app.create_user(Player).await;
        let other = app.create_user(Player).await;
        let path = format!("/api/v1/roster?ids={}, {},no-such-account", player.id, dealer.id);
        let named = app.get(&path, Some(&dealer.token)).await.expect(200);
        let mut names: Vec<(&str, &str, &str)> = named
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["id"].as_str().unwrap(),
                    e["username"].as_str().unwrap(),
                    e["role"].as_str().unwrap(),
                )
            })
            .collect();
        names.sort();
        let mut expected = vec![
            (player.id.as_str(), player.username.as_str(), "player"),
            (dealer.id.as_str(), dealer.username.as_str(), "dealer"),
        ];
        expected.sort();
        assert_eq!(names, expected, "{named}");
        // A player learns no other player's name this way.
        app.get(&format!("/api/v1/roster?ids={}", other.id), Some(&player.token))
            .await
            .assert_error(403, "forbidden");
        let too_many = vec![other.id.clone(); 201].join(",");
        app.get(&format!("/api/v1/roster?ids={too_many}"), Some(&dealer.token))
            .await
            .assert_error(400, "too_many_ids");
    }
);
