//! shuffle-v1: the certified seeded shuffle (docs/shuffle.md).
//!
//! Everything here is public and fixed so that an auditor can re-implement it
//! from docs/shuffle.md alone: SHA-256 commitment, combined client seed,
//! HMAC-SHA256 deck seed, ChaCha20 keystream words, the rejection-sampled
//! `uniform(n)` and a top-index-down Fisher–Yates. Nothing depends on `rand`'s
//! sampling internals; only the raw ChaCha20 keystream of `rand_chacha` is used.

use hmac::{Hmac, Mac};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

use crate::cards::{ordered_deck, Card};

/// The algorithm name recorded in every transcript.
pub const ALGORITHM: &str = "shuffle-v1";

/// Longest client seed accepted, in characters (= bytes: seeds are ASCII).
pub const CLIENT_SEED_MAX_CHARS: usize = 64;

/// The game a shuffle is for; its name is part of the HMAC message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Game {
    PrimaCarta,
    Lobo,
}

impl Game {
    pub const ALL: [Game; 2] = [Game::PrimaCarta, Game::Lobo];

    /// The name used in the HMAC message and in transcripts.
    pub const fn as_str(self) -> &'static str {
        match self {
            Game::PrimaCarta => "prima_carta",
            Game::Lobo => "lobo",
        }
    }

    pub fn parse(name: &str) -> Option<Game> {
        Game::ALL.into_iter().find(|g| g.as_str() == name)
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A round's secret 32-byte server seed. Its Debug output never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerSeed([u8; 32]);

/// Why a hex server seed was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerSeedError {
    /// Not hexadecimal (or an odd number of digits).
    NotHex,
    /// Decoded to this many bytes instead of 32.
    WrongLength(usize),
}

impl fmt::Display for ServerSeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerSeedError::NotHex => f.write_str("server seed is not hexadecimal"),
            ServerSeedError::WrongLength(n) => {
                write!(f, "server seed has {n} bytes; it must have 32 (64 hex digits)")
            }
        }
    }
}

impl std::error::Error for ServerSeedError {}

impl ServerSeed {
    pub const fn from_bytes(bytes: [u8; 32]) -> ServerSeed {
        ServerSeed(bytes)
    }

    /// Parses 64 hex digits (either case).
    pub fn from_hex(text: &str) -> Result<ServerSeed, ServerSeedError> {
        let bytes = hex::decode(text).map_err(|_| ServerSeedError::NotHex)?;
        let array: [u8; 32] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| ServerSeedError::WrongLength(bytes.len()))?;
        Ok(ServerSeed(array))
    }

    /// Lowercase hex, 64 digits. Only for storage and for the reveal after settlement.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for ServerSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerSeed(<redacted>)")
    }
}

/// `hex(SHA-256(server_seed))`, lowercase: the commitment published when the round is created.
pub fn commitment(seed: &ServerSeed) -> String {
    digest_hex(&Sha256::digest(seed.0).into())
}

/// A SHA-256 digest in lowercase hex, written in one go (`hex::encode` goes
/// character by character, which shows in the bulk replay).
fn digest_hex(digest: &[u8; 32]) -> String {
    let mut out = [0u8; 64];
    hex::encode_to_slice(digest, &mut out).expect("64 bytes hold 32 in hex");
    String::from_utf8(out.to_vec()).expect("hex is ASCII")
}

/// A player's client seed: 1 to 64 printable ASCII characters (0x20..=0x7E).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientSeed(String);

/// Why a client seed was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientSeedError {
    /// The empty string: a player without a seed sends none.
    Empty,
    /// More than 64 characters (the count given).
    TooLong(usize),
    /// A character outside printable ASCII 0x20..=0x7E, at this character index.
    NotPrintableAscii { index: usize },
}

impl fmt::Display for ClientSeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientSeedError::Empty => f.write_str("client seed is empty; omit it instead"),
            ClientSeedError::TooLong(n) => write!(
                f,
                "client seed has {n} characters; at most {CLIENT_SEED_MAX_CHARS} are allowed"
            ),
            ClientSeedError::NotPrintableAscii { index } => write!(
                f,
                "client seed character {index} is not printable ASCII (space to tilde)"
            ),
        }
    }
}

impl std::error::Error for ClientSeedError {}

impl ClientSeed {
    pub fn parse(text: &str) -> Result<ClientSeed, ClientSeedError> {
        if let Some(index) = text.chars().position(|c| !(' '..='~').contains(&c)) {
            return Err(ClientSeedError::NotPrintableAscii { index });
        }
        // All ASCII from here on, so bytes = characters.
        match text.len() {
            0 => Err(ClientSeedError::Empty),
            n if n > CLIENT_SEED_MAX_CHARS => Err(ClientSeedError::TooLong(n)),
            _ => Ok(ClientSeed(text.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The combined client seed for Prima Carta (docs/shuffle.md): sort the submitted seeds bytewise (duplicates kept),
/// join with "\n" (no trailing newline), return lowercase `hex(SHA-256(..))`.
/// No seeds gives the hash of the empty string.
pub fn combined_client_seed(seeds: &[ClientSeed]) -> String {
    let mut sorted: Vec<&str> = seeds.iter().map(ClientSeed::as_str).collect();
    sorted.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    digest_hex(&Sha256::digest(sorted.join("\n").as_bytes()).into())
}

/// The client seed string that enters the HMAC message for `game`:
/// Prima Carta combines every submitted seed; Lobo takes its one seed raw ("" if none).
/// Returns None for Lobo with more than one seed.
pub fn client_seed_for(game: Game, seeds: &[ClientSeed]) -> Option<String> {
    match game {
        Game::PrimaCarta => Some(combined_client_seed(seeds)),
        Game::Lobo => match seeds {
            [] => Some(String::new()),
            [one] => Some(one.as_str().to_owned()),
            _ => None,
        },
    }
}

/// The HMAC message of `shuffle-v1` (docs/shuffle.md), as UTF-8 bytes.
pub fn deck_seed_message(game: Game, round_id: &str, client_seed: &str) -> String {
    format!("djego/{ALGORITHM}/{}/{round_id}/{client_seed}", game.as_str())
}

/// `HMAC-SHA256(key = server_seed (32 raw bytes), message = deck_seed_message(..))`.
pub fn deck_seed(server_seed: &ServerSeed, game: Game, round_id: &str, client_seed: &str) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(&server_seed.0).expect("HMAC-SHA256 accepts a key of any length");
    mac.update(deck_seed_message(game, round_id, client_seed).as_bytes());
    mac.finalize().into_bytes().into()
}

/// The shuffle-v1 random source: the ChaCha20 keystream keyed by the deck seed,
/// read as little-endian 32-bit words. One Shuffler serves a whole round, so a
/// later shuffle (Jasper's reshuffle) continues the same stream.
#[derive(Clone)]
pub struct Shuffler {
    rng: ChaCha20Rng,
    words_drawn: u64,
}

impl fmt::Debug for Shuffler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The state would reveal every future card.
        write!(f, "Shuffler {{ words_drawn: {} }}", self.words_drawn)
    }
}

impl Shuffler {
    /// ChaCha20 keyed by `deck_seed`, 64-bit block counter 0, stream (nonce) 0.
    pub fn from_deck_seed(deck_seed: [u8; 32]) -> Shuffler {
        Shuffler {
            rng: ChaCha20Rng::from_seed(deck_seed),
            words_drawn: 0,
        }
    }

    /// The keystream's next little-endian 32-bit word.
    pub fn next_u32(&mut self) -> u32 {
        self.words_drawn += 1;
        self.rng.next_u32()
    }

    /// How many 32-bit words have been drawn so far.
    pub fn words_drawn(&self) -> u64 {
        self.words_drawn
    }

    /// Unbiased integer in `0..n` (docs/shuffle.md): `t = (2^32 - n) mod n`; draw `x`
    /// until `x >= t`; return `x mod n`. Always draws at least one word, even for n = 1.
    /// Returns None for n = 0 (no such integer).
    pub fn try_uniform(&mut self, n: u32) -> Option<u32> {
        if n == 0 {
            return None;
        }
        let threshold = n.wrapping_neg() % n; // (2^32 - n) mod n
        loop {
            let x = self.next_u32();
            if x >= threshold {
                return Some(x % n);
            }
        }
    }

    /// `uniform(n)` of `shuffle-v1` for `n >= 1`. For n = 0 (a caller bug) it returns 0
    /// without drawing, rather than panicking.
    pub fn uniform(&mut self, n: u32) -> u32 {
        debug_assert!(n >= 1, "uniform(0) has no result");
        self.try_uniform(n).unwrap_or(0)
    }

    /// Fisher–Yates (docs/shuffle.md): for i from len-1 down to 1, j = uniform(i+1), swap i and j.
    /// Position 0 is the top of the deck.
    pub fn shuffle(&mut self, deck: &mut [Card]) {
        self.shuffle_slice(deck)
    }

    /// The same permutation as `shuffle` applied to any items (it depends only on the length).
    pub fn shuffle_slice<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            // A deck never holds 2^32 items; saturate rather than truncate if one did.
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let j = self.uniform(n) as usize;
            items.swap(i, j);
        }
    }
}

/// The production path: the ordered deck of ranks 1..=max_rank, shuffled by
/// shuffle-v1, and the Shuffler positioned after it (for a later reshuffle).
pub fn shuffled_deck(
    server_seed: &ServerSeed,
    game: Game,
    round_id: &str,
    client_seed: &str,
    max_rank: u8,
) -> (Vec<Card>, Shuffler) {
    let mut shuffler = Shuffler::from_deck_seed(deck_seed(server_seed, game, round_id, client_seed));
    let mut deck = ordered_deck(max_rank);
    shuffler.shuffle(&mut deck);
    (deck, shuffler)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(rng: &mut Shuffler, n: usize) -> Vec<u8> {
        (0..n).flat_map(|_| rng.next_u32().to_le_bytes()).collect()
    }

    // RFC 7539 / RFC 8439 Appendix A.1, test vectors #1 and #2: key all zero,
    // nonce zero, block counter 0 then 1. With the counter below 2^32 and a zero
    // nonce the IETF and original (64-bit counter) layouts coincide.
    const ZERO_KEY_BLOCK0: &str = "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7\
                                   da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586";
    const ZERO_KEY_BLOCK1: &str = "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed\
                                   29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f";

    #[test]
    fn next_u32_is_the_chacha20_keystream_little_endian() {
        let mut rng = Shuffler::from_deck_seed([0; 32]);
        assert_eq!(hex::encode(words(&mut rng, 16)), ZERO_KEY_BLOCK0);
        assert_eq!(hex::encode(words(&mut rng, 16)), ZERO_KEY_BLOCK1);
        // Across rand_chacha's 4-block buffer refill the stream continues block by block.
        let mut rng = Shuffler::from_deck_seed([0; 32]);
        let first_8_blocks = words(&mut rng, 128);
        assert_eq!(hex::encode(&first_8_blocks[64..128]), ZERO_KEY_BLOCK1);
    }

    #[test]
    fn block_counter_is_64_bit_with_high_word_in_state_word_13() {
        // RFC 7539 §2.3.2: key 00..1f, counter 1, nonce 00000009 0000004a 00000000.
        // In the original layout state words 12..15 = counter low, counter high,
        // stream low, stream high, so the same state is counter = 1 + 0x09000000 << 32
        // and stream = 0x4a000000.
        let key: [u8; 32] = core::array::from_fn(|i| i as u8);
        let mut rng = ChaCha20Rng::from_seed(key);
        rng.set_stream(0x4a00_0000);
        rng.set_word_pos(((0x0900_0000u128 << 32) | 1) * 16);
        let mut out = [0u8; 64];
        rng.fill_bytes(&mut out);
        assert_eq!(
            hex::encode(out),
            "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
             d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
        );
    }

    #[test]
    fn commitment_is_sha256_of_the_raw_seed() {
        let seed = ServerSeed::from_bytes([0; 32]);
        // SHA-256 of 32 zero bytes.
        assert_eq!(
            commitment(&seed),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }

    #[test]
    fn server_seed_hex_round_trips_and_rejects_bad_input() {
        let text = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        let seed = ServerSeed::from_hex(text).unwrap();
        assert_eq!(seed.to_hex(), text.to_lowercase());
        assert_eq!(ServerSeed::from_hex("zz"), Err(ServerSeedError::NotHex));
        assert_eq!(ServerSeed::from_hex("abc"), Err(ServerSeedError::NotHex));
        assert_eq!(ServerSeed::from_hex("abcd"), Err(ServerSeedError::WrongLength(2)));
        assert_eq!(format!("{seed:?}"), "ServerSeed(<redacted>)");
    }

    #[test]
    fn client_seeds_are_1_to_64_printable_ascii() {
        assert!(ClientSeed::parse("lucky 7 ~!").is_ok());
        assert_eq!(ClientSeed::parse(""), Err(ClientSeedError::Empty));
        assert!(ClientSeed::parse(&"x".repeat(64)).is_ok());
        assert_eq!(ClientSeed::parse(&"x".repeat(65)), Err(ClientSeedError::TooLong(65)));
        assert_eq!(
            ClientSeed::parse("ab\ncd"),
            Err(ClientSeedError::NotPrintableAscii { index: 2 })
        );
        assert_eq!(
            ClientSeed::parse("señor"),
            Err(ClientSeedError::NotPrintableAscii { index: 2 })
        );
    }

    #[test]
    fn combined_client_seed_sorts_bytewise_and_joins_with_newlines() {
        let seeds = |xs: &[&str]| xs.iter().map(|s| ClientSeed::parse(s).unwrap()).collect::<Vec<_>>();
        let sha = |s: &str| hex::encode(Sha256::digest(s.as_bytes()));
        assert_eq!(combined_client_seed(&[]), sha(""));
        assert_eq!(
            combined_client_seed(&[]),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(combined_client_seed(&seeds(&["b", "a", "B"])), sha("B\na\nb"));
        assert_eq!(combined_client_seed(&seeds(&["x", "x"])), sha("x\nx"));
        assert_eq!(combined_client_seed(&seeds(&["solo"])), sha("solo"));
    }

    #[test]
    fn lobo_takes_the_raw_seed() {
        let s = ClientSeed::parse("wolf").unwrap();
        assert_eq!(client_seed_for(Game::Lobo, &[]).as_deref(), Some(""));
        assert_eq!(
            client_seed_for(Game::Lobo, std::slice::from_ref(&s)).as_deref(),
            Some("wolf")
        );
        assert_eq!(client_seed_for(Game::Lobo, &[s.clone(), s]), None);
    }

    #[test]
    fn deck_seed_is_hmac_of_the_documented_message() {
        assert_eq!(
            deck_seed_message(Game::Lobo, "r-1", "abc"),
            "djego/shuffle-v1/lobo/r-1/abc"
        );
        // RFC 4231 style cross-check: HMAC-SHA256 is keyed by the raw 32 bytes.
        let seed = ServerSeed::from_bytes([0x0b; 32]);
        let mut mac = Hmac::<Sha256>::new_from_slice(&[0x0b; 32]).unwrap();
        mac.update(b"djego/shuffle-v1/prima_carta/7/x");
        let expected: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(deck_seed(&seed, Game::PrimaCarta, "7", "x"), expected);
        assert_ne!(deck_seed(&seed, Game::Lobo, "7", "x"), expected);
    }

    /// A Shuffler whose stream is a fixed list of words, to test uniform's rejection rule.
    fn uniform_over(words: &[u32], n: u32) -> (u32, usize) {
        // Search a real stream for the given word pattern would be slow; instead
        // replicate the rule on an iterator, the same code path as try_uniform.
        let threshold = n.wrapping_neg() % n;
        let mut used = 0;
        for &x in words {
            used += 1;
            if x >= threshold {
                return (x % n, used);
            }
        }
        panic!("ran out of words")
    }

    #[test]
    fn uniform_rejects_below_the_threshold() {
        // n = 3: t = (2^32 - 3) mod 3 = 1 (2^32 = 1 mod 3), so only x = 0 is rejected.
        assert_eq!(3u32.wrapping_neg() % 3, 1);
        assert_eq!(uniform_over(&[0, 0, 5], 3), (2, 3));
        // n = 50: t = 2^32 mod 50 = 46.
        assert_eq!(50u32.wrapping_neg() % 50, 46);
        assert_eq!(uniform_over(&[45, 46], 50), (46, 2));
        // The real Shuffler agrees with the rule on its own stream, word for word.
        for n in [1u32, 2, 3, 7, 50, (1 << 31) + 1, u32::MAX] {
            let mut a = Shuffler::from_deck_seed([7; 32]);
            let mut b = Shuffler::from_deck_seed([7; 32]);
            let stream: Vec<u32> = (0..16).map(|_| b.next_u32()).collect();
            let (value, used) = uniform_over(&stream, n);
            assert_eq!(a.uniform(n), value);
            assert_eq!(a.words_drawn(), used as u64);
        }
        assert_eq!(Shuffler::from_deck_seed([7; 32]).try_uniform(0), None);
    }

    #[test]
    fn fisher_yates_goes_from_the_top_index_down() {
        // Replay by hand: draws for n = 5, 4, 3, 2.
        let mut s = Shuffler::from_deck_seed([9; 32]);
        let mut deck: Vec<u8> = (0..5).collect();
        s.clone().shuffle_slice(&mut deck);
        let mut manual: Vec<u8> = (0..5).collect();
        for i in (1..5usize).rev() {
            let j = s.uniform(i as u32 + 1) as usize;
            manual.swap(i, j);
        }
        assert_eq!(deck, manual);
        // Length 0 and 1 draw nothing.
        let mut t = Shuffler::from_deck_seed([9; 32]);
        t.shuffle_slice::<u8>(&mut []);
        t.shuffle_slice(&mut [1u8]);
        assert_eq!(t.words_drawn(), 0);
    }

    #[test]
    fn a_reshuffle_continues_the_stream() {
        let seed = ServerSeed::from_bytes([3; 32]);
        let (deck, mut s) = shuffled_deck(&seed, Game::PrimaCarta, "r", "", 10);
        let mut again = deck.clone();
        s.shuffle(&mut again);
        let (deck2, mut s2) = shuffled_deck(&seed, Game::PrimaCarta, "r", "", 10);
        assert_eq!(deck, deck2);
        let mut fresh = ordered_deck(10);
        Shuffler::from_deck_seed(deck_seed(&seed, Game::PrimaCarta, "r", "")).shuffle(&mut fresh);
        assert_eq!(fresh, deck, "a fresh Shuffler repeats the first shuffle");
        let mut cont = deck2.clone();
        s2.shuffle(&mut cont);
        assert_eq!(cont, again);
        assert_ne!(again, deck);
    }

    #[test]
    fn shuffled_decks_are_permutations_of_the_mode_deck() {
        let seed = ServerSeed::from_bytes([1; 32]);
        for max_rank in [10u8, 9, 8] {
            let (mut deck, _) = shuffled_deck(&seed, Game::Lobo, "x", "", max_rank);
            deck.sort();
            assert_eq!(deck, ordered_deck(max_rank));
        }
    }
}
