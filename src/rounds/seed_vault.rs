//! Server seeds (and, under the same key, patrons' identities) at rest: sealed with ChaCha20-Poly1305 under the configured
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
    /// Keys the blind indexes ([`SeedVault::blind`]): derived from the sealing key, never stored.
    blind_key: [u8; 32],
}

#[derive(Debug, thiserror::Error)]
#[error("sealed server seed of round {round_id} does not open with the configured key")]
pub struct UnsealError {
    pub round_id: String,
}

impl SeedVault {
    pub fn new(key: &[u8; 32]) -> SeedVault {
        use sha2::{Digest, Sha256};
        let blind_key: [u8; 32] = Sha256::new()
            .chain_update(b"djego blind index v1\0")
            .chain_update(key)
            .finalize()
            .into();
        SeedVault {
            cipher: ChaCha20Poly1305::new(key.into()),
            blind_key,
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
        self.seal_bytes(round_id.as_bytes(), seed.as_bytes())
    }

    /// Seals any secret the service keeps at rest under the same key (a patron's identity):
    /// `hex(nonce || ciphertext)`, `aad` binding it to what it belongs to.
    pub fn seal_bytes(&self, aad: &[u8], msg: &[u8]) -> String {
        let mut nonce = [0u8; NONCE_BYTES];
        OsRng.fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg, aad })
            .expect("ChaCha20-Poly1305 encryption of a short message cannot fail");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        hex::encode(out)
    }

    /// Opens what [`SeedVault::seal_bytes`] sealed with the same `aad`; None if it does not open.
    pub fn open_bytes(&self, aad: &[u8], sealed_hex: &str) -> Option<Vec<u8>> {
        let bytes = hex::decode(sealed_hex).ok()?;
        if bytes.len() <= NONCE_BYTES {
            return None;
        }
        let (nonce, ct) = bytes.split_at(NONCE_BYTES);
        self.cipher
            .decrypt(Nonce::from_slice(nonce), Payload { msg: ct, aad })
            .ok()
    }

    /// A blind index of `text` for `purpose`: equal texts give equal keys, and without the
    /// service's key nothing about the text can be learnt or tried from the database (a plain
    /// hash of a name and a birth date could be guessed). HMAC-SHA-256 keyed by a key derived
    /// from the sealing key.
    pub fn blind(&self, purpose: &str, text: &str) -> String {
        use hmac::{Mac, SimpleHmac};
        let mut mac = <SimpleHmac<sha2::Sha256> as Mac>::new_from_slice(&self.blind_key).expect("any key length");
        mac.update(purpose.as_bytes());
        mac.update(b"\0");
        mac.update(text.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    pub fn open(&self, round_id: &str, sealed_hex: &str) -> Result<ServerSeed, UnsealError> {
        let err = || UnsealError {
            round_id: round_id.to_string(),
        };
        let plain = self.open_bytes(round_id.as_bytes(), sealed_hex).ok_or_else(err)?;
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
