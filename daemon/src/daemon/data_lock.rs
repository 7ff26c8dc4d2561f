//! One daemon per data directory (DESIGN.md §16): an exclusive `flock` on
//! `<data_dir>/daemon.lock`, taken before the daemon touches any browser, container or socket,
//! and held for the life of the process (the kernel drops it when the process ends, however it
//! ends, so a killed daemon never leaves a stale lock). The file holds the holder's pid, for the
//! message a second daemon prints.
//!
//! Owns the lock file only; knows nothing of what the data directory holds.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// The lock file's name inside the data directory.
pub const LOCK_FILE: &str = "daemon.lock";

/// The held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct DataDirLock {
    /// Held for its lock; closing it releases the lock.
    _file: File,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another Porthole daemon (pid {pid}) already runs on the data directory {data_dir}; \
         stop it first, or start this one with another --data-dir"
    )]
    Held { pid: String, data_dir: PathBuf },
    #[error("cannot lock the data directory ({path}): {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl DataDirLock {
    /// Takes the lock at once or says who holds it; never waits.
    pub fn acquire(data_dir: &Path) -> Result<Self, LockError> {
        let path = data_dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(data_dir).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let pid = match pid.trim() {
                    "" => "unknown".to_string(),
                    pid => pid.to_string(),
                };
                return Err(LockError::Held {
                    pid,
                    data_dir: data_dir.to_path_buf(),
                });
            }
            Err(TryLockError::Error(source)) => return Err(io(source)),
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_directory_names_the_first_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataDirLock::acquire(dir.path()).unwrap();
        let error = DataDirLock::acquire(dir.path()).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        drop(first);
        DataDirLock::acquire(dir.path()).expect("free again once the first is dropped");
    }
}
