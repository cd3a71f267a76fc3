//! Server seeds at rest: sealed with ChaCha20-Poly1305 under the configured
//! key, the round id as associated data (a sealed seed copied onto another
//! round does not open). A database reader learns nothing of a seed before
//! its round is settled and the seed is published.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Nonce};
use rand_core::{OsRng, RngCore};

use crate::cards::shuffle::ServerSeed;

const NONCE_BYTES: usize = 12;

#[derive(Clone)]
pub struct SeedVault {
    cipher: ChaCha20Poly1305,
}

#[derive(Debug, thiserror::Error)]
#[error("sealed server seed of round {round_id} does not open with the configured key")]
pub struct UnsealError {
    pub round_id: String,
}

impl SeedVault {
    pub fn new(key: &[u8; 32]) -> SeedVault {
        SeedVault {
            cipher: ChaCha20Poly1305::new(key.into()),
        }
    }

    /// A fresh 32-byte seed from the operating system's CSPRNG (docs/shuffle.md).
    pub fn draw_seed() -> ServerSeed {
        let mut bytes = [0u8; 32];
        OsRng.fill_bytes(&mut bytes);
        ServerSeed::from_bytes(bytes)
    }

    /// `hex(nonce || ciphertext)`.
    pub fn seal(&self, round_id: &str, seed: &ServerSeed) -> String {
        let mut nonce = [0u8; NONCE_BYTES];
        OsRng.fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: seed.as_bytes(),
                    aad: round_id.as_bytes(),
                },
            )
            .expect("ChaCha20-Poly1305 encryption of 32 bytes cannot fail");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        hex::encode(out)
    }

    pub fn open(&self, round_id: &str, sealed_hex: &str) -> Result<ServerSeed, UnsealError> {
        let err = || UnsealError {
            round_id: round_id.to_string(),
        };
        let bytes = hex::decode(sealed_hex).map_err(|_| err())?;
        if bytes.len() <= NONCE_BYTES {
            return Err(err());
        }
        let (nonce, ct) = bytes.split_at(NONCE_BYTES);
        let plain = self
            .cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ct,
                    aad: round_id.as_bytes(),
                },
            )
            .map_err(|_| err())?;
        let seed: [u8; 32] = plain.try_into().map_err(|_| err())?;
        Ok(ServerSeed::from_bytes(seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_and_opens_only_for_its_round_and_key() {
        let vault = SeedVault::new(&[7u8; 32]);
        let seed = SeedVault::draw_seed();
        let sealed = vault.seal("round-1", &seed);
        assert!(!sealed.contains(&seed.to_hex()));
        assert_eq!(vault.open("round-1", &sealed).unwrap(), seed);
        assert!(vault.open("round-2", &sealed).is_err());
        assert!(SeedVault::new(&[8u8; 32]).open("round-1", &sealed).is_err());
        assert!(vault.open("round-1", "zz").is_err());
    }
}
