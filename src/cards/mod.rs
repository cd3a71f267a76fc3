mod card;
pub use card::*;
