//! The arbiter's token: the secret every arbiter action carries (`[http] token`, or
//! made and kept in the output folder).

use std::fmt;
use std::io::Read;
use std::path::Path;

/// Shortest token accepted from the config.
pub const MIN_TOKEN_LEN: usize = 16;
/// Longest token accepted from the config (and longest header value compared).
pub const MAX_TOKEN_LEN: usize = 200;

/// The arbiter's secret. `Debug` and `Display` print `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct ArbiterToken(String);

/// Why a text cannot be a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the token has {0} characters")]
    Length(usize),
    #[error("the token holds a space or a character that is not printable ASCII")]
    Charset,
}

impl ArbiterToken {
    /// Validates a token: 16 to 200 printable ASCII characters, no spaces.
    pub fn new(text: &str) -> Result<ArbiterToken, TokenError> {
        let n = text.chars().count();
        if !(MIN_TOKEN_LEN..=MAX_TOKEN_LEN).contains(&n) {
            return Err(TokenError::Length(n));
        }
        if !text.chars().all(|c| c.is_ascii_graphic()) {
            return Err(TokenError::Charset);
        }
        Ok(ArbiterToken(text.to_owned()))
    }

    /// A fresh random token (32 hex digits from the kernel's random source).
    pub fn generate() -> std::io::Result<ArbiterToken> {
        Ok(ArbiterToken(random_hex(16)?))
    }

    /// Reads the token kept at `path`, or makes one and keeps it there (owner-only
    /// permissions), so a restarted daemon keeps the same token.
    pub fn load_or_create(path: &Path) -> std::io::Result<ArbiterToken> {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(t) = ArbiterToken::new(text.trim()) {
                return Ok(t);
            }
        }
        let token = ArbiterToken::generate()?;
        crash_safe::write_atomic(path, format!("{}\n", token.0).as_bytes())?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        Ok(token)
    }

    /// Whether `given` is this token; the time taken does not depend on where they differ.
    pub fn matches(&self, given: &str) -> bool {
        constant_time_eq(self.0.as_bytes(), given.as_bytes())
    }
}

impl fmt::Debug for ArbiterToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ArbiterToken(***)")
    }
}

/// Compares two byte strings without an early exit. Only the length leaks, and every
/// header value is compared over the token's full length whatever its own length.
pub fn constant_time_eq(expected: &[u8], given: &[u8]) -> bool {
    let mut diff = u8::from(expected.len() != given.len());
    for (i, e) in expected.iter().enumerate() {
        diff |= e ^ given.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

/// `bytes` random bytes from the kernel, in hex.
pub fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "correct-horse-battery";

    #[test]
    fn tokens_are_validated_and_hidden() {
        assert!(ArbiterToken::new("short").is_err());
        assert_eq!(
            ArbiterToken::new("has a space in it here"),
            Err(TokenError::Charset)
        );
        assert!(ArbiterToken::new(&"x".repeat(201)).is_err());
        let t = ArbiterToken::new(T).unwrap();
        assert!(!format!("{t:?}").contains("horse"));
        assert!(t.matches(T));
        assert!(!t.matches("correct-horse-batterz"));
        assert!(!t.matches("correct-horse-battery-"));
        assert!(!t.matches(""));
        let g = ArbiterToken::generate().unwrap();
        assert_ne!(g, ArbiterToken::generate().unwrap());
    }

    #[test]
    fn constant_time_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"abc", b"abc\0"));
        assert!(constant_time_eq(b"", b""));
    }
}
