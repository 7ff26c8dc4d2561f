//! One channel's timeline on disk, `<data_dir>/timeline/<channel>/`: events in
//! `events.sqlite3` (WAL; each batch the recorder's writer gathers is one commit, so a daemon
//! killed mid-write loses at most that batch and never corrupts the rest) and frames as
//! `frames/<sha256>.jpg` (written to a temporary name and renamed, so a frame file is whole
//! or absent; identical frames are one file).
//!
//! Bounds: the directory stays under `max_bytes`, checked on every append (oldest events and
//! the frames only they used go first), events older than `keep` go, and each event's fields
//! are bounded (`super::fields`) on the way in and out. The check costs no file system call:
//! frames are counted exactly, and the database files by their size when last measured plus
//! an upper bound on what each append since can have added to them ([`row_growth`]); they are
//! measured again only when that bound nears the cap (issue 35). Calls are synchronous; async
//! callers run them on a blocking thread.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::event::{Draft, TimelineEvent};

/// A timeline store that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("timeline database {path}: {source}")]
    Db {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("timeline file {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("a stored timeline event is unreadable: {0}")]
    Json(#[from] serde_json::Error),
}

/// How big and how old a timeline may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_bytes: u64,
    pub keep: Duration,
}

/// The open timeline of one channel.
pub struct Store {
    dir: PathBuf,
    conn: Connection,
    limits: Limits,
    /// The next event's number.
    next_seq: u64,
    /// Bytes of every frame file (kept in step with the `frames` table).
    frame_bytes: u64,
    /// The last frame stored: calls that share one capture (`super::pace`) add the same image
    /// one after another, which then costs a compare, not a hash nor a statement.
    last_frame: Option<Box<LastFrame>>,
    /// Bytes of the database and its journal files when last measured ([`Store::measure`]).
    db_bytes: u64,
    /// An upper bound on what appends added to the database files since then.
    db_growth: u64,
    /// The part of `db_growth` the open transaction added: not on disk until it commits, so
    /// a measure within it still counts it.
    uncommitted: u64,
    /// How often the database files were measured (a file system call each).
    measures: u64,
}

/// The last frame stored, and the newest event using it.
struct LastFrame {
    /// Shares the buffer the recorder handed over: the calls that share one capture bring
    /// this very buffer again, which is then known without comparing its bytes.
    jpeg: bytes::Bytes,
    id: String,
    /// The newest event using it (`frames.last_seq` gets it when the batch commits).
    last_seq: u64,
    /// What `frames.last_seq` holds.
    stored_seq: u64,
}

/// A frame an event brings, identified before its event is encoded (so that is done once).
struct Incoming {
    jpeg: bytes::Bytes,
    id: String,
    /// The same image as the last frame stored.
    repeat: bool,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    actor TEXT NOT NULL,
    frame_id TEXT,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_actor ON events (actor, seq);
CREATE TABLE IF NOT EXISTS frames (
    id TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL,
    last_seq INTEGER NOT NULL
);
";

/// The database file's name inside the channel's directory.
pub const DB_FILE: &str = "events.sqlite3";
const FRAMES_DIR: &str = "frames";
/// After a prune the directory holds at most this share of the cap (so pruning is not per
/// frame).
const PRUNE_TO_PERCENT: u64 = 80;
/// Room kept for the database to grow by an event and its journal between checks.
const ROW_SLACK: u64 = 96 * 1024;
/// The most KiB of database pages one open store keeps in memory.
const CACHE_KIB: u64 = 256;
/// SQLite's page size (the default) plus the WAL's header of each page it writes.
const WAL_PAGE: u64 = 4096 + 24;

/// An upper bound on what one event row whose body is `body` bytes adds to the database files:
/// the row and its index entry (at most twice their bytes, pages being half full after a
/// split) in the database and again in the WAL, and a WAL page for a split around it.
fn row_growth(body: u64) -> u64 {
    4 * (body + 256) + WAL_PAGE
}

/// An upper bound on what a commit adds to the WAL beyond its rows: the pages every commit
/// rewrites (the database header, the leaves and the index's leaf it appended to).
const COMMIT_GROWTH: u64 = 4 * WAL_PAGE;

impl Store {
    /// Opens (creating) the timeline in `dir`. A database that is not usable is moved aside
    /// (`events.sqlite3.corrupt-<unix time>`) and a fresh one made.
    pub fn open(dir: &Path, limits: Limits) -> Result<Self, StoreError> {
        let io = |source| StoreError::Io {
            path: dir.display().to_string(),
            source,
        };
        std::fs::create_dir_all(dir.join(FRAMES_DIR)).map_err(io)?;
        let path = dir.join(DB_FILE);
        let conn = match open_db(&path, limits) {
            Ok(conn) => conn,
            Err(error) => {
                let aside = path
                    .with_extension(format!("sqlite3.corrupt-{}", super::event::now_ms() / 1000));
                tracing::warn!(event = "timeline_corrupt", path = %path.display(), %error, "the timeline database was unreadable; it was moved aside and a fresh one made");
                let _ = std::fs::rename(&path, aside);
                let _ = std::fs::remove_file(path.with_extension("sqlite3-wal"));
                let _ = std::fs::remove_file(path.with_extension("sqlite3-shm"));
                open_db(&path, limits).map_err(|source| db(&path, source))?
            }
        };
        let next_seq: i64 = conn
            .query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM events", [], |r| {
                r.get(0)
            })
            .map_err(|source| db(&path, source))?;
        let frame_bytes: i64 = conn
            .query_row("SELECT COALESCE(SUM(bytes), 0) FROM frames", [], |r| {
                r.get(0)
            })
            .map_err(|source| db(&path, source))?;
        let mut store = Self {
            dir: dir.to_path_buf(),
            conn,
            limits,
            next_seq: next_seq as u64,
            frame_bytes: frame_bytes as u64,
            last_frame: None,
            db_bytes: 0,
            db_growth: 0,
            uncommitted: 0,
            measures: 0,
        };
        store.measure();
        store.drop_expired(super::event::now_ms())?;
        Ok(store)
    }

    fn db_path(&self) -> PathBuf {
        self.dir.join(DB_FILE)
    }

    fn db_err(&self, source: rusqlite::Error) -> StoreError {
        db(&self.db_path(), source)
    }

    fn frame_path(&self, id: &str) -> PathBuf {
        self.dir.join(FRAMES_DIR).join(format!("{id}.jpg"))
    }

    /// Adds `rows` (event, frame, time) in order in one transaction: one commit for the events
    /// the recorder's writer gathered (`super::recorder`). A prune on the way commits what came
    /// before it and runs as it does alone. On an error nothing since the last commit is kept.
    pub fn append_all(
        &mut self,
        rows: Vec<(Draft, Option<bytes::Bytes>, u64)>,
    ) -> Result<Vec<TimelineEvent>, StoreError> {
        self.begin()?;
        let mut events = Vec::with_capacity(rows.len());
        let mut written = Ok(());
        for (draft, frame, at_ms) in rows {
            match self.append_one(draft, frame, at_ms) {
                Ok(event) => events.push(event),
                Err(error) => {
                    written = Err(error);
                    break;
                }
            }
        }
        let written = written.and_then(|()| self.store_last_use());
        if let Err(error) = written {
            if !self.conn.is_autocommit() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            self.uncommitted = 0;
            // What the rollback undid is no longer known to be stored.
            self.last_frame = None;
            return Err(error);
        }
        self.commit()?;
        Ok(events)
    }

    /// Begins a transaction (its commit adds to the WAL, [`COMMIT_GROWTH`]).
    fn begin(&mut self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("BEGIN")
            .map_err(|e| self.db_err(e))?;
        self.grew(COMMIT_GROWTH);
        Ok(())
    }

    /// Commits the open transaction, if any.
    fn commit(&mut self) -> Result<(), StoreError> {
        if !self.conn.is_autocommit() {
            let timer = super::stages::start();
            self.conn
                .execute_batch("COMMIT")
                .map_err(|e| self.db_err(e))?;
            timer.stop(super::stages::Stage::Commit);
        }
        self.uncommitted = 0;
        Ok(())
    }

    /// Adds `bytes` to the bound on the database files' growth.
    fn grew(&mut self, bytes: u64) {
        self.db_growth += bytes;
        if !self.conn.is_autocommit() {
            self.uncommitted += bytes;
        }
    }

    /// Adds one event (with its frame, stored once per distinct image) and returns it.
    #[cfg(test)]
    pub fn append(
        &mut self,
        draft: Draft,
        frame: Option<&[u8]>,
        at_ms: u64,
    ) -> Result<TimelineEvent, StoreError> {
        let frame = frame.map(bytes::Bytes::copy_from_slice);
        let mut events = self.append_all(vec![(draft, frame, at_ms)])?;
        Ok(events.remove(0))
    }

    /// [`Store::append`] inside [`Store::append_all`]'s transaction.
    fn append_one(
        &mut self,
        draft: Draft,
        frame: Option<bytes::Bytes>,
        at_ms: u64,
    ) -> Result<TimelineEvent, StoreError> {
        let seq = self.next_seq;
        let mut event = super::fields::bounded(draft).finish(seq, at_ms, None);
        // The frame's id is known before the event is encoded, so it is encoded once.
        let incoming = frame.map(|jpeg| self.identify(jpeg));
        event.frame_id = incoming.as_ref().map(|f| f.id.clone());
        let body = serde_json::to_string(&event)?;
        // The cap is checked on every append, not only for a new frame: events without a
        // frame, and repeats of the last frame, add rows too.
        let new_frame = incoming
            .as_ref()
            .filter(|f| !f.repeat)
            .map_or(0, |f| f.jpeg.len() as u64);
        self.make_room(body.len() as u64 + new_frame)?;
        if let Some(incoming) = incoming {
            self.put_frame(incoming, seq)?;
        }
        // Cached statements: an append is the timeline's most frequent write (issue 35).
        self.conn
            .prepare_cached(
                "INSERT INTO events (seq, at_ms, actor, frame_id, body) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut insert| {
                insert.execute(params![
                    seq as i64,
                    at_ms as i64,
                    event.actor.key(),
                    event.frame_id,
                    body
                ])
            })
            .map_err(|e| self.db_err(e))?;
        self.grew(row_growth(body.len() as u64));
        self.next_seq += 1;
        Ok(event)
    }

    /// The id of `jpeg`: the last frame's when it is the same image (a compare), else its
    /// hash.
    fn identify(&self, jpeg: bytes::Bytes) -> Incoming {
        let timer = super::stages::start();
        let repeat = self
            .last_frame
            .as_ref()
            .filter(|last| super::look::same_jpeg(&last.jpeg, &jpeg))
            .map(|last| last.id.clone());
        let incoming = match repeat {
            Some(id) => Incoming {
                jpeg,
                id,
                repeat: true,
            },
            None => {
                let hash = Sha256::digest(&jpeg);
                Incoming {
                    jpeg,
                    id: hash[..16].iter().map(|b| format!("{b:02x}")).collect(),
                    repeat: false,
                }
            }
        };
        timer.stop(super::stages::Stage::Hash);
        incoming
    }

    /// Stores `frame` under its id (once), noting that event `seq` uses it. A repeat of the
    /// last frame costs nothing here: its `last_seq` is written once per transaction
    /// ([`Store::store_last_use`]).
    fn put_frame(&mut self, frame: Incoming, seq: u64) -> Result<(), StoreError> {
        if frame.repeat {
            // Still the last frame unless a prune on the way removed it.
            if let Some(last) = self.last_frame.as_mut().filter(|l| l.id == frame.id) {
                last.last_seq = seq;
                return Ok(());
            }
            // The prune took it: it comes back as a new frame, which needs its room.
            self.make_room(frame.jpeg.len() as u64)?;
        }
        self.store_last_use()?;
        self.put_new_frame(&frame.jpeg, &frame.id, seq)?;
        self.last_frame = Some(Box::new(LastFrame {
            jpeg: frame.jpeg,
            id: frame.id,
            last_seq: seq,
            stored_seq: seq,
        }));
        Ok(())
    }

    /// Writes the last frame's newest use to `frames.last_seq` (which prunes read) if it is
    /// not there yet.
    fn store_last_use(&mut self) -> Result<(), StoreError> {
        let Some(last) = self.last_frame.as_mut() else {
            return Ok(());
        };
        if last.last_seq == last.stored_seq {
            return Ok(());
        }
        let (id, seq) = (last.id.clone(), last.last_seq);
        self.conn
            .prepare_cached("UPDATE frames SET last_seq = ?2 WHERE id = ?1")
            .and_then(|mut update| update.execute(params![id, seq as i64]))
            .map_err(|e| self.db_err(e))?;
        if let Some(last) = self.last_frame.as_mut() {
            last.stored_seq = seq;
        }
        Ok(())
    }

    /// [`Store::put_frame`] for an image unlike the last one: found by its id or written.
    fn put_new_frame(&mut self, jpeg: &[u8], id: &str, seq: u64) -> Result<(), StoreError> {
        let known: Option<i64> = self
            .conn
            .prepare_cached("SELECT bytes FROM frames WHERE id = ?1")
            .and_then(|mut select| select.query_row([id], |r| r.get(0)).optional())
            .map_err(|e| self.db_err(e))?;
        if known.is_some() && self.frame_path(id).exists() {
            self.conn
                .prepare_cached("UPDATE frames SET last_seq = ?2 WHERE id = ?1")
                .and_then(|mut update| update.execute(params![id, seq as i64]))
                .map_err(|e| self.db_err(e))?;
            return Ok(());
        }
        let size = jpeg.len() as u64;
        let path = self.frame_path(id);
        let partial = path.with_extension("jpg.partial");
        let io = |source| StoreError::Io {
            path: path.display().to_string(),
            source,
        };
        let timer = super::stages::start();
        std::fs::write(&partial, jpeg).map_err(io)?;
        std::fs::rename(&partial, &path).map_err(io)?;
        timer.stop(super::stages::Stage::FrameFile);
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO frames (id, bytes, last_seq) VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut insert| insert.execute(params![id, size as i64, seq as i64]))
            .map_err(|e| self.db_err(e))?;
        self.frame_bytes += size - known.unwrap_or(0).min(size as i64) as u64;
        self.grew(row_growth(0));
        Ok(())
    }

    /// Bytes the directory takes now (frames, the database and its journal), measured.
    pub fn bytes_used(&self) -> u64 {
        self.frame_bytes + self.db_files()
    }

    /// Bytes of the database and its journal files (three file system calls).
    fn db_files(&self) -> u64 {
        let file = |name: &str| {
            std::fs::metadata(self.dir.join(name))
                .map(|m| m.len())
                .unwrap_or(0)
        };
        file(DB_FILE) + file(&format!("{DB_FILE}-wal")) + file(&format!("{DB_FILE}-shm"))
    }

    /// Measures the database files again (the bound on their growth starts afresh, from what
    /// the open transaction has yet to write).
    fn measure(&mut self) {
        self.db_bytes = self.db_files();
        self.db_growth = self.uncommitted;
        self.measures += 1;
    }

    /// At least the bytes the directory takes now, without a file system call.
    fn bytes_bound(&self) -> u64 {
        self.frame_bytes + self.db_bytes + self.db_growth
    }

    /// Drops the oldest events (and frames only they used) until `incoming` more bytes fit
    /// under the cap with room to spare. Measures the database files only when the bound on
    /// them says they might not fit.
    fn make_room(&mut self, incoming: u64) -> Result<(), StoreError> {
        let incoming = incoming + ROW_SLACK;
        if self.bytes_bound() + incoming <= self.limits.max_bytes {
            return Ok(());
        }
        self.measure();
        if self.bytes_bound() + incoming <= self.limits.max_bytes {
            return Ok(());
        }
        // Within [`Store::append_all`]: what came before is committed, the prune runs with a
        // commit per step as it does alone (compaction cannot run inside a transaction), then
        // the batch goes on in a new one.
        self.store_last_use()?;
        if !self.conn.is_autocommit() {
            self.commit()?;
            let pruned = self.prune(incoming);
            self.measure();
            pruned?;
            return self.begin();
        }
        let pruned = self.prune(incoming);
        self.measure();
        pruned
    }

    /// Drops the oldest events (and the frames only they used) until `incoming` more bytes
    /// fit well under the cap.
    fn prune(&mut self, incoming: u64) -> Result<(), StoreError> {
        let target = self.limits.max_bytes / 100 * PRUNE_TO_PERCENT;
        let mut dropped = 0u64;
        while self.bytes_used() + incoming > target {
            let Some(cut) = self.prune_cut()? else { break };
            let frames_before = self.frame_bytes;
            dropped += self
                .conn
                .execute("DELETE FROM events WHERE seq <= ?1", [cut])
                .map_err(|e| self.db_err(e))? as u64;
            self.forget_frames(Some(cut))?;
            if self.frame_bytes == frames_before {
                // Only rows went: the database file shrinks once its free pages are given back.
                self.compact()?;
            }
        }
        self.compact()?;
        tracing::info!(event = "timeline_pruned", dir = %self.dir.display(), dropped, bytes = self.bytes_used());
        Ok(())
    }

    /// Where the next step of a prune cuts (events up to it go): the oldest kept frame's last
    /// use, but at most an eighth of the events, since one frame repeated by many events (a
    /// still page) is last used by the newest of them, and events without frames have none;
    /// `None` when no event or frame is left.
    fn prune_cut(&self) -> Result<Option<i64>, StoreError> {
        let oldest_frame: Option<i64> = self
            .conn
            .query_row("SELECT MIN(last_seq) FROM frames", [], |r| r.get(0))
            .map_err(|e| self.db_err(e))?;
        let events: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0))
            .map_err(|e| self.db_err(e))?;
        let eighth: Option<i64> = if events == 0 {
            None
        } else {
            self.conn
                .query_row(
                    "SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET ?1",
                    [(events - 1) / 8],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| self.db_err(e))?
        };
        Ok(match (oldest_frame, eighth) {
            (Some(frame), Some(event)) => Some(frame.min(event)),
            (frame, event) => frame.or(event),
        })
    }

    /// Removes frames no kept event uses (and, with `upto`, those last used at or before it).
    fn forget_frames(&mut self, upto: Option<i64>) -> Result<(), StoreError> {
        self.store_last_use()?;
        let gone: Vec<(String, i64)> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT id, bytes FROM frames WHERE last_seq <= ?1 OR id NOT IN \
                     (SELECT frame_id FROM events WHERE frame_id IS NOT NULL)",
                )
                .map_err(|e| db(&self.dir.join(DB_FILE), e))?;
            let rows = stmt
                .query_map([upto.unwrap_or(-1)], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(|e| db(&self.dir.join(DB_FILE), e))?;
            rows.collect::<Result<_, _>>()
                .map_err(|e| db(&self.dir.join(DB_FILE), e))?
        };
        for (id, bytes) in gone {
            // The row goes after the file: a crash between leaves a row whose file is gone,
            // which the next write of that image repairs.
            match std::fs::remove_file(self.frame_path(&id)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(StoreError::Io {
                        path: self.frame_path(&id).display().to_string(),
                        source,
                    })
                }
            }
            if self.last_frame.as_ref().is_some_and(|last| last.id == id) {
                self.last_frame = None;
            }
            self.conn
                .execute("DELETE FROM frames WHERE id = ?1", [&id])
                .map_err(|e| self.db_err(e))?;
            self.frame_bytes = self.frame_bytes.saturating_sub(bytes as u64);
        }
        Ok(())
    }

    /// Gives freed database pages back to the file system.
    fn compact(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(|e| self.db_err(e))
    }

    /// Drops events older than the `keep` limit.
    pub fn drop_expired(&mut self, now_ms: u64) -> Result<(), StoreError> {
        let cutoff = now_ms.saturating_sub(self.limits.keep.as_millis() as u64);
        let dropped = self
            .conn
            .execute("DELETE FROM events WHERE at_ms < ?1", [cutoff as i64])
            .map_err(|e| self.db_err(e))?;
        if dropped > 0 {
            self.forget_frames(None)?;
            self.compact()?;
            self.measure();
            tracing::info!(event = "timeline_expired", dir = %self.dir.display(), dropped);
        }
        Ok(())
    }

    /// Events after `since_seq` (by `actor` when given), at most `limit`, in order.
    pub fn list(
        &self,
        since_seq: u64,
        until_seq: Option<u64>,
        limit: usize,
        actor: Option<&str>,
    ) -> Result<Vec<TimelineEvent>, StoreError> {
        let until = until_seq.map(|u| u as i64).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT body FROM events WHERE seq > ?1 AND seq <= ?2 AND (?3 IS NULL OR actor = ?3) \
                 ORDER BY seq LIMIT ?4",
            )
            .map_err(|e| self.db_err(e))?;
        let bodies = stmt
            .query_map(params![since_seq as i64, until, actor, limit as i64], |r| {
                r.get::<_, String>(0)
            })
            .map_err(|e| self.db_err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))?;
        // Bounded again: events written before the bounds (`super::fields`) get them too.
        bodies
            .iter()
            .map(|b| {
                serde_json::from_str(b)
                    .map(super::fields::bounded_event)
                    .map_err(StoreError::from)
            })
            .collect()
    }

    /// The JPEG of frame `id`, if kept (the API reads frames through `frames::read`).
    #[cfg(test)]
    pub fn frame(&self, id: &str) -> Option<Vec<u8>> {
        super::frames::read(&self.dir, id)
    }
}

fn db(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Db {
        path: path.display().to_string(),
        source,
    }
}

/// The fewest and most WAL pages between two automatic checkpoints ([`checkpoint_pages`]).
const CHECKPOINT_PAGES: (u64, u64) = (16, 256);

/// How many pages the WAL may hold before SQLite copies them into the database: 1/64 of the
/// cap, within [`CHECKPOINT_PAGES`] (1 MiB at most). A checkpoint costs two `fsync`s, a copy
/// of the pages and a truncation; at the fewest (64 KiB, as before issue 35) a busy channel
/// checkpointed on every other batch, which `porthole-bench timeline` found to be most of the
/// SQLite write's cost. A small cap keeps the small WAL. Commits are in the WAL either way, so
/// a SIGKILL loses nothing more; the bound counts the WAL (see [`row_growth`]).
fn checkpoint_pages(limits: Limits) -> u64 {
    (limits.max_bytes / 64 / 4096).clamp(CHECKPOINT_PAGES.0, CHECKPOINT_PAGES.1)
}

fn open_db(path: &Path, limits: Limits) -> Result<Connection, rusqlite::Error> {
    let conn = Connection::open(path)?;
    // auto_vacuum must be chosen before the first table exists.
    conn.execute_batch(&format!(
        "PRAGMA auto_vacuum = INCREMENTAL;
         PRAGMA journal_mode = WAL;
         PRAGMA synchronous = NORMAL;
         PRAGMA wal_autocheckpoint = {};
         PRAGMA journal_size_limit = 65536;",
        checkpoint_pages(limits)
    ))?;
    // SQLite keeps every page it touches in the connection's cache up to `cache_size`
    // (2000 KiB by default). Appends touch a new page every few events, and a store stays
    // open for the daemon's life, so each recording channel's cache grew with its database
    // towards that ceiling (issue 38, item 11).
    conn.execute_batch(&format!("PRAGMA cache_size = -{CACHE_KIB};"))?;
    conn.execute_batch(SCHEMA)?;
    let ok: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if ok != "ok" {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some(ok),
        ));
    }
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::super::event::{EventActor, EventKind};
    use super::*;

    fn limits(max_bytes: u64) -> Limits {
        Limits {
            max_bytes,
            keep: Duration::from_secs(7 * 86_400),
        }
    }

    fn human() -> Draft {
        Draft::new(EventKind::Human, EventActor::Human).action("click")
    }

    #[test]
    fn the_wal_grows_with_the_cap_before_a_checkpoint() {
        let pages = |max_bytes| {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path(), limits(max_bytes)).unwrap();
            store
                .conn
                .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get::<_, i64>(0))
                .unwrap()
        };
        // The default cap (200 MB): 1 MiB of WAL between checkpoints, not one every 64 KiB.
        assert_eq!(pages(200 << 20), 256);
        // A small cap keeps the small WAL.
        assert_eq!(pages(2 << 20), 16);
    }

    #[test]
    fn identical_frames_are_stored_once_and_events_survive_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let now = super::super::event::now_ms();
        let a = store.append(human(), Some(b"frame one"), now).unwrap();
        let b = store.append(human(), Some(b"frame one"), now).unwrap();
        let c = store.append(human(), Some(b"frame two"), now).unwrap();
        assert_eq!(a.frame_id, b.frame_id);
        assert_ne!(a.frame_id, c.frame_id);
        assert_eq!(
            std::fs::read_dir(dir.path().join(FRAMES_DIR))
                .unwrap()
                .count(),
            2
        );
        drop(store);
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let listed = store.list(0, None, 100, None).unwrap();
        assert_eq!(listed.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(store.append(human(), None, now).unwrap().seq, 4);
        assert_eq!(
            store.frame(a.frame_id.as_deref().unwrap()).unwrap(),
            b"frame one"
        );
    }

    #[test]
    fn the_oldest_frames_go_first_and_the_cap_holds() {
        let dir = tempfile::tempdir().unwrap();
        let cap = 600_000;
        let mut store = Store::open(dir.path(), limits(cap)).unwrap();
        let now = super::super::event::now_ms();
        for i in 0..60u32 {
            let mut jpeg = vec![0u8; 30_000];
            jpeg[..4].copy_from_slice(&i.to_be_bytes());
            store.append(human(), Some(&jpeg), now).unwrap();
            assert!(store.bytes_used() <= cap, "{} > {cap}", store.bytes_used());
        }
        let kept = store.list(0, None, 1000, None).unwrap();
        assert_eq!(kept.last().unwrap().seq, 60);
        assert!(kept.first().unwrap().seq > 1);
        assert!(kept
            .iter()
            .all(|e| store.frame(e.frame_id.as_deref().unwrap()).is_some()));
    }

    #[test]
    fn events_without_a_new_frame_are_pruned_and_the_cap_holds() {
        let dir = tempfile::tempdir().unwrap();
        let cap = 400_000;
        let mut store = Store::open(dir.path(), limits(cap)).unwrap();
        let now = super::super::event::now_ms();
        // A page's navigations (no frame, long URLs), then repeats of one frame.
        let navigation = |n: usize| {
            Draft::new(EventKind::Navigation, EventActor::Page)
                .tab(
                    Some("T".into()),
                    Some(format!("https://x.example/{n}/{}", "p".repeat(5000))),
                )
                .summary(format!("loaded {n}"))
        };
        for n in 0..1500 {
            let frame = (n >= 1000).then_some(&b"one still frame"[..]);
            store.append(navigation(n), frame, now).unwrap();
            assert!(store.bytes_used() <= cap, "{} > {cap}", store.bytes_used());
        }
        let kept = store.list(0, None, 10_000, None).unwrap();
        assert_eq!(kept.last().unwrap().seq, 1500);
        assert!(kept.first().unwrap().seq > 1000, "{}", kept[0].seq);
        assert!(kept.windows(2).all(|w| w[0].seq + 1 == w[1].seq));
        assert!(kept
            .iter()
            .all(|e| store.frame(e.frame_id.as_deref().unwrap()).is_some()));
    }

    /// Bytes of pages in the connection's cache now.
    #[allow(unsafe_code)]
    fn cache_used(conn: &Connection) -> i64 {
        let (mut current, mut highest) = (0, 0);
        // SAFETY: the handle is `conn`'s own and outlives the call; sqlite3_db_status only
        // reads the connection's counters into the two integers given.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_db_status(
                conn.handle(),
                rusqlite::ffi::SQLITE_DBSTATUS_CACHE_USED,
                &mut current,
                &mut highest,
                0,
            )
        };
        assert_eq!(rc, rusqlite::ffi::SQLITE_OK);
        i64::from(current)
    }

    #[test]
    fn the_page_cache_stays_small_as_the_timeline_grows() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let now = super::super::event::now_ms();
        for n in 0..6000 {
            let draft = human().tab(
                Some("T".into()),
                Some(format!("https://x.example/{n}/{}", "p".repeat(900))),
            );
            store.append(draft, None, now).unwrap();
        }
        store.list(0, None, 10_000, None).unwrap();
        // About 7 MB of events; the cache holds at most its bound (and SQLite's page
        // headers).
        let used = cache_used(&store.conn);
        assert!(
            used <= (CACHE_KIB as i64) * 1024 * 5 / 4,
            "{used} bytes of cache"
        );
    }

    #[test]
    fn appends_far_below_the_cap_measure_no_file_and_the_bound_holds() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let measured = store.measures;
        let now = super::super::event::now_ms();
        let long = |n: usize| {
            human().tab(
                Some("T".into()),
                Some(format!("https://x.example/{n}/{}", "p".repeat(n % 3000))),
            )
        };
        // Single appends, batches as the writer gathers them, new frames and repeats.
        for n in 0..400usize {
            let jpeg = vec![(n / 7) as u8; 2000 + n];
            let frame = (n % 2 == 0).then_some(&jpeg[..]);
            if n % 5 == 0 {
                let shared = frame.map(bytes::Bytes::copy_from_slice);
                let rows = (0..40)
                    .map(|i| (long(n * 40 + i), shared.clone(), now))
                    .collect();
                store.append_all(rows).unwrap();
            } else {
                store.append(long(n), frame, now).unwrap();
            }
            assert!(
                store.bytes_bound() >= store.bytes_used(),
                "after {n}: bound {} < used {}",
                store.bytes_bound(),
                store.bytes_used()
            );
        }
        assert_eq!(store.measures, measured, "the database files were measured");
        assert_eq!(
            store.list(0, None, 10_000, None).unwrap().len(),
            80 * 40 + 320
        );
    }

    #[test]
    fn a_repeated_frame_keeps_its_newest_use_for_the_prune() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let now = super::super::event::now_ms();
        store.append(human(), Some(b"still"), now).unwrap();
        store
            .append_all(vec![
                (human(), Some(bytes::Bytes::from_static(b"still")), now),
                (human(), Some(bytes::Bytes::from_static(b"still")), now),
            ])
            .unwrap();
        let last_seq: i64 = store
            .conn
            .query_row("SELECT last_seq FROM frames", [], |r| r.get(0))
            .unwrap();
        assert_eq!(last_seq, 3);
        drop(store);
        // And after a reopen the image is still stored once and found by its hash.
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let again = store.append(human(), Some(b"still"), now).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path().join(FRAMES_DIR))
                .unwrap()
                .count(),
            1
        );
        assert!(store.frame(again.frame_id.as_deref().unwrap()).is_some());
    }

    #[test]
    fn each_field_is_bounded_on_the_way_in() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let mut draft = human().tab(
            Some("T".into()),
            Some(format!(
                "https://x.example/?code=SECRET#{}",
                "f".repeat(1 << 20)
            )),
        );
        draft.tool = Some("t".repeat(1 << 20));
        let event = store
            .append(draft, None, super::super::event::now_ms())
            .unwrap();
        assert_eq!(event.url.as_deref(), Some("https://x.example/?code="));
        assert_eq!(
            event.tool.as_deref(),
            Some("unknown tool (1048576 characters)")
        );
        assert!(store.bytes_used() < 1 << 20);
    }

    #[test]
    fn old_events_expire() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let now = super::super::event::now_ms();
        store
            .append(human(), Some(b"old"), now - 8 * 86_400_000)
            .unwrap();
        store.append(human(), Some(b"new"), now).unwrap();
        store.drop_expired(now).unwrap();
        let kept = store.list(0, None, 10, None).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(
            std::fs::read_dir(dir.path().join(FRAMES_DIR))
                .unwrap()
                .count(),
            1
        );
    }

    #[test]
    fn the_actor_filter_and_paging() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), limits(1 << 30)).unwrap();
        let now = super::super::event::now_ms();
        store.append(human(), None, now).unwrap();
        store
            .append(
                Draft::new(
                    EventKind::Tool,
                    EventActor::Agent {
                        agent_id: "a".into(),
                        name: "n".into(),
                    },
                ),
                None,
                now,
            )
            .unwrap();
        store.append(human(), None, now).unwrap();
        let humans = store.list(0, None, 10, Some("human")).unwrap();
        assert_eq!(humans.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(store.list(1, None, 1, None).unwrap()[0].seq, 2);
        assert_eq!(store.list(0, Some(2), 10, None).unwrap().len(), 2);
    }
}
