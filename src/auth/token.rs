use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::domain::Role;

#[derive(Debug, Serialize, Deserialize, Clone)]
pub struct Claims {
    /// The user's id.
    pub sub: String,
    pub role: Role,
    pub name: String,
    pub iat: u64,
    pub exp: u64,
}

/// Signing and checking keys. Only HS256 is accepted: a token with
/// `alg: none`, another algorithm or a wrong signature is refused.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    pub ttl_seconds: u64,
}

impl TokenKeys {
    pub fn new(secret: &[u8], ttl_seconds: u64) -> TokenKeys {
        TokenKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            ttl_seconds,
        }
    }

    pub fn issue(&self, user_id: &str, role: Role, name: &str, now_s: u64) -> (String, u64) {
        let exp = now_s + self.ttl_seconds;
        let claims = Claims {
            sub: user_id.to_string(),
            role,
            name: name.to_string(),
            iat: now_s,
            exp,
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 encoding of plain claims cannot fail");
        (token, exp)
    }

    pub fn check(&self, token: &str) -> Result<Claims, String> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        decode::<Claims>(token, &self.decoding, &validation)
            .map(|d| d.claims)
            .map_err(|e| e.to_string())
    }
}
