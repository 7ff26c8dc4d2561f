//! The seam between the vault and where secrets live: [`VaultSource`], one implementation per
//! kind (`keepass`, `pass`; `op` and `bw` would be further ones), and the data a source hands
//! out — [`ItemInfo`] (never a secret) and [`Entry`] (the secrets of one item, for one fill,
//! wiped on drop).

use async_trait::async_trait;
use serde::Serialize;
use zeroize::Zeroizing;

use super::error::VaultError;
use super::totp::TotpSpec;

/// Whether a source can be used now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceState {
    Locked,
    Unlocked,
    /// It cannot be read (missing file, corrupt database, gpg missing): the reason.
    Error(String),
}

impl SourceState {
    pub fn name(&self) -> &'static str {
        match self {
            SourceState::Locked => "locked",
            SourceState::Unlocked => "unlocked",
            SourceState::Error(_) => "error",
        }
    }
}

/// What anyone may know of an item: no password, no seed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ItemInfo {
    /// `<source>/<path>`, e.g. `kp/Web/GitHub`.
    pub item: String,
    pub title: String,
    pub username: String,
    /// `scheme://host[:port]` of the entry's URL fields.
    pub origins: Vec<String>,
    pub has_totp: bool,
}

/// One item's secrets, read for one fill; the password is wiped when this drops.
pub struct Entry {
    pub title: String,
    pub username: Zeroizing<String>,
    pub password: Option<Zeroizing<String>>,
    pub totp: Option<Result<TotpSpec, super::totp::TotpError>>,
    pub origins: Vec<String>,
}

/// A place secrets live.
#[async_trait]
pub trait VaultSource: Send + Sync {
    /// The source's `name` from config (the first part of its items' names).
    fn name(&self) -> &str;
    /// `keepass`, `pass`.
    fn kind(&self) -> &'static str;
    /// Whether it can be used now.
    fn state(&self) -> SourceState;
    /// Unlocks with a password (memory only).
    async fn unlock(&self, password: Zeroizing<String>) -> Result<(), VaultError>;
    /// Forgets the password and everything decrypted.
    fn lock(&self);
    /// The items, by their path inside the source (without the source's name).
    async fn items(&self) -> Result<Vec<ItemInfo>, VaultError>;
    /// The secrets of the item at `path` (inside the source).
    async fn entry(&self, path: &str) -> Result<Entry, VaultError>;
}

/// `<source>/<path>` → `(source, path)`.
pub fn split_item(item: &str) -> Option<(&str, &str)> {
    item.split_once('/')
        .filter(|(s, p)| !s.is_empty() && !p.is_empty())
}
