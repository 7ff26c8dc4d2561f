//! A KeePass source's password kept in the OS keyring (DESIGN.md §19): `porthole vault unlock
//! <source>` stores it once, the daemon finds it at start, `porthole vault forget <source>`
//! removes it. The Secret Service on Linux (GNOME Keyring, KWallet, KeePassXC's own), the login
//! Keychain on macOS.
//!
//! An entry is found by what it is for, never by what it holds: its attributes (Secret Service)
//! or its account name (Keychain) name the application, the source and the data directory, so
//! two Porthole installs on one account keep apart. The password lives in a zeroizing buffer
//! from the keyring to the unlock, and no message here quotes it. Every call has a deadline: a
//! keyring that never answers (a prompt nobody sees) must not hold the daemon's start.

use std::path::Path;
use std::time::Duration;

use zeroize::Zeroizing;

/// The longest one keyring call may take.
const DEADLINE: Duration = Duration::from_secs(15);
/// The `application` attribute (Secret Service) and the service name (Keychain).
pub const APPLICATION: &str = "porthole-vault";

/// Why the keyring could not be used. No variant carries a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyringError {
    #[error("no OS keyring to use: {0}")]
    Unavailable(String),
    #[error("the keyring is locked (unlock it, e.g. by logging in to the desktop, and try again)")]
    Locked,
    #[error("the keyring did not answer within {0} s")]
    Timeout(u64),
    #[error("the keyring refused: {0}")]
    Failed(String),
}

/// What an entry is for: the source's name and the data directory of the daemon that uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyringScope {
    pub source: String,
    pub data_dir: String,
}

impl KeyringScope {
    /// `data_dir` as an absolute path when it exists (the CLI and the daemon may spell it
    /// differently).
    pub fn new(source: &str, data_dir: &Path) -> Self {
        let data_dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
        Self {
            source: source.to_string(),
            data_dir: data_dir.display().to_string(),
        }
    }

    /// The label a person sees in their keyring manager.
    pub fn label(&self) -> String {
        format!(
            "Porthole vault source {:?} ({})",
            self.source, self.data_dir
        )
    }

    /// The Keychain's account name: the scope in one string.
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    fn account(&self) -> String {
        format!("{}#{}", self.data_dir, self.source)
    }
}

async fn with_deadline<T>(
    call: impl std::future::Future<Output = Result<T, KeyringError>>,
) -> Result<T, KeyringError> {
    tokio::time::timeout(DEADLINE, call)
        .await
        .unwrap_or(Err(KeyringError::Timeout(DEADLINE.as_secs())))
}

/// Stores `password` for `scope`, replacing what was there.
pub async fn store(scope: &KeyringScope, password: &Zeroizing<String>) -> Result<(), KeyringError> {
    with_deadline(os::store(scope, password)).await
}

/// The password stored for `scope`; `None` when there is none.
pub async fn lookup(scope: &KeyringScope) -> Result<Option<Zeroizing<String>>, KeyringError> {
    with_deadline(os::lookup(scope)).await
}

/// Removes the password stored for `scope`; whether there was one.
pub async fn forget(scope: &KeyringScope) -> Result<bool, KeyringError> {
    with_deadline(os::forget(scope)).await
}

#[cfg(all(unix, not(target_os = "macos")))]
mod os {
    //! The Secret Service (freedesktop.org) on the session bus.
    use std::collections::HashMap;

    use secret_service::{EncryptionType, SecretService};
    use zeroize::Zeroizing;

    use super::{KeyringError, KeyringScope, APPLICATION};

    fn attributes(scope: &KeyringScope) -> HashMap<&str, &str> {
        HashMap::from([
            ("application", APPLICATION),
            ("porthole_source", scope.source.as_str()),
            ("porthole_data_dir", scope.data_dir.as_str()),
        ])
    }

    fn describe(e: secret_service::Error) -> KeyringError {
        match e {
            secret_service::Error::Unavailable => KeyringError::Unavailable(
                "no Secret Service on the session bus (no keyring running, or no D-Bus session)"
                    .into(),
            ),
            secret_service::Error::Locked => KeyringError::Locked,
            secret_service::Error::Prompt => KeyringError::Locked,
            other => KeyringError::Failed(other.to_string()),
        }
    }

    async fn connect() -> Result<SecretService<'static>, KeyringError> {
        SecretService::connect(EncryptionType::Dh)
            .await
            .map_err(describe)
    }

    pub(super) async fn store(
        scope: &KeyringScope,
        password: &Zeroizing<String>,
    ) -> Result<(), KeyringError> {
        let ss = connect().await?;
        let collection = ss.get_default_collection().await.map_err(describe)?;
        if collection.is_locked().await.map_err(describe)? {
            collection.unlock().await.map_err(describe)?;
        }
        collection
            .create_item(
                &scope.label(),
                attributes(scope),
                password.as_bytes(),
                true,
                "text/plain",
            )
            .await
            .map_err(describe)?;
        Ok(())
    }

    pub(super) async fn lookup(
        scope: &KeyringScope,
    ) -> Result<Option<Zeroizing<String>>, KeyringError> {
        let ss = connect().await?;
        let found = ss.search_items(attributes(scope)).await.map_err(describe)?;
        let Some(item) = found.unlocked.first() else {
            return if found.locked.is_empty() {
                Ok(None)
            } else {
                Err(KeyringError::Locked)
            };
        };
        let secret = Zeroizing::new(item.get_secret().await.map_err(describe)?);
        match std::str::from_utf8(&secret) {
            Ok(text) => Ok(Some(Zeroizing::new(text.to_string()))),
            Err(_) => Err(KeyringError::Failed(
                "the stored password is not text".into(),
            )),
        }
    }

    pub(super) async fn forget(scope: &KeyringScope) -> Result<bool, KeyringError> {
        let ss = connect().await?;
        let found = ss.search_items(attributes(scope)).await.map_err(describe)?;
        if found.unlocked.is_empty() && !found.locked.is_empty() {
            return Err(KeyringError::Locked);
        }
        for item in &found.unlocked {
            item.delete().await.map_err(describe)?;
        }
        Ok(!found.unlocked.is_empty())
    }
}

#[cfg(target_os = "macos")]
mod os {
    //! The login Keychain (a generic password; macOS asks the person's consent itself).
    use security_framework::passwords;
    use zeroize::Zeroizing;

    use super::{KeyringError, KeyringScope, APPLICATION};

    /// errSecItemNotFound.
    const NOT_FOUND: i32 = -25300;

    fn describe(e: security_framework::base::Error) -> KeyringError {
        KeyringError::Failed(format!("Keychain error {}", e.code()))
    }

    pub(super) async fn store(
        scope: &KeyringScope,
        password: &Zeroizing<String>,
    ) -> Result<(), KeyringError> {
        let (account, password) = (scope.account(), password.clone());
        tokio::task::spawn_blocking(move || {
            passwords::set_generic_password(APPLICATION, &account, password.as_bytes())
                .map_err(describe)
        })
        .await
        .map_err(|e| KeyringError::Failed(e.to_string()))?
    }

    pub(super) async fn lookup(
        scope: &KeyringScope,
    ) -> Result<Option<Zeroizing<String>>, KeyringError> {
        let account = scope.account();
        tokio::task::spawn_blocking(move || {
            match passwords::get_generic_password(APPLICATION, &account) {
                Ok(bytes) => {
                    let bytes = Zeroizing::new(bytes);
                    std::str::from_utf8(&bytes)
                        .map(|t| Some(Zeroizing::new(t.to_string())))
                        .map_err(|_| KeyringError::Failed("the stored password is not text".into()))
                }
                Err(e) if e.code() == NOT_FOUND => Ok(None),
                Err(e) => Err(describe(e)),
            }
        })
        .await
        .map_err(|e| KeyringError::Failed(e.to_string()))?
    }

    pub(super) async fn forget(scope: &KeyringScope) -> Result<bool, KeyringError> {
        let account = scope.account();
        tokio::task::spawn_blocking(move || {
            match passwords::delete_generic_password(APPLICATION, &account) {
                Ok(()) => Ok(true),
                Err(e) if e.code() == NOT_FOUND => Ok(false),
                Err(e) => Err(describe(e)),
            }
        })
        .await
        .map_err(|e| KeyringError::Failed(e.to_string()))?
    }
}

#[cfg(not(unix))]
mod os {
    use zeroize::Zeroizing;

    use super::{KeyringError, KeyringScope};

    fn none() -> KeyringError {
        KeyringError::Unavailable("no OS keyring support on this platform".into())
    }

    pub(super) async fn store(_: &KeyringScope, _: &Zeroizing<String>) -> Result<(), KeyringError> {
        Err(none())
    }

    pub(super) async fn lookup(
        _: &KeyringScope,
    ) -> Result<Option<Zeroizing<String>>, KeyringError> {
        Err(none())
    }

    pub(super) async fn forget(_: &KeyringScope) -> Result<bool, KeyringError> {
        Err(none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scope_names_the_source_and_the_data_dir_never_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let scope = KeyringScope::new("kp", dir.path());
        let real = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(scope.data_dir, real.display().to_string());
        assert!(scope.label().contains("\"kp\""));
        assert_eq!(scope.account(), format!("{}#kp", real.display()));
        // A data dir that does not exist yet is kept as given.
        let later = KeyringScope::new("kp", Path::new("/nonexistent/porthole-data"));
        assert_eq!(later.data_dir, "/nonexistent/porthole-data");
    }
}
