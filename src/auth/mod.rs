//! Who is calling: passwords (argon2), access tokens (JWT, HS256 only, with
//! key ids for rotation), the check of every request against the account as
//! it is now, and login throttling.

mod caller;
mod password;
pub mod proxies;
pub mod throttle;
mod token;

pub use caller::{
    authenticate, bearer_token, claim, AuthError, Caller, ClaimedCaller, OwnAccountCaller, Reach, SessionRefusal,
};
pub use password::{dummy_hash as password_dummy, hash_password, verify_password};
pub use token::{key_id, Claims, TokenError, TokenKeys};
