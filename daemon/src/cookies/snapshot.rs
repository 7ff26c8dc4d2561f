//! Private copies of a live cookie database.
//!
//! Owns: copying a cookie database plus its `-journal`, `-wal` and `-shm` companions into a
//! fresh private directory (mode 0700, files 0600), opening that copy with SQLite, and deleting
//! the directory when the [`Snapshot`] is dropped — on success, on error and on panic alike.
//! The directory is made in `tempfile`'s temporary directory, which the daemon points at
//! `<data_dir>/tmp` and empties at start, so a copy a killed daemon left does not outlive its
//! next start (`daemon::temp_files`).
//!
//! Must not: open the live file with SQLite, take any lock on it, or write next to it. A running
//! browser never notices the read: its files are only read with plain `std::fs` reads.
//!
//! Why a copy: while Firefox runs, a read-only SQLite open of `cookies.sqlite` fails with
//! "database is locked" and `immutable=1` misses everything still in the WAL; Chromium keeps a
//! rollback journal that must be replayed to see a consistent state. Opening a copy of the
//! database *and* its WAL/journal lets SQLite recover exactly as it would for the browser.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::error::CookieError;

/// Companion files SQLite may keep next to a database.
const COMPANIONS: [&str; 3] = ["-journal", "-wal", "-shm"];

/// A private copy of one cookie database; the directory is removed on drop.
pub(crate) struct Snapshot {
    /// Removed (recursively) when dropped: that is the cleanup guard. Held for its `Drop`.
    #[cfg_attr(not(test), allow(dead_code))]
    dir: tempfile::TempDir,
    db: PathBuf,
}

impl Snapshot {
    /// Copies `live` (and any companions) into a new private temp dir.
    pub(crate) fn take(source_id: &str, live: &Path) -> Result<Self, CookieError> {
        let snap_err = |e: io::Error| CookieError::Snapshot {
            source_id: source_id.to_owned(),
            detail: e.to_string(),
        };
        match fs::metadata(live) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(CookieError::Corrupt {
                    source_id: source_id.to_owned(),
                    path: live.to_owned(),
                    detail: "not a regular file".into(),
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(CookieError::Missing {
                    source_id: source_id.to_owned(),
                    path: live.to_owned(),
                })
            }
            Err(e) => return Err(io_to_error(source_id, live, e)),
        }
        let dir = tempfile::Builder::new()
            .prefix("porthole-cookies-")
            .tempdir()
            .map_err(snap_err)?;
        restrict(dir.path(), 0o700).map_err(snap_err)?;
        let file_name = live
            .file_name()
            .map(|n| n.to_owned())
            .unwrap_or_else(|| "cookies.db".into());
        let db = dir.path().join(&file_name);
        copy_private(live, &db).map_err(|e| match e.kind() {
            // The file vanished between the metadata check and the copy.
            io::ErrorKind::NotFound => CookieError::Missing {
                source_id: source_id.to_owned(),
                path: live.to_owned(),
            },
            _ => io_to_error(source_id, live, e),
        })?;
        for suffix in COMPANIONS {
            let mut from = live.as_os_str().to_owned();
            from.push(suffix);
            let mut to = db.as_os_str().to_owned();
            to.push(suffix);
            match copy_private(Path::new(&from), Path::new(&to)) {
                Ok(()) => {}
                // Companions come and go with every transaction.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_to_error(source_id, Path::new(&from), e)),
            }
        }
        Ok(Snapshot { dir, db })
    }

    /// Opens the copy. Read-write so SQLite can replay a hot journal or a WAL into the copy;
    /// never creates a file.
    pub(crate) fn open(&self, source_id: &str, live: &Path) -> Result<Connection, CookieError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_PRIVATE_CACHE;
        let conn = Connection::open_with_flags(&self.db, flags)
            .map_err(|e| CookieError::from_sqlite(source_id, live, e))?;
        // SQLite opens lazily: touch the schema now so "file is not a database" surfaces here.
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })
        .map_err(|e| CookieError::from_sqlite(source_id, live, e))?;
        Ok(conn)
    }

    /// The private directory (for tests asserting it is gone after use).
    #[cfg(test)]
    pub(crate) fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// Copies with plain reads, so the source is never locked, and creates the copy 0600.
fn copy_private(from: &Path, to: &Path) -> io::Result<()> {
    let mut src = fs::File::open(from)?;
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut dst = opts.open(to)?;
    io::copy(&mut src, &mut dst)?;
    Ok(())
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn restrict(_path: &Path, _mode: u32) -> io::Result<()> {
    // The per-user temp dir already is private on Windows.
    Ok(())
}

/// An I/O error on the live file: sharing violations (Windows) and permission errors read as
/// "locked", everything else as a snapshot failure.
fn io_to_error(source_id: &str, path: &Path, e: io::Error) -> CookieError {
    // ERROR_SHARING_VIOLATION (32) / ERROR_LOCK_VIOLATION (33): the browser holds the file.
    let windows_lock = cfg!(windows) && matches!(e.raw_os_error(), Some(32) | Some(33));
    if windows_lock || e.kind() == io::ErrorKind::PermissionDenied {
        CookieError::Locked {
            source_id: source_id.to_owned(),
            path: path.to_owned(),
            detail: e.to_string(),
        }
    } else {
        CookieError::Snapshot {
            source_id: source_id.to_owned(),
            detail: format!("{}: {e}", path.display()),
        }
    }
}

/// Takes a snapshot, opens it and runs `read` on it; retries once with a fresh copy when the
/// first copy looks torn (a browser wrote while we copied). The snapshot is gone on return.
pub(crate) fn with_snapshot<T>(
    source_id: &str,
    live: &Path,
    mut read: impl FnMut(&Connection) -> Result<T, CookieError>,
) -> Result<T, CookieError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let snap = Snapshot::take(source_id, live)?;
        let result = snap.open(source_id, live).and_then(|conn| read(&conn));
        drop(snap);
        match result {
            Err(e) if attempt < 2 && e.is_torn_copy_suspect() => {
                tracing::debug!(source = source_id, error = %e, "cookies.snapshot_retry");
            }
            other => return other,
        }
    }
}
