//! The vault (DESIGN.md §19): sign-ins from the person's own password manager that agents use
//! and never read. Owns the configured sources ([`VaultSource`]: [`keepass`], [`pass`]), what
//! each is (locked, unlocked, unreadable), the person's shares ([`shares`]), and the one way a
//! secret leaves: [`Vault::open_for`], which hands an item's secrets to a fill (in `tools`)
//! only when the item is shared with the caller and its source is unlocked.
//!
//! Secrets are held in zeroizing buffers for one fill; unlock passwords only in memory. This
//! module never logs, stores or returns a password, a seed or a code, and knows nothing of
//! browsers or HTTP.

pub mod error;
pub mod fill_record;
pub mod keepass;
pub mod keyring;
pub mod keyring_setup;
pub mod ledger;
pub mod origins;
pub mod pass;
pub mod password_input;
pub mod scan;
pub mod settings;
pub mod shares;
pub mod source;
pub mod totp;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use zeroize::Zeroizing;

pub use error::VaultError;
pub use fill_record::FillRecord;
pub use ledger::Doc;
pub use source::{Entry, ItemInfo, SourceState, VaultSource};

use settings::{VaultConfig, VaultShare, VaultSourceConfig};

/// One source as the API shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct SourceStatus {
    pub name: String,
    pub kind: String,
    /// `locked`, `unlocked` or `error`.
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `GET /api/browser/vault`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Overview {
    pub sources: Vec<SourceStatus>,
    /// Items of unlocked sources (never a password or a seed).
    pub items: Vec<ItemInfo>,
    pub shares: Vec<VaultShare>,
}

/// An item a caller may use, with the origins it may be filled into.
#[derive(Debug, Clone)]
pub struct Usable {
    pub info: ItemInfo,
    pub origins: Vec<String>,
}

/// An item's secrets opened for one fill, and where it may go.
pub struct Opened {
    pub entry: Entry,
    /// The origins this caller may fill it into (the item's, narrowed by the share).
    pub origins: Vec<String>,
}

/// The daemon's vault.
pub struct Vault {
    sources: Vec<Arc<dyn VaultSource>>,
    /// The person's shares. Never held across an await.
    shares: Mutex<Vec<VaultShare>>,
    /// Where agents ran `evaluate` and where they filled (script and secrets never share a
    /// document). Reached only through the methods below.
    documents: ledger::Ledger,
    /// The secrets filled in each channel, for the scan of text answers.
    filled: scan::Scanner,
    /// The data directory whose keyring entries this daemon reads (`porthole vault unlock`).
    keyring_dir: Option<PathBuf>,
    /// Held across one check-and-mark of the ledger (a fill's "no script here, now sealed", an
    /// `evaluate`'s "not sealed, now scripted"), so the two never interleave.
    marking: tokio::sync::Mutex<()>,
}

impl Vault {
    /// The sources and shares of `vault.*` (checked by config).
    pub fn new(config: &VaultConfig) -> Arc<Self> {
        Self::build(config, None)
    }

    /// The sources and shares of `vault.*`, with the OS keyring entries `porthole vault
    /// unlock` stored for the daemon on `data_dir`.
    pub fn with_keyring(config: &VaultConfig, data_dir: &Path) -> Arc<Self> {
        Self::build(config, Some(data_dir.to_path_buf()))
    }

    fn build(config: &VaultConfig, keyring_dir: Option<PathBuf>) -> Arc<Self> {
        let sources = config
            .sources
            .iter()
            .map(|s| -> Arc<dyn VaultSource> {
                match s {
                    VaultSourceConfig::Keepass {
                        name,
                        path,
                        key_file,
                    } => Arc::new(keepass::KeepassSource::new(
                        name.clone(),
                        path.clone(),
                        key_file.clone(),
                    )),
                    VaultSourceConfig::Pass { name, dir } => {
                        Arc::new(pass::PassSource::new(name.clone(), dir.clone()))
                    }
                }
            })
            .collect();
        Arc::new(Self {
            sources,
            shares: Mutex::new(config.share.clone()),
            documents: ledger::Ledger::default(),
            filled: scan::Scanner::default(),
            keyring_dir,
            marking: tokio::sync::Mutex::new(()),
        })
    }

    /// Unlocks each locked KeePass source whose password `porthole vault unlock` stored in
    /// the OS keyring. No keyring, no entry: the source stays locked, quietly (a debug line);
    /// a stored password that no longer opens the database is a warning. Never logs a value.
    pub async fn unlock_from_keyring(&self) {
        let Some(data_dir) = &self.keyring_dir else {
            return;
        };
        for source in &self.sources {
            if source.kind() != "keepass" || source.state() != SourceState::Locked {
                continue;
            }
            let scope = keyring::KeyringScope::new(source.name(), data_dir);
            match keyring::lookup(&scope).await {
                Ok(Some(password)) => match source.unlock(password).await {
                    Ok(()) => {
                        tracing::info!(event = "vault_keyring_unlocked", source = %source.name())
                    }
                    Err(e) => tracing::warn!(
                        event = "vault_keyring_unlock_failed",
                        source = %source.name(),
                        reason = %e,
                        "the keyring's password did not open it; `porthole vault unlock` stores a new one"
                    ),
                },
                Ok(None) => tracing::debug!(
                    event = "vault_keyring_none",
                    source = %source.name(),
                    "no password in the keyring; stays locked"
                ),
                Err(e) => tracing::debug!(
                    event = "vault_keyring_unavailable",
                    source = %source.name(),
                    reason = %e,
                    "stays locked"
                ),
            }
        }
    }

    /// Forgets what the vault holds for `channel`: the secrets filled there (the scan's) and
    /// the documents its agents ran `evaluate` in or filled (the channel was deleted or its
    /// profile reset).
    pub fn forget_channel(&self, channel: &str) {
        self.filled.forget(channel);
        self.documents.forget_channel(channel);
    }

    /// Held while a caller checks the ledger and then marks it (see the field): a fill and an
    /// `evaluate` of the same moment see each other's mark.
    pub async fn marking(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.marking.lock().await
    }

    /// Notes that an agent ran script in `doc` (it counts as scripted while it lives).
    /// `Err`: the channel's ledger is full (nothing noted; forget gone documents first).
    pub fn note_scripted(&self, doc: Doc) -> Result<(), ledger::LedgerFull> {
        self.documents.evaluated(doc)
    }

    /// Whether `channel` has room for one more scripted document (see
    /// [`ledger::Ledger::evaluated_room`]).
    pub fn has_scripted_room(&self, channel: &str) -> bool {
        self.documents.evaluated_room(channel)
    }

    /// Notes that `doc` was filled (script is refused there while it lives). `Err`: the
    /// channel's ledger is full.
    pub fn note_filled(&self, doc: Doc) -> Result<(), ledger::LedgerFull> {
        self.documents.filled(doc)
    }

    /// Every document noted in `channel` (to find the gone ones when its ledger is full).
    pub fn documents_of(&self, channel: &str) -> Vec<Doc> {
        self.documents.of_channel(channel)
    }

    /// The documents `agent` ran script in, in `channel` (live or not: the caller asks the
    /// browser, outside any lock).
    pub fn scripted_by(&self, channel: &str, agent: &str) -> Vec<Doc> {
        self.documents.evaluated_by(channel, agent)
    }

    /// The documents filled for `agent` in `channel` (live or not).
    pub fn filled_for(&self, channel: &str, agent: &str) -> Vec<Doc> {
        self.documents.filled_by(channel, agent)
    }

    /// Forgets that `docs` were filled (a fill refused before any key was typed).
    pub fn unseal(&self, docs: &[Doc]) {
        self.documents.forget_filled(docs);
    }

    /// Forgets documents whose tab closed.
    pub fn forget_documents(&self, gone: &[Doc]) {
        self.documents.forget(gone);
    }

    /// Notes documents their tab navigated away from (the back/forward cache may bring them
    /// back: they stay known).
    pub fn depart_documents(&self, away: &[Doc]) {
        self.documents.depart(away);
    }

    /// Notes documents their tab shows again (back from the back/forward cache).
    pub fn documents_back(&self, shown: &[Doc]) {
        self.documents.back(shown);
    }

    /// Remembers a secret about to be typed into a page of `channel`, for the scan of every
    /// later answer; refused when the channel's scan has no room (the fill must not type).
    pub fn remember_secret(
        &self,
        channel: &str,
        secret: &str,
        kind: scan::SecretKind,
    ) -> Result<(), scan::ScanFull> {
        self.filled.remember(channel, secret, kind)
    }

    /// `text` with every secret filled in `channel` replaced by [`scan::MARK`]; `None` when
    /// it holds none.
    pub fn scrub(&self, channel: &str, text: &str) -> Option<String> {
        self.filled.scrub(channel, text)
    }

    fn source(&self, name: &str) -> Result<&Arc<dyn VaultSource>, VaultError> {
        self.sources
            .iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| VaultError::UnknownSource(name.chars().take(64).collect()))
    }

    fn source_names(&self) -> Vec<&str> {
        self.sources.iter().map(|s| s.name()).collect()
    }

    /// Sources, the items of the unlocked ones, and the shares.
    pub async fn overview(&self) -> Overview {
        let mut sources = Vec::new();
        let mut items = Vec::new();
        for source in &self.sources {
            let mut state = source.state();
            if state == SourceState::Unlocked {
                match source.items().await {
                    Ok(list) => items.extend(list),
                    Err(e) => state = SourceState::Error(e.to_string()),
                }
            }
            sources.push(SourceStatus {
                name: source.name().to_string(),
                kind: source.kind().to_string(),
                state: state.name().to_string(),
                reason: match state {
                    SourceState::Error(reason) => Some(reason),
                    _ => None,
                },
            });
        }
        Overview {
            sources,
            items,
            shares: self.shares(),
        }
    }

    /// Unlocks source `name` with `password`.
    pub async fn unlock(&self, name: &str, password: Zeroizing<String>) -> Result<(), VaultError> {
        self.source(name)?.unlock(password).await
    }

    /// Locks source `name` (forgets its password and what was decrypted).
    pub fn lock(&self, name: &str) -> Result<(), VaultError> {
        self.source(name)?.lock();
        Ok(())
    }

    /// The person's shares.
    pub fn shares(&self) -> Vec<VaultShare> {
        self.shares.lock().expect("shares lock").clone()
    }

    /// Replaces the shares (all or nothing).
    pub fn set_shares(&self, shares: Vec<VaultShare>) -> Result<(), VaultError> {
        shares::check(&shares, &self.source_names())?;
        *self.shares.lock().expect("shares lock") = shares;
        Ok(())
    }

    /// The items `agent` may use (`None`: the owner), from the unlocked sources, and the
    /// sources that are locked or unreadable (names only).
    pub async fn usable_by(&self, agent: Option<&str>) -> (Vec<Usable>, Vec<String>) {
        let shares = self.shares();
        let (mut usable, mut unavailable) = (Vec::new(), Vec::new());
        for source in &self.sources {
            let names_shared = agent.is_none()
                || shares.iter().any(|s| {
                    source::split_item(&s.item).is_some_and(|(src, _)| src == source.name())
                });
            if !names_shared {
                continue;
            }
            if source.state() != SourceState::Unlocked {
                unavailable.push(source.name().to_string());
                continue;
            }
            let Ok(items) = source.items().await else {
                unavailable.push(source.name().to_string());
                continue;
            };
            for info in items {
                if let Some(origins) =
                    shares::allowed_origins(&shares, agent, &info.item, &info.origins)
                {
                    usable.push(Usable { info, origins });
                }
            }
        }
        (usable, unavailable)
    }

    /// The secrets of `item` for one fill by `agent` (`None`: the owner): refused unless the
    /// item is shared with the caller; a locked source says so.
    pub async fn open_for(&self, agent: Option<&str>, item: &str) -> Result<Opened, VaultError> {
        let shares = self.shares();
        let shared_at_all = agent.is_none()
            || shares.iter().any(|s| {
                s.item == item
                    && s.agents
                        .iter()
                        .any(|a| a == "*" || Some(a.as_str()) == agent)
            });
        let Some((source_name, path)) = source::split_item(item).filter(|_| shared_at_all) else {
            return Err(VaultError::UnknownItem(item.chars().take(200).collect()));
        };
        let source = self
            .source(source_name)
            .map_err(|_| VaultError::UnknownItem(item.chars().take(200).collect()))?;
        match source.state() {
            SourceState::Unlocked => {}
            SourceState::Locked => {
                return Err(VaultError::Locked {
                    name: source_name.to_string(),
                })
            }
            SourceState::Error(reason) => {
                return Err(VaultError::Unreadable {
                    name: source_name.to_string(),
                    reason,
                })
            }
        }
        let entry = source.entry(path).await?;
        let origins = shares::allowed_origins(&shares, agent, item, &entry.origins)
            .ok_or_else(|| VaultError::UnknownItem(item.to_string()))?;
        Ok(Opened { entry, origins })
    }
}
