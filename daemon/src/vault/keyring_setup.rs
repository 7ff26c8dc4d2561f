//! `porthole vault unlock <source>` and `porthole vault forget <source>` (DESIGN.md §19): a
//! KeePass source's password checked against its database, then kept in the OS keyring
//! ([`super::keyring`]) for the daemon on that data directory; or removed from it. A password
//! that does not open the database is never stored.

use std::path::Path;

use zeroize::Zeroizing;

use super::error::VaultError;
use super::keyring::{self, KeyringError, KeyringScope};
use super::settings::{VaultConfig, VaultSourceConfig};
use super::Vault;

/// Why the keyring was not changed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("there is no vault source named {0:?} in vault.sources of the config")]
    UnknownSource(String),
    #[error("vault source {0:?} is a pass store: gpg-agent unlocks it, no password is stored")]
    NotKeepass(String),
    #[error("{0}; nothing was stored")]
    Check(VaultError),
    #[error("{0}")]
    Keyring(#[from] KeyringError),
}

fn keepass_source<'a>(config: &'a VaultConfig, name: &str) -> Result<&'a str, SetupError> {
    match config.sources.iter().find(|s| s.name() == name) {
        Some(VaultSourceConfig::Keepass { name, .. }) => Ok(name),
        Some(VaultSourceConfig::Pass { name, .. }) => Err(SetupError::NotKeepass(name.clone())),
        None => Err(SetupError::UnknownSource(name.chars().take(64).collect())),
    }
}

/// Opens source `name` with `password` (as the daemon would) and, when it opens, stores the
/// password in the keyring for the daemon on `data_dir`. The scope it was stored under.
pub async fn store(
    config: &VaultConfig,
    data_dir: &Path,
    name: &str,
    password: Zeroizing<String>,
) -> Result<KeyringScope, SetupError> {
    let name = keepass_source(config, name)?;
    let vault = Vault::new(config);
    vault
        .unlock(name, password.clone())
        .await
        .map_err(SetupError::Check)?;
    vault.lock(name).map_err(SetupError::Check)?;
    let scope = KeyringScope::new(name, data_dir);
    keyring::store(&scope, &password).await?;
    Ok(scope)
}

/// Removes source `name`'s password from the keyring; whether one was there.
pub async fn forget(config: &VaultConfig, data_dir: &Path, name: &str) -> Result<bool, SetupError> {
    let name = keepass_source(config, name)?;
    Ok(keyring::forget(&KeyringScope::new(name, data_dir)).await?)
}
