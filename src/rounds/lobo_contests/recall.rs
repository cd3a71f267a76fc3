//! A contest's recall: the revealed decks, everyone's play, every transfer, and its
//! verification, by the server and offline.

use super::*;
use crate::transcript::ledger_proof::{report_document, ProofPolicy};

/// One entrant in the recall.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct EntrantRecall {
    pub entry_number: i32,
    /// The entrant's pseudonym in this recall (P1, P2, … in entry order).
    pub player: String,
    /// Shown to staff, and to the entrant themself.
    pub player_id: Option<String>,
    /// The client seed sent with the entry ("" when none).
    pub client_seed: String,
    /// The entrant's own deck: game `lobo`, round id `<contest id>/<entry number>`, the
    /// entrants' seeds combined as the client seed (docs/shuffle.md), with the revealed server
    /// seed (the contest's one).
    #[schema(value_type = Object)]
    pub shuffle: ShuffleTranscript,
    /// Every play of the three rounds, in order.
    pub plays: Vec<LoboPlay>,
    /// The rounds' scores as the replay gives them.
    #[schema(value_type = Vec<Object>)]
    pub rounds: Vec<RoundScore>,
    pub total: i64,
    pub stopped: bool,
}

/// A settled or voided contest, everything in it: anyone given it can redo every entrant's
/// deck and play, and the money.
#[derive(Serialize, ToSchema, Debug)]
pub struct ContestRecall {
    pub contest: ContestView,
    /// In entry order, each with their deck's shuffle. The entrants' seeds combined give every
    /// deck's client seed (a voided contest whose entry never closed shows the combination of
    /// the seeds it had, and the decks they would have given).
    pub entrants: Vec<EntrantRecall>,
    #[schema(value_type = Vec<Object>)]
    pub parties: Vec<Party<'static>>,
    /// Every ledger transfer of the contest, in ledger order.
    #[schema(value_type = Vec<Object>)]
    pub transfers: Vec<TransferEntry<'static>>,
    /// The proof that `transfers` are all of the contest's and in the signed ledger (a recall
    /// served on its own; left out of bulk exports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_proof: Option<crate::transcript::ledger_proof::LedgerProof>,
    /// Every entrant's shuffle recomputed under their own round id from the one revealed seed,
    /// the seeds recombined, every entrant's play replayed on their deck to its total, and the
    /// pot's split and transfers recomputed.
    #[schema(value_type = Object)]
    pub verification: VerificationReport,
}

pub fn recall(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    contest_id: &str,
    viewer: &Viewer,
) -> Result<ContestRecall, ContestError> {
    let row = find(conn, contest_id)?;
    if !row.status().is_over() {
        return Err(ContestError::NotOver);
    }
    let entered = entries(conn, contest_id)?;
    let config = row.config()?;
    let mode = config.mode();
    let seed = ServerSeed::from_hex(row.revealed_server_seed.as_deref().unwrap_or(""))
        .map_err(|_| ContestError::Corrupt("a contest over without its revealed seed".into()))?;
    let client_seed = match &row.client_seed {
        Some(s) => s.clone(),
        None => combined_seed(&entered)?,
    };
    let combined =
        ClientSeed::parse(&client_seed).map_err(|err| ContestError::Corrupt(format!("combined client seed: {err}")))?;
    let mut names = Pseudonyms::default();
    let mut recalled = Vec::new();
    for entry in &entered {
        let deck = deck_of(&seed, &row.id, entry.entry_number, &client_seed, mode);
        let round_id = entrant_round_id(&row.id, entry.entry_number);
        let shuffle = ShuffleTranscript::record(
            &seed,
            Game::Lobo,
            &round_id,
            std::slice::from_ref(&combined),
            &deck,
            Vec::new(),
        );
        let game = replay(&deck, mode, entry)?;
        let player = names.of(&entry.player_id);
        let shown = viewer.sees_identities || entry.player_id == viewer.user_id;
        recalled.push(EntrantRecall {
            entry_number: entry.entry_number,
            player,
            player_id: shown.then(|| entry.player_id.clone()),
            client_seed: entry.client_seed.clone().unwrap_or_default(),
            shuffle,
            plays: game.plays().iter().map(LoboPlay::from).collect(),
            rounds: game.scores().to_vec(),
            total: game.total(),
            stopped: entry.stopped,
        });
    }
    let transfers = crate::rounds::prima_carta::round_transfers(conn, &row.id)?;
    let transfers = crate::transcript::transfer_entries(&transfers, &mut names, &row.id, &row.table_id);
    let contest = view(vault, &row, &entered, viewer)?;
    let mut recall = ContestRecall {
        contest,
        entrants: recalled,
        parties: names.parties(viewer),
        transfers,
        ledger_proof: None,
        verification: VerificationReport {
            passed: false,
            checks: Vec::new(),
        },
    };
    recall.verification = verify(&recall);
    Ok(recall)
}

/// What a contest recall claims, as its verification reads it: taken from a recall, or read back
/// from a recall's JSON (`djego verify round`), so that both are checked by the same code. The
/// terms come from the recall's `contest`, not from the database: a recall verifies on its own.
#[derive(Deserialize, Debug, Clone)]
pub struct RecallClaims {
    pub contest: ContestClaims,
    pub entrants: Vec<EntrantClaims>,
    pub transfers: Vec<TransferClaims>,
}

/// The parts of a recall's `contest` the verification reads.
#[derive(Deserialize, Debug, Clone)]
pub struct ContestClaims {
    pub id: String,
    pub status: ContestStatus,
    pub mode: String,
    /// As text, so that a malformed fee fails a check rather than the reading.
    pub entry_fee: String,
    pub rake_basis_points: u32,
    pub commitment: String,
    pub client_seed: Option<String>,
    pub server_seed: Option<String>,
}

/// The parts of a recall's entrant the verification reads.
#[derive(Deserialize, Debug, Clone)]
pub struct EntrantClaims {
    pub entry_number: i32,
    pub player: String,
    pub client_seed: String,
    pub shuffle: ShuffleTranscript,
    pub plays: Vec<LoboPlay>,
    pub total: i64,
}

/// A transfer as a recall shows it.
#[derive(Deserialize, Debug, Clone)]
pub struct TransferClaims {
    pub kind: String,
    pub from: String,
    pub to: String,
    pub amount: String,
}

impl From<&ContestRecall> for RecallClaims {
    fn from(recall: &ContestRecall) -> RecallClaims {
        let c = &recall.contest;
        RecallClaims {
            contest: ContestClaims {
                id: c.id.clone(),
                status: c.status,
                mode: c.mode.clone(),
                entry_fee: format_minor(c.entry_fee.minor()),
                rake_basis_points: u32::from(c.rake_basis_points),
                commitment: c.commitment.clone(),
                client_seed: c.client_seed.clone(),
                server_seed: c.server_seed.clone(),
            },
            entrants: recall
                .entrants
                .iter()
                .map(|en| EntrantClaims {
                    entry_number: en.entry_number,
                    player: en.player.clone(),
                    client_seed: en.client_seed.clone(),
                    shuffle: en.shuffle.clone(),
                    plays: en.plays.clone(),
                    total: en.total,
                })
                .collect(),
            transfers: recall
                .transfers
                .iter()
                .map(|t| TransferClaims {
                    kind: t.kind.to_string(),
                    from: t.from.to_string(),
                    to: t.to.to_string(),
                    amount: t.amount.to_string(),
                })
                .collect(),
        }
    }
}

/// A document that looks like a contest recall (a `contest` and its `entrants`), rather than a
/// round's transcript.
pub fn is_recall_document(doc: &serde_json::Value) -> bool {
    doc.get("contest").is_some_and(serde_json::Value::is_object)
        && doc.get("entrants").is_some_and(serde_json::Value::is_array)
}

/// Verifies a contest recall's JSON (a saved `GET /api/v1/lobo-contests/{id}/recall`); one that
/// does not read fails a `recall` check instead.
/// Last, the `ledger_proof` check (docs/transcript.md, "The ledger proof").
pub fn verify_recall_document(doc: &serde_json::Value, policy: &ProofPolicy) -> VerificationReport {
    let mut report = match RecallClaims::deserialize(doc) {
        Ok(claims) => verify_claims(&claims),
        Err(err) => {
            return VerificationReport {
                passed: false,
                checks: vec![shuffle_transcript::fail(
                    "recall",
                    None,
                    format!("not a readable contest recall: {err}"),
                )],
            }
        }
    };
    if let Some(check) = report_document(doc, "/contest/id", "/contest/table_id", policy) {
        report.passed &= check.passed;
        report.checks.push(check);
    }
    report
}

/// Recomputes everything a contest recall claims from its own contents and the rules, and
/// checks its ledger proof when it has one.
pub fn verify(recall: &ContestRecall) -> VerificationReport {
    match serde_json::to_value(recall) {
        Ok(doc) => verify_recall_document(&doc, &ProofPolicy::default()),
        Err(e) => VerificationReport {
            passed: false,
            checks: vec![shuffle_transcript::fail("recall", None, e.to_string())],
        },
    }
}

/// The verification of a recall's claims. Checks, in order: `terms` (the mode, fee and rake
/// read), `seed` (the revealed server seed hashes to the commitment published before entry),
/// `entrants` (numbered 1 to n in entry order, so no deck is claimed twice), `entrant_seeds`
/// (the entrants' seeds combine to the client seed the contest fixed); then for each entrant
/// `n` the shuffle checks of any Lobo transcript run on their `shuffle`, named `entry[n].deck`
/// and so on, `entry[n].deal` (that transcript is the entrant's own deck: the contest's seeds
/// and commitment, the round id `<contest id>/<n>`) and `entry[n].plays` (the plays replay on
/// that deck to the stated total); last `transfers`.
pub fn verify_claims(recall: &RecallClaims) -> VerificationReport {
    use shuffle_transcript::{fail, pass};
    let contest = &recall.contest;
    let mut checks = Vec::new();

    let mode = Mode::parse(&contest.mode);
    let rake = RakeRate::new(contest.rake_basis_points);
    let fee = Amount::parse(&contest.entry_fee).map(Amount::minor);
    let terms = match (mode, rake, fee) {
        (Some(mode), Some(rake), Ok(fee)) => {
            checks.push(pass(
                "terms",
                format!(
                    "{} mode, entry fee {}, rake {} basis points",
                    mode.name(),
                    contest.entry_fee,
                    contest.rake_basis_points
                ),
            ));
            Some((mode, rake, fee))
        }
        _ => {
            checks.push(fail(
                "terms",
                None,
                format!(
                    "mode {:?}, entry fee {:?} or rake {} basis points is not a contest's",
                    contest.mode, contest.entry_fee, contest.rake_basis_points
                ),
            ));
            None
        }
    };

    let revealed = contest.server_seed.as_deref().map(ServerSeed::from_hex);
    checks.push(match revealed {
        Some(Ok(seed)) if shuffle::commitment(&seed).eq_ignore_ascii_case(&contest.commitment) => pass(
            "seed",
            "the revealed server seed hashes to the commitment published before entry",
        ),
        Some(Ok(_)) => fail("seed", None, "the revealed server seed does not hash to the commitment"),
        Some(Err(err)) => fail("seed", None, format!("the revealed server seed is unusable: {err}")),
        None => fail("seed", None, "no server seed revealed"),
    });

    let misnumbered = (1..).zip(&recall.entrants).find(|(n, en)| en.entry_number != *n);
    checks.push(match misnumbered {
        None => pass(
            "entrants",
            format!("{} entrant(s), numbered 1 to {0} in entry order", recall.entrants.len()),
        ),
        Some((n, en)) => fail(
            "entrants",
            Some(n as usize - 1),
            format!("entrant {n} in entry order is numbered {}", en.entry_number),
        ),
    });

    let seeds: Result<Vec<ClientSeed>, _> = recall
        .entrants
        .iter()
        .filter(|en| !en.client_seed.is_empty())
        .map(|en| ClientSeed::parse(&en.client_seed))
        .collect();
    // A contest whose entry never closed fixed no client seed; its decks use the combination.
    let combined = seeds.as_ref().ok().map(|seeds| shuffle::combined_client_seed(seeds));
    checks.push(match (&seeds, &combined) {
        (Ok(seeds), Some(c)) if contest.client_seed.as_ref().map_or(true, |fixed| fixed == c) => pass(
            "entrant_seeds",
            format!("{} entrant seed(s) combine to the client seed {c}", seeds.len()),
        ),
        (Err(err), _) => fail("entrant_seeds", None, format!("an entrant's seed is invalid: {err}")),
        _ => fail(
            "entrant_seeds",
            None,
            "the entrants' seeds do not combine to the contest's client seed",
        ),
    });

    let settled = contest.status == ContestStatus::Settled;
    let mut totals = Vec::new();
    for en in &recall.entrants {
        let (shuffled, recomputed) = shuffle_transcript::verify_dealing(&en.shuffle);
        for check in shuffled.checks {
            checks.push(shuffle_transcript::Check {
                name: format!("entry[{}].{}", en.entry_number, check.name).into(),
                ..check
            });
        }

        // A transcript that verifies on its own may still be another entrant's deck, or
        // another contest's: it must be this entrant's, from this contest's seeds.
        let t = &en.shuffle;
        let round_id = entrant_round_id(&contest.id, en.entry_number);
        let name = format!("entry[{}].deal", en.entry_number);
        let same_seed = contest
            .server_seed
            .as_deref()
            .is_some_and(|s| s.eq_ignore_ascii_case(&t.server_seed));
        checks.push(if t.round_id != round_id {
            fail(
                name,
                None,
                format!(
                    "round id {:?}, where entrant {} is dealt {round_id:?}",
                    t.round_id, en.entry_number
                ),
            )
        } else if !same_seed || !t.commitment.eq_ignore_ascii_case(&contest.commitment) {
            fail(name, None, "not the contest's server seed and commitment")
        } else if combined.as_deref() != Some(t.client_seed.as_str()) {
            fail(name, None, "not the entrants' combined client seed")
        } else {
            pass(name, format!("round id {round_id:?}, the contest's seeds"))
        });

        let name = format!("entry[{}].plays", en.entry_number);
        let (Some(r), Some((mode, _, _))) = (recomputed, terms) else {
            checks.push(fail(
                name,
                None,
                "not replayed: the entrant's deck or the terms did not verify",
            ));
            continue;
        };
        let plays: Result<Vec<Play>, _> = en.plays.iter().map(crate::rounds::lobo::to_engine_play).collect();
        let game = plays
            .map_err(|err| err.to_string())
            .and_then(|plays| replay_three_rounds(mode, &r.deck, &plays).map_err(|err| err.to_string()));
        checks.push(match game {
            Err(why) => fail(name, None, format!("the plays do not replay: {why}")),
            Ok(g) if settled && !g.is_over() => fail(name, None, "settled with rounds still in play"),
            Ok(g) if g.total() != en.total => fail(
                name,
                None,
                format!("replayed total {} where the recall says {}", g.total(), en.total),
            ),
            Ok(g) => {
                totals.push(g.total());
                pass(
                    name,
                    format!("{} plays replay to a total of {}", en.plays.len(), g.total()),
                )
            }
        });
    }

    // The money: the entries in, then the rake and prizes (settled) or the refunds (voided) out.
    let Some((_, rake, fee)) = terms else {
        checks.push(fail("transfers", None, "not checked: the terms did not read"));
        return VerificationReport { passed: false, checks };
    };
    let mut expected: Vec<(String, String, String, i64)> = Vec::new();
    for en in &recall.entrants {
        expected.push((
            "contest_entry".into(),
            format!("wallet:{}", en.player),
            "pot".into(),
            fee,
        ));
    }
    if settled {
        let split = split_pot(fee, &totals, rake);
        if split.rake_minor > 0 {
            expected.push((
                "contest_rake".into(),
                "pot".into(),
                "house:revenue".into(),
                split.rake_minor,
            ));
        }
        for (en, &prize) in recall.entrants.iter().zip(&split.prizes_minor) {
            if prize > 0 {
                expected.push((
                    "contest_prize".into(),
                    "pot".into(),
                    format!("wallet:{}", en.player),
                    prize,
                ));
            }
        }
    } else {
        for en in &recall.entrants {
            expected.push(("refund".into(), "pot".into(), format!("wallet:{}", en.player), fee));
        }
    }
    let actual: Vec<(String, String, String, i64)> = recall
        .transfers
        .iter()
        .map(|t| {
            let minor = Amount::parse(&t.amount).map(Amount::minor).unwrap_or(-1);
            (t.kind.clone(), t.from.clone(), t.to.clone(), minor)
        })
        .collect();
    let (mut want, mut got) = (expected, actual);
    want.sort();
    got.sort();
    checks.push(if want == got {
        pass("transfers", format!("{} transfers; the pot ends at 0.00", got.len()))
    } else {
        fail(
            "transfers",
            None,
            format!(
                "expected {} transfers {:?}, the recall shows {:?}",
                want.len(),
                want,
                got
            ),
        )
    });
    VerificationReport {
        passed: checks.iter().all(|c| c.passed),
        checks,
    }
}

/// A settled contest whose entrants (with these client seeds, "" for none) fold every round,
/// recalled honestly as `recall` would, without a database: for the verifiers' tests. Easy
/// mode, an entry fee of 10.00, a rake of 500 basis points.
pub fn sample_recall(contest_id: &str, server_seed: [u8; 32], entrant_seeds: &[&str]) -> ContestRecall {
    let config = ContestConfig {
        mode: LoboMode::Easy,
        options: ContestOptions {
            entry_fee: Amount::parse("10.00").expect("a valid amount"),
            rake_basis_points: RakeRate::new(500).expect("a valid rake"),
            min_players: 2,
            max_players: MAX_PLAYERS,
            entry_seconds: ENTRY_SECONDS.0,
            play_seconds: PLAY_SECONDS.0,
        },
    };
    let mode = config.mode();
    let seed = ServerSeed::from_bytes(server_seed);
    let seeds: Vec<ClientSeed> = entrant_seeds
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| ClientSeed::parse(s).expect("a valid client seed"))
        .collect();
    let client_seed = shuffle::combined_client_seed(&seeds);
    let combined = ClientSeed::parse(&client_seed).expect("a combined seed is valid");
    let mut entrants = Vec::new();
    for (i, entrant_seed) in entrant_seeds.iter().enumerate() {
        let n = i as i32 + 1;
        let deck = deck_of(&seed, contest_id, n, &client_seed, mode);
        let mut game = ThreeRounds::deal(mode, &deck).expect("a full deck deals");
        for fold in game.folds_to_stop() {
            game = game.apply(&fold).expect("a fold is legal");
        }
        entrants.push(EntrantRecall {
            entry_number: n,
            player: format!("P{n}"),
            player_id: None,
            client_seed: entrant_seed.to_string(),
            shuffle: ShuffleTranscript::record(
                &seed,
                Game::Lobo,
                &entrant_round_id(contest_id, n),
                std::slice::from_ref(&combined),
                &deck,
                Vec::new(),
            ),
            plays: game.plays().iter().map(LoboPlay::from).collect(),
            rounds: game.scores().to_vec(),
            total: game.total(),
            stopped: false,
        });
    }
    let fee = config.options.entry_fee.minor();
    let totals: Vec<i64> = entrants.iter().map(|en| en.total).collect();
    let split = split_pot(fee, &totals, config.options.rake_basis_points);
    let mut moves: Vec<(&str, String, String, i64)> = entrants
        .iter()
        .map(|en| ("contest_entry", format!("wallet:{}", en.player), "pot".to_string(), fee))
        .collect();
    if split.rake_minor > 0 {
        moves.push(("contest_rake", "pot".into(), "house:revenue".into(), split.rake_minor));
    }
    for (en, &prize) in entrants.iter().zip(&split.prizes_minor) {
        if prize > 0 {
            moves.push(("contest_prize", "pot".into(), format!("wallet:{}", en.player), prize));
        }
    }
    let transfers = moves
        .into_iter()
        .enumerate()
        .map(|(seq, (kind, from, to, minor))| TransferEntry {
            seq: seq as i64 + 1,
            kind: kind.into(),
            from: from.into(),
            to: to.into(),
            amount: format_minor(minor).into(),
            hash: String::new().into(),
        })
        .collect();
    let contest = ContestView {
        id: contest_id.to_string(),
        table_id: "table".into(),
        status: ContestStatus::Settled,
        mode: mode.name().to_string(),
        entry_fee: config.options.entry_fee,
        rake_basis_points: config.options.rake_basis_points.basis_points(),
        min_players: config.options.min_players,
        max_players: config.options.max_players,
        rounds_per_player: ROUNDS,
        entry_closes_at_us: 0,
        play_closes_at_us: Some(0),
        commitment: shuffle::commitment(&seed),
        client_seed: Some(client_seed),
        server_seed: Some(seed.to_hex()),
        entrants: entrants.len(),
        finished: entrants.len(),
        pot: format_minor(split.pot_minor),
        my_entry: None,
        progress: None,
        result: None,
    };
    let mut recall = ContestRecall {
        contest,
        entrants,
        parties: Vec::new(),
        transfers,
        ledger_proof: None,
        verification: VerificationReport {
            passed: false,
            checks: Vec::new(),
        },
    };
    recall.verification = verify(&recall);
    recall
}
