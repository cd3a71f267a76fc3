//! Round recall transcripts and their verification (docs/shuffle.md).
//!
//! A transcript holds what a settled round reveals, as plain strings and ids so
//! that any tampered or malformed value can still be read and reported.
//! `verify` recomputes the commitment, the client seed and the dealt order and
//! names every check, in a fixed order mirrored by docs/verify/verify_round.py.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt::Write as _;

use crate::cards::shuffle::{
    client_seed_for, commitment, deck_seed, ClientSeed, Game, ServerSeed, Shuffler, ALGORITHM,
};
use crate::cards::{ordered_deck, Card};

/// One later shuffle in the same round (Jasper): the pile as it was, and as it was dealt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reshuffle {
    pub before: Vec<u8>,
    pub after: Vec<u8>,
}

impl Reshuffle {
    pub fn new(before: &[Card], after: &[Card]) -> Reshuffle {
        Reshuffle {
            before: ids(before),
            after: ids(after),
        }
    }
}

/// What the round recall reveals about a shuffle, in JSON with snake_case keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleTranscript {
    /// "shuffle-v1".
    pub algorithm: String,
    /// "prima_carta" or "lobo".
    pub game: String,
    pub round_id: String,
    /// The revealed server seed, 64 hex digits.
    pub server_seed: String,
    /// The commitment published before the round: hex SHA-256 of the server seed.
    pub commitment: String,
    /// The client seeds as submitted (any order; Lobo: at most one).
    #[serde(default)]
    pub client_seeds: Vec<String>,
    /// The client seed string that entered the HMAC: Prima Carta the combined hex,
    /// Lobo the raw seed ("" if none).
    pub client_seed: String,
    /// The shuffled deck, card ids, top (dealt first) at index 0. Lobo's mode is
    /// inferred from its length: 50 hard, 45 ordinary, 40 easy.
    pub deck: Vec<u8>,
    /// Later shuffles continuing the same stream, in order.
    #[serde(default)]
    pub reshuffles: Vec<Reshuffle>,
}

impl ShuffleTranscript {
    /// The transcript of a round dealt by the production path.
    pub fn record(
        server_seed: &ServerSeed,
        game: Game,
        round_id: &str,
        client_seeds: &[ClientSeed],
        deck: &[Card],
        reshuffles: Vec<Reshuffle>,
    ) -> ShuffleTranscript {
        ShuffleTranscript {
            algorithm: ALGORITHM.to_owned(),
            game: game.as_str().to_owned(),
            round_id: round_id.to_owned(),
            server_seed: server_seed.to_hex(),
            commitment: commitment(server_seed),
            client_seeds: client_seeds.iter().map(|s| s.as_str().to_owned()).collect(),
            // Lobo with several seeds has no defined client seed; record the combination.
            client_seed: client_seed_for(game, client_seeds)
                .unwrap_or_else(|| crate::cards::shuffle::combined_client_seed(client_seeds)),
            deck: ids(deck),
            reshuffles,
        }
    }
}

/// One named check of a verification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// "algorithm", "game", "server_seed", "commitment", "client_seeds",
    /// "client_seed", "deck", then "reshuffle[0]", "reshuffle[1]", ...
    pub name: Cow<'static, str>,
    pub passed: bool,
    /// The first index that differs (deck, reshuffle: a position in the dealt
    /// order; client_seeds: the index of the first bad seed), when one applies.
    pub first_mismatch: Option<usize>,
    pub detail: Cow<'static, str>,
}

/// Every check of one transcript; `passed` only if all passed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationReport {
    pub passed: bool,
    pub checks: Vec<Check>,
}

impl VerificationReport {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.checks {
            let verdict = if c.passed { "PASS" } else { "FAIL" };
            let at = c
                .first_mismatch
                .map(|i| format!(" (first mismatch at {i})"))
                .unwrap_or_default();
            let _ = writeln!(out, "{verdict} {}{at}: {}", c.name, c.detail);
        }
        let _ = writeln!(out, "{}", if self.passed { "VERIFIED" } else { "NOT VERIFIED" });
        out
    }

    pub fn check(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.name == name)
    }
}

fn ids(cards: &[Card]) -> Vec<u8> {
    cards.iter().map(|c| c.id()).collect()
}

pub(crate) fn pass(name: impl Into<Cow<'static, str>>, detail: impl Into<Cow<'static, str>>) -> Check {
    Check {
        name: name.into(),
        passed: true,
        first_mismatch: None,
        detail: detail.into(),
    }
}

pub(crate) fn fail(
    name: impl Into<Cow<'static, str>>,
    first_mismatch: Option<usize>,
    detail: impl Into<Cow<'static, str>>,
) -> Check {
    Check {
        name: name.into(),
        passed: false,
        first_mismatch,
        detail: detail.into(),
    }
}

/// The first index where two sequences differ (the shorter length if one is a prefix).
pub(crate) fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))
}

/// The mode (max rank) of a dealt deck: Prima Carta always 10; Lobo from the length.
pub fn max_rank_for(game: Game, deck_len: usize) -> Option<u8> {
    match (game, deck_len) {
        (Game::PrimaCarta, _) => Some(10),
        (Game::Lobo, 50) => Some(10),
        (Game::Lobo, 45) => Some(9),
        (Game::Lobo, 40) => Some(8),
        (Game::Lobo, _) => None,
    }
}

/// Recomputes everything a transcript claims. Never panics on malformed input.
pub fn verify(t: &ShuffleTranscript) -> VerificationReport {
    verify_dealing(t).0
}

/// The recomputed deck and the stream just after its shuffle, for a replay
/// that must continue the stream (a Jasper reshuffle).
#[derive(Clone)]
pub struct Recomputed {
    pub deck: Vec<Card>,
    pub stream: Shuffler,
}

/// [`verify`], also returning the deck as recomputed when the inputs were
/// valid and the transcript's deck matched it.
pub fn verify_dealing(t: &ShuffleTranscript) -> (VerificationReport, Option<Recomputed>) {
    // Room for a whole round's checks: a round's replay appends its own.
    let mut checks = Vec::with_capacity(16);
    let mut recomputed = None;

    checks.push(if t.algorithm == ALGORITHM {
        pass("algorithm", ALGORITHM)
    } else {
        fail("algorithm", None, format!("{:?} is not {ALGORITHM}", t.algorithm))
    });

    let game = Game::parse(&t.game);
    checks.push(match game {
        Some(g) => pass("game", g.as_str()),
        None => fail("game", None, format!("unknown game {:?}", t.game)),
    });

    let server_seed = ServerSeed::from_hex(&t.server_seed)
        .ok()
        .filter(|_| t.server_seed.len() == 64);
    checks.push(match &server_seed {
        Some(_) => pass("server_seed", "64 hex digits"),
        None => fail("server_seed", None, "not 64 hex digits"),
    });

    checks.push(match &server_seed {
        None => fail("commitment", None, "not checked: the server seed is invalid"),
        Some(seed) => {
            let expected = commitment(seed);
            if t.commitment.eq_ignore_ascii_case(&expected) {
                pass("commitment", format!("sha256(server_seed) = {expected}"))
            } else {
                fail(
                    "commitment",
                    None,
                    format!("sha256(server_seed) = {expected}, transcript says {:?}", t.commitment),
                )
            }
        }
    });

    let parsed: Result<Vec<ClientSeed>, (usize, String)> = t
        .client_seeds
        .iter()
        .enumerate()
        .map(|(i, s)| ClientSeed::parse(s).map_err(|e| (i, e.to_string())))
        .collect();
    let client_seeds = match (parsed, game) {
        (Err((i, why)), _) => {
            checks.push(fail("client_seeds", Some(i), format!("client seed {i}: {why}")));
            None
        }
        (Ok(seeds), Some(Game::Lobo)) if seeds.len() > 1 => {
            checks.push(fail(
                "client_seeds",
                Some(1),
                format!("lobo takes at most one client seed, got {}", seeds.len()),
            ));
            None
        }
        (Ok(seeds), _) => {
            checks.push(pass("client_seeds", format!("{} valid", seeds.len())));
            Some(seeds)
        }
    };

    let expected_client_seed = match (game, &client_seeds) {
        (Some(g), Some(seeds)) => client_seed_for(g, seeds),
        _ => None,
    };
    checks.push(match &expected_client_seed {
        None => fail(
            "client_seed",
            None,
            "not checked: the game or the client seeds are invalid",
        ),
        Some(expected) if *expected == t.client_seed => pass("client_seed", format!("{expected:?}")),
        Some(expected) => fail(
            "client_seed",
            None,
            format!("recomputed {expected:?}, transcript says {:?}", t.client_seed),
        ),
    });

    // The deck and every reshuffle are recomputed from the revealed server seed and
    // the recomputed client seed, so each claim is tested independently.
    let mut shuffler = None;
    let mode = game.and_then(|g| max_rank_for(g, t.deck.len()).map(|r| (g, r)));
    match (&server_seed, &expected_client_seed, mode) {
        (Some(seed), Some(client_seed), Some((g, max_rank))) => {
            let mut s = Shuffler::from_deck_seed(deck_seed(seed, g, &t.round_id, client_seed));
            let mut expected = ids(&ordered_deck(max_rank));
            s.shuffle_slice(&mut expected);
            checks.push(match first_difference(&expected, &t.deck) {
                None => {
                    recomputed = Some(Recomputed {
                        deck: expected.iter().filter_map(|&id| Card::from_id(id)).collect(),
                        stream: s.clone(),
                    });
                    pass("deck", format!("{} cards in the recomputed order", expected.len()))
                }
                Some(i) => fail(
                    "deck",
                    Some(i),
                    format!(
                        "position {i}: recomputed {}, transcript {}",
                        show(expected.get(i)),
                        show(t.deck.get(i))
                    ),
                ),
            });
            shuffler = Some((s, max_rank));
        }
        (_, _, None) if game == Some(Game::Lobo) => fail_push(
            &mut checks,
            "deck",
            format!("not checked: a lobo deck has 50, 45 or 40 cards, not {}", t.deck.len()),
        ),
        _ => fail_push(&mut checks, "deck", "not checked: an input above is invalid".to_owned()),
    }

    for (k, r) in t.reshuffles.iter().enumerate() {
        let name = format!("reshuffle[{k}]");
        let Some((s, max_rank)) = shuffler.as_mut() else {
            checks.push(fail(
                name.clone(),
                None,
                "not checked: the deck could not be recomputed",
            ));
            continue;
        };
        // The stream advances by the pile's length whatever the ids, so later
        // reshuffles stay checkable after a bad one.
        let mut expected = r.before.clone();
        s.shuffle_slice(&mut expected);
        let mut seen = [false; Card::DECK_SIZE];
        let bad_before = r.before.iter().position(|&id| {
            let in_mode = Card::from_id(id).is_some_and(|c| c.rank().value() <= *max_rank);
            !in_mode || std::mem::replace(&mut seen[usize::from(id)], true)
        });
        checks.push(match (bad_before, first_difference(&expected, &r.after)) {
            (Some(i), _) => fail(
                name.clone(),
                None,
                format!(
                    "before[{i}] = {} is not a card of this deck or is repeated",
                    r.before[i]
                ),
            ),
            (None, None) => pass(
                name.clone(),
                format!("{} cards in the recomputed order", expected.len()),
            ),
            (None, Some(i)) => fail(
                name.clone(),
                Some(i),
                format!(
                    "position {i}: recomputed {}, transcript {}",
                    show(expected.get(i)),
                    show(r.after.get(i))
                ),
            ),
        });
    }

    let report = VerificationReport {
        passed: checks.iter().all(|c| c.passed),
        checks,
    };
    (report, recomputed)
}

fn fail_push(checks: &mut Vec<Check>, name: &'static str, detail: String) {
    checks.push(fail(name, None, detail));
}

fn show(id: Option<&u8>) -> String {
    id.map_or_else(|| "nothing".to_owned(), |id| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::shuffle::shuffled_deck;

    fn round(game: Game, seeds: &[&str], max_rank: u8, reshuffles: usize) -> ShuffleTranscript {
        let server_seed = ServerSeed::from_bytes([0x42; 32]);
        let seeds: Vec<ClientSeed> = seeds.iter().map(|s| ClientSeed::parse(s).unwrap()).collect();
        let client_seed = client_seed_for(game, &seeds).unwrap();
        let (deck, mut s) = shuffled_deck(&server_seed, game, "round-1", &client_seed, max_rank);
        let mut pile: Vec<Card> = deck.iter().copied().skip(10).collect();
        let mut rs = Vec::new();
        for _ in 0..reshuffles {
            let before = pile.clone();
            s.shuffle(&mut pile);
            rs.push(Reshuffle::new(&before, &pile));
            pile.truncate(pile.len() / 2);
        }
        ShuffleTranscript::record(&server_seed, game, "round-1", &seeds, &deck, rs)
    }

    #[test]
    fn an_honest_round_verifies() {
        for (game, seeds, max_rank, re) in [
            (Game::PrimaCarta, vec![], 10, 0),
            (Game::PrimaCarta, vec!["a", "b b", "~"], 10, 2),
            (Game::Lobo, vec!["wolf"], 10, 0),
            (Game::Lobo, vec![], 9, 0),
            (Game::Lobo, vec!["x"], 8, 0),
        ] {
            let t = round(game, &seeds, max_rank, re);
            let report = verify(&t);
            assert!(report.passed, "{}", report.to_text());
            assert_eq!(report.checks.len(), 7 + re);
        }
    }

    #[test]
    fn the_transcript_is_snake_case_json() {
        let t = round(Game::PrimaCarta, &["s"], 10, 1);
        let json = serde_json::to_value(&t).unwrap();
        for key in [
            "algorithm",
            "game",
            "round_id",
            "server_seed",
            "commitment",
            "client_seeds",
            "client_seed",
            "deck",
            "reshuffles",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        let back: ShuffleTranscript = serde_json::from_value(json).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn a_swapped_card_is_reported_at_its_position() {
        let mut t = round(Game::PrimaCarta, &[], 10, 0);
        t.deck.swap(7, 30);
        let c = verify(&t);
        assert!(!c.passed);
        assert_eq!(c.check("deck").unwrap().first_mismatch, Some(7));
        assert!(c.check("commitment").unwrap().passed);
    }

    #[test]
    fn a_truncated_deck_is_reported_where_it_ends() {
        let mut t = round(Game::PrimaCarta, &[], 10, 0);
        t.deck.pop();
        assert_eq!(verify(&t).check("deck").unwrap().first_mismatch, Some(49));
    }

    #[test]
    fn a_wrong_commitment_or_seed_fails_its_checks() {
        let mut t = round(Game::PrimaCarta, &["p"], 10, 0);
        t.commitment = t.commitment.to_uppercase();
        assert!(verify(&t).passed, "commitment case is not significant");
        t.commitment.replace_range(0..1, "0");
        t.commitment.replace_range(1..2, "0");
        let r = verify(&t);
        assert!(!r.check("commitment").unwrap().passed);
        let mut t = round(Game::PrimaCarta, &["p"], 10, 0);
        t.client_seeds.push("q".into());
        let r = verify(&t);
        assert!(!r.check("client_seed").unwrap().passed);
        assert!(!r.check("deck").unwrap().passed);
    }

    #[test]
    fn a_reshuffle_that_does_not_continue_the_stream_fails() {
        let mut t = round(Game::PrimaCarta, &[], 10, 2);
        t.reshuffles[0].after.reverse();
        let r = verify(&t);
        assert!(!r.check("reshuffle[0]").unwrap().passed);
        assert!(r.check("reshuffle[1]").unwrap().passed, "{}", r.to_text());
        let mut t = round(Game::PrimaCarta, &[], 10, 1);
        t.reshuffles[0].before[0] = t.reshuffles[0].before[1];
        assert!(!verify(&t).check("reshuffle[0]").unwrap().passed);
    }

    #[test]
    fn malformed_input_is_reported_not_panicked_on() {
        let mut t = round(Game::Lobo, &["w"], 9, 0);
        t.server_seed = "xyz".into();
        t.game = "poker".into();
        t.client_seeds = vec!["ok".into(), "bad\u{7f}".into()];
        t.deck = vec![255, 50, 0];
        t.algorithm = "shuffle-v2".into();
        t.reshuffles = vec![Reshuffle {
            before: vec![200],
            after: vec![],
        }];
        let r = verify(&t);
        assert!(!r.passed);
        assert!(r.checks.iter().all(|c| !c.passed), "{}", r.to_text());
        assert_eq!(r.check("client_seeds").unwrap().first_mismatch, Some(1));

        let mut t = round(Game::Lobo, &[], 8, 0);
        t.deck.pop();
        assert!(!verify(&t).check("deck").unwrap().passed);
        let mut t = round(Game::Lobo, &[], 8, 0);
        t.client_seeds = vec!["a".into(), "b".into()];
        assert_eq!(verify(&t).check("client_seeds").unwrap().first_mismatch, Some(1));
        let mut t = round(Game::PrimaCarta, &[], 10, 0);
        t.server_seed.push_str("00");
        assert!(!verify(&t).check("server_seed").unwrap().passed);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn every_honest_round_verifies(
                seed in any::<[u8; 32]>(),
                round_id in ".{0,40}",
                seeds in proptest::collection::vec("[ -~]{1,64}", 0..5),
                lobo in any::<bool>(),
                max_rank in 8u8..=10,
            ) {
                let game = if lobo { Game::Lobo } else { Game::PrimaCarta };
                let seeds: Vec<ClientSeed> = seeds.iter().map(|s| ClientSeed::parse(s).unwrap()).collect();
                let seeds = if lobo { seeds.into_iter().take(1).collect() } else { seeds };
                let max_rank = if lobo { max_rank } else { 10 };
                let server_seed = ServerSeed::from_bytes(seed);
                let client_seed = client_seed_for(game, &seeds).unwrap();
                let (deck, _) = crate::cards::shuffle::shuffled_deck(&server_seed, game, &round_id, &client_seed, max_rank);
                let mut sorted = deck.clone();
                sorted.sort();
                prop_assert_eq!(sorted, ordered_deck(max_rank));
                let t = ShuffleTranscript::record(&server_seed, game, &round_id, &seeds, &deck, vec![]);
                prop_assert!(verify(&t).passed);
            }

            #[test]
            fn arbitrary_transcripts_never_panic(
                algorithm in ".{0,12}",
                game in prop_oneof![Just("lobo".to_owned()), Just("prima_carta".to_owned()), ".{0,8}"],
                server_seed in "[0-9a-fA-Fg ]{0,70}",
                commitment in ".{0,70}",
                client_seeds in proptest::collection::vec(".{0,70}", 0..3),
                client_seed in ".{0,70}",
                deck in proptest::collection::vec(any::<u8>(), 0..60),
                before in proptest::collection::vec(any::<u8>(), 0..60),
                after in proptest::collection::vec(any::<u8>(), 0..60),
            ) {
                let t = ShuffleTranscript {
                    algorithm, game, round_id: "r".into(), server_seed, commitment, client_seeds,
                    client_seed, deck, reshuffles: vec![Reshuffle { before, after }],
                };
                let r = verify(&t);
                prop_assert_eq!(r.checks.len(), 8);
                prop_assert!(!r.passed);
            }
        }
    }
}
