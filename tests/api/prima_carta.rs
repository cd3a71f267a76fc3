//! Prima Carta rounds over HTTP on both backends: complete classic, Cinco and
//! Jasper rounds reconciling to the cent, recalls that verify and replay, state
//! guards (409/403/422), voids that refund every stake, and secrecy of the
//! server seed and of undealt cards before settlement.

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use djego::cards::transcript::{verify, ShuffleTranscript};
use djego::cards::{Card, Suit};
use djego::domain::Role;
use djego::games::prima_carta::{self as engine, CobreRule, CopaDecision, TableRules, Variant};

use crate::helpers::{TestApp, TestResponse, TestUser};

pub const SUITS: [&str; 5] = ["crowns", "locks", "fruit", "swords", "cups"];

// ---------------------------------------------------------------------------
// Money
// ---------------------------------------------------------------------------

pub fn minor(text: &str) -> i64 {
    let neg = text.starts_with('-');
    let t = text.trim_start_matches('-');
    let (a, b) = t.split_once('.').unwrap_or((t, "00"));
    let b = format!("{b:0<2}");
    let v = a.parse::<i64>().unwrap() * 100 + b[..2].parse::<i64>().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

pub fn money(m: i64) -> String {
    let sign = if m < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", m.abs() / 100, m.abs() % 100)
}

pub fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

// ---------------------------------------------------------------------------
// The casino: a table with staff and funded players
// ---------------------------------------------------------------------------

pub struct Casino {
    pub pitboss: TestUser,
    pub dealer: TestUser,
    pub cashier: TestUser,
    pub players: Vec<TestUser>,
    pub table: String,
    pub unit: i64,
    pub seat_fee: i64,
    pub corte: bool,
    pub cobre: String,
    pub variant: String,
}

pub struct TableOptions<'a> {
    pub variant: &'a str,
    pub seat_fee: Option<&'a str>,
    pub corte: bool,
    pub cobre: &'a str,
    pub max_exposure: &'a str,
    pub players: usize,
    pub funds: &'a str,
}

impl Default for TableOptions<'_> {
    fn default() -> Self {
        TableOptions {
            variant: "classic",
            seat_fee: None,
            corte: true,
            cobre: "carry",
            max_exposure: "500.00",
            players: 2,
            funds: "1000.00",
        }
    }
}

pub fn table_config(o: &TableOptions<'_>) -> Value {
    json!({
        "game": "prima_carta", "variant": o.variant, "unit": "1.00", "seat_fee": o.seat_fee,
        "corte": o.corte, "cobre": o.cobre, "min_bet": "1.00", "max_bet": "100.00",
        "max_exposure_per_round": o.max_exposure, "strategy_advice": true
    })
}

/// Pit boss creates the table, assigns a dealer and opens it; the cashier funds the players.
pub async fn casino(app: &TestApp, o: TableOptions<'_>) -> Casino {
    let pitboss = app.create_user(Role::Pitboss).await;
    let dealer = app.create_user(Role::Dealer).await;
    let cashier = app.create_user(Role::Cashier).await;
    let name = format!("Centrale {}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let table = app
        .create_table(&pitboss, &json!({ "name": name, "config": table_config(&o) }))
        .await;
    let table = s(&table["id"]).to_string();
    app.put(
        &format!("/api/v1/tables/{table}/dealers/{}", dealer.id),
        Some(&pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    let opened = app
        .post(
            &format!("/api/v1/tables/{table}/open"),
            Some(&pitboss.token),
            &json!({}),
            None,
        )
        .await
        .expect(200);
    assert_eq!(opened["status"], "open", "{opened}");
    let mut players = Vec::new();
    for _ in 0..o.players {
        let p = app.create_user(Role::Player).await;
        app.fund(&cashier, &p.id, o.funds).await;
        players.push(p);
    }
    Casino {
        pitboss,
        dealer,
        cashier,
        players,
        table,
        unit: 100,
        seat_fee: o.seat_fee.map(minor).unwrap_or(0),
        corte: o.corte,
        cobre: o.cobre.to_string(),
        variant: o.variant.to_string(),
    }
}

impl Casino {
    pub fn player_by_id(&self, id: &str) -> &TestUser {
        self.players
            .iter()
            .find(|p| p.id == id)
            .unwrap_or_else(|| panic!("no player {id}"))
    }
}

pub async fn create_round(app: &TestApp, c: &Casino) -> Value {
    app.post(
        &format!("/api/v1/tables/{}/rounds", c.table),
        Some(&c.dealer.token),
        &json!({}),
        None,
    )
    .await
    .expect(201)
}

pub async fn seat(app: &TestApp, p: &TestUser, round: &str, suit: &str, key: Option<&str>) -> TestResponse {
    app.post(
        &format!("/api/v1/rounds/{round}/seats"),
        Some(&p.token),
        &json!({ "suit": suit, "client_seed": format!("seed of {}", &p.username[..10]) }),
        key,
    )
    .await
}

pub async fn dealer_action(app: &TestApp, c: &Casino, round: &str, action: &str) -> TestResponse {
    app.post(
        &format!("/api/v1/rounds/{round}/{action}"),
        Some(&c.dealer.token),
        &json!({}),
        None,
    )
    .await
}

pub async fn balances(app: &TestApp, c: &Casino) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for p in &c.players {
        out.insert(p.id.clone(), minor(&app.balance(&p.id).await));
    }
    out
}

/// Plays the copa to its end: a pseudo-random mix of pays and folds, some
/// given by the player, some by the dealer by voice. Returns the final view
/// (the view of whoever decided last).
pub async fn play_copa(app: &TestApp, c: &Casino, round: &str, mut view: Value, salt: u64) -> Value {
    // Who holds each suit, as the dealer sees it: a player's own view names only them.
    let staff_view = app
        .get(&format!("/api/v1/rounds/{round}"), Some(&c.dealer.token))
        .await
        .expect(200);
    let holder = |suit: &Value| -> String {
        let seat = staff_view["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["suit"] == *suit);
        s(&seat.unwrap_or_else(|| panic!("no seat {suit}"))["player_id"]).to_string()
    };
    let mut k = salt;
    while view["status"] == "copa" {
        k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let turn = &view["copa_turn"];
        let pay = (k >> 33) % 3 != 0;
        let decision = if pay { "pay" } else { "fold" };
        let r = if (k >> 40) % 4 == 0 {
            app.post(
                &format!("/api/v1/rounds/{round}/copa"),
                Some(&c.dealer.token),
                &json!({ "decision": decision, "suit": turn["suit"] }),
                None,
            )
            .await
        } else {
            let p = c.player_by_id(&holder(&turn["suit"]));
            app.post(
                &format!("/api/v1/rounds/{round}/copa"),
                Some(&p.token),
                &json!({ "decision": decision }),
                Some(&format!("copa-{round}-{k}")),
            )
            .await
        };
        view = r.expect(200);
    }
    view
}

/// Seats `n` players (suits chosen by the round number), closes, deals, plays the copa, settles.
pub async fn full_round(app: &TestApp, c: &Casino, n: usize, salt: u64) -> (String, String) {
    let round = create_round(app, c).await;
    let id = s(&round["id"]).to_string();
    assert_eq!(round["status"], "betting");
    assert!(round["server_seed"].is_null());
    let shift = (salt as usize) % 5;
    for (i, p) in c.players.iter().take(n).enumerate() {
        seat(app, p, &id, SUITS[(i + shift) % 5], Some(&format!("seat-{id}-{i}")))
            .await
            .expect(201);
    }
    let closed = dealer_action(app, c, &id, "close").await.expect(200);
    assert_eq!(closed["status"], "closed");
    let dealt = dealer_action(app, c, &id, "deal").await.expect(200);
    let view = play_copa(app, c, &id, dealt, salt).await;
    assert!(view["status"] == "finished" || view["status"] == "in_play", "{view}");
    let settled = dealer_action(app, c, &id, "settle").await.expect(200);
    assert_eq!(settled["status"], "settled");
    (id, s(&round["commitment"]).to_string())
}

pub async fn recall(app: &TestApp, round: &str) -> Value {
    let token = app.auditor().await.token.clone();
    app.get(&format!("/api/v1/rounds/{round}/recall"), Some(&token))
        .await
        .expect(200)
}

/// An account's net balance from the ledger's transfers.
pub async fn account_net(app: &TestApp, account: &str) -> i64 {
    let token = app.auditor().await.token.clone();
    let list = app
        .get(
            &format!("/api/v1/audit/ledger?account={account}&limit=500"),
            Some(&token),
        )
        .await
        .expect(200);
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let a = minor(s(&t["amount"]));
            if t["credit_account"] == account {
                a
            } else {
                assert_eq!(t["debit_account"], account);
                -a
            }
        })
        .sum()
}

/// Money reconciles to the cent: each player's wallet change is what the recall
/// says they paid and won; the pot and escrow end at zero; the ledger verifies.
pub async fn check_money(app: &TestApp, c: &Casino, before: &BTreeMap<String, i64>, rec: &Value) {
    let round = &rec["round"];
    let id = s(&round["id"]);
    let stored = &round["result"];
    let res = &stored["result"];
    let after = balances(app, c).await;
    let seated: BTreeMap<String, String> = round["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (s(&x["player_id"]).to_string(), s(&x["suit"]).to_string()))
        .collect();
    let copas_in_events: i64 = round["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "copa_paid")
        .map(|e| e["units"].as_i64().unwrap())
        .sum();
    let copas_in_result: i64 = res["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["copa_units"].as_i64().unwrap())
        .sum();
    assert_eq!(copas_in_events, copas_in_result, "copas: events vs result: {res}");
    let mut pot_in = 0;
    for p in &c.players {
        let mut expected = 0i64;
        if let Some(suit) = seated.get(&p.id) {
            let contribution = res["contributions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["suit"] == suit.as_str())
                .unwrap();
            let units = contribution["spiga_units"].as_i64().unwrap() + contribution["copa_units"].as_i64().unwrap();
            pot_in += units * c.unit;
            expected -= units * c.unit + c.seat_fee;
            if res["corte_payer"] == suit.as_str() {
                assert!(c.corte);
                expected -= res["corte_units"].as_i64().unwrap() * c.unit;
            }
            if res["winner"] == suit.as_str() {
                assert_eq!(stored["winner_player_id"], p.id.as_str());
                expected += minor(s(&stored["winner_paid"]));
            }
        }
        for b in rec["bets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["player_id"] == p.id.as_str())
        {
            expected += minor(s(&b["returned"])) - minor(s(&b["amount"]));
        }
        assert_eq!(
            after[&p.id] - before[&p.id],
            expected,
            "player {} in round {id}: {res}",
            p.username
        );
        // The recall's own transfers say the same.
        let wallet = format!("wallet:{}", p.id);
        let by_transfers: i64 = rec["transfers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let a = minor(s(&t["amount"]));
                (if t["credit_account"] == wallet.as_str() { a } else { 0 })
                    - (if t["debit_account"] == wallet.as_str() { a } else { 0 })
            })
            .sum();
        assert_eq!(by_transfers, expected, "transfers of round {id} for {}", p.username);
    }
    assert_eq!(pot_in, res["pot_units"].as_i64().unwrap() * c.unit);
    let cobre = res["cobre"]["units"].as_i64().unwrap_or(0) * c.unit;
    assert_eq!(
        minor(s(&stored["winner_paid"])),
        pot_in - cobre + minor(s(&stored["carried_cobre_in"]))
    );
    assert_eq!(account_net(app, &format!("pot:{id}")).await, 0, "pot of {id}");
    assert_eq!(account_net(app, &format!("escrow:{id}")).await, 0, "escrow of {id}");
    app.assert_ledger_sound().await;
}

pub fn transcript(rec: &Value) -> ShuffleTranscript {
    serde_json::from_value(rec["transcript"]["shuffle"].clone()).expect("the recall's transcript has a shuffle")
}

pub fn hex_sha256(hex_seed: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(hex::decode(hex_seed).unwrap()))
}

/// The recall's transcript verifies, its seed matches the commitment, and the
/// dealt order replays through the pure engine to the stored result.
pub fn check_recall(rec: &Value, commitment: &str, c: &Casino) {
    let t = transcript(rec);
    let report = verify(&t);
    assert!(report.passed, "transcript does not verify:\n{}", report.to_text());
    assert_eq!(t.commitment, commitment);
    assert_eq!(hex_sha256(&t.server_seed), commitment);
    assert_eq!(rec["round"]["server_seed"], t.server_seed.as_str());
    let dealt = t.deck.clone();
    let whole = djego::transcript::verify_document(rec);
    assert!(
        whole.passed,
        "the round does not replay from its transcript:\n{}",
        whole.to_text()
    );
    let res = &rec["round"]["result"]["result"];
    // Jasper reshuffles once whenever the deal-out goes past the first pass:
    // a repasso, or a round won at the copa with no suit complete yet (the
    // side bets settle on the full deal-out).
    let first_pass_completed = rec["round"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "suit_completed" && e["pass"] == 1);
    if c.variant == "jasper" && !first_pass_completed {
        assert_eq!(t.reshuffles.len(), 1, "Jasper's reshuffle is in the transcript");
        let deal_out = rec["transcript"]["deal_out_events"].as_array().unwrap();
        assert!(
            deal_out.iter().any(|e| e["type"] == "reshuffled"),
            "and in the deal-out's events"
        );
    } else {
        assert!(t.reshuffles.is_empty());
    }
    let deck: Vec<Card> = dealt.iter().map(|&i| Card::from_id(i).unwrap()).collect();
    let rules = TableRules {
        variant: match c.variant.as_str() {
            "classic" => Variant::Classic,
            "cinco" => Variant::Cinco,
            _ => Variant::Jasper,
        },
        corte: c.corte,
        cobre: match c.cobre.as_str() {
            "off" => CobreRule::Off,
            "carry" => CobreRule::Carry,
            _ => CobreRule::House,
        },
    };
    let seated: Vec<Suit> = rec["round"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| Suit::parse(s(&x["suit"])).unwrap())
        .collect();
    let decisions: Vec<CopaDecision> = rec["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| CopaDecision {
            suit: Suit::parse(s(&d["suit"])).unwrap(),
            pay: d["pay"].as_bool().unwrap(),
        })
        .collect();
    let mut reshuffles = t.reshuffles.iter();
    let progress = engine::play(&deck, &rules, &seated, &decisions, &mut |cards: &mut [Card]| {
        let r = reshuffles.next().expect("a reshuffle the transcript records");
        let before: Vec<u8> = cards.iter().map(|c| c.id()).collect();
        assert_eq!(before, r.before);
        for (card, id) in cards.iter_mut().zip(&r.after) {
            *card = Card::from_id(*id).unwrap();
        }
    })
    .expect("the recall replays");
    let replayed = serde_json::to_value(progress.result().expect("finished")).unwrap();
    assert_eq!(&replayed, res, "replayed result");
    assert_eq!(
        serde_json::to_value(&progress.events).unwrap(),
        rec["round"]["events"],
        "replayed events"
    );
    // The side-bet facts agree with the dealt order.
    let facts = &rec["round"]["result"]["facts"];
    assert_eq!(facts["first_card"].as_u64().unwrap() as u8, dealt[0]);
    let (independent, reshuffled) = independent_facts(&t, c.variant == "jasper");
    assert_eq!(facts, &independent, "the side-bet facts of the full deal-out");
    if let (Some(r), Some(mine)) = (t.reshuffles.first(), reshuffled) {
        assert_eq!(r.after, mine, "the Jasper reshuffle continues the deck's stream");
    }
    assert_eq!(res["prima"], SUITS[dealt[0] as usize / 10]);
}

// ---------------------------------------------------------------------------
// An independent deal-out (docs/shuffle.md), written from
// the text for the test: recomputes the side-bet facts from the revealed seeds.
// ---------------------------------------------------------------------------

/// Five values in suit order as the API shows them: an object by suit name.
fn by_suit<T: serde::Serialize>(values: &[T]) -> Value {
    SUITS
        .iter()
        .zip(values)
        .map(|(suit, v)| (suit.to_string(), json!(v)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// `shuffle-v1`'s uniform draw and Fisher–Yates (docs/shuffle.md) over the ChaCha20 words of the round's stream.
fn spec_shuffle(stream: &mut djego::cards::shuffle::Shuffler, items: &mut [u8]) {
    let mut uniform = |n: u32| -> u32 {
        let t = n.wrapping_neg() % n;
        loop {
            let x = stream.next_u32();
            if x >= t {
                return x % n;
            }
        }
    };
    for i in (1..items.len()).rev() {
        let j = uniform(i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

#[derive(Default)]
struct Layout {
    top: [Option<u8>; 5],
    count: [u8; 5],
    foundation: [Option<u8>; 5],
    foundation_order: Vec<usize>,
    completed: Vec<usize>,
    discard: Vec<u8>,
}

impl Layout {
    fn playable(&self, id: u8) -> bool {
        let (suit, rank) = (id as usize / 10, id % 10 + 1);
        match self.top[suit] {
            None => true,
            Some(top) => self.count[suit] < 10 && rank == top % 10 + 1,
        }
    }
    fn place(&mut self, id: u8) {
        let suit = id as usize / 10;
        if self.top[suit].is_none() {
            self.foundation[suit] = Some(id);
            self.foundation_order.push(suit);
        }
        self.top[suit] = Some(id % 10 + 1);
        self.count[suit] += 1;
        if self.count[suit] == 10 {
            self.completed.push(suit);
        }
    }
    fn play_up(&mut self) {
        while let Some(&top) = self.discard.last() {
            if !self.playable(top) {
                break;
            }
            self.discard.pop();
            self.place(top);
        }
    }
    fn pass(&mut self, deck: &[u8]) {
        for &id in deck {
            self.play_up();
            if self.playable(id) {
                self.place(id);
            } else {
                self.discard.push(id);
            }
        }
        self.play_up();
    }
}

/// The facts of the full deal-out, recomputed from the transcript's seeds.
/// Returns (facts as JSON, the Jasper reshuffle if one was needed).
fn independent_facts(t: &ShuffleTranscript, jasper: bool) -> (Value, Option<Vec<u8>>) {
    use djego::cards::shuffle::{deck_seed, Game, ServerSeed, Shuffler};
    let seed = ServerSeed::from_hex(&t.server_seed).unwrap();
    let mut stream = Shuffler::from_deck_seed(deck_seed(&seed, Game::PrimaCarta, &t.round_id, &t.client_seed));
    let mut deck: Vec<u8> = (0..50).collect();
    spec_shuffle(&mut stream, &mut deck);
    assert_eq!(deck, t.deck, "the independent shuffle agrees with the transcript");
    let mut layout = Layout::default();
    layout.pass(&deck);
    let counts = layout.count;
    let n: u8 = counts.iter().sum();
    let foundations: Vec<u8> = layout
        .foundation
        .iter()
        .map(|f| f.expect("every suit is dealt in the first pass"))
        .collect();
    let order: Vec<&str> = layout.foundation_order.iter().map(|&i| SUITS[i]).collect();
    let mut reshuffled = None;
    let mut passes = 1;
    while layout.completed.is_empty() {
        let mut next = std::mem::take(&mut layout.discard);
        if jasper && passes == 1 {
            spec_shuffle(&mut stream, &mut next);
            reshuffled = Some(next.clone());
        }
        layout.pass(&next);
        passes += 1;
        assert!(passes < 60, "the deal-out does not end");
    }
    let facts = json!({
        "first_card": deck[0],
        "foundations": by_suit(&foundations),
        "foundation_order": order,
        "first_pass_counts": by_suit(&counts),
        "first_pass_count": n,
        "first_to_complete": SUITS[layout.completed[0]],
    });
    (facts, reshuffled)
}

// ---------------------------------------------------------------------------
// Complete rounds
// ---------------------------------------------------------------------------

async fn play_many(app: &TestApp, o: TableOptions<'_>, rounds: u64) -> Vec<Value> {
    let max = o.players;
    let c = casino(app, o).await;
    let mut recalls = Vec::new();
    for k in 0..rounds {
        let n = 2 + (k as usize % (max - 1));
        let before = balances(app, &c).await;
        let (id, commitment) = full_round(app, &c, n, k * 7 + 3).await;
        let rec = recall(app, &id).await;
        check_money(app, &c, &before, &rec).await;
        check_recall(&rec, &commitment, &c);
        recalls.push(rec);
    }
    recalls
}

both_backends!(
    async fn classic_rounds_reconcile_and_replay(app: TestApp) {
        let recalls = play_many(
            &app,
            TableOptions {
                players: 5,
                seat_fee: Some("0.50"),
                cobre: "carry",
                ..Default::default()
            },
            8,
        )
        .await;
        let seats: BTreeSet<usize> = recalls
            .iter()
            .map(|r| r["round"]["seats"].as_array().unwrap().len())
            .collect();
        assert_eq!(seats, BTreeSet::from([2, 3, 4, 5]));
        let hows: Vec<&str> = recalls
            .iter()
            .map(|r| s(&r["round"]["result"]["result"]["how"]))
            .collect();
        let cobres = recalls
            .iter()
            .filter(|r| !r["round"]["result"]["result"]["cobre"].is_null())
            .count();
        let carried: Vec<&str> = recalls
            .iter()
            .map(|r| s(&r["round"]["result"]["carried_cobre_in"]))
            .collect();
        eprintln!("classic wins: {hows:?}; rounds with a cobre: {cobres}; carried in: {carried:?}");
    }
);

both_backends!(
    async fn cinco_rounds_reconcile_and_replay(app: TestApp) {
        let recalls = play_many(
            &app,
            TableOptions {
                variant: "cinco",
                players: 5,
                cobre: "house",
                corte: false,
                ..Default::default()
            },
            5,
        )
        .await;
        for r in &recalls {
            let how = &r["round"]["result"]["result"]["how"];
            assert!(how == "cinco_tallest" || how == "first_pass_completion", "{how}");
            assert!(r["decisions"].as_array().unwrap().is_empty());
        }
    }
);

both_backends!(
    async fn jasper_rounds_reconcile_reshuffle_and_replay(app: TestApp) {
        let recalls = play_many(
            &app,
            TableOptions {
                variant: "jasper",
                players: 4,
                seat_fee: Some("0.50"),
                cobre: "house",
                ..Default::default()
            },
            8,
        )
        .await;
        let reshuffled = recalls
            .iter()
            .filter(|r| !r["transcript"]["shuffle"]["reshuffles"].as_array().unwrap().is_empty())
            .count();
        eprintln!("jasper rounds with a reshuffle: {reshuffled} of {}", recalls.len());
        assert!(reshuffled > 0, "no Jasper round reached the repasso");
    }
);

// ---------------------------------------------------------------------------
// State guards
// ---------------------------------------------------------------------------

both_backends!(
    async fn state_guards(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 3,
                seat_fee: Some("0.50"),
                ..Default::default()
            },
        )
        .await;
        let (p0, p1, p2) = (&c.players[0], &c.players[1], &c.players[2]);
        let stranger = app.create_user(Role::Dealer).await;
        let mut reached_copa = false;
        for attempt in 0..6u64 {
            let round = create_round(&app, &c).await;
            let id = s(&round["id"]).to_string();
            // A second round at the same table while one is in progress: refused, naming it.
            let refused = app
                .post(
                    &format!("/api/v1/tables/{}/rounds", c.table),
                    Some(&c.dealer.token),
                    &json!({}),
                    None,
                )
                .await;
            refused.assert_error(409, "round_in_progress");
            assert!(
                refused.text.contains(&id),
                "the refusal names the round in progress: {}",
                refused.text
            );
            let b0 = minor(&app.balance(&p0.id).await);
            let key = format!("seat-{id}");
            let first = seat(&app, p0, &id, "crowns", Some(&key)).await.expect(201);
            let again = seat(&app, p0, &id, "crowns", Some(&key)).await.expect(201);
            assert_eq!(first, again, "a retried seat returns the original result");
            assert_eq!(
                minor(&app.balance(&p0.id).await),
                b0 - 100 - 50 - 100,
                "spiga, seat fee and corte escrow, once"
            );
            // The seated player finds the round among their own, still going.
            let mine = app.get("/api/v1/me/rounds", Some(&p0.token)).await.expect(200);
            assert_eq!(mine["open"][0]["round_id"], id.as_str(), "{mine}");
            assert_eq!(mine["open"][0]["game"], "prima_carta");
            dealer_action(&app, &c, &id, "close")
                .await
                .assert_error(422, "not_enough_players");
            seat(&app, p0, &id, "fruit", None)
                .await
                .assert_error(409, "already_seated");
            seat(&app, p1, &id, "crowns", None)
                .await
                .assert_error(409, "suit_taken");
            seat(&app, p1, &id, "locks", None).await.expect(201);
            dealer_action(&app, &c, &id, "deal")
                .await
                .assert_error(409, "wrong_round_state");
            app.post(
                &format!("/api/v1/rounds/{id}/close"),
                Some(&stranger.token),
                &json!({}),
                None,
            )
            .await
            .assert_error(403, "forbidden");
            app.post(&format!("/api/v1/rounds/{id}/close"), Some(&p0.token), &json!({}), None)
                .await
                .assert_error(403, "forbidden");
            dealer_action(&app, &c, &id, "close").await.expect(200);
            dealer_action(&app, &c, &id, "close")
                .await
                .assert_error(409, "wrong_round_state");
            let b2 = app.balance(&p2.id).await;
            seat(&app, p2, &id, "fruit", None)
                .await
                .assert_error(409, "wrong_round_state");
            assert_eq!(app.balance(&p2.id).await, b2, "a refused seat moves no money");
            app.post(
                &format!("/api/v1/rounds/{id}/deal"),
                Some(&stranger.token),
                &json!({}),
                None,
            )
            .await
            .assert_error(403, "forbidden");
            dealer_action(&app, &c, &id, "settle")
                .await
                .assert_error(409, "wrong_round_state");

            // Two deal requests at once: exactly one deals.
            let seq = app.last_seq().await;
            let (a, b) = tokio::join!(
                dealer_action(&app, &c, &id, "deal"),
                dealer_action(&app, &c, &id, "deal")
            );
            let mut codes = vec![a.status, b.status];
            codes.sort();
            assert_eq!(codes, vec![200, 409], "concurrent deals: {} / {}", a.text, b.text);
            let dealt = if a.status == 200 { a.json() } else { b.json() };
            assert_eq!(
                app.last_seq().await,
                seq + 2,
                "the corte moved once (one tip or refund per seat)"
            );
            dealer_action(&app, &c, &id, "deal")
                .await
                .assert_error(409, "wrong_round_state");

            let mut view = dealt;
            if view["status"] == "copa" {
                reached_copa = true;
                let turn = view["copa_turn"].clone();
                let (mover, other) = if turn["player_id"] == p0.id.as_str() {
                    (p0, p1)
                } else {
                    (p1, p0)
                };
                let other_suit = if other.id == p0.id { "crowns" } else { "locks" };
                // The other player, out of turn.
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&other.token),
                    &json!({ "decision": "pay" }),
                    None,
                )
                .await
                .assert_error(409, "not_your_turn");
                // A player deciding another's seat.
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&other.token),
                    &json!({ "decision": "fold", "suit": turn["suit"] }),
                    None,
                )
                .await
                .assert_error(403, "forbidden");
                // A player not seated.
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&p2.token),
                    &json!({ "decision": "fold" }),
                    None,
                )
                .await
                .assert_error(403, "forbidden");
                // A dealer not assigned to the table.
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&stranger.token),
                    &json!({ "decision": "pay", "suit": turn["suit"] }),
                    None,
                )
                .await
                .assert_error(403, "forbidden");
                // The assigned dealer must name the suit, and only the one in turn.
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&c.dealer.token),
                    &json!({ "decision": "pay" }),
                    None,
                )
                .await
                .assert_error(422, "suit_required");
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&c.dealer.token),
                    &json!({ "decision": "pay", "suit": other_suit }),
                    None,
                )
                .await
                .assert_error(409, "not_your_turn");
                // The dealer records the turn player's spoken decision.
                let mb = minor(&app.balance(&mover.id).await);
                view = app
                    .post(
                        &format!("/api/v1/rounds/{id}/copa"),
                        Some(&c.dealer.token),
                        &json!({ "decision": "pay", "suit": turn["suit"] }),
                        None,
                    )
                    .await
                    .expect(200);
                assert_eq!(
                    minor(&app.balance(&mover.id).await),
                    mb - minor(s(&turn["copa"])),
                    "the copa moved from the mover's wallet"
                );
                view = play_copa(&app, &c, &id, view, attempt).await;
                assert!(view["status"] == "finished" || view["status"] == "in_play", "{view}");
                dealer_action(&app, &c, &id, "settle").await.expect(200);
                dealer_action(&app, &c, &id, "settle")
                    .await
                    .assert_error(409, "wrong_round_state");
                app.post(
                    &format!("/api/v1/rounds/{id}/copa"),
                    Some(&mover.token),
                    &json!({ "decision": "pay" }),
                    None,
                )
                .await
                .assert_error(409, "wrong_round_state");
                let rec = recall(&app, &id).await;
                let first = &rec["decisions"][0];
                assert_eq!(first["suit"], turn["suit"]);
                assert_eq!(first["source"], "dealer_voice");
                assert_eq!(first["recorded_by"], c.dealer.id.as_str());
                assert_eq!(first["pay"], true);
                // Recall: another player who did not take part may not read it; a dealer neither.
                app.get(&format!("/api/v1/rounds/{id}/recall"), Some(&p2.token))
                    .await
                    .assert_error(403, "forbidden");
                app.get(&format!("/api/v1/rounds/{id}/recall"), Some(&c.dealer.token))
                    .await
                    .assert_error(403, "forbidden");
                app.get(&format!("/api/v1/rounds/{id}/recall"), Some(&p0.token))
                    .await
                    .expect(200);
                break;
            }
            assert_eq!(view["status"], "finished");
            dealer_action(&app, &c, &id, "settle").await.expect(200);
            dealer_action(&app, &c, &id, "settle")
                .await
                .assert_error(409, "wrong_round_state");
        }
        assert!(reached_copa, "no round reached the copa in six tries");
        // After settlement the pit boss cannot void.
        let last = app
            .get(
                &format!("/api/v1/tables/{}/rounds?limit=1", c.table),
                Some(&c.pitboss.token),
            )
            .await
            .expect(200);
        let last = s(&last[0]["id"]).to_string();
        app.post(
            &format!("/api/v1/rounds/{last}/void"),
            Some(&c.pitboss.token),
            &json!({ "reason": "too late" }),
            None,
        )
        .await
        .assert_error(409, "wrong_round_state");
    }
);

both_backends!(
    async fn void_before_deal_refunds_every_stake(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 3,
                seat_fee: Some("0.50"),
                corte: true,
                ..Default::default()
            },
        )
        .await;
        let (p0, p1, p2) = (&c.players[0], &c.players[1], &c.players[2]);
        for close_first in [false, true] {
            let before = balances(&app, &c).await;
            let tb_before = app.trial_balance().await;
            let round = create_round(&app, &c).await;
            let id = s(&round["id"]).to_string();
            seat(&app, p0, &id, "swords", None).await.expect(201);
            seat(&app, p1, &id, "cups", None).await.expect(201);
            for (p, kind, sel) in [
                (p0, "prima", json!({"suit": "fruit"})),
                (p2, "conto_medio", json!({})),
                (p2, "cartas", json!({"number": 13})),
            ] {
                let mut body = json!({ "kind": kind, "amount": "3.25" });
                body.as_object_mut().unwrap().extend(sel.as_object().unwrap().clone());
                app.post(&format!("/api/v1/rounds/{id}/bets"), Some(&p.token), &body, None)
                    .await
                    .expect(201);
            }
            assert_eq!(minor(&app.balance(&p0.id).await), before[&p0.id] - 100 - 50 - 100 - 325);
            assert_eq!(minor(&app.balance(&p2.id).await), before[&p2.id] - 650);
            if close_first {
                dealer_action(&app, &c, &id, "close").await.expect(200);
            }
            // Only a pit boss voids, with a reason.
            app.post(
                &format!("/api/v1/rounds/{id}/void"),
                Some(&c.dealer.token),
                &json!({ "reason": "dealer wants out" }),
                None,
            )
            .await
            .assert_error(403, "forbidden");
            app.post(
                &format!("/api/v1/rounds/{id}/void"),
                Some(&c.pitboss.token),
                &json!({ "reason": "" }),
                None,
            )
            .await
            .assert_error(400, "invalid_reason");
            let voided = app
                .post(
                    &format!("/api/v1/rounds/{id}/void"),
                    Some(&c.pitboss.token),
                    &json!({ "reason": "shoe dropped on the floor" }),
                    None,
                )
                .await
                .expect(200);
            assert_eq!(voided["status"], "voided");
            assert_eq!(
                hex_sha256(s(&voided["server_seed"])),
                s(&round["commitment"]),
                "a void reveals the committed seed"
            );
            assert_eq!(balances(&app, &c).await, before, "every stake refunded exactly");
            assert_eq!(account_net(&app, &format!("pot:{id}")).await, 0);
            assert_eq!(account_net(&app, &format!("escrow:{id}")).await, 0);
            let tb = app.trial_balance().await;
            for house in ["house:revenue", "house:tips", "house:bankroll"] {
                let bal = |tb: &Value| {
                    tb["accounts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|a| a["account"] == house)
                        .map(|a| a["balance"].clone())
                };
                assert_eq!(bal(&tb), bal(&tb_before), "{house} unchanged by a voided round");
            }
            let rec = recall(&app, &id).await;
            assert!(rec["bets"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["status"] == "refunded" && b["returned"] == b["amount"]));
            let report = verify(&transcript(&rec));
            assert!(report.passed, "{}", report.to_text());
            dealer_action(&app, &c, &id, "deal")
                .await
                .assert_error(409, "wrong_round_state");
            app.post(
                &format!("/api/v1/rounds/{id}/void"),
                Some(&c.pitboss.token),
                &json!({ "reason": "twice" }),
                None,
            )
            .await
            .assert_error(409, "wrong_round_state");
            assert!(app
                .events("round_voided")
                .await
                .iter()
                .any(|e| e.to_string().contains(&id)));
            app.assert_ledger_sound().await;
        }
        // After the deal: 409, and nothing moves.
        let round = create_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        seat(&app, p0, &id, "swords", None).await.expect(201);
        seat(&app, p1, &id, "cups", None).await.expect(201);
        dealer_action(&app, &c, &id, "close").await.expect(200);
        dealer_action(&app, &c, &id, "deal").await.expect(200);
        let seq = app.last_seq().await;
        app.post(
            &format!("/api/v1/rounds/{id}/void"),
            Some(&c.pitboss.token),
            &json!({ "reason": "cards are out" }),
            None,
        )
        .await
        .assert_error(409, "wrong_round_state");
        assert_eq!(app.last_seq().await, seq);
    }
);

// ---------------------------------------------------------------------------
// Secrecy
// ---------------------------------------------------------------------------

/// Reads the first Server-Sent Event of a table's stream (it must be `state`).
pub async fn first_sse_event(app: &TestApp, token: &str, table: &str) -> (String, String) {
    let mut resp = app
        .request(
            reqwest::Method::GET,
            &format!("/api/v1/tables/{table}/events"),
            Some(token),
        )
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(resp.status().as_u16(), 200);
    let mut buf = String::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        while !buf.contains("\n\n") {
            match resp.chunk().await.expect("a chunk") {
                Some(bytes) => buf.push_str(&String::from_utf8_lossy(&bytes)),
                None => break,
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no first event within 10 s: {buf:?}");
    let block = buf.split("\n\n").next().unwrap().to_string();
    let name = block
        .lines()
        .find_map(|l| l.strip_prefix("event:"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let data: String = block
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|s| s.trim_start())
        .collect::<Vec<_>>()
        .join("\n");
    (name, data)
}

struct Secret {
    seed_hex: String,
    /// Card ids dealt so far, in order (empty before the deal).
    dealt: Vec<u8>,
}

fn secret_of(app: &TestApp, round: &str) -> (djego::rounds::record::RoundRow, String) {
    let row = app
        .state
        .db
        .read(|conn| -> Result<_, djego::api::error::ApiError> {
            Ok(djego::rounds::record::find(conn, round)?.expect("the round"))
        })
        .expect("round row");
    let seed = app
        .state
        .vault
        .open(&row.id, &row.server_seed_sealed)
        .expect("the sealed seed opens")
        .to_hex();
    (row, seed)
}

/// Every card id an event list shows, and checks that it is a view of the
/// first pass only (no repasso, no reshuffled order).
fn check_events(events: &Value, secret: &Secret, what: &str) {
    let Some(list) = events.as_array() else { return };
    let mut dealt_in_events = Vec::new();
    for e in list {
        if let Some(pass) = e.get("pass").and_then(Value::as_u64) {
            assert!(pass <= 1, "{what}: an event of pass {pass} before settlement: {e}");
        }
        if e["type"] == "reshuffled" {
            assert!(
                e["after"].as_array().map_or(true, |a| a.is_empty()),
                "{what}: the reshuffled order is shown: {e}"
            );
        }
        if e["type"] == "dealt" {
            dealt_in_events.push(e["card"].as_u64().unwrap() as u8);
        }
        if let Some(card) = e.get("card").and_then(Value::as_u64) {
            assert!(
                secret.dealt.contains(&(card as u8)),
                "{what}: card {card} was not dealt: {e}"
            );
        }
    }
    assert_eq!(
        &secret.dealt[..dealt_in_events.len()],
        &dealt_in_events[..],
        "{what}: events follow the deck"
    );
}

fn check_view(view: &Value, secret: &Secret, what: &str) {
    assert!(view["server_seed"].is_null(), "{what}: server seed shown: {view}");
    assert!(view["result"].is_null(), "{what}: result before settlement");
    check_events(&view["events"], secret, what);
}

async fn walk_every_get(app: &TestApp, c: &Casino, users: &[&TestUser], round: &str, secret: &Secret) {
    for u in users {
        let who = format!("{} ({})", u.role.as_str(), u.username);
        let mut texts: Vec<(String, String)> = Vec::new();
        let view = app
            .get(&format!("/api/v1/rounds/{round}"), Some(&u.token))
            .await
            .expect(200);
        check_view(&view, secret, &format!("round view as {who}"));
        texts.push(("round".into(), view.to_string()));
        let list = app
            .get(&format!("/api/v1/tables/{}/rounds", c.table), Some(&u.token))
            .await
            .expect(200);
        for v in list.as_array().unwrap().iter().filter(|v| v["id"] == round) {
            check_view(v, secret, &format!("round list as {who}"));
        }
        texts.push(("rounds".into(), list.to_string()));
        let ver = app
            .get(&format!("/api/v1/rounds/{round}/verification"), Some(&u.token))
            .await
            .expect(200);
        assert!(ver["transcript"].is_null(), "verification as {who}: {ver}");
        texts.push(("verification".into(), ver.to_string()));
        let bets = app.get(&format!("/api/v1/rounds/{round}/bets"), Some(&u.token)).await;
        match u.role {
            Role::Auditor | Role::Pitboss | Role::Player => assert_eq!(bets.status, 200, "{}", bets.text),
            _ => bets.assert_error(403, "forbidden"),
        }
        texts.push(("bets".into(), bets.text.clone()));
        for path in [
            format!("/api/v1/tables/{}", c.table),
            format!("/api/v1/tables/{}/pay-table", c.table),
        ] {
            let r = app.get(&path, Some(&u.token)).await;
            assert_eq!(r.status, 200, "{path}: {}", r.text);
            texts.push((path, r.text.clone()));
        }
        if u.role == Role::Player {
            let r = app.get("/api/v1/me/bets", Some(&u.token)).await.expect(200);
            texts.push(("me/bets".into(), r.to_string()));
            let r = app.get(&format!("/api/v1/rounds/{round}/advice"), Some(&u.token)).await;
            texts.push(("advice".into(), r.text.clone()));
        }
        if matches!(u.role, Role::Auditor | Role::Pitboss) {
            let r = app
                .get("/api/v1/audit/events?limit=500", Some(&u.token))
                .await
                .expect(200);
            texts.push(("events".into(), r.to_string()));
        }
        if u.role == Role::Auditor {
            let r = app
                .get(
                    &format!("/api/v1/audit/ledger?round_id={round}&limit=500"),
                    Some(&u.token),
                )
                .await
                .expect(200);
            texts.push(("ledger".into(), r.to_string()));
        }
        let rec = app.get(&format!("/api/v1/rounds/{round}/recall"), Some(&u.token)).await;
        match u.role {
            Role::Auditor | Role::Pitboss => rec.assert_error(409, "round_not_over"),
            Role::Player => assert!(rec.status == 409 || rec.status == 403, "recall as {who}: {}", rec.text),
            _ => rec.assert_error(403, "forbidden"),
        }
        texts.push(("recall".into(), rec.text.clone()));
        let (name, data) = first_sse_event(app, &u.token, &c.table).await;
        assert_eq!(name, "state", "first SSE event as {who}");
        let state: Value = serde_json::from_str(&data).expect("state is JSON");
        assert_eq!(state["id"], round, "the SSE state is the current round");
        check_view(&state, secret, &format!("SSE state as {who}"));
        texts.push(("sse".into(), data));
        for (what, text) in texts {
            assert!(
                !text.contains(&secret.seed_hex),
                "{what} as {who} contains the server seed"
            );
            assert!(
                !text.contains(&secret.seed_hex.to_uppercase()),
                "{what} as {who} contains the server seed (upper case)"
            );
        }
    }
}

both_backends!(
    async fn nothing_secret_before_settlement(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                variant: "jasper",
                players: 3,
                ..Default::default()
            },
        )
        .await;
        let pitboss = c.pitboss.clone();
        let dealer = c.dealer.clone();
        let cashier = c.cashier.clone();
        let auditor = app.auditor().await.clone();
        let outsider = app.create_user(Role::Player).await;
        let mut reached_copa = false;
        for attempt in 0..6u64 {
            let round = create_round(&app, &c).await;
            let id = s(&round["id"]).to_string();
            let commitment = s(&round["commitment"]).to_string();
            let (_, seed_hex) = secret_of(&app, &id);
            assert_eq!(
                hex_sha256(&seed_hex),
                commitment,
                "the commitment is the seed's SHA-256"
            );
            seat(&app, &c.players[0], &id, "crowns", None).await.expect(201);
            seat(&app, &c.players[1], &id, "fruit", None).await.expect(201);
            app.post(
                &format!("/api/v1/rounds/{id}/bets"),
                Some(&c.players[2].token),
                &json!({ "kind": "escucha", "suit": "cups", "amount": "2.00" }),
                None,
            )
            .await
            .expect(201);
            let users: Vec<&TestUser> = vec![
                &c.players[0],
                &c.players[2],
                &outsider,
                &dealer,
                &cashier,
                &pitboss,
                &auditor,
            ];
            let mut secret = Secret {
                seed_hex: seed_hex.clone(),
                dealt: Vec::new(),
            };
            walk_every_get(&app, &c, &users, &id, &secret).await;
            dealer_action(&app, &c, &id, "close").await.expect(200);
            walk_every_get(&app, &c, &users, &id, &secret).await;
            let dealt = dealer_action(&app, &c, &id, "deal").await.expect(200);
            if dealt["status"] != "copa" {
                dealer_action(&app, &c, &id, "settle").await.expect(200);
                continue;
            }
            reached_copa = true;
            // The whole deck is dealt in the first pass; what must stay hidden is
            // everything after it (the Jasper reshuffle and the repasso).
            let (row, _) = secret_of(&app, &id);
            let deal = djego::rounds::prima_carta::deal_of(&app.state.vault, &row).expect("the deck");
            secret.dealt = deal.deck.iter().map(|c| c.id()).collect();
            walk_every_get(&app, &c, &users, &id, &secret).await;
            // After the copa, before settlement: still nothing of the repasso.
            let view = play_copa(&app, &c, &id, dealt, attempt + 11).await;
            assert!(view["status"] == "finished" || view["status"] == "in_play", "{view}");
            walk_every_get(&app, &c, &users, &id, &secret).await;
            dealer_action(&app, &c, &id, "settle").await.expect(200);
            let rec = recall(&app, &id).await;
            assert_eq!(rec["transcript"]["shuffle"]["server_seed"], seed_hex.as_str());
            assert_eq!(
                hex_sha256(s(&rec["transcript"]["shuffle"]["server_seed"])),
                commitment,
                "the revealed seed matches the commitment published at creation"
            );
            let ver = app
                .get(&format!("/api/v1/rounds/{id}/verification"), Some(&outsider.token))
                .await
                .expect(200);
            assert_eq!(ver["transcript"]["shuffle"]["server_seed"], seed_hex.as_str());
            assert!(app
                .events("seed_revealed")
                .await
                .iter()
                .any(|e| e.to_string().contains(&id)));
            check_recall(&rec, &commitment, &c);
            break;
        }
        assert!(reached_copa, "no round reached the copa in six tries");
    }
);
