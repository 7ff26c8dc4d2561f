//! The daemon's own directory for temporary files, `<data_dir>/tmp` (DESIGN.md §16): every
//! temporary file the daemon makes through `tempfile` goes there (cookie-database copies,
//! sessions' upload folders), and at start — under the data-directory
//! lock, so no other daemon uses it — whatever a killed daemon left there is removed. The
//! cleanup is exact: nothing outside that directory is touched.
//!
//! Owns that directory; the modules that make temporary files need not know it exists.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// The temporary directory's name inside the data directory.
pub const TEMP_DIR: &str = "tmp";

/// Empties (or makes) `<data_dir>/tmp`, mode 0700, and makes it the process's default
/// temporary directory for `tempfile`. Returns the directory and how many leftovers it removed.
pub fn prepare(data_dir: &Path) -> std::io::Result<(PathBuf, usize)> {
    let dir = data_dir.join(TEMP_DIR);
    let removed = sweep(&dir)?;
    std::fs::create_dir_all(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    if let Err(earlier) = tempfile::env::override_temp_dir(&dir) {
        if earlier != dir {
            // Only one directory per process: a second daemon in one process keeps the first's.
            tracing::warn!(event = "temp_dir_kept", kept = %earlier.display(), wanted = %dir.display());
        }
    }
    Ok((dir, removed))
}

/// Removes everything inside `dir` (not following symlinks); how many entries went.
fn sweep(dir: &Path) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        let outcome = if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        match outcome {
            Ok(()) => removed += 1,
            Err(error) => {
                tracing::warn!(event = "temp_file_not_removed", path = %path.display(), %error)
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_go_and_nothing_outside_is_touched() {
        let data = tempfile::tempdir().unwrap();
        let tmp = data.path().join(TEMP_DIR);
        std::fs::create_dir_all(tmp.join("porthole-cookies-x/deep")).unwrap();
        std::fs::write(tmp.join("porthole-cookies-x/deep/Cookies"), b"secret").unwrap();
        std::fs::write(tmp.join("loose"), b"x").unwrap();
        let outside = data.path().join("keep");
        std::fs::write(&outside, b"kept").unwrap();
        std::os::unix::fs::symlink(&outside, tmp.join("link")).unwrap();
        assert_eq!(sweep(&tmp).unwrap(), 3);
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
        assert_eq!(std::fs::read(&outside).unwrap(), b"kept");
    }
}
