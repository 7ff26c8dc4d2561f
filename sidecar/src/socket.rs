//! CDP on a Unix socket inside the container, for `porthole-sidecar cdp-pipe` (the relay the
//! daemon runs with `docker exec` when CDP travels inside the Docker API connection): each
//! message JSON followed by a NUL, as on Chrome's own pipe, carried to Chrome by the [`Hub`].
//!
//! The socket lives in a directory of its own under `/tmp` (a tmpfs even on the sidecar's
//! read-only root filesystem), mode 0700, owned by the container's user; the socket itself is
//! 0600. Only that user (the one `docker exec` runs as) can connect; nothing listens on TCP.

use crate::hub::{self, Client, Hub, Nul, Refused, ToClient};
use std::fs;
use std::io::{self, BufReader, BufWriter, Write};
use std::net::Shutdown;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

/// Where the socket is unless `PORTHOLE_CDP_SOCKET` says otherwise (`cdp-pipe` reads the same).
pub const DEFAULT_PATH: &str = "/tmp/porthole-cdp/cdp.sock";

/// The socket path from the environment, or [`DEFAULT_PATH`].
pub fn path_from_env() -> PathBuf {
    std::env::var_os("PORTHOLE_CDP_SOCKET")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_PATH))
}

/// Makes the socket's private directory and binds the socket (a stale one is replaced).
pub fn bind(path: &Path) -> io::Result<UnixListener> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no directory"))?;
    match fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != crate::sys::uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is not a directory of this user", dir.display()),
        ));
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let listener = UnixListener::bind(path)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// Accepts connections until the process exits.
pub fn serve(listener: UnixListener, hub: Arc<Hub>) {
    for conn in listener.incoming() {
        let stream = match conn {
            Ok(stream) => stream,
            Err(e) => {
                event!("socket_accept_failed", "error=\"{e}\"");
                thread::sleep(std::time::Duration::from_millis(50));
                continue;
            }
        };
        let cdp = match hub.connect() {
            Some(cdp) => cdp,
            None => continue, // Chrome is gone: the connection closes.
        };
        let hub = Arc::clone(&hub);
        let spawned = thread::Builder::new()
            .name("socket-conn".into())
            .spawn(move || {
                let id = cdp.id;
                event!("cdp_opened", "peer=unix client={id}");
                if let Err(e) = serve_one(stream, cdp, &hub) {
                    event!("connection_error", "peer=unix client={id} error=\"{e}\"");
                }
                hub.disconnect(id);
                event!("cdp_closed", "peer=unix client={id}");
            });
        if let Err(e) = spawned {
            event!("spawn_failed", "error=\"{e}\"");
        }
    }
}

fn serve_one(stream: UnixStream, cdp: Client, hub: &Hub) -> io::Result<()> {
    let writer = stream.try_clone()?;
    let sender = cdp.sender.clone();
    let id = cdp.id;
    let write_thread = thread::Builder::new()
        .name("socket-write".into())
        .spawn(move || write_nul_framed(writer, cdp))?;
    let mut reader = BufReader::with_capacity(64 * 1024, &stream);
    let mut message = Vec::new();
    let result = loop {
        message.clear();
        match hub::read_message(&mut reader, &mut message) {
            Ok(Nul::Message) if message.is_empty() => {}
            Ok(Nul::Message) => match hub.send_to_chrome(id, &message) {
                Ok(()) => {}
                Err(Refused::Invalid(reply)) => {
                    let _ = sender.send(ToClient::Message(Arc::new(reply)));
                }
                Err(Refused::Lost) => break Ok(()),
            },
            // Skipped, never sent to Chrome: answered for its id when its head names one.
            Ok(Nul::TooLarge { bytes }) => {
                event!("client_message_skipped", "client={id} bytes={bytes}");
                if let Some(call) = hub::head_id(&message) {
                    if let Refused::Invalid(reply) = hub::too_large(call, bytes, "the message") {
                        let _ = sender.send(ToClient::Message(Arc::new(reply)));
                    }
                }
            }
            Ok(Nul::End) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    let _ = sender.send(ToClient::Close);
    drop(sender);
    let _ = write_thread.join();
    let _ = stream.shutdown(Shutdown::Both);
    result
}

fn write_nul_framed(stream: UnixStream, cdp: Client) {
    let mut out = BufWriter::with_capacity(64 * 1024, &stream);
    while let Some(item) = cdp.next() {
        let written = match &item {
            ToClient::Message(message) => out.write_all(message).and_then(|_| out.write_all(&[0])),
            ToClient::Pong(_) => Ok(()),
            ToClient::Close => break,
        };
        let flushed = if cdp.outbox_is_empty() {
            out.flush()
        } else {
            Ok(())
        };
        if written.is_err() || flushed.is_err() {
            break;
        }
    }
    let _ = out.flush();
    drop(out);
    let _ = stream.shutdown(Shutdown::Both);
}
