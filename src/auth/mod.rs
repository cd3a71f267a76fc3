//! Who is calling: passwords (argon2), access tokens (JWT, HS256 only), and
//! the one extractor every protected endpoint uses to learn and check the role.

mod caller;
mod password;
mod token;

pub use caller::Caller;
pub use password::{dummy_hash as password_dummy, hash_password, verify_password};
pub use token::{Claims, TokenKeys};
