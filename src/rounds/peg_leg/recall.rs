//! The recall of a Peg Leg round that is over, and its verification: the deck, the pass, every
//! quote repriced and every bet's money recomputed from the recall's own contents, as anyone
//! given its JSON can redo them (`djego verify round`).

use super::*;
use crate::transcript::ledger_proof::ProofPolicy;

/// A stored quote in full: what it was computed from and everything it said.
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone)]
pub struct RecalledQuote {
    pub id: String,
    pub cards_dealt: u8,
    /// The quote as computed: method, probabilities, bounds and multipliers in hundredths.
    #[schema(value_type = Object)]
    pub quote: Quote,
    /// The simulation's RNG seed (ChaCha8, decimal) when the quote was simulated.
    pub simulation_seed: Option<String>,
    /// When its card was dealt: bets on it were placed before the next quote's instant.
    pub created_at_us: i64,
}

/// A bet in a recall.
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone)]
pub struct RecalledBet {
    pub id: String,
    pub player: String,
    pub count: u8,
    pub stake_minor: i64,
    pub multiplier_cents: i64,
    pub quote_id: String,
    pub status: BetStatus,
    pub surrender_quote_id: Option<String>,
    pub returned_minor: Option<i64>,
}

/// A settled or voided round, everything in it: anyone given it can redo the deck, the
/// pass, every quote and every bet's money.
#[derive(Serialize, ToSchema, Debug)]
pub struct PegLegRecall {
    pub round: PegLegRoundView,
    /// The deck's shuffle (game `prima_carta`, the round id, the client seeds given and
    /// their combination), with the revealed server seed.
    #[schema(value_type = Object)]
    pub shuffle: ShuffleTranscript,
    pub quotes: Vec<RecalledQuote>,
    pub bets: Vec<RecalledBet>,
    #[schema(value_type = Vec<Object>)]
    pub parties: Vec<Party<'static>>,
    /// Every ledger transfer of the round, in ledger order.
    #[schema(value_type = Vec<Object>)]
    pub transfers: Vec<TransferEntry<'static>>,
    /// The proof that `transfers` are all of the round's and in the signed ledger (a recall
    /// served on its own; left out of bulk exports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_proof: Option<crate::transcript::ledger_proof::LedgerProof>,
    /// The shuffle recomputed, the pass replayed, every quote repriced, every bet's money
    /// recomputed, and the ledger proof checked when there is one.
    #[schema(value_type = Object)]
    pub verification: VerificationReport,
}

pub fn recall(conn: &mut AnyConnection, vault: &SeedVault, round_id: &str, viewer: &Viewer) -> Result<PegLegRecall> {
    let row = find(conn, round_id)?;
    if !row.status()?.is_over() {
        return Err(PegLegRoundError::NotOver);
    }
    let seed = ServerSeed::from_hex(row.revealed_server_seed.as_deref().unwrap_or(""))
        .map_err(|_| PegLegRoundError::Corrupt("a round over without its revealed seed".into()))?;
    let seeds = client_seeds(conn, &row.id)?;
    let client_seed = row
        .client_seed
        .clone()
        .unwrap_or_else(|| shuffle::combined_client_seed(&seeds));
    let deck = deck_of(&seed, &row.id, &client_seed);
    let shuffle = ShuffleTranscript::record(&seed, Game::PrimaCarta, &row.id, &seeds, &deck, Vec::new());
    let mut names = Pseudonyms::default();
    let quotes = quotes(conn, &row.id)?
        .iter()
        .map(|qr| {
            Ok(RecalledQuote {
                id: qr.id.clone(),
                cards_dealt: qr.cards_dealt as u8,
                quote: qr.quote()?,
                simulation_seed: qr.simulation_seed.clone(),
                created_at_us: qr.created_at_us,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let bets = bets(conn, &row.id)?
        .iter()
        .map(|bet| {
            let shown = viewer.sees_identities || bet.player_id == viewer.user_id;
            Ok(RecalledBet {
                id: bet.id.clone(),
                player: if shown {
                    bet.player_id.clone()
                } else {
                    names.of(&bet.player_id)
                },
                count: bet.count as u8,
                stake_minor: bet.stake_minor,
                multiplier_cents: bet.multiplier_cents,
                quote_id: bet.quote_id.clone(),
                status: BetStatus::parse(&bet.status)?,
                surrender_quote_id: bet.surrender_quote_id.clone(),
                returned_minor: bet.returned_minor,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let transfers = crate::rounds::prima_carta::round_transfers(conn, &row.id)?;
    let transfers = crate::transcript::transfer_entries(&transfers, &mut names, &row.id, &row.table_id);
    let round = view(conn, vault, &row, viewer)?;
    let mut recall = PegLegRecall {
        round,
        shuffle,
        quotes,
        bets,
        parties: names.parties(viewer),
        transfers,
        ledger_proof: None,
        verification: VerificationReport {
            passed: false,
            checks: Vec::new(),
        },
    };
    recall.verification = verify_recall(&recall);
    Ok(recall)
}

/// What a recall claims, as anyone holding its JSON reads it: all that its verification needs.
#[derive(Deserialize, Debug)]
pub struct RecallClaims {
    pub round: RoundClaims,
    pub shuffle: ShuffleTranscript,
    pub quotes: Vec<RecalledQuote>,
    pub bets: Vec<RecalledBet>,
    /// Who the pseudonyms of the transfers' wallets are, as far as the reader may know.
    pub parties: Vec<PartyClaim>,
    pub transfers: Vec<TransferClaim>,
}

/// A party of a recall: a pseudonym, and the player's id where the reader may see it.
#[derive(Deserialize, Debug)]
pub struct PartyClaim {
    pub pseudonym: String,
    #[serde(default)]
    pub player_id: Option<String>,
}

/// A transfer as a recall shows it.
#[derive(Deserialize, Debug)]
pub struct TransferClaim {
    pub kind: String,
    pub from: String,
    pub to: String,
    /// As text, so that a malformed amount fails the check rather than the reading.
    pub amount: String,
}

#[derive(Deserialize, Debug)]
pub struct RoundClaims {
    pub status: PegLegStatus,
    pub cards_dealt: u8,
    pub cards: Vec<CardClaim>,
    pub final_count: Option<u8>,
    pub config: PegLegConfig,
}

#[derive(Deserialize, Debug)]
pub struct CardClaim {
    pub card: Card,
    pub key_count: u8,
}

/// Whether a JSON document is a Peg Leg recall (for `djego verify round`).
pub fn is_recall_document(doc: &serde_json::Value) -> bool {
    doc.get("quotes").is_some_and(|q| q.is_array()) && doc.get("shuffle").is_some_and(|s| s.is_object())
}

/// Verifies a recall as its JSON says it, exactly as anyone given the document would.
/// Last, the `ledger_proof` check (docs/transcript.md, "The ledger proof").
pub fn verify_recall_document(doc: &serde_json::Value, policy: &ProofPolicy) -> VerificationReport {
    let mut report = match RecallClaims::deserialize(doc) {
        Ok(claims) => verify(&claims),
        Err(e) => {
            return VerificationReport {
                passed: false,
                checks: vec![shuffle_transcript::fail(
                    "document",
                    None,
                    format!("not a Peg Leg recall: {e}"),
                )],
            }
        }
    };
    if let Some(check) = crate::transcript::ledger_proof::report_document(doc, "/round/id", "/round/table_id", policy) {
        report.passed &= check.passed;
        report.checks.push(check);
    }
    report
}

/// [`verify_recall_document`] on a recall about to be served.
pub fn verify_recall(recall: &PegLegRecall) -> VerificationReport {
    match serde_json::to_value(recall) {
        Ok(doc) => verify_recall_document(&doc, &ProofPolicy::default()),
        Err(e) => VerificationReport {
            passed: false,
            checks: vec![shuffle_transcript::fail("document", None, e.to_string())],
        },
    }
}

/// Recomputes everything a recall claims from its own contents and the rules: the deck,
/// the pass and its final count, every quote (an exact one by the same search; a simulated
/// one from its recorded seed), every bet's price, and what every bet returned.
pub fn verify(recall: &RecallClaims) -> VerificationReport {
    use shuffle_transcript::{fail, pass as ok};
    let (mut report, recomputed) = shuffle_transcript::verify_dealing(&recall.shuffle);
    let checks = &mut report.checks;
    let Some(recomputed) = recomputed else {
        checks.push(fail("pass", None, "not replayed: the deck did not verify"));
        report.passed = false;
        return report;
    };
    let deck = &recomputed.deck;
    let dealt = usize::from(recall.round.cards_dealt).min(deck.len());
    let pricing = recall.round.config.pricing();

    // The pass, card by card, as shown.
    let mut pass = PegLegPass::new();
    let mut replayed = Vec::with_capacity(dealt);
    for card in &deck[..dealt] {
        match pass.deal(*card) {
            Ok(step) => replayed.push(step),
            Err(e) => {
                checks.push(fail("pass", None, e.to_string()));
                break;
            }
        }
    }
    let shown_cards: Vec<(u8, u8)> = recall.round.cards.iter().map(|c| (c.card.id(), c.key_count)).collect();
    let dealt_cards: Vec<(u8, u8)> = replayed.iter().map(|s| (s.card.id(), s.key_count)).collect();
    checks.push(if shown_cards == dealt_cards {
        ok(
            "cards",
            format!("the {dealt} card(s) shown are the deck's first, with the key suit's count after each"),
        )
    } else if shown_cards.iter().map(|c| c.0).eq(dealt_cards.iter().map(|c| c.0)) {
        fail(
            "cards",
            None,
            "the key suit's count shown after a card is not the pass's",
        )
    } else {
        fail("cards", None, "the cards shown are not the deck's first cards")
    });
    if recall.round.status == PegLegStatus::Settled {
        checks.push(match (pass.final_count(), recall.round.final_count) {
            (Some(a), Some(b)) if a == b => ok("final_count", format!("the key suit ends with {a} card(s)")),
            (a, b) => fail("final_count", None, format!("replayed {a:?}, recorded {b:?}")),
        });
    }

    // Every quote, repriced from the cards dealt before it.
    let mut repriced = std::collections::HashMap::new();
    for rq in &recall.quotes {
        let name = format!("quote[{}]", rq.cards_dealt);
        let n = usize::from(rq.cards_dealt);
        let check = match PegLegPass::from_dealt(&deck[..n.min(deck.len())]) {
            Err(e) => fail(name, None, e.to_string()),
            Ok(p) => {
                let seed = match &rq.simulation_seed {
                    Some(s) => s.parse::<u64>().ok(),
                    None => Some(0),
                };
                match seed.and_then(|seed| price(&p, &pricing, seed)) {
                    None => fail(name, None, "cannot be repriced"),
                    Some(again) if same_prices(&again.quote, &rq.quote) => {
                        let label = match again.quote.method {
                            Method::Exact { .. } => "exact prices recomputed",
                            Method::Simulated { .. } => "simulated prices redrawn from their seed",
                        };
                        repriced.insert(rq.id.clone(), again.quote);
                        ok(name, label)
                    }
                    Some(_) => fail(name, None, "the recomputed prices differ from the quote's"),
                }
            }
        };
        checks.push(check);
    }

    // Every bet: its price, and what it returned. Won and lost follow from the replayed final
    // count, so only a settled round has them; only a voided one refunds.
    let settled_count = match recall.round.status {
        PegLegStatus::Settled => pass.final_count(),
        _ => None,
    };
    let voided = recall.round.status == PegLegStatus::Voided;
    let mut returns = Vec::with_capacity(recall.bets.len());
    for bet in &recall.bets {
        let name = format!("bet[{}]", bet.id);
        let Some(placed) = repriced.get(&bet.quote_id) else {
            checks.push(fail(name, None, "placed on a quote that does not verify"));
            continue;
        };
        if bet.stake_minor <= 0 {
            checks.push(fail(name, None, "its stake is not positive"));
            continue;
        }
        let offered = placed
            .counts
            .get(usize::from(bet.count))
            .and_then(|c| c.multiplier_cents);
        if offered != Some(bet.multiplier_cents as u64) {
            checks.push(fail(name, None, "its multiplier is not the quote's for its count"));
            continue;
        }
        let expected = match bet.status {
            BetStatus::Won | BetStatus::Lost => match settled_count {
                Some(f) if (f == bet.count) == (bet.status == BetStatus::Won) => Some(if f == bet.count {
                    win_minor(bet.stake_minor, bet.multiplier_cents)
                } else {
                    0
                }),
                _ => None,
            },
            BetStatus::Refunded => voided.then_some(bet.stake_minor),
            BetStatus::Surrendered => bet
                .surrender_quote_id
                .as_ref()
                .and_then(|id| repriced.get(id))
                // Surrendered under the quote it was placed on or a later one.
                .filter(|quote| quote.cards_dealt >= placed.cards_dealt)
                .map(|quote| cash_out_minor(quote, i32::from(bet.count), bet.stake_minor, bet.multiplier_cents)),
            BetStatus::Open => None,
        };
        checks.push(match expected {
            Some(v) if Some(v) == bet.returned_minor => ok(name, format!("returned {}", format_minor(v))),
            Some(v) => fail(
                name,
                None,
                format!("returned {:?}, the rules give {}", bet.returned_minor, format_minor(v)),
            ),
            None => fail(name, None, "its outcome does not follow from the round"),
        });
        if let Some(v) = expected {
            returns.push((bet, v));
        }
    }

    // The money: exactly the transfers the bets and their returns imply, no more.
    checks.push(if returns.len() < recall.bets.len() {
        fail("transfers", None, "not checked: a bet does not verify")
    } else {
        check_transfers(recall, &returns)
    });
    report.passed = report.checks.iter().all(|c| c.passed);
    report
}

/// One transfer as compared: kind, from, to, amount in minor units.
type Leg = (String, String, String, i64);

const ESCROW: &str = "escrow";
const BANKROLL: &str = "house:bankroll";

/// The transfers a bet of `stake_minor` that returned `returned_minor` moved, as the ledger
/// posts them (`place_bet`, `surrender`, settlement and void).
fn bet_legs(wallet: &str, bet: &RecalledBet, returned_minor: i64) -> Vec<Leg> {
    let stake = bet.stake_minor;
    let leg = |kind: &str, from: &str, to: &str, amount: i64| (kind.to_owned(), from.to_owned(), to.to_owned(), amount);
    let mut legs = vec![leg("bet_stake", wallet, ESCROW, stake)];
    match bet.status {
        BetStatus::Open => {}
        BetStatus::Refunded => legs.push(leg("bet_refund", ESCROW, wallet, stake)),
        BetStatus::Lost => legs.push(leg("bet_collected", ESCROW, BANKROLL, stake)),
        // A win returns the whole stake from escrow and the rest from the bankroll.
        BetStatus::Won => {
            legs.push(leg("bet_returned", ESCROW, wallet, stake));
            if returned_minor > stake {
                legs.push(leg("bet_payout", BANKROLL, wallet, returned_minor - stake));
            }
        }
        // A surrender returns up to its value from escrow; the house takes the rest of the
        // stake, or pays what the value exceeds it by.
        BetStatus::Surrendered => {
            let back = returned_minor.min(stake);
            if back > 0 {
                legs.push(leg("bet_returned", ESCROW, wallet, back));
            }
            if stake > returned_minor {
                legs.push(leg("bet_collected", ESCROW, BANKROLL, stake - returned_minor));
            }
            if returned_minor > stake {
                legs.push(leg("bet_payout", BANKROLL, wallet, returned_minor - stake));
            }
        }
    }
    legs
}

/// A bet's wallet as the transfers name it: `wallet:<pseudonym>`, the bettor shown by
/// pseudonym or by the id their party entry carries.
fn wallet_of(player: &str, parties: &[PartyClaim]) -> Option<String> {
    parties
        .iter()
        .find(|p| p.pseudonym == player)
        .or_else(|| parties.iter().find(|p| p.player_id.as_deref() == Some(player)))
        .map(|p| format!("wallet:{}", p.pseudonym))
}

/// The recall's transfers against those its bets imply, compared as multisets.
fn check_transfers(recall: &RecallClaims, returns: &[(&RecalledBet, i64)]) -> shuffle_transcript::Check {
    use shuffle_transcript::{fail, pass as ok};
    let mut expected: Vec<Leg> = Vec::new();
    for (bet, returned) in returns {
        let Some(wallet) = wallet_of(&bet.player, &recall.parties) else {
            return fail(
                "transfers",
                None,
                format!(
                    "bet {}'s player {:?} is not among the round's parties",
                    bet.id, bet.player
                ),
            );
        };
        expected.extend(bet_legs(&wallet, bet, *returned));
    }
    let mut given: Vec<Leg> = recall
        .transfers
        .iter()
        .map(|t| {
            let amount = Amount::parse(&t.amount).map(Amount::minor).unwrap_or(-1);
            (t.kind.clone(), t.from.clone(), t.to.clone(), amount)
        })
        .collect();
    expected.sort();
    given.sort();
    let show = |(kind, from, to, amount): &Leg| format!("{kind} {from} → {to} {}", format_minor(*amount));
    let (mut e, mut g) = (0, 0);
    while e < expected.len() || g < given.len() {
        match (expected.get(e), given.get(g)) {
            (Some(x), Some(y)) if x == y => {
                e += 1;
                g += 1;
            }
            (Some(x), y) if y.map_or(true, |y| x < y) => {
                return fail("transfers", None, format!("missing: {}", show(x)))
            }
            (_, Some(y)) => return fail("transfers", None, format!("unexpected: {}", show(y))),
            (_, None) => break,
        }
    }
    ok(
        "transfers",
        format!("{} transfers as the bets imply; the escrow ends at 0.00", given.len()),
    )
}

/// Two quotes offer the same prices on the same probabilities.
/// The same method: exact both, or simulated both with the same samples and δ. (How many
/// states an exact search stored depends on the memo it started from, which a quote made
/// card after card carries and a repricing from scratch does not; the prices do not.)
fn same_method(a: &Method, b: &Method) -> bool {
    match (a, b) {
        (Method::Exact { .. }, Method::Exact { .. }) => true,
        _ => a == b,
    }
}

fn same_prices(a: &Quote, b: &Quote) -> bool {
    a.cards_dealt == b.cards_dealt
        && a.key_suit == b.key_suit
        && a.key_count == b.key_count
        && a.target_rtp_bp == b.target_rtp_bp
        && same_method(&a.method, &b.method)
        && a.counts.len() == b.counts.len()
        && a.counts.iter().zip(&b.counts).all(|(x, y)| {
            x.count == y.count
                && x.multiplier_cents == y.multiplier_cents
                && x.exact == y.exact
                && (x.probability - y.probability).abs() <= 1e-12
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND: &str = "01935a2c-0000-7000-8000-000000000001";

    fn bet(id: &str, count: u8, quote: &RecalledQuote, status: BetStatus, returned: i64) -> RecalledBet {
        RecalledBet {
            id: id.into(),
            player: "player-1".into(),
            count,
            stake_minor: 1_000,
            multiplier_cents: quote.quote.counts[usize::from(count)]
                .multiplier_cents
                .expect("offered") as i64,
            quote_id: quote.id.clone(),
            status,
            surrender_quote_id: None,
            returned_minor: Some(returned),
        }
    }

    /// A settled round built from the rules alone: three quotes, a winning or losing bet,
    /// and a surrendered one.
    fn settled_recall() -> PegLegRecall {
        let seed = ServerSeed::from_bytes([7; 32]);
        let client_seed = shuffle::combined_client_seed(&[]);
        let deck = deck_of(&seed, ROUND, &client_seed);
        let config = match TableConfig::demo_peg_leg() {
            TableConfig::PegLeg(c) => c,
            _ => unreachable!("the demo Peg Leg table deals Peg Leg"),
        };
        let mut pass = PegLegPass::new();
        let mut steps = Vec::new();
        let mut quotes = Vec::new();
        for (i, card) in deck.iter().enumerate() {
            steps.push(pass.deal(*card).expect("deals"));
            if i < 3 {
                let priced = price(&pass, &config.pricing(), 11 + i as u64).expect("priced");
                quotes.push(RecalledQuote {
                    id: format!("quote-{}", i + 1),
                    cards_dealt: (i + 1) as u8,
                    simulation_seed: priced.simulation_seed.map(|s| s.to_string()),
                    quote: priced.quote,
                    created_at_us: i as i64,
                });
            }
        }
        let final_count = pass.final_count().expect("the pass is over");
        let held = quotes[0]
            .quote
            .counts
            .iter()
            .find(|c| c.multiplier_cents.is_some())
            .expect("a count is offered")
            .count;
        let held_bet = if held == final_count {
            let mut b = bet("held", held, &quotes[0], BetStatus::Won, 0);
            b.returned_minor = Some(win_minor(b.stake_minor, b.multiplier_cents));
            b
        } else {
            bet("held", held, &quotes[0], BetStatus::Lost, 0)
        };
        let mut given_up = bet("given-up", held, &quotes[1], BetStatus::Surrendered, 0);
        given_up.surrender_quote_id = Some(quotes[2].id.clone());
        given_up.returned_minor = Some(cash_out_minor(
            &price(&PegLegPass::from_dealt(&deck[..3]).unwrap(), &config.pricing(), 13)
                .unwrap()
                .quote,
            i32::from(held),
            given_up.stake_minor,
            given_up.multiplier_cents,
        ));
        let shuffle = ShuffleTranscript::record(&seed, Game::PrimaCarta, ROUND, &[], &deck, Vec::new());
        with_transfers(PegLegRecall {
            round: PegLegRoundView {
                id: ROUND.into(),
                table_id: "table".into(),
                number: 1,
                status: PegLegStatus::Settled,
                commitment: shuffle::commitment(&seed),
                client_seed: Some(client_seed),
                cards_dealt: 50,
                cards: steps.iter().map(DealtCardView::from).collect(),
                key_suit: pass.key_suit(),
                key_count: pass.key_count(),
                settled_count: pass.settled_count(),
                final_count: Some(final_count),
                quote: None,
                window_closes_at_us: None,
                bets: Vec::new(),
                server_seed: Some(seed.to_hex()),
                config,
                created_at_us: 0,
                updated_at_us: 0,
            },
            shuffle,
            quotes,
            bets: vec![held_bet, given_up],
            parties: vec![Party {
                pseudonym: "P1".into(),
                you: false,
                player_id: Some("player-1".into()),
            }],
            transfers: Vec::new(),
            ledger_proof: None,
            verification: VerificationReport {
                passed: false,
                checks: Vec::new(),
            },
        })
    }

    /// The ledger's transfers for the recall's bets, as `recall` shows them.
    fn with_transfers(mut recall: PegLegRecall) -> PegLegRecall {
        let legs: Vec<Leg> = recall
            .bets
            .iter()
            .flat_map(|b| bet_legs("wallet:P1", b, b.returned_minor.unwrap_or(0)))
            .collect();
        recall.transfers = legs
            .into_iter()
            .enumerate()
            .map(|(i, (kind, from, to, amount))| TransferEntry {
                seq: i as i64 + 1,
                kind: kind.into(),
                from: from.into(),
                to: to.into(),
                amount: format_minor(amount).into(),
                hash: String::new().into(),
            })
            .collect();
        recall
    }

    fn failed(recall: &PegLegRecall) -> Vec<String> {
        verify_recall(recall)
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name.to_string())
            .collect()
    }

    #[test]
    fn a_recall_made_by_the_rules_verifies() {
        let recall = settled_recall();
        let report = verify_recall(&recall);
        assert!(report.passed, "{}", report.to_text());
        // Three quotes, two bets, the cards and the final count were all checked.
        assert!(report.checks.len() >= 3 + 2 + 2, "{}", report.to_text());
    }

    #[test]
    fn every_transfer_is_checked_against_the_bets() {
        let honest = settled_recall();
        assert!(verify_recall(&honest).passed, "{}", verify_recall(&honest).to_text());
        let transfers = |r: &PegLegRecall| -> Vec<String> {
            let report = verify_recall(r);
            assert!(!report.passed);
            report
                .checks
                .iter()
                .filter(|c| !c.passed)
                .map(|c| format!("{}: {}", c.name, c.detail))
                .collect()
        };

        let mut r = settled_recall();
        r.transfers[0].amount = "10.01".into();
        assert_eq!(failed(&r), ["transfers"], "a changed amount");

        let mut r = settled_recall();
        r.transfers[0].from = "wallet:P2".into();
        assert_eq!(failed(&r), ["transfers"], "a stake taken from another wallet");
        let mut r = settled_recall();
        let last = r.transfers.len() - 1;
        r.transfers[last].to = if r.transfers[last].to == "house:bankroll" {
            "house:revenue".into()
        } else {
            "wallet:P2".into()
        };
        assert_eq!(failed(&r), ["transfers"], "a return redirected to another account");

        let mut r = settled_recall();
        r.transfers.clear();
        assert!(
            transfers(&r)[0].starts_with("transfers: missing: "),
            "{:?}",
            transfers(&r)
        );

        let mut r = settled_recall();
        let extra = r.transfers[0].clone();
        r.transfers.push(extra);
        assert_eq!(failed(&r), ["transfers"], "a transfer twice");

        // A bet removed with its stake: what it returned is still there, and unexplained.
        let mut r = settled_recall();
        r.bets.remove(1);
        let stake = r.transfers.iter().rposition(|t| t.kind == "bet_stake").unwrap();
        r.transfers.remove(stake);
        assert_eq!(failed(&r), ["transfers"]);
        assert!(transfers(&r)[0].contains("unexpected"), "{:?}", transfers(&r));

        // A lost bet shown as refunded, its transfer made to match: no refund in a settled round.
        let mut r = settled_recall();
        r.bets[0].status = BetStatus::Refunded;
        r.bets[0].returned_minor = Some(r.bets[0].stake_minor);
        let r = with_transfers(r);
        assert!(failed(&r).contains(&"bet[held]".to_string()), "{:?}", failed(&r));

        // A bettor who is none of the round's parties.
        let mut r = settled_recall();
        r.bets[0].player = "someone-else".into();
        assert_eq!(failed(&r), ["transfers"]);
    }

    #[test]
    fn every_claim_of_a_recall_is_checked() {
        let mut r = settled_recall();
        r.quotes[0].quote.counts.iter_mut().for_each(|c| {
            if let Some(m) = c.multiplier_cents.as_mut() {
                *m += 1;
            }
        });
        assert!(
            failed(&r).contains(&"quote[1]".to_string()),
            "an overpriced quote: {:?}",
            failed(&r)
        );

        let mut r = settled_recall();
        r.bets[0].multiplier_cents += 1;
        // What a bet that does not verify moved is not checked either.
        assert_eq!(failed(&r), ["bet[held]", "transfers"], "a bet paid above its quote");

        let mut r = settled_recall();
        *r.bets[1].returned_minor.as_mut().unwrap() += 1;
        assert_eq!(
            failed(&r),
            vec!["bet[given-up]".to_string()],
            "a surrender paid a cent too much"
        );

        let mut r = settled_recall();
        r.bets[0].status = if r.bets[0].status == BetStatus::Won {
            BetStatus::Lost
        } else {
            BetStatus::Won
        };
        assert_eq!(failed(&r), ["bet[held]", "transfers"], "a bet settled the wrong way");

        let mut r = settled_recall();
        r.round.cards.swap(0, 1);
        assert!(failed(&r).contains(&"cards".to_string()));

        let mut r = settled_recall();
        r.round.final_count = r.round.final_count.map(|c| c % 10 + 1);
        assert!(failed(&r).contains(&"final_count".to_string()));

        let mut r = settled_recall();
        r.quotes[1].simulation_seed = r.quotes[1].simulation_seed.as_ref().map(|_| "12345".to_string());
        if r.quotes[1].simulation_seed.is_some() {
            assert!(
                failed(&r).contains(&"quote[2]".to_string()),
                "another seed draws other samples"
            );
        }
    }
}
