use jsonwebtoken::{decode, decode_header, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::Role;

/// What a token says. Only `sub`, `sv` and the expiry are trusted: the role,
/// name and active flag are read from the database on every request (the
/// wager path reads them in the transaction that commits the request).
#[derive(Debug, Serialize, Deserialize, Clone)]
pub struct Claims {
    /// The user's id.
    pub sub: String,
    /// The role when the token was issued: for clients, and for the wager
    /// path's early refusal, which its transaction confirms against the account.
    pub role: Role,
    pub name: String,
    /// The account's session version when the token was issued.
    pub sv: i64,
    pub iat: u64,
    pub exp: u64,
}

/// Why a token was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("the token names no signing key (kid)")]
    NoKeyId,
    #[error("the token's signing key {0} is retired or unknown")]
    RetiredKey(String),
    #[error("{0}")]
    Invalid(String),
}

struct VerifyingKey {
    id: String,
    key: DecodingKey,
}

/// Signing and checking keys. Tokens are signed (HS256 only) with the current
/// key and name it in the header's `kid`; tokens signed with a previous key
/// stay valid until that key is retired from the configuration, so a key can
/// be rotated without logging everyone out at once. A token with `alg: none`,
/// another algorithm, no `kid`, an unknown `kid` or a wrong signature is refused.
pub struct TokenKeys {
    current_id: String,
    encoding: EncodingKey,
    accepted: Vec<VerifyingKey>,
    pub ttl_seconds: u64,
}

impl TokenKeys {
    /// `current` signs; `current` and every one of `previous` verify.
    pub fn new(current: &[u8], previous: &[Vec<u8>], ttl_seconds: u64) -> TokenKeys {
        let accepted = std::iter::once(current)
            .chain(previous.iter().map(Vec::as_slice))
            .map(|secret| VerifyingKey {
                id: key_id(secret),
                key: DecodingKey::from_secret(secret),
            })
            .collect();
        TokenKeys {
            current_id: key_id(current),
            encoding: EncodingKey::from_secret(current),
            accepted,
            ttl_seconds,
        }
    }

    /// The id of the key that signs new tokens.
    pub fn current_key_id(&self) -> &str {
        &self.current_id
    }

    /// The ids of every key whose tokens are accepted, the current one first.
    pub fn accepted_key_ids(&self) -> Vec<String> {
        self.accepted.iter().map(|k| k.id.clone()).collect()
    }

    pub fn issue(&self, user_id: &str, role: Role, name: &str, session_version: i64, now_s: u64) -> (String, u64) {
        let exp = now_s + self.ttl_seconds;
        let claims = Claims {
            sub: user_id.to_string(),
            role,
            name: name.to_string(),
            sv: session_version,
            iat: now_s,
            exp,
        };
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(self.current_id.clone());
        let token = encode(&header, &claims, &self.encoding).expect("HS256 encoding of plain claims cannot fail");
        (token, exp)
    }

    pub fn check(&self, token: &str) -> Result<Claims, TokenError> {
        let header = decode_header(token).map_err(|e| TokenError::Invalid(e.to_string()))?;
        let kid = header.kid.ok_or(TokenError::NoKeyId)?;
        let key = self
            .accepted
            .iter()
            .find(|k| k.id == kid)
            .ok_or(TokenError::RetiredKey(kid))?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        decode::<Claims>(token, &key.key, &validation)
            .map(|d| d.claims)
            .map_err(|e| TokenError::Invalid(e.to_string()))
    }
}

/// A key's public name: the first 8 bytes (16 hex digits) of SHA-256 over "djego token key id",
/// a zero byte and the secret (docs/security.md), so it reveals nothing of it.
pub fn key_id(secret: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(b"djego token key id\0");
    h.update(secret);
    hex::encode(&h.finalize()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &[u8] = b"an-old-secret-an-old-secret-an-old-secret";
    const NEW: &[u8] = b"a-new-secret-a-new-secret-a-new-secret-a-new";

    /// The key id is what docs/security.md says, byte for byte.
    #[test]
    fn the_key_id_is_the_documented_prefixed_hash() {
        let mut message = b"djego token key id".to_vec();
        message.push(0);
        message.extend_from_slice(NEW);
        let documented = hex::encode(Sha256::digest(&message));
        assert_eq!(key_id(NEW), documented[..16]);
    }

    #[test]
    fn a_previous_key_verifies_until_it_is_retired() {
        let before = TokenKeys::new(OLD, &[], 600);
        let (old_token, _) = before.issue("u1", Role::Cashier, "cash", 3, now_s());
        let rotating = TokenKeys::new(NEW, &[OLD.to_vec()], 600);
        assert_eq!(rotating.check(&old_token).unwrap().sv, 3);
        let (new_token, _) = rotating.issue("u1", Role::Cashier, "cash", 3, now_s());
        assert_eq!(rotating.check(&new_token).unwrap().sub, "u1");
        let retired = TokenKeys::new(NEW, &[], 600);
        assert_eq!(
            retired.check(&old_token).unwrap_err(),
            TokenError::RetiredKey(key_id(OLD))
        );
        assert!(retired.check(&new_token).is_ok());
        assert_eq!(rotating.accepted_key_ids(), vec![key_id(NEW), key_id(OLD)]);
    }

    #[test]
    fn a_token_signed_with_another_secret_under_a_known_kid_is_refused() {
        let keys = TokenKeys::new(NEW, &[], 600);
        let forger = TokenKeys::new(OLD, &[], 600);
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(keys.current_key_id().to_string());
        let claims = Claims {
            sub: "u1".into(),
            role: Role::Pitboss,
            name: "x".into(),
            sv: 0,
            iat: now_s(),
            exp: now_s() + 60,
        };
        let forged = encode(&header, &claims, &forger.encoding).unwrap();
        assert!(matches!(keys.check(&forged), Err(TokenError::Invalid(_))));
    }

    fn now_s() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    }
}
