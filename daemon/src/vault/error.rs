//! What can go wrong in the vault. Messages are for a person (and an agent, for the tool
//! errors); none ever quotes a password, a seed or a code.

/// A vault operation that did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaultError {
    #[error("there is no vault source named {0:?} (vault.sources)")]
    UnknownSource(String),
    #[error("vault source {name:?} is locked: the person can unlock it in the Porthole pane (key button) or with POST /api/browser/vault/{name}/unlock")]
    Locked { name: String },
    #[error("wrong password for vault source {0:?}; it stays locked")]
    WrongPassword(String),
    #[error("vault source {name:?} cannot be read: {reason}")]
    Unreadable { name: String, reason: String },
    #[error("vault source {0:?} is a pass store: gpg-agent unlocks it, not Porthole")]
    NoUnlock(String),
    #[error("no item {0:?} in the vault")]
    UnknownItem(String),
    #[error("item {item:?} has no {what}")]
    Missing { item: String, what: &'static str },
    #[error("vault.share: {0}")]
    BadShare(String),
}
