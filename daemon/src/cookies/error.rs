//! The one error type of the cookie-reading library.
//!
//! Owns: [`CookieError`]. Every variant names the source (`chrome:Default`, …) and its message
//! says what happened and what the person can do. No variant carries a cookie value, and none
//! ever may: these messages reach logs and API responses.

use std::path::PathBuf;

/// Why listing or reading a cookie source failed.
#[derive(Debug, thiserror::Error)]
pub enum CookieError {
    /// The cookie database file is not there (profile deleted, browser never run).
    #[error(
        "{source_id}: the cookie database {} does not exist; open the browser once with this \
         profile, or pick another source",
        path.display()
    )]
    Missing {
        /// Source id, e.g. `chrome:Default`.
        source_id: String,
        /// The file that was looked for.
        path: PathBuf,
    },

    /// The cookie database could not be copied or read because another process holds it.
    #[error(
        "{source_id}: the cookie database {} is locked by another process ({detail}); close the \
         browser or try again in a moment",
        path.display()
    )]
    Locked {
        /// Source id.
        source_id: String,
        /// The locked file.
        path: PathBuf,
        /// What SQLite or the OS said.
        detail: String,
    },

    /// The file is not an SQLite database, or not a cookie database, or is damaged.
    #[error(
        "{source_id}: the cookie database {} is unreadable ({detail}); the file is damaged or \
         not a cookie store — let the browser repair it by starting it once, or pick another \
         source",
        path.display()
    )]
    Corrupt {
        /// Source id.
        source_id: String,
        /// The damaged file.
        path: PathBuf,
        /// What SQLite said, e.g. "file is not a database".
        detail: String,
    },

    /// The browser wrote a newer database schema than this Porthole understands.
    #[error(
        "{source_id}: the cookie database uses schema version {found}, newer than the {known} \
         this Porthole understands; update Porthole to import from this browser"
    )]
    FutureSchema {
        /// Source id.
        source_id: String,
        /// The version found in the file.
        found: i64,
        /// The newest version this library reads.
        known: i64,
    },

    /// Some requested scopes hold no cookie in this source.
    #[error(
        "{source_id}: no cookies for {}; list the source's scopes again and pick from those",
        scopes.join(", ")
    )]
    UnknownScopes {
        /// Source id.
        source_id: String,
        /// The requested scopes that are not in the source.
        scopes: Vec<String>,
    },

    /// The OS keyring that holds the browser's cookie key is absent, locked or refused.
    #[error(
        "{source_id}: cannot get the {browser} cookie key from the {keyring} ({detail}); {hint}"
    )]
    KeyringUnavailable {
        /// Source id.
        source_id: String,
        /// Human browser name, e.g. "Chromium".
        browser: &'static str,
        /// Which keyring: "Secret Service (GNOME Keyring / KWallet)", "macOS Keychain", …
        keyring: &'static str,
        /// What the keyring said.
        detail: String,
        /// What to do about it.
        hint: &'static str,
    },

    /// The values are protected by a scheme this library does not implement on this platform.
    #[error("{source_id}: {what} is not supported; {hint}")]
    Unsupported {
        /// Source id.
        source_id: String,
        /// What is unsupported, e.g. "Chromium cookie encryption v20 (app-bound)".
        what: String,
        /// What to do instead.
        hint: &'static str,
    },

    /// A value did not decrypt with any key this library knows for the browser.
    #[error(
        "{source_id}: a cookie named {cookie_name:?} on {scope} did not decrypt ({detail}); the \
         browser's key changed or belongs to another keyring — re-open the browser, or leave \
         this scope out"
    )]
    Decrypt {
        /// Source id.
        source_id: String,
        /// The scope (host_key) of the failing cookie.
        scope: String,
        /// The cookie's name (never its value).
        cookie_name: String,
        /// Which step failed.
        detail: &'static str,
    },

    /// Creating or filling the private snapshot directory failed.
    #[error("{source_id}: could not copy the cookie database to a private temp dir ({detail})")]
    Snapshot {
        /// Source id.
        source_id: String,
        /// The I/O error.
        detail: String,
    },

    /// Any other SQLite failure.
    #[error("{source_id}: reading the cookie database failed ({detail})")]
    Sqlite {
        /// Source id.
        source_id: String,
        /// What SQLite said.
        detail: String,
    },
}

impl CookieError {
    /// A stable snake_case code for the API's `{"error":{"code":…}}`.
    pub fn code(&self) -> &'static str {
        match self {
            CookieError::Missing { .. } => "cookie_db_missing",
            CookieError::Locked { .. } => "cookie_db_locked",
            CookieError::Corrupt { .. } => "cookie_db_corrupt",
            CookieError::FutureSchema { .. } => "cookie_db_future_schema",
            CookieError::UnknownScopes { .. } => "unknown_scopes",
            CookieError::KeyringUnavailable { .. } => "keyring_unavailable",
            CookieError::Unsupported { .. } => "cookie_encryption_unsupported",
            CookieError::Decrypt { .. } => "cookie_decrypt_failed",
            CookieError::Snapshot { .. } => "cookie_snapshot_failed",
            CookieError::Sqlite { .. } => "cookie_db_error",
        }
    }

    /// Maps a SQLite error on the snapshot of `path` to the fitting variant.
    pub(crate) fn from_sqlite(
        source_id: &str,
        path: &std::path::Path,
        err: rusqlite::Error,
    ) -> Self {
        use rusqlite::ErrorCode;
        let detail = err.to_string();
        let code = match &err {
            rusqlite::Error::SqliteFailure(e, _) => Some(e.code),
            _ => None,
        };
        match code {
            Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
                CookieError::Corrupt {
                    source_id: source_id.to_owned(),
                    path: path.to_owned(),
                    detail,
                }
            }
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
                CookieError::Locked {
                    source_id: source_id.to_owned(),
                    path: path.to_owned(),
                    detail,
                }
            }
            _ if detail.contains("no such table") || detail.contains("no such column") => {
                CookieError::Corrupt {
                    source_id: source_id.to_owned(),
                    path: path.to_owned(),
                    detail,
                }
            }
            _ => CookieError::Sqlite {
                source_id: source_id.to_owned(),
                detail,
            },
        }
    }

    /// True for errors a fresh snapshot might not repeat (a copy torn by a concurrent write).
    pub(crate) fn is_torn_copy_suspect(&self) -> bool {
        matches!(
            self,
            CookieError::Corrupt { .. } | CookieError::Locked { .. }
        )
    }
}
