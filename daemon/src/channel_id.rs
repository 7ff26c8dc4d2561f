//! Channel ids: validated once at the edge so every later use (paths, container and volume
//! names, log fields) can trust them.
//!
//! An id is used as given for its directories (`profiles/<id>`, `timeline/<id>`,
//! `downloads/<id>`), so on a case-insensitive file system (macOS's default) `Work` and `work`
//! would share them. The daemon therefore refuses a new channel whose [`ChannelId::folded`] form
//! equals a recorded channel's (`StateDb::claim_channel`, `ChannelService::start`): among the
//! channels it keeps, the directory name is injective even under case folding, and existing
//! channels' directories never move.

use serde::{Deserialize, Serialize};

/// Longest accepted channel id.
pub(crate) const MAX_LEN: usize = 64;

/// A channel id that is safe as a path component and a Docker name: 1–64 characters of
/// `[A-Za-z0-9_.-]`, starting with a letter or digit. Ids are kept as given (no lossy
/// sanitising), so two different ids can never map to the same directory or container.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ChannelId(String);

/// Why a string is not a channel id.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0:?} is not a valid channel id: use 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit")]
pub struct InvalidChannelId(pub String);

impl ChannelId {
    pub fn parse(text: &str) -> Result<Self, InvalidChannelId> {
        let valid = !text.is_empty()
            && text.len() <= MAX_LEN
            && text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if valid {
            Ok(Self(text.to_string()))
        } else {
            let shown: String = text.chars().take(80).collect();
            Err(InvalidChannelId(shown))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as a case-insensitive file system sees it (ASCII lowercase). Two channels whose
    /// folded forms are equal would share their directories there, so only one is allowed.
    pub fn folded(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    /// True when `self` and `other` are different ids that a case-insensitive file system
    /// would take for one name.
    pub fn clashes_with(&self, other: &ChannelId) -> bool {
        self != other && self.folded() == other.folded()
    }
}

impl TryFrom<String> for ChannelId {
    type Error = InvalidChannelId;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<ChannelId> for String {
    fn from(id: ChannelId) -> Self {
        id.0
    }
}

impl std::fmt::Display for ChannelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_safe_names_only() {
        for ok in ["a", "general", "team-1.dev_x", "A9"] {
            assert!(ChannelId::parse(ok).is_ok(), "{ok}");
        }
        let too_long = "a".repeat(MAX_LEN + 1);
        for bad in [
            "",
            "../etc",
            "-x",
            ".hidden",
            "a b",
            "a/b",
            "ü",
            too_long.as_str(),
        ] {
            assert!(ChannelId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ids_differing_only_in_case_clash_and_no_others_do() {
        let id = |s: &str| ChannelId::parse(s).unwrap();
        assert!(id("Work").clashes_with(&id("work")));
        assert!(id("work").clashes_with(&id("WORK")));
        assert!(id("a.B-c_D").clashes_with(&id("A.b-C_d")));
        assert!(!id("work").clashes_with(&id("work")), "the same channel");
        assert!(!id("work").clashes_with(&id("work2")));
        assert!(!id("work").clashes_with(&id("w0rk")));
        // Existing lowercase ids keep their folded (on-disk) form unchanged.
        assert_eq!(id("team-1.dev_x").folded(), "team-1.dev_x");
    }
}
