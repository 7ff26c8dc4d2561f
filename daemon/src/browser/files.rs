//! Files in and out of a session's browser. Uploads: a temporary directory per session
//! (`uploads/<n>/<name>`, kept while the page may still read them, removed when the session
//! ends). Downloads: where the provider says ([`DownloadPlace`]): the channel's own directory
//! `<data_dir>/downloads/<channel>/` (local mode), or a directory in the browser's container
//! read back through the engine (docker mode), with the list (`index.json`) always in the
//! channel's directory on the daemon's side (a temporary one without a data dir). Both outlive
//! the session, so a browser stop or restart loses neither the files nor the list.
//!
//! `Browser.setDownloadBehavior {allowAndName, eventsEnabled}` points the browser at the
//! directory, and the recorder follows `Browser.downloadWillBegin` / `downloadProgress` into a
//! list the tools read; each download remembers the frame that started it, and the tools
//! record which owner's tab that was. Not in host mode: the behaviour is browser-wide, and
//! the user's Chrome keeps its own download folder. Reading and answering for tools is
//! `tools::files`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::cdp::{CdpConnection, CdpEvent};
use crate::providers::{BrowserFiles, DownloadPlace};

/// Where a download stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DownloadState {
    InProgress,
    Completed,
    Canceled,
}

impl DownloadState {
    pub fn as_str(self) -> &'static str {
        match self {
            DownloadState::InProgress => "in progress",
            DownloadState::Completed => "completed",
            DownloadState::Canceled => "canceled",
        }
    }
}

/// The list file in a downloads directory.
const INDEX: &str = "index.json";

/// One download of the session's browser.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Download {
    /// `d1`, `d2`, … in the order they began.
    pub id: String,
    /// Chrome's id; the file is `downloads/<guid>`.
    pub guid: String,
    /// The name the page suggested.
    pub name: String,
    pub url: String,
    pub state: DownloadState,
    pub received: u64,
    /// 0 when the server did not say.
    pub total: u64,
    /// Where the finished file is, as the browser sees it (in its container in docker mode).
    pub path: PathBuf,
    /// The frame that started it (a tab's target id for its main frame).
    #[serde(default)]
    pub frame_id: String,
    /// The id of the owner of the tab it came from (`human` or an agent id), once known.
    #[serde(default)]
    pub owner: Option<String>,
}

/// A download's bytes as read back.
#[derive(Debug)]
pub enum ReadBack {
    Bytes(Vec<u8>),
    /// Over the limit asked for: its size.
    TooBig(u64),
}

/// A file chooser a page opened (intercepted, never shown), waiting for `upload_file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chooser {
    /// The `<input type=file>` it is for.
    pub backend_node_id: i64,
    /// It takes several files.
    pub multiple: bool,
}

/// Whether downloads are followed for this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadTracking {
    /// Downloads land in [`SessionFiles::downloads_dir`] and are listed.
    On,
    /// Not followed; the text says why.
    Off(String),
}

/// The session's file directory and download list.
pub struct SessionFiles {
    /// Removed (with everything in it) when the session is dropped; `None` when it could not
    /// be created (uploads and downloads then say so).
    root: Option<tempfile::TempDir>,
    /// The channel's downloads directory on the daemon's side (outlives the session; holds
    /// the list, and the files in local mode), when one could be made.
    downloads_dir: Option<PathBuf>,
    /// Where the browser saves downloads, as it sees the path.
    browser_dir: Option<PathBuf>,
    /// Reads the files back when they are on the browser's own filesystem (docker mode);
    /// `None`: they are on ours.
    reader: Option<Arc<dyn BrowserFiles>>,
    /// Short lock, never held across an await.
    downloads: Mutex<Vec<Download>>,
    uploads: AtomicU64,
    tracking: Mutex<DownloadTracking>,
    /// The last file chooser each tab (flat session id) opened. Short lock.
    choosers: Mutex<HashMap<String, Chooser>>,
    /// Owners settled before their download was recorded (guid → owner id). Short lock.
    pending_owners: Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for SessionFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionFiles")
            .field("root", &self.root.as_ref().map(|r| r.path().to_path_buf()))
            .finish_non_exhaustive()
    }
}

impl SessionFiles {
    /// Creates the session's directory and, unless `place` is off, points the browser's
    /// downloads at their place and follows them until `closed` is cancelled. `downloads_root`:
    /// where channels' download directories go (`<data_dir>/downloads`); without one the list
    /// (and local files) go to a temporary directory removed with the session.
    pub fn spawn(
        cdp: &CdpConnection,
        channel: &str,
        place: DownloadPlace,
        downloads_root: Option<&Path>,
        closed: CancellationToken,
    ) -> Arc<Self> {
        let (tracking, browser_side, reader) = match place {
            DownloadPlace::Daemon => (DownloadTracking::On, None, None),
            DownloadPlace::Browser { dir, files } => {
                (DownloadTracking::On, Some(PathBuf::from(dir)), Some(files))
            }
            DownloadPlace::Off(why) => (DownloadTracking::Off(why), None, None),
        };
        let root = tempfile::Builder::new()
            .prefix(&format!("porthole-files-{channel}-"))
            .tempdir();
        let downloads_dir = match (&root, downloads_root) {
            (_, Some(shared)) => Ok(shared.join(channel)),
            (Ok(root), None) => Ok(root.path().join("downloads")),
            (Err(e), None) => Err(std::io::Error::new(e.kind(), e.to_string())),
        }
        .and_then(|dir| std::fs::create_dir_all(&dir).map(|()| dir));
        let root = root
            .inspect_err(|e| tracing::warn!(event = "session_files_unavailable", error = %e))
            .ok();
        let (downloads_dir, tracking) = match downloads_dir {
            Ok(dir) => (Some(dir), tracking),
            Err(e) => {
                tracing::warn!(event = "downloads_dir_unavailable", error = %e);
                let why = format!("no directory for the browser's downloads could be made ({e})");
                (None, DownloadTracking::Off(why))
            }
        };
        let earlier = downloads_dir.as_deref().map(load_index).unwrap_or_default();
        let browser_dir = browser_side.or_else(|| downloads_dir.clone());
        let files = Arc::new(Self {
            root,
            downloads_dir,
            browser_dir,
            reader,
            downloads: Mutex::new(earlier),
            uploads: AtomicU64::new(0),
            tracking: Mutex::new(tracking.clone()),
            choosers: Mutex::new(HashMap::new()),
            pending_owners: Mutex::new(HashMap::new()),
        });
        let downloads = match (&tracking, &files.browser_dir) {
            (DownloadTracking::On, Some(dir)) if files.downloads_dir.is_some() => Some(dir.clone()),
            _ => None,
        };
        let events = cdp.subscribe();
        tokio::spawn(files.clone().follow(cdp.clone(), events, downloads, closed));
        files
    }

    /// The channel's downloads directory on the daemon's side.
    pub fn downloads_dir(&self) -> Option<PathBuf> {
        self.downloads_dir.clone()
    }

    /// Where a download's file is, in words (a path on this machine, or in the browser's
    /// container).
    pub fn where_saved(&self, download: &Download) -> String {
        match self.reader {
            None => format!("saved at {}", download.path.display()),
            Some(_) => format!(
                "saved in the browser's container at {}",
                download.path.display()
            ),
        }
    }

    /// The bytes of a finished download, or its size when it is over `limit`.
    pub async fn read_download(&self, download: &Download, limit: u64) -> Result<ReadBack, String> {
        let gone = |e: &dyn std::fmt::Display| {
            format!("Download {} ({}) is gone: {e}", download.id, download.name)
        };
        match &self.reader {
            None => {
                let size = tokio::fs::metadata(&download.path)
                    .await
                    .map_err(|e| gone(&crate::providers::io_reason(&e)))?
                    .len();
                if size > limit {
                    return Ok(ReadBack::TooBig(size));
                }
                let bytes = tokio::fs::read(&download.path)
                    .await
                    .map_err(|e| gone(&crate::providers::io_reason(&e)))?;
                Ok(ReadBack::Bytes(bytes))
            }
            Some(reader) => {
                if download.received > limit {
                    return Ok(ReadBack::TooBig(download.received));
                }
                let path = download.path.display().to_string();
                let bytes = reader.read(&path, limit).await.map_err(|e| {
                    tracing::warn!(event = "download_unreadable", id = %download.id, %e, detail = e.detail().unwrap_or_default());
                    gone(&e)
                })?;
                Ok(ReadBack::Bytes(bytes))
            }
        }
    }

    /// Records that download `id` came from a tab of `owner` (`human` or an agent id).
    /// Records who owns the download `guid` (its tab's owner): at once when it is listed,
    /// else kept until its `downloadWillBegin` is recorded (both follow the same events).
    pub fn set_owner_of(&self, guid: &str, owner: &str) {
        let mut downloads = self.downloads.lock().expect("downloads lock");
        match downloads.iter_mut().find(|d| d.guid == guid) {
            Some(d) => {
                d.owner = Some(owner.to_string());
                self.save(&downloads);
            }
            None => {
                let mut pending = self.pending_owners.lock().expect("pending owners lock");
                pending.insert(guid.to_string(), owner.to_string());
            }
        }
    }

    /// Writes the list beside the files (best effort; a failure is logged). Called with the
    /// list's lock held: it is a small synchronous write, never an await.
    fn save(&self, downloads: &[Download]) {
        let Some(dir) = &self.downloads_dir else {
            return;
        };
        let write = serde_json::to_vec_pretty(downloads)
            .map_err(std::io::Error::other)
            .and_then(|json| {
                let tmp = dir.join(format!("{INDEX}.tmp"));
                std::fs::write(&tmp, json)?;
                std::fs::rename(tmp, dir.join(INDEX))
            });
        if let Err(e) = write {
            tracing::warn!(event = "downloads_index_not_saved", error = %e);
        }
    }

    /// Whether downloads are followed.
    pub fn tracking(&self) -> DownloadTracking {
        self.tracking.lock().expect("tracking lock").clone()
    }

    /// A new, empty directory for one upload's files (kept for the session's life: the page
    /// reads the files when it submits or reads them, not when they are set).
    pub fn upload_dir(&self) -> std::io::Result<PathBuf> {
        let root = self
            .root
            .as_ref()
            .ok_or_else(|| std::io::Error::other("the session has no directory for files"))?;
        let n = self.uploads.fetch_add(1, Ordering::Relaxed) + 1;
        let dir = root.path().join("uploads").join(n.to_string());
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }

    /// Takes the file chooser the tab behind `session` opened last, if one is waiting.
    pub fn take_chooser(&self, session: &str) -> Option<Chooser> {
        self.choosers.lock().expect("choosers lock").remove(session)
    }

    /// The downloads so far, oldest first.
    pub fn downloads(&self) -> Vec<Download> {
        self.downloads.lock().expect("downloads lock").clone()
    }

    /// A download by its id (`d1`) or Chrome's guid.
    pub fn download(&self, id: &str) -> Option<Download> {
        let id = id.trim();
        self.downloads
            .lock()
            .expect("downloads lock")
            .iter()
            .find(|d| d.id == id || d.guid == id)
            .cloned()
    }

    async fn follow(
        self: Arc<Self>,
        cdp: CdpConnection,
        mut events: broadcast::Receiver<CdpEvent>,
        downloads: Option<PathBuf>,
        closed: CancellationToken,
    ) {
        if let Some(dir) = &downloads {
            self.allow_downloads(&cdp, dir).await;
        }
        while let Some(event) = super::events::next_event(&mut events, &closed, "files").await {
            match (event.method.as_str(), event.session_id.as_deref()) {
                ("Page.fileChooserOpened", Some(session)) => {
                    let Some(id) = event.params["backendNodeId"].as_i64() else {
                        continue;
                    };
                    let chooser = Chooser {
                        backend_node_id: id,
                        multiple: event.params["mode"] == "selectMultiple",
                    };
                    self.choosers
                        .lock()
                        .expect("choosers lock")
                        .insert(session.to_string(), chooser);
                }
                (method, None) if method.starts_with("Browser.download") => {
                    if let Some(dir) = &downloads {
                        self.apply(method, &event.params, dir);
                    }
                }
                _ => {}
            }
        }
    }

    /// Points the browser's downloads at `dir`, with events; tracking goes off if refused.
    async fn allow_downloads(&self, cdp: &CdpConnection, dir: &Path) {
        let set = cdp
            .call(
                "Browser.setDownloadBehavior",
                json!({
                    "behavior": "allowAndName",
                    "downloadPath": dir.display().to_string(),
                    "eventsEnabled": true,
                }),
            )
            .await;
        if let Err(e) = set {
            tracing::warn!(event = "downloads_not_followed", error = %e);
            *self.tracking.lock().expect("tracking lock") =
                DownloadTracking::Off(format!("the browser refused to report downloads ({e})"));
        }
    }

    /// Records one download event.
    fn apply(&self, method: &str, p: &Value, dir: &Path) {
        let guid = p["guid"].as_str().unwrap_or_default();
        if guid.is_empty() {
            return;
        }
        let mut downloads = self.downloads.lock().expect("downloads lock");
        match method {
            "Browser.downloadWillBegin" => {
                if downloads.iter().any(|d| d.guid == guid) {
                    return;
                }
                let id = format!("d{}", downloads.len() + 1);
                tracing::info!(event = "download_began", id, guid);
                let frame_id = p["frameId"].as_str().unwrap_or_default().to_string();
                downloads.push(Download {
                    id,
                    guid: guid.to_string(),
                    name: p["suggestedFilename"]
                        .as_str()
                        .unwrap_or("download")
                        .to_string(),
                    url: p["url"].as_str().unwrap_or_default().to_string(),
                    state: DownloadState::InProgress,
                    received: 0,
                    total: 0,
                    path: dir.join(guid),
                    frame_id,
                    owner: self
                        .pending_owners
                        .lock()
                        .expect("pending owners lock")
                        .remove(guid),
                });
                self.save(&downloads);
            }
            "Browser.downloadProgress" => {
                let Some(d) = downloads.iter_mut().find(|d| d.guid == guid) else {
                    return;
                };
                d.received = p["receivedBytes"].as_u64().unwrap_or(d.received);
                d.total = p["totalBytes"].as_u64().unwrap_or(d.total);
                d.state = match p["state"].as_str() {
                    Some("completed") => DownloadState::Completed,
                    Some("canceled") => DownloadState::Canceled,
                    _ => DownloadState::InProgress,
                };
                if d.state != DownloadState::InProgress {
                    tracing::info!(event = "download_ended", id = %d.id, state = d.state.as_str(), bytes = d.received);
                    self.save(&downloads);
                }
            }
            _ => {}
        }
    }
}

/// The list an earlier session left in `dir`; downloads it left running were cut off with
/// its browser and count as canceled.
fn load_index(dir: &Path) -> Vec<Download> {
    let Ok(json) = std::fs::read(dir.join(INDEX)) else {
        return Vec::new();
    };
    let mut list: Vec<Download> = serde_json::from_slice(&json).unwrap_or_else(|e| {
        tracing::warn!(event = "downloads_index_unreadable", error = %e);
        Vec::new()
    });
    for d in &mut list {
        if d.state == DownloadState::InProgress {
            d.state = DownloadState::Canceled;
        }
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_events_make_a_list() {
        let root = tempfile::tempdir().unwrap();
        let files = SessionFiles {
            downloads_dir: Some(root.path().join("downloads")),
            browser_dir: Some(root.path().join("downloads")),
            reader: None,
            root: Some(root),
            downloads: Mutex::new(Vec::new()),
            uploads: AtomicU64::new(0),
            tracking: Mutex::new(DownloadTracking::On),
            choosers: Mutex::new(HashMap::new()),
            pending_owners: Mutex::new(HashMap::new()),
        };
        let dir = files.downloads_dir().unwrap();
        files.apply(
            "Browser.downloadWillBegin",
            &json!({"guid": "g1", "url": "http://x/a.txt", "suggestedFilename": "a.txt"}),
            &dir,
        );
        files.apply(
            "Browser.downloadProgress",
            &json!({"guid": "g1", "receivedBytes": 3, "totalBytes": 5, "state": "inProgress"}),
            &dir,
        );
        assert_eq!(
            files.download("d1").unwrap().state,
            DownloadState::InProgress
        );
        files.apply(
            "Browser.downloadProgress",
            &json!({"guid": "g1", "receivedBytes": 5, "totalBytes": 5, "state": "completed"}),
            &dir,
        );
        let d = files.download("g1").unwrap();
        assert_eq!(
            (d.id.as_str(), d.received, d.state),
            ("d1", 5, DownloadState::Completed)
        );
        assert_eq!(d.path, dir.join("g1"));
        assert!(files.download("d2").is_none());
        // The list outlives the session, beside the files.
        std::fs::create_dir_all(&dir).unwrap();
        files.set_owner_of("g1", "agent-7");
        let again = load_index(&dir);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].owner.as_deref(), Some("agent-7"));
        assert_eq!(again[0].state, DownloadState::Completed);
        // An owner settled before the download is recorded is kept for it.
        files.set_owner_of("g2", "agent-9");
        files.apply(
            "Browser.downloadWillBegin",
            &json!({"guid": "g2", "url": "http://x/b.txt", "suggestedFilename": "b.txt"}),
            &dir,
        );
        assert_eq!(
            files.download("d2").unwrap().owner.as_deref(),
            Some("agent-9")
        );
        let a = files.upload_dir().unwrap();
        let b = files.upload_dir().unwrap();
        assert_ne!(a, b);
        assert!(a.is_dir());
    }
}
