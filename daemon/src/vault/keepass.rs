//! A KeePass / KeePassXC database (`.kdbx`, KDBX 3.1 and 4, AES-KDF and Argon2), read in
//! process with the `keepass` crate. Locked until the person gives its password (and the key
//! file named in config is read): the decrypted database is then held in memory, as KeePassXC
//! holds it while unlocked, until `lock` or the daemon stops; the crate keeps protected values
//! (passwords) in zeroizing boxes. Nothing is written anywhere.

use std::path::PathBuf;
use std::sync::Mutex;

use async_trait::async_trait;
use keepass::db::EntryRef;
use keepass::error::{DatabaseKeyError, DatabaseOpenError};
use keepass::{Database, DatabaseKey};
use zeroize::Zeroizing;

use super::error::VaultError;
use super::origins::origin_of;
use super::source::{Entry, ItemInfo, SourceState, VaultSource};
use super::totp::TotpSpec;

/// The unlock's own mark for "wrong password" (no reason text starts with a NUL).
const WRONG: &str = "\u{0}wrong";

/// A `.kdbx` file.
pub struct KeepassSource {
    name: String,
    path: PathBuf,
    key_file: Option<PathBuf>,
    /// The open database while unlocked. Never held across an await.
    open: Mutex<Option<Database>>,
    /// Why the last unlock failed for a reason other than the password.
    broken: Mutex<Option<String>>,
}

impl KeepassSource {
    pub fn new(name: String, path: PathBuf, key_file: Option<PathBuf>) -> Self {
        Self {
            name,
            path,
            key_file,
            open: Mutex::new(None),
            broken: Mutex::new(None),
        }
    }

    fn unreadable(&self, reason: impl Into<String>) -> VaultError {
        VaultError::Unreadable {
            name: self.name.clone(),
            reason: reason.into(),
        }
    }

    fn with_db<T>(&self, f: impl FnOnce(&Database) -> T) -> Result<T, VaultError> {
        let open = self.open.lock().expect("keepass lock");
        match open.as_ref() {
            Some(db) => Ok(f(db)),
            None => Err(VaultError::Locked {
                name: self.name.clone(),
            }),
        }
    }
}

/// The two signatures every KeePass 2 file starts with (KDBX 3.1 and 4).
const SIGNATURE: [u8; 8] = [0x03, 0xd9, 0xa2, 0x9a, 0x67, 0xfb, 0x4b, 0xb5];

/// Whether the file at `path` starts as a KeePass 2 database does (a cheap look, before
/// anyone types a password): the reason when it does not.
fn looks_like_kdbx(path: &std::path::Path) -> Result<(), String> {
    use std::io::Read;
    let mut head = [0u8; 8];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    match read {
        Ok(()) if head == SIGNATURE => Ok(()),
        Ok(()) => Err(format!(
            "{} is not a KeePass 2 database (.kdbx): its signature is missing",
            path.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(format!(
            "{} is too short to be a KeePass database",
            path.display()
        )),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Every entry with its path (groups below the root, then the title).
fn entries(db: &Database) -> Vec<(String, EntryRef<'_>)> {
    let mut ids = Vec::new();
    let mut stack = vec![(String::new(), db.root().id())];
    while let Some((prefix, group_id)) = stack.pop() {
        let Some(group) = db.group(group_id) else {
            continue;
        };
        for entry in group.entries() {
            let title = entry.get_title().unwrap_or("(untitled)").to_string();
            ids.push((format!("{prefix}{title}"), entry.id()));
        }
        for child in group.groups() {
            // The recycle bin's entries are deleted ones.
            if db.meta.recyclebin_uuid == Some(child.id().uuid()) {
                continue;
            }
            stack.push((format!("{prefix}{}/", child.name), child.id()));
        }
    }
    ids.sort_by(|a, b| a.0.cmp(&b.0));
    ids.into_iter()
        .filter_map(|(path, id)| db.entry(id).map(|e| (path, e)))
        .collect()
}

/// The entry's origins: `URL`, then KeePassXC's `KP2A_URL`, `KP2A_URL_1`, ….
fn origins(entry: &EntryRef<'_>) -> Vec<String> {
    let mut keys: Vec<&String> = entry
        .fields
        .keys()
        .filter(|k| k.as_str() == "URL" || k.starts_with("KP2A_URL"))
        .collect();
    keys.sort_by_key(|k| (k.as_str() != "URL", k.to_string()));
    let mut out: Vec<String> = Vec::new();
    for key in keys {
        if let Some(origin) = entry.get(key).and_then(origin_of) {
            if !out.contains(&origin) {
                out.push(origin);
            }
        }
    }
    out
}

fn totp(entry: &EntryRef<'_>) -> Option<Result<TotpSpec, super::totp::TotpError>> {
    if let Some(uri) = entry.get("otp").filter(|v| !v.trim().is_empty()) {
        return Some(TotpSpec::from_uri(uri));
    }
    let seed = entry.get("TOTP Seed").filter(|v| !v.trim().is_empty())?;
    Some(TotpSpec::from_seed_settings(
        seed,
        entry.get("TOTP Settings"),
    ))
}

fn info(source: &str, path: &str, entry: &EntryRef<'_>) -> ItemInfo {
    ItemInfo {
        item: format!("{source}/{path}"),
        title: entry.get_title().unwrap_or_default().to_string(),
        username: entry.get_username().unwrap_or_default().to_string(),
        origins: origins(entry),
        has_totp: entry.get("otp").is_some() || entry.get("TOTP Seed").is_some(),
    }
}

#[async_trait]
impl VaultSource for KeepassSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "keepass"
    }

    fn state(&self) -> SourceState {
        if self.open.lock().expect("keepass lock").is_some() {
            return SourceState::Unlocked;
        }
        if !self.path.is_file() {
            return SourceState::Error(format!("no database at {}", self.path.display()));
        }
        if let Err(reason) = looks_like_kdbx(&self.path) {
            return SourceState::Error(reason);
        }
        match self.broken.lock().expect("keepass lock").clone() {
            Some(reason) => SourceState::Error(reason),
            None => SourceState::Locked,
        }
    }

    async fn unlock(&self, password: Zeroizing<String>) -> Result<(), VaultError> {
        let path = self.path.clone();
        let key_file = self.key_file.clone();
        // The key derivation takes a while on purpose: off the async threads.
        let opened = tokio::task::spawn_blocking(move || -> Result<Database, String> {
            let mut key = DatabaseKey::new().with_password(&password);
            if let Some(key_file) = key_file {
                let mut file = std::fs::File::open(&key_file)
                    .map_err(|e| format!("cannot read key file {}: {e}", key_file.display()))?;
                key = key
                    .with_keyfile(&mut file)
                    .map_err(|e| format!("cannot read key file {}: {e}", key_file.display()))?;
            }
            let mut file = std::fs::File::open(&path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            Database::open(&mut file, key).map_err(|e| match e {
                // KDBX 3.1 finds a wrong key as undecryptable payload (its padding), KDBX 4
                // by the header's HMAC.
                DatabaseOpenError::Key(DatabaseKeyError::IncorrectKey)
                | DatabaseOpenError::Cryptography(_) => WRONG.to_string(),
                other => format!("not a readable KeePass database ({other})"),
            })
        })
        .await
        .map_err(|e| self.unreadable(format!("the unlock stopped: {e}")))?;
        match opened {
            Ok(db) => {
                *self.broken.lock().expect("keepass lock") = None;
                *self.open.lock().expect("keepass lock") = Some(db);
                tracing::info!(event = "vault_unlocked", source = %self.name);
                Ok(())
            }
            Err(reason) if reason == WRONG => {
                tracing::info!(event = "vault_wrong_password", source = %self.name);
                Err(VaultError::WrongPassword(self.name.clone()))
            }
            Err(reason) => {
                tracing::warn!(event = "vault_unreadable", source = %self.name, %reason);
                *self.broken.lock().expect("keepass lock") = Some(reason.clone());
                Err(self.unreadable(reason))
            }
        }
    }

    fn lock(&self) {
        // Dropping the database wipes its protected values.
        self.open.lock().expect("keepass lock").take();
    }

    async fn items(&self) -> Result<Vec<ItemInfo>, VaultError> {
        self.with_db(|db| {
            entries(db)
                .iter()
                .map(|(path, entry)| info(&self.name, path, entry))
                .collect()
        })
    }

    async fn entry(&self, path: &str) -> Result<Entry, VaultError> {
        let found = self.with_db(|db| {
            entries(db)
                .into_iter()
                .find(|(p, _)| p == path)
                .map(|(_, entry)| Entry {
                    title: entry.get_title().unwrap_or_default().to_string(),
                    username: Zeroizing::new(entry.get_username().unwrap_or_default().to_string()),
                    password: entry
                        .get_password()
                        .filter(|p| !p.is_empty())
                        .map(|p| Zeroizing::new(p.to_string())),
                    totp: totp(&entry),
                    origins: origins(&entry),
                })
        })?;
        found.ok_or_else(|| VaultError::UnknownItem(format!("{}/{path}", self.name)))
    }
}
