//! The daemon's durable state in `<data_dir>/state.sqlite3` (rusqlite): each channel's mode and
//! its chosen cookie-import scopes. Never a cookie value, never a secret.
//!
//! Calls are short and synchronous behind a std mutex; async callers may call them directly
//! (each is one small statement) or from `spawn_blocking` in bulk.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use crate::channel_id::ChannelId;
use crate::mode::Mode;

/// A state database that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("daemon state database {path}: {source}")]
pub struct StateError {
    pub path: String,
    #[source]
    pub source: rusqlite::Error,
}

/// Saved cookie-import choice of a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieChoice {
    /// Source profile id, e.g. `chrome:Default`.
    pub source: String,
    /// Cookie scopes (host keys) chosen by the user.
    pub domains: Vec<String>,
}

/// The open state database.
pub struct StateDb {
    /// Short lock, never held across an await.
    conn: Mutex<Connection>,
    path: String,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS channel_mode (
    channel_id TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cookie_choice (
    channel_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    domains TEXT NOT NULL
);
";

impl StateDb {
    /// Opens (creating) the database at `path`.
    pub fn open(path: &Path) -> Result<Self, StateError> {
        let shown = path.display().to_string();
        let wrap = |source| StateError {
            path: shown.clone(),
            source,
        };
        let conn = Connection::open(path).map_err(wrap)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(wrap)?;
        conn.execute_batch(SCHEMA).map_err(wrap)?;
        Ok(Self {
            conn: Mutex::new(conn),
            path: shown,
        })
    }

    /// An in-memory database (tests).
    pub fn in_memory() -> Result<Self, StateError> {
        Self::open(Path::new(":memory:"))
    }

    fn wrap(&self, source: rusqlite::Error) -> StateError {
        StateError {
            path: self.path.clone(),
            source,
        }
    }

    /// Every channel with a saved mode.
    pub fn modes(&self) -> Result<Vec<(ChannelId, Mode)>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let mut statement = conn
            .prepare("SELECT channel_id, mode FROM channel_mode ORDER BY channel_id")
            .map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })
            .map_err(|e| self.wrap(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (channel, mode) = row.map_err(|e| self.wrap(e))?;
            // Rows that no longer parse (hand-edited, older versions) are skipped, not fatal.
            let parsed = ChannelId::parse(&channel)
                .ok()
                .zip(serde_json::from_value::<Mode>(serde_json::Value::String(mode)).ok());
            if let Some(pair) = parsed {
                out.push(pair);
            }
        }
        Ok(out)
    }

    /// Saves the mode of a channel.
    pub fn set_mode(&self, channel: &ChannelId, mode: Mode) -> Result<(), StateError> {
        let conn = self.conn.lock().expect("state lock");
        conn.execute(
            "INSERT INTO channel_mode (channel_id, mode) VALUES (?1, ?2)
             ON CONFLICT(channel_id) DO UPDATE SET mode = excluded.mode",
            params![channel.as_str(), mode.as_str()],
        )
        .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// The saved cookie choice of a channel.
    pub fn cookie_choice(&self, channel: &ChannelId) -> Result<Option<CookieChoice>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let row = conn
            .query_row(
                "SELECT source, domains FROM cookie_choice WHERE channel_id = ?1",
                params![channel.as_str()],
                |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
            )
            .optional()
            .map_err(|e| self.wrap(e))?;
        Ok(row.map(|(source, domains)| CookieChoice {
            source,
            domains: serde_json::from_str(&domains).unwrap_or_default(),
        }))
    }

    /// Saves the cookie choice of a channel (source and scope names only).
    pub fn set_cookie_choice(
        &self,
        channel: &ChannelId,
        choice: &CookieChoice,
    ) -> Result<(), StateError> {
        let domains = serde_json::to_string(&choice.domains).expect("strings serialize");
        let conn = self.conn.lock().expect("state lock");
        conn.execute(
            "INSERT INTO cookie_choice (channel_id, source, domains) VALUES (?1, ?2, ?3)
             ON CONFLICT(channel_id) DO UPDATE SET source = excluded.source, domains = excluded.domains",
            params![channel.as_str(), choice.source, domains],
        )
        .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Forgets everything about a channel.
    pub fn forget(&self, channel: &ChannelId) -> Result<(), StateError> {
        let conn = self.conn.lock().expect("state lock");
        for table in ["channel_mode", "cookie_choice"] {
            conn.execute(
                &format!("DELETE FROM {table} WHERE channel_id = ?1"),
                params![channel.as_str()],
            )
            .map_err(|e| self.wrap(e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_cookie_choices_round_trip_and_survive_reopen() {
        let dir = std::env::temp_dir().join(format!("porthole-state-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.sqlite3");
        let a = ChannelId::parse("a").unwrap();
        {
            let db = StateDb::open(&path).unwrap();
            db.set_mode(&a, Mode::Host).unwrap();
            db.set_mode(&a, Mode::Local).unwrap();
            let choice = CookieChoice {
                source: "chrome:Default".into(),
                domains: vec![".github.com".into()],
            };
            db.set_cookie_choice(&a, &choice).unwrap();
        }
        let db = StateDb::open(&path).unwrap();
        assert_eq!(db.modes().unwrap(), vec![(a.clone(), Mode::Local)]);
        assert_eq!(
            db.cookie_choice(&a).unwrap().unwrap().domains,
            vec![".github.com".to_string()]
        );
        db.forget(&a).unwrap();
        assert!(db.modes().unwrap().is_empty());
        assert!(db.cookie_choice(&a).unwrap().is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
