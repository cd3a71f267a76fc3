//! Fixed shuffle-v1 vectors (docs/shuffle.md): any change that alters a shuffle fails here.

use crate::cards::shuffle::{
    client_seed_for, commitment, deck_seed, shuffled_deck, ClientSeed, Game, ServerSeed, Shuffler,
};
use crate::cards::transcript::{verify, Reshuffle, ShuffleTranscript};
use crate::cards::Card;

struct Vector {
    server_seed: [u8; 32],
    game: Game,
    round_id: &'static str,
    client_seeds: &'static [&'static str],
    max_rank: u8,
    deck: &'static [u8],
}

const SEQ: [u8; 32] = {
    let mut b = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        b[i] = i as u8;
        i += 1;
    }
    b
};
const REV: [u8; 32] = {
    let mut b = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        b[i] = 0xff - i as u8;
        i += 1;
    }
    b
};

#[rustfmt::skip]
const VECTORS: [Vector; 6] = [
    Vector { server_seed: SEQ, game: Game::PrimaCarta, round_id: "1001", client_seeds: &[], max_rank: 10,
        deck: &[16, 43, 41, 35, 13, 36, 49, 11, 26, 40, 23, 17, 31, 0, 25, 10, 9, 3, 46, 48, 1, 21, 6, 38, 22, 32, 44, 20, 24, 39, 15, 37, 8, 27, 4, 12, 19, 34, 5, 7, 29, 45, 33, 47, 30, 18, 28, 2, 14, 42] },
    Vector { server_seed: SEQ, game: Game::PrimaCarta, round_id: "1002", client_seeds: &["alice"], max_rank: 10,
        deck: &[46, 18, 44, 34, 39, 27, 8, 41, 37, 3, 45, 23, 12, 7, 1, 47, 17, 33, 29, 31, 22, 13, 24, 42, 4, 40, 30, 38, 21, 19, 11, 28, 9, 6, 49, 0, 2, 15, 48, 20, 36, 32, 35, 14, 16, 26, 5, 25, 10, 43] },
    Vector { server_seed: REV, game: Game::PrimaCarta, round_id: "r-2026-11-22-0007", client_seeds: &["lucky 7", "Zebra", "alice"], max_rank: 10,
        deck: &[39, 36, 43, 2, 19, 13, 1, 49, 0, 12, 45, 16, 23, 18, 47, 5, 21, 29, 6, 22, 20, 44, 25, 3, 27, 37, 11, 46, 38, 10, 15, 40, 41, 30, 4, 17, 14, 35, 31, 24, 7, 34, 48, 28, 32, 26, 33, 8, 9, 42] },
    Vector { server_seed: REV, game: Game::Lobo, round_id: "lobo-1", client_seeds: &["wolf"], max_rank: 10,
        deck: &[2, 37, 42, 12, 3, 22, 32, 0, 38, 16, 11, 24, 15, 40, 30, 48, 47, 41, 34, 27, 1, 9, 5, 45, 36, 29, 31, 44, 49, 43, 18, 46, 8, 23, 19, 25, 35, 28, 33, 10, 21, 13, 26, 20, 39, 14, 6, 4, 17, 7] },
    Vector { server_seed: REV, game: Game::Lobo, round_id: "lobo-2", client_seeds: &[], max_rank: 9,
        deck: &[7, 35, 44, 37, 23, 1, 34, 4, 32, 8, 26, 25, 15, 31, 43, 42, 5, 3, 38, 0, 24, 16, 40, 12, 45, 10, 27, 20, 21, 13, 6, 14, 46, 30, 22, 47, 33, 18, 17, 11, 36, 41, 48, 2, 28] },
    Vector { server_seed: SEQ, game: Game::Lobo, round_id: "lobo-3", client_seeds: &["Easy/Mode ~ 1"], max_rank: 8,
        deck: &[22, 41, 10, 15, 32, 6, 30, 24, 1, 2, 40, 34, 21, 27, 17, 23, 13, 3, 5, 14, 46, 12, 33, 26, 11, 35, 47, 20, 25, 45, 4, 36, 44, 7, 16, 0, 43, 31, 42, 37] },
];

/// Vector 3's Jasper reshuffle of its deck's last 30 cards, continuing the stream.
#[rustfmt::skip]
const RESHUFFLE_AFTER: [u8; 30] = [14, 37, 48, 28, 40, 17, 15, 35, 30, 20, 34, 46, 11, 24, 33, 26, 42, 41, 27, 31, 25, 44, 9, 32, 8, 38, 7, 3, 10, 4];

fn ids(cards: &[Card]) -> Vec<u8> {
    cards.iter().map(|c| c.id()).collect()
}

fn seeds(v: &Vector) -> Vec<ClientSeed> {
    v.client_seeds.iter().map(|s| ClientSeed::parse(s).unwrap()).collect()
}

#[test]
fn every_fixed_vector_deals_its_recorded_deck() {
    for v in &VECTORS {
        let client_seed = client_seed_for(v.game, &seeds(v)).unwrap();
        let (deck, _) = shuffled_deck(
            &ServerSeed::from_bytes(v.server_seed),
            v.game,
            v.round_id,
            &client_seed,
            v.max_rank,
        );
        assert_eq!(ids(&deck), v.deck, "{} {}", v.game, v.round_id);
    }
}

#[test]
fn the_worked_example_intermediate_values() {
    let v = &VECTORS[1];
    let server_seed = ServerSeed::from_bytes(v.server_seed);
    assert_eq!(
        commitment(&server_seed),
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    );
    let client_seed = client_seed_for(v.game, &seeds(v)).unwrap();
    assert_eq!(
        client_seed,
        "2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90"
    );
    let ds = deck_seed(&server_seed, v.game, v.round_id, &client_seed);
    assert_eq!(
        hex::encode(ds),
        "09d484f31993e34226b698bfc0e68c7844b147828962a66fb474d65340baede5"
    );
    let mut s = Shuffler::from_deck_seed(ds);
    let words: Vec<u32> = (0..3).map(|_| s.next_u32()).collect();
    assert_eq!(words, [0xc7e55087, 0xf5d543cd, 0x6cc9f889]);
    let mut s = Shuffler::from_deck_seed(ds);
    let js: Vec<u32> = (40..50u32).rev().map(|i| s.uniform(i + 1)).collect();
    assert_eq!(js, [43, 10, 25, 5, 26, 16, 14, 35, 32, 36]);
}

#[test]
fn the_reshuffle_vector_continues_the_stream() {
    let v = &VECTORS[2];
    let client_seed = client_seed_for(v.game, &seeds(v)).unwrap();
    let (deck, mut s) = shuffled_deck(
        &ServerSeed::from_bytes(v.server_seed),
        v.game,
        v.round_id,
        &client_seed,
        10,
    );
    let mut pile = deck[20..].to_vec();
    s.shuffle(&mut pile);
    assert_eq!(ids(&pile), RESHUFFLE_AFTER);
}

#[test]
fn the_published_vector_transcripts_match_and_verify() {
    let published: Vec<ShuffleTranscript> =
        serde_json::from_str(include_str!("../../docs/verify/test_vectors.json")).unwrap();
    assert_eq!(published.len(), VECTORS.len());
    for (t, v) in published.iter().zip(&VECTORS) {
        let server_seed = ServerSeed::from_bytes(v.server_seed);
        let deck: Vec<Card> = v.deck.iter().map(|&id| Card::from_id(id).unwrap()).collect();
        let reshuffles = if v.round_id == VECTORS[2].round_id {
            let after: Vec<Card> = RESHUFFLE_AFTER.iter().map(|&id| Card::from_id(id).unwrap()).collect();
            vec![Reshuffle::new(&deck[20..], &after)]
        } else {
            vec![]
        };
        let expected = ShuffleTranscript::record(&server_seed, v.game, v.round_id, &seeds(v), &deck, reshuffles);
        assert_eq!(t, &expected);
        assert!(verify(t).passed, "{}", verify(t).to_text());
    }
}
