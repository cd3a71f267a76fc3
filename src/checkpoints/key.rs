//! The Ed25519 key that signs checkpoints, and checking signatures.
//!
//! The private key lives outside the database (a file or the environment,
//! see src/config.rs): whoever can write the database cannot sign.

use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use rand_core::OsRng;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The private signing key. Its Debug output shows only the key id.
#[derive(Clone)]
pub struct CheckpointKey {
    signing: SigningKey,
}

impl std::fmt::Debug for CheckpointKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CheckpointKey({})", self.public_key().key_id())
    }
}

impl CheckpointKey {
    pub fn generate() -> CheckpointKey {
        CheckpointKey {
            signing: SigningKey::generate(&mut OsRng),
        }
    }

    /// A key given as text: 64 hex digits (the 32-byte private key), or a
    /// PKCS#8 PEM document as `openssl genpkey -algorithm ed25519` writes it.
    pub fn parse(text: &str) -> Result<CheckpointKey, String> {
        let text = text.trim();
        let signing = if text.starts_with("-----BEGIN") {
            SigningKey::from_pkcs8_pem(text).map_err(|e| format!("not an Ed25519 PKCS#8 PEM private key: {e}"))?
        } else {
            let bytes: [u8; 32] = hex::decode(text)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or("an Ed25519 private key must be 64 hex digits or a PKCS#8 PEM document")?;
            SigningKey::from_bytes(&bytes)
        };
        Ok(CheckpointKey { signing })
    }

    pub fn read(path: &Path) -> Result<CheckpointKey, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        CheckpointKey::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The key as 64 hex digits, the form `DJEGO_CHECKPOINT_KEY` takes.
    pub fn to_hex(&self) -> String {
        hex::encode(self.signing.to_bytes())
    }

    /// The key as PKCS#8 PEM, the form written to a generated key file.
    pub fn to_pem(&self) -> String {
        self.signing
            .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
            .expect("an Ed25519 key encodes as PKCS#8")
            .to_string()
    }

    pub fn public_key(&self) -> PublicKey {
        PublicKey(self.signing.verifying_key())
    }

    /// The signature of `message`, as 128 hex digits.
    pub fn sign(&self, message: &[u8]) -> String {
        hex::encode(self.signing.sign(message).to_bytes())
    }
}

/// A checkpoint key's public half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey(VerifyingKey);

impl PublicKey {
    /// 64 hex digits: the 32-byte Ed25519 public key.
    pub fn parse_hex(text: &str) -> Result<PublicKey, String> {
        let bytes: [u8; 32] = hex::decode(text.trim())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or("a public key must be 64 hex digits")?;
        VerifyingKey::from_bytes(&bytes)
            .map(PublicKey)
            .map_err(|_| "not a valid Ed25519 public key".to_string())
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0.as_bytes())
    }

    /// The first 16 hex digits of SHA-256 of the 32-byte public key: short
    /// enough to read aloud, stored with every checkpoint it signs.
    pub fn key_id(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))[..16].to_string()
    }

    /// Checks a hex signature of `message` (strict Ed25519: no malleable or
    /// weak-key signatures).
    pub fn verify(&self, message: &[u8], signature_hex: &str) -> Result<(), String> {
        let bytes: [u8; 64] = hex::decode(signature_hex.trim())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or("the signature is not 128 hex digits")?;
        self.0
            .verify_strict(message, &Signature::from_bytes(&bytes))
            .map_err(|_| "the signature does not verify".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_its_message_and_key() {
        let key = CheckpointKey::generate();
        let public = key.public_key();
        let signature = key.sign(b"message");
        assert_eq!(public.verify(b"message", &signature), Ok(()));
        assert!(public.verify(b"messagf", &signature).is_err());
        assert!(CheckpointKey::generate()
            .public_key()
            .verify(b"message", &signature)
            .is_err());
        assert!(public.verify(b"message", "00").is_err());
    }

    #[test]
    fn keys_read_back_from_pem_and_hex() {
        let key = CheckpointKey::generate();
        let from_pem = CheckpointKey::parse(&key.to_pem()).expect("PEM");
        assert_eq!(from_pem.public_key(), key.public_key());
        let from_hex = CheckpointKey::parse(&key.to_hex()).expect("hex");
        assert_eq!(from_hex.public_key(), key.public_key());
        assert!(CheckpointKey::parse("abcd").is_err());
        let public = PublicKey::parse_hex(&key.public_key().to_hex()).expect("public hex");
        assert_eq!(public, key.public_key());
        assert_eq!(public.key_id().len(), 16);
    }

    /// The Ed25519 standard's first test vector (the empty message): djego
    /// signs what any Ed25519 tool checks.
    #[test]
    fn signs_the_rfc_8032_test_vector() {
        let key = CheckpointKey::parse("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60").unwrap();
        assert_eq!(
            key.public_key().to_hex(),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        assert_eq!(
            key.sign(b""),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        );
    }
}
