use serde::Deserialize;

/// A login name: 3..=32 characters of ASCII letters, digits, `.`, `_`, `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    pub fn parse(text: &str) -> Result<Username, String> {
        let ok_len = (3..=32).contains(&text.len());
        let ok_chars = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if ok_len && ok_chars {
            Ok(Username(text.to_ascii_lowercase()))
        } else {
            Err("username must be 3 to 32 characters of letters, digits, '.', '_' or '-'".into())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A new password: 10..=128 characters.
#[derive(Clone, Deserialize)]
pub struct Password(String);

impl Password {
    pub fn parse(text: &str) -> Result<Password, String> {
        let chars = text.chars().count();
        if (10..=128).contains(&chars) {
            Ok(Password(text.to_string()))
        } else {
            Err("password must be 10 to 128 characters".into())
        }
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}
