//! The daemon's durable state in `<data_dir>/state.sqlite3` (rusqlite): each channel's mode,
//! its chosen cookie-import scopes, and agent identities (with a SHA-256 hash of each agent
//! token, never the token). Never a cookie value, never a secret.
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

/// What [`StateDb::claim_channel`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The channel was not recorded; now it is.
    Recorded,
    /// The channel was already recorded.
    Known,
    /// Refused: this recorded channel differs from the asked one only in case, and the two
    /// would share their directories on a case-insensitive file system.
    CaseClash(ChannelId),
}

/// The open state database.
pub struct StateDb {
    /// Short lock, never held across an await.
    conn: Mutex<Connection>,
    path: String,
}

const SCHEMA: &str = "
-- Every channel the daemon knows (a channel exists when it has a row here). `mode` is
-- 'default' for a channel made by adding an agent to it: it follows the daemon's default mode.
CREATE TABLE IF NOT EXISTS channel_mode (
    channel_id TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cookie_choice (
    channel_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    domains TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS agents (
    agent_id TEXT PRIMARY KEY,
    channel_id TEXT NOT NULL,
    name TEXT NOT NULL,
    deny_tools TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_seen INTEGER,
    tabs_open INTEGER NOT NULL DEFAULT 0,
    allow_host_mode INTEGER NOT NULL DEFAULT 0,
    sites TEXT NOT NULL DEFAULT '{}',
    confirm TEXT NOT NULL DEFAULT '[]'
);
";

/// The `channel_mode.mode` of a channel that follows the daemon's default mode.
const DEFAULT_MODE: &str = "default";

/// Columns added to `agents` after its first release: `(name, definition)`. A database made
/// by an older daemon gets them at open (`ALTER TABLE … ADD COLUMN`), with their defaults.
const AGENT_COLUMNS_ADDED: [(&str, &str); 4] = [
    ("tabs_open", "INTEGER NOT NULL DEFAULT 0"),
    ("allow_host_mode", "INTEGER NOT NULL DEFAULT 0"),
    ("sites", "TEXT NOT NULL DEFAULT '{}'"),
    ("confirm", "TEXT NOT NULL DEFAULT '[]'"),
];

/// An agent identity as stored (the token itself is never stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    pub agent_id: String,
    pub channel_id: String,
    pub name: String,
    pub deny_tools: Vec<String>,
    /// Seconds since the Unix epoch of the last request made with its token.
    pub last_seen: Option<i64>,
    /// May act while its channel is in host mode (the user's own Chrome).
    pub allow_host_mode: bool,
    /// The sites it may open (DESIGN.md §20).
    pub sites: crate::sites::Sites,
    /// The acts it must ask the person about (DESIGN.md §20).
    pub confirm: crate::approvals::Confirm,
}

impl StateDb {
    /// Opens (creating) the database at `path`. A file that is not a usable SQLite database
    /// (garbage, a torn write, failed integrity check) is moved aside to
    /// `<path>.corrupt-<unix time>` with a warning (event `state_corrupt`) and a fresh one is
    /// made: the daemon keeps serving, with default modes. Any other failure (permissions, a
    /// full disk, a lock) is returned, and nothing is moved.
    pub fn open(path: &Path) -> Result<Self, StateError> {
        let shown = path.display().to_string();
        let wrap = |source| StateError {
            path: shown.clone(),
            source,
        };
        let conn = match open_checked(path) {
            Ok(conn) => conn,
            Err(error) if is_corruption(&error) && path != Path::new(":memory:") => {
                let aside = match move_aside(path) {
                    Ok(aside) => aside,
                    Err(io) => {
                        tracing::error!(event = "state_corrupt_move_failed", path = %shown, %error, %io);
                        return Err(wrap(error));
                    }
                };
                tracing::warn!(
                    event = "state_corrupt",
                    path = %shown,
                    moved_to = %aside.display(),
                    %error,
                    "the daemon state database was unreadable; it was moved aside and a fresh one \
                     made (channel modes and cookie-import choices start from defaults)"
                );
                open_checked(path).map_err(wrap)?
            }
            Err(error) => return Err(wrap(error)),
        };
        Ok(Self {
            conn: Mutex::new(conn),
            path: shown,
        })
    }

    /// An in-memory database (tests).
    #[cfg(test)]
    pub(crate) fn in_memory() -> Result<Self, StateError> {
        Self::open(Path::new(":memory:"))
    }

    fn wrap(&self, source: rusqlite::Error) -> StateError {
        StateError {
            path: self.path.clone(),
            source,
        }
    }

    /// Every recorded channel, with its saved mode (None: it follows the daemon's default).
    pub fn recorded_channels(&self) -> Result<Vec<(ChannelId, Option<Mode>)>, StateError> {
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
            let Ok(channel) = ChannelId::parse(&channel) else {
                continue;
            };
            let mode = serde_json::from_value::<Mode>(serde_json::Value::String(mode)).ok();
            out.push((channel, mode));
        }
        Ok(out)
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

    /// True when the channel is recorded (it exists).
    pub(crate) fn is_recorded(&self, channel: &ChannelId) -> Result<bool, StateError> {
        let conn = self.conn.lock().expect("state lock");
        conn.query_row(
            "SELECT 1 FROM channel_mode WHERE channel_id = ?1",
            params![channel.as_str()],
            |_| Ok(()),
        )
        .optional()
        .map(|row| row.is_some())
        .map_err(|e| self.wrap(e))
    }

    /// The saved mode of a channel, if it is recorded with one.
    pub(crate) fn mode_of(&self, channel: &ChannelId) -> Result<Option<Mode>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let mode: Option<String> = conn
            .query_row(
                "SELECT mode FROM channel_mode WHERE channel_id = ?1",
                params![channel.as_str()],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.wrap(e))?;
        Ok(mode.and_then(|m| serde_json::from_value(serde_json::Value::String(m)).ok()))
    }

    /// A recorded channel that differs from `channel` only in case, if any.
    pub(crate) fn case_clash(&self, channel: &ChannelId) -> Result<Option<ChannelId>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let other: Option<String> = conn
            .query_row(
                "SELECT channel_id FROM channel_mode
                 WHERE channel_id = ?1 COLLATE NOCASE AND channel_id != ?1 LIMIT 1",
                params![channel.as_str()],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.wrap(e))?;
        Ok(other.and_then(|o| ChannelId::parse(&o).ok()))
    }

    /// Records `channel` (in `mode`; `None`: the daemon's default mode) unless it is recorded
    /// already; refuses an id that differs from a recorded one only in case. Under one lock,
    /// so two claims of `Work` and `work` cannot both win.
    pub fn claim_channel(
        &self,
        channel: &ChannelId,
        mode: Option<Mode>,
    ) -> Result<Claim, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let found: Option<String> = conn
            .query_row(
                "SELECT channel_id FROM channel_mode WHERE channel_id = ?1 COLLATE NOCASE
                 ORDER BY channel_id = ?1 DESC LIMIT 1",
                params![channel.as_str()],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.wrap(e))?;
        match found {
            Some(same) if same == channel.as_str() => Ok(Claim::Known),
            Some(other) => Ok(ChannelId::parse(&other)
                .map(Claim::CaseClash)
                .unwrap_or(Claim::Known)),
            None => {
                conn.execute(
                    "INSERT INTO channel_mode (channel_id, mode) VALUES (?1, ?2)",
                    params![channel.as_str(), mode.map_or(DEFAULT_MODE, Mode::as_str)],
                )
                .map_err(|e| self.wrap(e))?;
                Ok(Claim::Recorded)
            }
        }
    }

    /// Saves the mode of a channel.
    pub(crate) fn set_mode(&self, channel: &ChannelId, mode: Mode) -> Result<(), StateError> {
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
    pub(crate) fn set_cookie_choice(
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

    /// Stores a new agent with the hash of its token.
    pub fn add_agent(&self, agent: &AgentRow, token_sha256: &str) -> Result<(), StateError> {
        let deny = serde_json::to_string(&agent.deny_tools).expect("strings serialize");
        let now = unix_now();
        let conn = self.conn.lock().expect("state lock");
        conn.execute(
            "INSERT INTO agents (agent_id, channel_id, name, deny_tools, token_sha256, created_at,
                                 allow_host_mode, sites, confirm)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                agent.agent_id,
                agent.channel_id,
                agent.name,
                deny,
                token_sha256,
                now,
                agent.allow_host_mode as i64,
                serde_json::to_string(&agent.sites).expect("sites serialize"),
                serde_json::to_string(&agent.confirm).expect("confirm serialize")
            ],
        )
        .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Every agent, oldest first.
    pub fn agents(&self) -> Result<Vec<AgentRow>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let mut statement = conn
            .prepare(
                "SELECT agent_id, channel_id, name, deny_tools, last_seen, allow_host_mode, sites, confirm FROM agents
                 ORDER BY created_at, agent_id",
            )
            .map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map([], agent_row)
            .map_err(|e| self.wrap(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.wrap(e))
    }

    /// The agent whose token hashes to `token_sha256`.
    pub(crate) fn agent_by_token(
        &self,
        token_sha256: &str,
    ) -> Result<Option<AgentRow>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        conn.query_row(
            "SELECT agent_id, channel_id, name, deny_tools, last_seen, allow_host_mode, sites, confirm FROM agents
             WHERE token_sha256 = ?1",
            params![token_sha256],
            agent_row,
        )
        .optional()
        .map_err(|e| self.wrap(e))
    }

    /// Replaces an agent's sites; false when there is no such agent.
    pub(crate) fn set_agent_sites(
        &self,
        agent_id: &str,
        sites: &crate::sites::Sites,
    ) -> Result<bool, StateError> {
        let text = serde_json::to_string(sites).expect("sites serialize");
        let conn = self.conn.lock().expect("state lock");
        let n = conn
            .execute(
                "UPDATE agents SET sites = ?2 WHERE agent_id = ?1",
                params![agent_id, text],
            )
            .map_err(|e| self.wrap(e))?;
        Ok(n == 1)
    }

    /// Replaces an agent's `confirm` kinds; false when there is no such agent.
    pub(crate) fn set_agent_confirm(
        &self,
        agent_id: &str,
        confirm: &crate::approvals::Confirm,
    ) -> Result<bool, StateError> {
        let text = serde_json::to_string(confirm).expect("confirm serialize");
        let conn = self.conn.lock().expect("state lock");
        let n = conn
            .execute(
                "UPDATE agents SET confirm = ?2 WHERE agent_id = ?1",
                params![agent_id, text],
            )
            .map_err(|e| self.wrap(e))?;
        Ok(n == 1)
    }

    /// Deletes an agent; false when there was none.
    pub(crate) fn remove_agent(&self, agent_id: &str) -> Result<bool, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let n = conn
            .execute("DELETE FROM agents WHERE agent_id = ?1", params![agent_id])
            .map_err(|e| self.wrap(e))?;
        Ok(n > 0)
    }

    /// Records that an agent's token was just used.
    pub(crate) fn touch_agent(&self, agent_id: &str) -> Result<(), StateError> {
        let conn = self.conn.lock().expect("state lock");
        conn.execute(
            "UPDATE agents SET last_seen = ?2 WHERE agent_id = ?1",
            params![agent_id, unix_now()],
        )
        .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Records whether an agent has tabs in its channel's running browser (so a daemon restart
    /// can tell it they are gone).
    pub(crate) fn set_agent_tabs_open(&self, agent_id: &str, open: bool) -> Result<(), StateError> {
        let conn = self.conn.lock().expect("state lock");
        conn.execute(
            "UPDATE agents SET tabs_open = ?2 WHERE agent_id = ?1",
            params![agent_id, open as i64],
        )
        .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// `(agent_id, channel_id)` of agents that had tabs open when the daemon last stopped.
    pub(crate) fn agents_with_tabs_open(&self) -> Result<Vec<(String, String)>, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let mut statement = conn
            .prepare("SELECT agent_id, channel_id FROM agents WHERE tabs_open = 1")
            .map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.wrap(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.wrap(e))
    }

    /// Forgets everything about a channel, its agents included (their tokens stop working at
    /// once). Returns how many agents were removed.
    pub fn forget(&self, channel: &ChannelId) -> Result<usize, StateError> {
        let conn = self.conn.lock().expect("state lock");
        let mut agents = 0;
        for table in ["agents", "channel_mode", "cookie_choice"] {
            let n = conn
                .execute(
                    &format!("DELETE FROM {table} WHERE channel_id = ?1"),
                    params![channel.as_str()],
                )
                .map_err(|e| self.wrap(e))?;
            if table == "agents" {
                agents = n;
            }
        }
        Ok(agents)
    }
}

fn agent_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<AgentRow> {
    let deny: String = row.get(3)?;
    Ok(AgentRow {
        agent_id: row.get(0)?,
        channel_id: row.get(1)?,
        name: row.get(2)?,
        deny_tools: serde_json::from_str(&deny).unwrap_or_default(),
        last_seen: row.get(4)?,
        allow_host_mode: row.get::<_, i64>(5)? != 0,
        // A list that does not read back refuses the agent rather than freeing it.
        sites: serde_json::from_str(&row.get::<_, String>(6)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e))
        })?,
        // Likewise: an unreadable list refuses the agent rather than freeing it.
        confirm: serde_json::from_str(&row.get::<_, String>(7)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(e))
        })?,
    })
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Opens the database, checks its integrity and applies the schema.
fn open_checked(path: &Path) -> Result<Connection, rusqlite::Error> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let check: String = conn.query_row("PRAGMA quick_check", [], |row| row.get(0))?;
    if check != "ok" {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some(format!("integrity check failed: {check}")),
        ));
    }
    conn.execute_batch(SCHEMA)?;
    add_missing_columns(&conn)?;
    Ok(conn)
}

/// Brings an older database's `agents` table up to [`AGENT_COLUMNS_ADDED`].
fn add_missing_columns(conn: &Connection) -> Result<(), rusqlite::Error> {
    let mut statement = conn.prepare("SELECT name FROM pragma_table_info('agents')")?;
    let present: Vec<String> = statement
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    for (name, definition) in AGENT_COLUMNS_ADDED {
        if !present.iter().any(|p| p == name) {
            conn.execute_batch(&format!(
                "ALTER TABLE agents ADD COLUMN {name} {definition}"
            ))?;
        }
    }
    Ok(())
}

/// True when the file itself is damaged (not when it cannot be reached or written).
fn is_corruption(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// Renames the database (and its journal files, if any) to `<name>.corrupt-<unix time>[-…]`.
fn move_aside(path: &Path) -> std::io::Result<std::path::PathBuf> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".corrupt-{now}"));
    let mut aside = std::path::PathBuf::from(name);
    // Two corrupt starts within one second must not overwrite the first copy.
    let mut n = 1;
    while aside.exists() {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".corrupt-{now}-{n}"));
        aside = name.into();
        n += 1;
    }
    std::fs::rename(path, &aside)?;
    for suffix in ["-journal", "-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let mut side_aside = aside.as_os_str().to_owned();
        side_aside.push(suffix);
        let _ = std::fs::rename(side, side_aside);
    }
    Ok(aside)
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
        let agent = AgentRow {
            agent_id: "ag1".into(),
            channel_id: "a".into(),
            name: "alpha".into(),
            deny_tools: vec!["evaluate".into()],
            last_seen: None,
            allow_host_mode: true,
            sites: crate::sites::Sites {
                allow: vec!["*.github.com".into()],
                deny: vec!["gist.github.com".into()],
            },
            confirm: crate::approvals::Confirm(vec!["submit".into()]),
        };
        db.add_agent(&agent, "hash1").unwrap();
        assert!(db.add_agent(&agent, "hash2").is_err(), "ids are unique");
        assert_eq!(db.agent_by_token("hash1").unwrap(), Some(agent.clone()));
        assert_eq!(db.agent_by_token("nope").unwrap(), None);
        // Sites that do not read back refuse the agent instead of freeing it.
        db.conn
            .lock()
            .unwrap()
            .execute(
                "UPDATE agents SET sites = 'garbage' WHERE agent_id = 'ag1'",
                [],
            )
            .unwrap();
        assert!(db.agent_by_token("hash1").is_err());
        assert!(db.set_agent_sites("ag1", &agent.sites).unwrap());
        assert_eq!(db.agent_by_token("hash1").unwrap(), Some(agent.clone()));
        assert!(!db.set_agent_sites("nobody", &agent.sites).unwrap());
        db.touch_agent("ag1").unwrap();
        assert!(db.agents().unwrap()[0].last_seen.is_some());
        db.set_agent_tabs_open("ag1", true).unwrap();
        assert_eq!(
            db.agents_with_tabs_open().unwrap(),
            vec![("ag1".to_string(), "a".to_string())]
        );
        assert!(db.remove_agent("ag1").unwrap());
        assert!(!db.remove_agent("ag1").unwrap());
        assert_eq!(db.agent_by_token("hash1").unwrap(), None);
        db.forget(&a).unwrap();
        assert!(db.modes().unwrap().is_empty());
        assert!(db.cookie_choice(&a).unwrap().is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn temp_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("porthole-state-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn corrupt_copies(dir: &Path) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().contains("state.sqlite3.corrupt-"))
            .collect()
    }

    #[test]
    fn a_channel_differing_only_in_case_is_refused_and_forget_takes_its_agents() {
        let db = StateDb::in_memory().unwrap();
        let id = |s: &str| ChannelId::parse(s).unwrap();
        assert_eq!(
            db.claim_channel(&id("work"), Some(Mode::Local)).unwrap(),
            Claim::Recorded
        );
        assert_eq!(
            db.claim_channel(&id("work"), Some(Mode::Docker)).unwrap(),
            Claim::Known
        );
        assert_eq!(db.mode_of(&id("work")).unwrap(), Some(Mode::Local));
        for other in ["Work", "WORK", "wOrK"] {
            assert_eq!(
                db.claim_channel(&id(other), None).unwrap(),
                Claim::CaseClash(id("work")),
                "{other}"
            );
            assert_eq!(db.case_clash(&id(other)).unwrap(), Some(id("work")));
            assert_eq!(db.mode_of(&id(other)).unwrap(), None);
        }
        assert_eq!(db.case_clash(&id("work")).unwrap(), None);
        assert_eq!(
            db.claim_channel(&id("work2"), None).unwrap(),
            Claim::Recorded
        );
        assert!(db.is_recorded(&id("work2")).unwrap());
        assert_eq!(db.mode_of(&id("work2")).unwrap(), None, "the default mode");
        assert_eq!(db.modes().unwrap(), vec![(id("work"), Mode::Local)]);
        let agent = AgentRow {
            agent_id: "ag1".into(),
            channel_id: "work".into(),
            name: "alpha".into(),
            deny_tools: vec![],
            last_seen: None,
            allow_host_mode: false,
            sites: crate::sites::Sites::default(),
            confirm: crate::approvals::Confirm::default(),
        };
        db.add_agent(&agent, "hash1").unwrap();
        assert_eq!(db.forget(&id("work")).unwrap(), 1);
        assert_eq!(db.agent_by_token("hash1").unwrap(), None);
        assert_eq!(db.mode_of(&id("work")).unwrap(), None);
        // Once `work` is gone, `Work` may be made.
        assert_eq!(
            db.claim_channel(&id("Work"), None).unwrap(),
            Claim::Recorded
        );
        assert!(!db.is_recorded(&id("work")).unwrap());
    }

    #[test]
    fn a_garbage_file_is_moved_aside_and_a_fresh_database_made() {
        let dir = temp_dir();
        let path = dir.join("state.sqlite3");
        let garbage = b"this is not a database at all, just some bytes \x00\x01\x02".repeat(100);
        std::fs::write(&path, &garbage).unwrap();
        let db = StateDb::open(&path).unwrap();
        let a = ChannelId::parse("a").unwrap();
        db.set_mode(&a, Mode::Local).unwrap();
        assert_eq!(db.modes().unwrap(), vec![(a, Mode::Local)]);
        let copies = corrupt_copies(&dir);
        assert_eq!(copies.len(), 1, "{copies:?}");
        assert_eq!(std::fs::read(&copies[0]).unwrap(), garbage);
        // A second corrupt start keeps the first copy.
        drop(db);
        std::fs::write(&path, b"garbage again").unwrap();
        StateDb::open(&path).unwrap();
        assert_eq!(corrupt_copies(&dir).len(), 2);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_database_with_damaged_pages_is_moved_aside() {
        let dir = temp_dir();
        let path = dir.join("state.sqlite3");
        {
            let db = StateDb::open(&path).unwrap();
            for i in 0..300 {
                let channel = ChannelId::parse(&format!("c{i}")).unwrap();
                db.set_mode(&channel, Mode::Docker).unwrap();
            }
        }
        // Keep the valid header, scribble over every page after the first.
        let mut bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 8192, "{}", bytes.len());
        for byte in bytes[4096..].iter_mut() {
            *byte = 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        let db = StateDb::open(&path).unwrap();
        assert!(db.modes().unwrap().is_empty());
        assert_eq!(corrupt_copies(&dir).len(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unreachable_database_is_an_error_and_nothing_is_moved() {
        let dir = temp_dir();
        // A directory where the file should be: not corruption, so no rename.
        let path = dir.join("state.sqlite3");
        std::fs::create_dir_all(&path).unwrap();
        assert!(StateDb::open(&path).is_err());
        assert!(path.is_dir());
        assert!(corrupt_copies(&dir).is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_older_agents_table_gains_allow_host_mode_off() {
        let dir = temp_dir();
        let path = dir.join("state.sqlite3");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE agents (agent_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL,
                 name TEXT NOT NULL, deny_tools TEXT NOT NULL, token_sha256 TEXT NOT NULL UNIQUE,
                 created_at INTEGER NOT NULL, last_seen INTEGER);
                 INSERT INTO agents VALUES ('ag1', 'a', 'old', '[]', 'h1', 0, NULL);",
            )
            .unwrap();
        }
        let db = StateDb::open(&path).unwrap();
        let old = db.agent_by_token("h1").unwrap().unwrap();
        assert!(
            !old.allow_host_mode,
            "agents made before the setting stay out of host mode"
        );
        db.set_agent_tabs_open("ag1", true).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }
}
