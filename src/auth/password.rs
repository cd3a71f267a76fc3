use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

fn hasher(memory_kib: u32) -> Argon2<'static> {
    let params = Params::new(memory_kib, Params::DEFAULT_T_COST, Params::DEFAULT_P_COST, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// An argon2id PHC string; the parameters travel inside it, so verification
/// needs no configuration.
pub fn hash_password(password: &str, memory_kib: u32) -> String {
    let salt = SaltString::generate(&mut OsRng);
    hasher(memory_kib)
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .expect("argon2 with valid parameters and a fresh salt cannot fail")
}

pub fn verify_password(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok(),
        Err(_) => false,
    }
}

/// A hash to verify against when the username is unknown, so that a failed
/// login costs the same time whether or not the account exists.
pub fn dummy_hash(memory_kib: u32) -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash_password("djego-no-such-user", memory_kib))
}

#[cfg(test)]
mod tests {
    #[test]
    fn verifies_only_the_right_password() {
        let phc = super::hash_password("correct horse", 1024);
        assert!(super::verify_password("correct horse", &phc));
        assert!(!super::verify_password("wrong horse", &phc));
        assert!(!super::verify_password("x", "not a phc string"));
    }
}
