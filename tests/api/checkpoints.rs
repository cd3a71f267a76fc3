//! The insert-only ledger and its signed checkpoints: triggers that refuse
//! changes, checkpoints taken over HTTP, by the CLI and on a schedule, and
//! `djego verify ledger --checkpoints` catching what the chain alone cannot:
//! a consistent rewrite and a truncation by someone who owns the database.

use diesel::prelude::*;
use djego::checkpoints::{event_chain, CheckpointKey};
use djego::domain::Role;
use djego::ledger::{transfer_hash, Transfer, GENESIS_HASH};
use djego::significant_events::SignificantEvent;
use djego::store::schema::{event_chain as ec, significant_events as se, transfers as t};
use djego::store::StoreError;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use crate::helpers::{Backend, TestApp, TestUser};

/// Runs the built `djego` binary with nothing inherited that could change it.
pub async fn djego(args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(&args)
            .env("RUST_LOG", "warn")
            .env_remove("DATABASE_URL")
            .env_remove("DJEGO_MIGRATION_DATABASE_URL")
            .env_remove("DJEGO_CHECKPOINT_KEY")
            .env_remove("DJEGO_CHECKPOINT_KEY_FILE")
            .output()
            .expect("run djego")
    })
    .await
    .expect("the djego process")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `djego checkpoint export` into `dir`; returns the file.
async fn export(app: &TestApp, dir: &Path) -> String {
    let file = dir.join("checkpoints.json").display().to_string();
    let o = djego(&["checkpoint", "export", "--database-url", app.db.url(), "--out", &file]).await;
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    file
}

/// `djego verify ledger` on the app's database with `extra` arguments:
/// (exit code, the JSON report, standard error).
async fn verify_cli(app: &TestApp, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["verify", "ledger", "--database-url", app.db.url()];
    args.extend_from_slice(extra);
    let o = djego(&args).await;
    let report: Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("verify ledger printed no JSON ({e}): {}{}", stdout(&o), stderr(&o)));
    (o.status.code().expect("an exit code"), report, stderr(&o))
}

fn service_public_key(app: &TestApp) -> String {
    app.state.settings.checkpoint_key.public_key().to_hex()
}

async fn take_checkpoint(app: &TestApp, user: &TestUser) -> Value {
    app.post("/api/v1/audit/checkpoints", Some(&user.token), &json!({}), None)
        .await
        .expect(201)
}

/// The chains' failures; those of the Merkle trees the same checkpoints sign
/// are tested in transparency_log.rs.
fn failure_reasons(report: &Value) -> Vec<String> {
    report["checkpoints"]["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f["reason"].as_str().expect("reason").to_string())
        .filter(|r| {
            !r.starts_with("the transfers tree")
                && !r.starts_with("the events tree")
                && !r.contains(" does not extend checkpoint ")
        })
        .collect()
}

pub(crate) fn all_transfers(app: &TestApp) -> Vec<Transfer> {
    app.database()
        .read(|conn| {
            t::table
                .select(Transfer::as_select())
                .order(t::seq.asc())
                .load(conn)
                .map_err(StoreError::from)
        })
        .expect("transfers")
}

/// Statements that set every account's balance to what `transfers` add up to.
fn balances_of(transfers: &[Transfer]) -> Vec<String> {
    let mut balances: BTreeMap<&str, i64> = BTreeMap::new();
    for t in transfers {
        *balances.entry(&t.debit_account).or_default() -= t.amount_minor;
        *balances.entry(&t.credit_account).or_default() += t.amount_minor;
    }
    let mut statements = vec!["UPDATE accounts SET balance_minor = 0".to_string()];
    for (account, balance) in balances {
        statements.push(format!(
            "UPDATE accounts SET balance_minor = {balance} WHERE id = '{account}'"
        ));
    }
    statements
}

/// What someone who owns the database can do without the checkpoint key:
/// change transfer `seq`'s amount, rehash every transfer from it on with
/// djego's own chain function, move the head and fix every balance, so that
/// the chain and the balances check again.
pub(crate) fn rewrite_ledger_from(app: &TestApp, seq: i64, amount_minor: i64) {
    let mut transfers = all_transfers(app);
    let mut prev = match seq {
        1 => GENESIS_HASH.to_string(),
        _ => transfers[(seq - 2) as usize].hash.clone(),
    };
    let mut statements = Vec::new();
    for t in transfers.iter_mut().filter(|t| t.seq >= seq) {
        if t.seq == seq {
            t.amount_minor = amount_minor;
        }
        t.prev_hash = prev.clone();
        t.hash = transfer_hash(&t.prev_hash, t);
        statements.push(format!(
            "UPDATE transfers SET amount_minor = {}, prev_hash = '{}', hash = '{}' WHERE seq = {}",
            t.amount_minor, t.prev_hash, t.hash, t.seq
        ));
        prev = t.hash.clone();
    }
    statements.push(format!("UPDATE ledger_head SET hash = '{prev}' WHERE id = 1"));
    statements.extend(balances_of(&transfers));
    app.tamper(&statements);
}

/// Deletes every transfer after `keep` and rolls the head and the balances
/// back to how they stood then.
pub(crate) fn truncate_ledger_to(app: &TestApp, keep: i64) {
    let transfers: Vec<Transfer> = all_transfers(app).into_iter().filter(|t| t.seq <= keep).collect();
    let head = transfers.last().map_or(GENESIS_HASH.to_string(), |t| t.hash.clone());
    let mut statements = vec![
        format!("DELETE FROM transfers WHERE seq > {keep}"),
        format!("UPDATE ledger_head SET seq = {keep}, hash = '{head}' WHERE id = 1"),
    ];
    statements.extend(balances_of(&transfers));
    app.tamper(&statements);
}

fn chained_events(app: &TestApp) -> Vec<(i64, String, SignificantEvent)> {
    app.database()
        .read(|conn| {
            ec::table
                .inner_join(se::table)
                .select((ec::seq, ec::hash, SignificantEvent::as_select()))
                .order(ec::seq.asc())
                .load(conn)
                .map_err(StoreError::from)
        })
        .expect("the events chain")
}

// ---------------------------------------------------------------------------
// Insert-only tables
// ---------------------------------------------------------------------------

/// Runs one statement on the app's own connection; the database's error, if any.
fn try_sql(app: &TestApp, sql: &str) -> Result<usize, String> {
    app.database()
        .write(|conn| -> Result<usize, StoreError> { Ok(diesel::sql_query(sql).execute(conn)?) })
        .map_err(|e| e.to_string())
}

both_backends!(
    async fn the_ledger_and_the_events_log_refuse_updates_and_deletes(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "10.00").await;
        let auditor = app.auditor().await.clone();
        take_checkpoint(&app, &auditor).await;
        let before = all_transfers(&app);

        for sql in [
            "UPDATE transfers SET amount_minor = 1",
            "DELETE FROM transfers",
            "UPDATE significant_events SET details = '{}'",
            "DELETE FROM significant_events",
            "UPDATE event_chain SET hash = 'x'",
            "DELETE FROM event_chain",
            "UPDATE checkpoints SET signature = 'x'",
            "DELETE FROM checkpoints",
        ] {
            let e = try_sql(&app, sql).expect_err(sql);
            assert!(e.contains("is insert-only"), "{sql}: {e}");
        }
        match app.backend {
            Backend::Postgres => {
                // Statement triggers: even a statement that matches no row.
                let e = try_sql(&app, "DELETE FROM transfers WHERE seq < 0").expect_err("no row");
                assert!(e.contains("is insert-only"), "{e}");
                let e = try_sql(&app, "TRUNCATE transfers CASCADE").expect_err("truncate");
                assert!(e.contains("is insert-only"), "{e}");
            }
            Backend::Sqlite => {
                // REPLACE deletes the row it replaces: the delete trigger sees it.
                let t = &before[0];
                let e = try_sql(
                    &app,
                    &format!(
                        "INSERT OR REPLACE INTO transfers (seq, id, debit_account, credit_account, amount_minor, \
                         kind, created_at_us, prev_hash, hash) SELECT seq, id, debit_account, credit_account, 1, \
                         kind, created_at_us, prev_hash, hash FROM transfers WHERE seq = {}",
                        t.seq
                    ),
                )
                .expect_err("replace");
                assert!(e.contains("is insert-only"), "{e}");
            }
        }
        assert_eq!(all_transfers(&app), before);
        // Inserting is what the service does, and still works.
        app.fund(&cashier, &player.id, "5.00").await;
        assert_eq!(app.balance(&player.id).await, "15.00");
    }
);

// ---------------------------------------------------------------------------
// Taking, listing and checking checkpoints
// ---------------------------------------------------------------------------

both_backends!(
    async fn checkpoints_are_signed_listed_and_recorded(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        for who in [&cashier, &player, &app.create_user(Role::Dealer).await] {
            app.post("/api/v1/audit/checkpoints", Some(&who.token), &json!({}), None)
                .await
                .assert_error(403, "forbidden");
            app.get("/api/v1/audit/checkpoints", Some(&who.token))
                .await
                .assert_error(403, "forbidden");
        }
        app.post("/api/v1/audit/checkpoints", None, &json!({}), None)
            .await
            .assert_error(401, "unauthenticated");

        app.fund(&cashier, &player.id, "12.34").await;
        let auditor = app.auditor().await.clone();
        let pitboss = app.create_user(Role::Pitboss).await;
        let first = take_checkpoint(&app, &auditor).await;
        assert_eq!(first["seq"], 1);
        assert_eq!(first["ledger_seq"], 1);
        let head = app.verify_ledger().await;
        assert_eq!(first["ledger_hash"], head["head_hash"], "{first} {head}");
        // The message is the documented byte string, and the signature is Ed25519 over it.
        assert_eq!(first["version"], 2);
        let message = format!(
            "[\"djego-checkpoint-v2\",1,{},1,\"{}\",{},\"{}\",\"{}\",\"{}\"]",
            first["taken_at_us"],
            first["ledger_hash"].as_str().unwrap(),
            first["events_seq"],
            first["events_hash"].as_str().unwrap(),
            first["transfers_root"].as_str().unwrap(),
            first["events_root"].as_str().unwrap()
        );
        assert_eq!(first["signed_message"], message.as_str());
        let public = djego::checkpoints::PublicKey::parse_hex(first["public_key"].as_str().unwrap()).unwrap();
        assert_eq!(first["public_key"], service_public_key(&app).as_str());
        assert_eq!(first["key_id"], public.key_id().as_str());
        public
            .verify(message.as_bytes(), first["signature"].as_str().unwrap())
            .expect("the signature verifies");

        // Taking a checkpoint is a significant event, chained by that same checkpoint.
        let events = app.events("checkpoint_taken").await;
        assert_eq!(events.len(), 1);
        assert_eq!(events[0]["actor_id"], auditor.id.as_str());
        let details: Value = serde_json::from_str(events[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["checkpoint"], 1);
        assert_eq!(details["trigger"], "request");
        assert_eq!(details["key_id"], first["key_id"]);
        let chain = chained_events(&app);
        assert_eq!(chain.len() as i64, first["events_seq"].as_i64().unwrap());
        assert_eq!(chain.last().unwrap().2.id, events[0]["id"].as_str().unwrap());
        assert_eq!(chain.last().unwrap().1, first["events_hash"].as_str().unwrap());
        // One seal chains events in time order, the bootstrapped admin's among the first.
        let order: Vec<(i64, &str)> = chain.iter().map(|(_, _, e)| (e.at_us, e.id.as_str())).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        assert!(
            chain[..2].iter().any(|(_, _, e)| e.kind == "admin_bootstrapped"),
            "{chain:?}"
        );

        // A pit boss may take one too; with nothing new, the chain grows by its own event only.
        let second = take_checkpoint(&app, &pitboss).await;
        assert_eq!(second["seq"], 2);
        assert_eq!(second["ledger_seq"], 1);
        assert_eq!(second["ledger_hash"], first["ledger_hash"]);
        assert_eq!(
            second["events_seq"].as_i64().unwrap(),
            first["events_seq"].as_i64().unwrap() + 1
        );

        // Listed oldest first, in pages.
        let list = app
            .get("/api/v1/audit/checkpoints", Some(&pitboss.token))
            .await
            .expect(200);
        assert_eq!(list.as_array().unwrap().len(), 2);
        assert_eq!(list[0], first);
        assert_eq!(list[1], second);
        let page = app
            .get("/api/v1/audit/checkpoints?limit=1&offset=1", Some(&auditor.token))
            .await
            .expect(200);
        assert_eq!(page.as_array().unwrap().len(), 1);
        assert_eq!(page[0]["seq"], 2);
        app.get("/api/v1/audit/checkpoints?limit=0", Some(&auditor.token))
            .await
            .assert_error(400, "invalid_limit");

        // The verification report checks both chains against both checkpoints.
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["checkpoints"]["checkpoints_checked"], 2, "{v}");
        assert_eq!(v["checkpoints"]["source"], "database");
        assert_eq!(v["checkpoints"]["keys"][0]["key_id"], first["key_id"]);
        assert_eq!(v["checkpoints"]["latest"]["seq"], 2);
        assert_eq!(v["event_chain"]["ok"], true, "{v}");
        assert_eq!(v["event_chain"]["head_seq"], second["events_seq"], "{v}");
        assert_eq!(v["event_chain"]["events_unsealed"], 0, "{v}");

        // The CLI agrees, on the database's checkpoints and on an exported file.
        let (code, report, err) = verify_cli(&app, &[]).await;
        assert_eq!(code, 0, "{report}{err}");
        let dir = tempfile::tempdir().unwrap();
        let file = export(&app, dir.path()).await;
        let exported: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(exported["format"], "djego-checkpoints-v1");
        assert_eq!(exported["checkpoints"], list);
        let key = service_public_key(&app);
        let (code, report, err) = verify_cli(&app, &["--checkpoints", &file, "--public-key", &key]).await;
        assert_eq!(code, 0, "{report}{err}");
        assert_eq!(report["checkpoints"]["checkpoints_checked"], 2);
        assert_eq!(report["checkpoints"]["source"], file.as_str());
        assert_eq!(report["checkpoints"]["pinned_key_ids"], json!([first["key_id"]]));
        assert!(
            err.contains(&format!("signed by key {}", first["key_id"].as_str().unwrap())),
            "{err}"
        );
        // A saved page of the list is a checkpoints file too.
        let saved = dir.path().join("page.json");
        std::fs::write(&saved, page.to_string()).unwrap();
        let (code, report, err) = verify_cli(&app, &["--checkpoints", saved.to_str().unwrap()]).await;
        assert_eq!(code, 0, "{report}{err}");
        assert_eq!(report["checkpoints"]["checkpoints_checked"], 1);
    }
);

// A consistent rewrite: the chain and the balances check, only a checkpoint
// signed before it tells, and it names where.
both_backends!(
    #[no_ledger_check]
    async fn an_exported_checkpoint_names_a_consistent_rewrite(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let auditor = app.auditor().await.clone();
        for amount in ["1.00", "2.00", "3.00"] {
            app.fund(&cashier, &player.id, amount).await;
        }
        let first = take_checkpoint(&app, &auditor).await;
        assert_eq!(first["ledger_seq"], 3);
        for amount in ["4.00", "5.00"] {
            app.fund(&cashier, &player.id, amount).await;
        }
        let second = take_checkpoint(&app, &auditor).await;
        assert_eq!(second["ledger_seq"], 5);
        app.fund(&cashier, &player.id, "6.00").await;
        let dir = tempfile::tempdir().unwrap();
        let file = export(&app, dir.path()).await;
        let key = service_public_key(&app);
        let (code, report, err) = verify_cli(&app, &["--checkpoints", &file, "--public-key", &key]).await;
        assert_eq!(code, 0, "{report}{err}");

        // Transfer 4, a deposit of 4.00, becomes 4000.00, and everything after it is rehashed.
        rewrite_ledger_from(&app, 4, 400_000);
        assert_eq!(app.balance(&player.id).await, "4017.00");
        let v = app.verify_ledger().await;
        assert_eq!(v["first_broken_link"], Value::Null, "the chain alone checks: {v}");
        assert_eq!(v["balance_mismatches"], json!([]), "{v}");
        assert_eq!(v["stored_total"], "0.00");
        // The checkpoints stored in the database still hold the old hashes.
        assert_eq!(v["ok"], false, "{v}");
        let stored = failure_reasons(&v);
        assert_eq!(stored.len(), 1, "{v}");
        assert!(stored[0].starts_with("transfer 5 does not match checkpoint 2"), "{v}");

        let (code, report, err) = verify_cli(&app, &["--checkpoints", &file, "--public-key", &key]).await;
        assert_eq!(code, 1, "{report}{err}");
        assert_eq!(report["ok"], false);
        let reasons = failure_reasons(&report);
        assert_eq!(reasons.len(), 1, "{report}");
        assert_eq!(report["checkpoints"]["failures"][0]["checkpoint"], 2);
        let signed_at = chrono::DateTime::from_timestamp_micros(second["taken_at_us"].as_i64().unwrap())
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        assert_eq!(
            reasons[0],
            format!(
                "transfer 5 does not match checkpoint 2 (signed at {signed_at}): ledger rewritten at or before \
                 seq 5 (after seq 3, which checkpoint 1 still matches)"
            )
        );
        assert!(err.contains(&format!("FAIL: {}", reasons[0])), "{err}");

        // From the first transfer on: the first checkpoint fails too, naming seq 3.
        rewrite_ledger_from(&app, 1, 100_000);
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &file]).await;
        assert_eq!(code, 1);
        let reasons = failure_reasons(&report);
        assert_eq!(reasons.len(), 2, "{report}");
        assert!(
            reasons[0].starts_with("transfer 3 does not match checkpoint 1")
                && reasons[0].ends_with("ledger rewritten at or before seq 3"),
            "{report}"
        );
        assert!(
            reasons[1].starts_with("transfer 5 does not match checkpoint 2"),
            "{report}"
        );

        // The events chain likewise: an event's details changed and the chain rehashed from it.
        let chain = chained_events(&app);
        let (victim_seq, _, victim) = chain[1].clone();
        let mut prev = chain[0].1.clone();
        let mut statements = vec![format!(
            "UPDATE significant_events SET details = '{{}}' WHERE id = '{}'",
            victim.id
        )];
        for (seq, _, mut event) in chain.into_iter().skip(1) {
            if seq == victim_seq {
                event.details = "{}".into();
            }
            let hash = event_chain::event_hash(&prev, seq, &event);
            statements.push(format!(
                "UPDATE event_chain SET prev_hash = '{prev}', hash = '{hash}' WHERE seq = {seq}"
            ));
            prev = hash;
        }
        app.tamper(&statements);
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &file]).await;
        assert_eq!(code, 1);
        assert_eq!(
            report["event_chain"]["ok"], true,
            "the events chain alone checks: {report}"
        );
        let reasons = failure_reasons(&report);
        let first_events = first["events_seq"].as_i64().unwrap();
        assert!(
            reasons.iter().any(
                |r| r.starts_with(&format!("event {first_events} does not match checkpoint 1"))
                    && r.ends_with(&format!("events chain rewritten at or before seq {first_events}"))
            ),
            "{report}"
        );
    }
);

both_backends!(
    #[no_ledger_check]
    async fn an_exported_checkpoint_names_a_truncation(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let auditor = app.auditor().await.clone();
        for amount in ["1.00", "2.00", "3.00"] {
            app.fund(&cashier, &player.id, amount).await;
        }
        let first = take_checkpoint(&app, &auditor).await;
        for amount in ["4.00", "5.00"] {
            app.fund(&cashier, &player.id, amount).await;
        }
        let second = take_checkpoint(&app, &auditor).await;
        let dir = tempfile::tempdir().unwrap();
        let file = export(&app, dir.path()).await;

        // The last two deposits disappear, with the head and the balances rolled back.
        truncate_ledger_to(&app, 3);
        let v = app.verify_ledger().await;
        assert_eq!(v["first_broken_link"], Value::Null, "the chain alone checks: {v}");
        assert_eq!(v["balance_mismatches"], json!([]), "{v}");
        assert_eq!(v["head_seq"], 3);
        let key = service_public_key(&app);
        let (code, report, err) = verify_cli(&app, &["--checkpoints", &file, "--public-key", &key]).await;
        assert_eq!(code, 1, "{report}{err}");
        let signed_at = chrono::DateTime::from_timestamp_micros(second["taken_at_us"].as_i64().unwrap())
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        assert_eq!(
            failure_reasons(&report),
            [format!(
                "ledger ends at seq 3 but checkpoint 2 (signed at {signed_at}) covers seq 5: truncated"
            )]
        );
        assert!(err.contains("truncated"), "{err}");

        // Events chained by the second checkpoint disappear from the log and the chain.
        let kept = first["events_seq"].as_i64().unwrap();
        let removed: Vec<String> = chained_events(&app)
            .into_iter()
            .filter(|(seq, _, _)| *seq > kept)
            .map(|(_, _, e)| format!("'{}'", e.id))
            .collect();
        assert!(!removed.is_empty());
        app.tamper(&[
            format!("DELETE FROM event_chain WHERE seq > {kept}"),
            format!("DELETE FROM significant_events WHERE id IN ({})", removed.join(", ")),
        ]);
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &file]).await;
        assert_eq!(code, 1);
        assert_eq!(
            report["event_chain"]["ok"], true,
            "the events chain alone checks: {report}"
        );
        let reasons = failure_reasons(&report);
        assert!(
            reasons.contains(&format!(
                "events chain ends at seq {kept} but checkpoint 2 (signed at {signed_at}) covers seq {}: truncated",
                second["events_seq"]
            )),
            "{report}"
        );
    }
);

both_backends!(
    async fn signatures_and_the_pinned_key_are_checked(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "7.00").await;
        let auditor = app.auditor().await.clone();
        let checkpoint = take_checkpoint(&app, &auditor).await;
        let dir = tempfile::tempdir().unwrap();
        let file = export(&app, dir.path()).await;
        let exported: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let service_key = service_public_key(&app);
        let service_id = checkpoint["key_id"].as_str().unwrap().to_string();

        // Pinned to another key.
        let other = CheckpointKey::generate().public_key();
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &file, "--public-key", &other.to_hex()]).await;
        assert_eq!(code, 1, "{report}");
        assert_eq!(
            failure_reasons(&report),
            [format!(
                "checkpoint 1 is signed by key {service_id}, not by the pinned key {}",
                other.key_id()
            )]
        );

        // A field or the signature altered in the file.
        let write = |name: &str, edit: &dyn Fn(&mut Value)| {
            let mut copy = exported.clone();
            edit(&mut copy["checkpoints"][0]);
            let path = dir.path().join(name);
            std::fs::write(&path, copy.to_string()).unwrap();
            path.display().to_string()
        };
        let moved = write("moved.json", &|c| c["ledger_seq"] = json!(0));
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &moved]).await;
        assert_eq!(code, 1, "{report}");
        let reasons = failure_reasons(&report);
        assert_eq!(reasons.len(), 1, "{report}");
        assert!(
            reasons[0].starts_with("checkpoint 1 (signed at ")
                && reasons[0].ends_with(&format!("the signature does not verify under key {service_id}")),
            "{report}"
        );
        let signature = checkpoint["signature"].as_str().unwrap();
        let flipped = format!(
            "{}{}",
            if signature.starts_with('0') { "1" } else { "0" },
            &signature[1..]
        );
        let forged_signature = write("signature.json", &|c| c["signature"] = json!(flipped));
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &forged_signature]).await;
        assert_eq!(code, 1, "{report}");
        assert!(failure_reasons(&report)[0].contains("does not verify"), "{report}");

        // Re-signed with a key of someone else's: it verifies under its own key,
        // which is why the report names the keys, and the pinned key refuses it.
        let stranger = CheckpointKey::generate();
        let resigned = write("resigned.json", &|c| {
            let mut row: djego::checkpoints::Checkpoint = serde_json::from_value(c.clone()).unwrap();
            row.public_key = stranger.public_key().to_hex();
            row.key_id = stranger.public_key().key_id();
            row.signature = stranger.sign(row.signed_message().as_bytes());
            *c = serde_json::to_value(row.view()).unwrap();
        });
        let (code, report, err) = verify_cli(&app, &["--checkpoints", &resigned]).await;
        assert_eq!(code, 0, "{report}");
        assert_eq!(
            report["checkpoints"]["keys"][0]["key_id"],
            stranger.public_key().key_id().as_str()
        );
        assert!(err.contains(&stranger.public_key().key_id()), "{err}");
        let (code, report, _) = verify_cli(&app, &["--checkpoints", &resigned, "--public-key", &service_key]).await;
        assert_eq!(code, 1, "{report}");
        assert!(
            failure_reasons(&report)[0].contains("not by the pinned key"),
            "{report}"
        );

        // Bad input is an error (2), not a verdict.
        let o = djego(&[
            "verify",
            "ledger",
            "--database-url",
            app.db.url(),
            "--public-key",
            "beef",
        ])
        .await;
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("64 hex digits"), "{}", stderr(&o));
    }
);

both_backends!(
    async fn the_cli_takes_checkpoints_with_a_key_outside_the_database(app: TestApp) {
        let url = app.db.url().to_string();
        let key = CheckpointKey::generate();
        let key_hex = {
            // The PEM form round-trips through a file, the way operators keep it.
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("checkpoint.pem");
            std::fs::write(&path, key.to_pem()).unwrap();
            let o = djego(&[
                "checkpoint",
                "take",
                "--database-url",
                &url,
                "--checkpoint-key-file",
                path.to_str().unwrap(),
            ])
            .await;
            assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
            let taken: Value = serde_json::from_str(&stdout(&o)).unwrap();
            assert_eq!(taken["seq"], 1);
            assert_eq!(taken["key_id"], key.public_key().key_id().as_str());
            key.public_key().to_hex()
        };
        let events = app.events("checkpoint_taken").await;
        assert_eq!(events[0]["actor_id"], Value::Null);
        let details: Value = serde_json::from_str(events[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["trigger"], "command");

        // A second key: (its public key, the checkpoints it signs).
        let (second_key, signed_by_second) = match app.backend {
            Backend::Postgres => {
                // The key must be given: PostgreSQL has no file beside it to keep one in.
                let o = djego(&["checkpoint", "take", "--database-url", &url]).await;
                assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
                assert!(stderr(&o).contains("DJEGO_CHECKPOINT_KEY"), "{}", stderr(&o));
                // Given as 64 hex digits, the form DJEGO_CHECKPOINT_KEY takes.
                let other = CheckpointKey::generate();
                let o = djego(&[
                    "checkpoint",
                    "take",
                    "--database-url",
                    &url,
                    "--checkpoint-key",
                    &other.to_hex(),
                ])
                .await;
                assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                let taken: Value = serde_json::from_str(&stdout(&o)).unwrap();
                assert_eq!(taken["key_id"], other.public_key().key_id().as_str());
                (other.public_key().to_hex(), 1)
            }
            Backend::Sqlite => {
                // None given: one is generated beside the database file, private, and kept.
                let path = Path::new(url.strip_prefix("sqlite://").unwrap()).with_file_name("checkpoint.key");
                assert!(!path.exists());
                let mut ids = Vec::new();
                for _ in 0..2 {
                    let o = djego(&["checkpoint", "take", "--database-url", &url]).await;
                    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                    let taken: Value = serde_json::from_str(&stdout(&o)).unwrap();
                    ids.push(taken["key_id"].as_str().unwrap().to_string());
                }
                assert_eq!(ids[0], ids[1]);
                assert_ne!(ids[0], key.public_key().key_id());
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&path).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o600, "{mode:o}");
                let generated = CheckpointKey::read(&path).unwrap();
                assert_eq!(generated.public_key().key_id(), ids[0]);
                (generated.public_key().to_hex(), 2)
            }
        };
        // Checkpoints by several keys verify, each under its own key; pinned to
        // one key, the other's fail; pinned to both, all pass.
        let (code, report, err) = verify_cli(&app, &[]).await;
        assert_eq!(code, 0, "{report}");
        assert_eq!(report["checkpoints"]["keys"].as_array().unwrap().len(), 2, "{report}");
        assert_eq!(err.matches("signed by key").count(), 2, "{err}");
        let (code, report, _) = verify_cli(&app, &["--public-key", &key_hex]).await;
        assert_eq!(code, 1);
        assert_eq!(failure_reasons(&report).len(), signed_by_second, "{report}");
        let (code, report, _) = verify_cli(&app, &["--public-key", &key_hex, "--public-key", &second_key]).await;
        assert_eq!(code, 0, "{report}");
        assert_eq!(report["checkpoints"]["pinned_key_ids"].as_array().unwrap().len(), 2);
    }
);

// The service's own timer: a checkpoint when something changed, none otherwise.
mod the_service_checkpoints_on_a_schedule {
    use super::*;

    async fn checkpoints_list(app: &TestApp, token: &str) -> Vec<Value> {
        app.get("/api/v1/audit/checkpoints?limit=500", Some(token))
            .await
            .expect(200)
            .as_array()
            .unwrap()
            .clone()
    }

    /// Polls until `done` holds for the list of checkpoints (10 s at most).
    async fn wait_for_checkpoints(app: &TestApp, token: &str, done: fn(&[Value]) -> bool) -> Vec<Value> {
        for _ in 0..100 {
            let l = checkpoints_list(app, token).await;
            if done(&l) {
                return l;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!(
            "the scheduled checkpoints did not come within 10 s: {:?}",
            checkpoints_list(app, token).await
        );
    }

    async fn run(backend: Backend) {
        let db = std::sync::Arc::new(crate::helpers::TestDb::create(backend));
        let app = TestApp::spawn_on(db, |s| s.checkpoint_interval_seconds = 1).await;
        let auditor = app.auditor().await.clone();
        let token = auditor.token.clone();
        let wait_until = |done: fn(&[Value]) -> bool| wait_for_checkpoints(&app, &token, done);
        // The bootstrap's and the users' events are news: a tick signs them.
        let first = wait_until(|l| !l.is_empty()).await;
        assert_eq!(first[0]["ledger_seq"], 0);
        let events = app.events("checkpoint_taken").await;
        let details: Value = serde_json::from_str(events[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["trigger"], "schedule");
        assert_eq!(events[0]["actor_id"], Value::Null);
        // Then nothing happens, and no more checkpoints are taken.
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let settled = checkpoints_list(&app, &token).await.len();
        tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
        assert_eq!(checkpoints_list(&app, &token).await.len(), settled);
        // Money moves: a tick signs the new head.
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "1.00").await;
        let later = wait_until(|l| l.last().is_some_and(|c| c["ledger_seq"] == 1)).await;
        assert!(later.len() > settled);
        app.assert_ledger_sound().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        run(Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        run(Backend::Postgres).await
    }
}
