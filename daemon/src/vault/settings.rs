//! `vault.*` in the config (DESIGN.md §19): the sources and the person's shares, as written.
//! Plain data (the config checks it, see `config.rs`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `vault.*`: the person's password managers and what is shared with which agent
/// (DESIGN.md §19).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VaultConfig {
    /// Where logins come from; each `name` is unique and starts its items' names.
    pub sources: Vec<VaultSourceConfig>,
    /// Which agents may use which item (nothing by default).
    pub share: Vec<VaultShare>,
}

/// One vault source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum VaultSourceConfig {
    /// A KeePass / KeePassXC `.kdbx` file, unlocked by its password (and `key_file`).
    Keepass {
        name: String,
        path: PathBuf,
        #[serde(default)]
        key_file: Option<PathBuf>,
    },
    /// A `pass` store (`~/.password-store` when `dir` is not given).
    Pass {
        name: String,
        #[serde(default)]
        dir: Option<PathBuf>,
    },
}

impl VaultSourceConfig {
    pub fn name(&self) -> &str {
        match self {
            VaultSourceConfig::Keepass { name, .. } | VaultSourceConfig::Pass { name, .. } => name,
        }
    }
}

/// One share: `item` may be used by `agents` (`*` for all), at the item's origins narrowed
/// by `origins` when given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VaultShare {
    /// `<source>/<path>`.
    pub item: String,
    /// Agent ids, or `*`.
    pub agents: Vec<String>,
    /// Narrow the item's origins: `https://a.example:8443`, `*.example.com`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<String>,
}
