//! The agent Unix socket's file and directory (DESIGN.md §12, §16). The directory is handed to
//! agent containers read-only, so it must be the daemon's: owned by the daemon's user, mode
//! 0755 (made so when it is not). Whatever sits at the socket's path at start is not this
//! daemon's (the data-directory lock guarantees no other daemon of this data directory runs):
//! a stale socket of a killed daemon, something answering there (a relay a container left), or
//! a foreign file. It is replaced, and the daemon says so in its log.
//!
//! Owns the path and its directory; serving on the listener is the caller's business.

use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::Path;

/// Why the agent socket cannot be served; the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error(
        "the agent socket's directory {dir} belongs to uid {owner}, not this daemon's user \
         (uid {me}); set server.agent_socket to a path in a directory of yours, or null"
    )]
    ForeignDirectory { dir: String, owner: u32, me: u32 },
    #[error("{path} is a directory; remove it or set server.agent_socket to another path")]
    DirectoryInTheWay { path: String },
    #[error("agent socket {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Binds the socket at `path` (world-connectable, 0666: the agent token is the gate and
/// containers run as any user), after making its directory the daemon's and clearing the path.
pub async fn bind(path: &Path) -> Result<tokio::net::UnixListener, SocketError> {
    let io = |source| SocketError::Io {
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent() {
        own_directory(dir)?;
    }
    if let Some(found) = what_is_there(path).await? {
        std::fs::remove_file(path).map_err(io)?;
        match found {
            Found::StaleSocket => {
                tracing::info!(event = "agent_socket_stale_removed", path = %path.display())
            }
            other => tracing::warn!(
                event = "agent_socket_replaced",
                path = %path.display(),
                found = other.describe(),
                "the agent socket's path held something that was not this daemon's; it was \
                 removed and this daemon's socket put there"
            ),
        }
    }
    let listener = tokio::net::UnixListener::bind(path).map_err(io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666)).map_err(io)?;
    Ok(listener)
}

/// What was at the socket's path before the daemon bound it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// A socket nobody answers on (a daemon that was killed).
    StaleSocket,
    /// A socket something answers on.
    AnsweringSocket,
    /// A socket, file or link of another user, or a file or link of any kind.
    ForeignFile,
}

impl Found {
    fn describe(self) -> &'static str {
        match self {
            Found::StaleSocket => "a stale socket",
            Found::AnsweringSocket => "a socket something else answers on",
            Found::ForeignFile => "a file that is not a socket of this daemon's user",
        }
    }
}

async fn what_is_there(path: &Path) -> Result<Option<Found>, SocketError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(SocketError::Io {
                path: path.display().to_string(),
                source,
            })
        }
    };
    if meta.is_dir() {
        return Err(SocketError::DirectoryInTheWay {
            path: path.display().to_string(),
        });
    }
    if !meta.file_type().is_socket() || meta.uid() != my_uid() {
        return Ok(Some(Found::ForeignFile));
    }
    Ok(Some(match tokio::net::UnixStream::connect(path).await {
        Ok(_) => Found::AnsweringSocket,
        Err(_) => Found::StaleSocket,
    }))
}

/// Makes `dir` (0755) or checks that it is the daemon's user's, and sets it to 0755.
fn own_directory(dir: &Path) -> Result<(), SocketError> {
    let io = |source| SocketError::Io {
        path: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    // Not following a link: a link to someone else's directory is someone else's directory.
    let meta = std::fs::symlink_metadata(dir).map_err(io)?;
    if !meta.is_dir() || meta.uid() != my_uid() {
        return Err(SocketError::ForeignDirectory {
            dir: dir.display().to_string(),
            owner: meta.uid(),
            me: my_uid(),
        });
    }
    if meta.permissions().mode() & 0o7777 != 0o755 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
        tracing::info!(event = "agent_socket_dir_mode_set", dir = %dir.display(), mode = "0755");
    }
    Ok(())
}

fn my_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn whatever_holds_the_path_is_replaced_and_the_directory_made_0755() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let path = dir.join("agents.sock");
        // Something else answering there.
        let squatter = tokio::net::UnixListener::bind(&path).unwrap();
        assert_eq!(
            what_is_there(&path).await.unwrap(),
            Some(Found::AnsweringSocket)
        );
        let ours = bind(&path).await.unwrap();
        drop(squatter);
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o755);
        let (client, accepted) =
            tokio::join!(tokio::net::UnixStream::connect(&path), ours.accept());
        client.unwrap();
        accepted.unwrap();
        drop(ours);
        // A plain file, then a stale socket.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"not a socket").unwrap();
        assert_eq!(
            what_is_there(&path).await.unwrap(),
            Some(Found::ForeignFile)
        );
        drop(bind(&path).await.unwrap());
        assert_eq!(
            what_is_there(&path).await.unwrap(),
            Some(Found::StaleSocket)
        );
        drop(bind(&path).await.unwrap());
        // A directory is never removed.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(matches!(
            bind(&path).await.unwrap_err(),
            SocketError::DirectoryInTheWay { .. }
        ));
    }
}
