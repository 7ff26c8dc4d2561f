//! Finding the user's running Chrome: its `DevToolsActivePort` file (line 1 the port, line 2
//! `/devtools/browser/<id>`) in the known user-data dirs of Chrome, Chromium, Edge and Brave
//! on macOS, Linux and Windows, or in configured dirs; else a configured port.
//!
//! Never uses `/json` when the file is there: Chrome 144+ answers it with 404 (DESIGN.md §5).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the user's Chrome accepts its browser-level CDP WebSocket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostChrome {
    pub ws_url: String,
    /// The user-data dir whose `DevToolsActivePort` pointed at it (None: found by port).
    pub user_data_dir: Option<PathBuf>,
}

/// Why no Chrome was found.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum DiscoveryError {
    #[error("no running Chrome with remote debugging was found (looked for DevToolsActivePort in {searched}). Open chrome://inspect/#remote-debugging in Chrome and turn on remote debugging, then try again")]
    NotFound { searched: String },
}

/// The user-data dirs of Chromium-family browsers on this OS, most common first.
pub(crate) fn default_user_data_dirs(home: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if cfg!(target_os = "macos") {
        let base = home.join("Library/Application Support");
        for name in [
            "Google/Chrome",
            "Google/Chrome Beta",
            "Google/Chrome Canary",
            "Chromium",
            "Microsoft Edge",
            "BraveSoftware/Brave-Browser",
        ] {
            dirs.push(base.join(name));
        }
    } else if cfg!(windows) {
        let base = std::env::var_os("LOCALAPPDATA")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join("AppData/Local"));
        for name in [
            "Google/Chrome/User Data",
            "Google/Chrome Beta/User Data",
            "Chromium/User Data",
            "Microsoft/Edge/User Data",
            "BraveSoftware/Brave-Browser/User Data",
        ] {
            dirs.push(base.join(name));
        }
    } else {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        for name in [
            "google-chrome",
            "google-chrome-beta",
            "google-chrome-unstable",
            "chromium",
            "microsoft-edge",
            "BraveSoftware/Brave-Browser",
        ] {
            dirs.push(base.join(name));
        }
    }
    dirs
}

/// Reads `DevToolsActivePort` in `dir`: `(port, browser path)`.
pub fn read_active_port(dir: &Path) -> Option<(u16, String)> {
    let text = std::fs::read_to_string(dir.join("DevToolsActivePort")).ok()?;
    let mut lines = text.lines();
    let port = lines
        .next()?
        .trim()
        .parse::<u16>()
        .ok()
        .filter(|p| *p != 0)?;
    let path = lines.next()?.trim().to_string();
    path.starts_with("/devtools/browser/")
        .then_some((port, path))
}

/// True when something accepts TCP connections on 127.0.0.1:`port`.
pub(crate) async fn port_answers(port: u16) -> bool {
    let dial = tokio::net::TcpStream::connect(("127.0.0.1", port));
    matches!(
        tokio::time::timeout(Duration::from_millis(800), dial).await,
        Ok(Ok(_))
    )
}

/// Finds the user's Chrome: configured dirs first, then the well-known ones; a stale file (its
/// port does not answer) is skipped. Falls back to `fallback_port` via `/json/version`.
pub(crate) async fn discover(
    configured_dirs: &[PathBuf],
    fallback_port: Option<u16>,
) -> Result<HostChrome, DiscoveryError> {
    let home = directories::BaseDirs::new()
        .map(|d| d.home_dir().to_path_buf())
        .unwrap_or_default();
    let mut dirs: Vec<PathBuf> = configured_dirs.to_vec();
    dirs.extend(default_user_data_dirs(&home));
    for dir in &dirs {
        if let Some((port, path)) = read_active_port(dir) {
            if port_answers(port).await {
                return Ok(HostChrome {
                    ws_url: format!("ws://127.0.0.1:{port}{path}"),
                    user_data_dir: Some(dir.clone()),
                });
            }
            tracing::debug!(event = "stale_devtools_active_port", dir = %dir.display(), port);
        }
    }
    if let Some(port) = fallback_port {
        if let Some(ws_url) = ws_url_from_version(port).await {
            return Ok(HostChrome {
                ws_url,
                user_data_dir: None,
            });
        }
    }
    let searched = dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Err(DiscoveryError::NotFound { searched })
}

/// Asks `GET /json/version` on 127.0.0.1:`port` for the browser WebSocket URL (older Chrome
/// started with `--remote-debugging-port`).
async fn ws_url_from_version(port: u16) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let connect = tokio::net::TcpStream::connect(("127.0.0.1", port));
    let mut stream = tokio::time::timeout(Duration::from_millis(800), connect)
        .await
        .ok()?
        .ok()?;
    let request = format!(
        "GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut body = Vec::new();
    tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut body))
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&body);
    let json = text.split_once("\r\n\r\n")?.1;
    let value: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
    let url = value["webSocketDebuggerUrl"].as_str()?;
    // Keep the address on loopback whatever name Chrome printed.
    let path = url.split_once("/devtools/")?.1;
    Some(format!("ws://127.0.0.1:{port}/devtools/{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_port_files_are_read_strictly() {
        let dir = std::env::temp_dir().join(format!("porthole-dap-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(read_active_port(&dir), None);
        std::fs::write(
            dir.join("DevToolsActivePort"),
            "9222\n/devtools/browser/abc\n",
        )
        .unwrap();
        assert_eq!(
            read_active_port(&dir),
            Some((9222, "/devtools/browser/abc".to_string()))
        );
        std::fs::write(dir.join("DevToolsActivePort"), "0\n/devtools/browser/abc\n").unwrap();
        assert_eq!(read_active_port(&dir), None);
        std::fs::write(dir.join("DevToolsActivePort"), "9222\n/etc/passwd\n").unwrap();
        assert_eq!(read_active_port(&dir), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
