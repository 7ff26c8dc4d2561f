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
//! record which owner's tab that was. In host mode ([`DownloadPlace::Watch`]) the behaviour
//! stays Chrome's `default` (the user's Chrome keeps its own download folder) with events on,
//! and only the downloads of the session's own tabs are listed, where Chrome says it saved
//! them. Reading and answering for tools is `tools::transfer`; the person's `download` messages
//! are `download_notices`.
//!
//! `browser.downloads_max_mb` caps the channel's downloads on disk: a download that would
//! take them over is cancelled (`Browser.cancelDownload`), its partial file removed, and the
//! list says why.
//!
//! The list itself is bounded: at most [`MAX_LISTED`] entries per channel (a new one drops the
//! oldest finished entry, completed before canceled, and its file on the daemon's disk; with
//! every entry still running the new download is cancelled), and each URL is kept to
//! [`MAX_URL_CHARS`]. `index.json` is written from a snapshot taken under the list's short
//! lock, outside it (a temporary file, synced, then renamed over the old one).

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::agent_uploads::AgentUploads;
use super::download::{Download, DownloadState};
use super::download_notices::DownloadNotices;
use crate::browser::floor::{PaneMessage, RoomEvents};
use crate::cdp::CdpConnection;
use crate::providers::{BrowserFiles, DownloadPlace};

/// The list file in a downloads directory.
const INDEX: &str = "index.json";
/// The most downloads a channel's list keeps (docs/security.md).
pub const MAX_LISTED: usize = 500;
/// The most characters of a download's URL the list keeps; a longer one is cut and ends in `…`.
pub const MAX_URL_CHARS: usize = 2048;

/// Why a download's bytes cannot be had or kept.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// Its file is no longer where it was saved, or could not be read back.
    #[error("Download {id} ({name}) is gone: {reason}")]
    Gone {
        id: String,
        name: String,
        reason: String,
    },
    /// The channel keeps no downloads of its own (the user's Chrome keeps them).
    #[error("this channel has no directory for downloads")]
    NoDirectory,
    /// Over `browser.downloads_max_mb`; the text says by how much.
    #[error("{0}")]
    OverCap(String),
    /// Writing it to the daemon's disk failed.
    #[error("could not store {name} ({reason})")]
    NotStored { name: String, reason: String },
}

/// A download's bytes, for the API to stream.
pub struct DownloadBody {
    /// The bytes as they arrive: from the daemon's disk, or from the browser's own
    /// filesystem through its provider.
    pub reader: crate::providers::FileReader,
    /// How many bytes the reader gives.
    pub size: u64,
}

/// What `browser.downloads_max_mb` says, and where the channel's downloads go.
#[derive(Debug, Clone)]
pub struct DownloadLimits {
    /// The most the channel's downloads may take on disk, in bytes (0: no cap).
    pub max_bytes: u64,
}

impl DownloadLimits {
    /// The cap from `browser.downloads_max_mb`.
    pub fn from_mb(mb: u64) -> Self {
        Self {
            max_bytes: mb.saturating_mul(1024 * 1024),
        }
    }
}

impl Default for DownloadLimits {
    fn default() -> Self {
        Self::from_mb(1024)
    }
}

/// Work a download event leaves for the follower (it needs the browser: an await).
enum Effect {
    /// Over the cap: cancel it and remove what it left.
    Cancel(Download),
    /// Cancelled by the daemon and now ended: remove what is left.
    Remove(Download),
    /// Dropped from the full list to make room: remove its file from the daemon's disk.
    Forget(Download),
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

/// A download's `downloadWillBegin` and last `downloadProgress`, held until its owner is known.
type Held = (Value, Option<Value>);

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
    /// Short lock, never held across an await or a file write.
    downloads: Mutex<Vec<Download>>,
    /// Bumped under `downloads` for every change to save; the writer skips a snapshot older
    /// than the one on disk.
    version: AtomicU64,
    /// The version of the list on disk; held while `index.json` is written (never `downloads`).
    saved: Mutex<u64>,
    /// Bytes of dropped entries whose files are still in the browser's container (counted
    /// against the cap as if listed).
    forgotten_bytes: AtomicU64,
    uploads: AtomicU64,
    tracking: Mutex<DownloadTracking>,
    /// The last file chooser each tab (flat session id) opened. Short lock.
    choosers: Mutex<HashMap<String, Chooser>>,
    /// Owners settled before their download was recorded (guid → owner id, tab). Short lock.
    pending_owners: Mutex<HashMap<String, (String, Option<String>)>>,
    /// `download` messages to the session's panes.
    notices: DownloadNotices,
    limits: DownloadLimits,
    /// Only downloads of the session's own tabs are listed ([`DownloadPlace::Watch`]): the
    /// events of the others are kept here (guid → begin, last progress) until an owner is
    /// settled, never listed. Short lock.
    unowned: Option<Mutex<HashMap<String, Held>>>,
    /// Told each time a listed download ends (completed or canceled), after the list says so;
    /// [`SessionFiles::ended`] waits on it.
    ends: tokio::sync::watch::Sender<()>,
    /// The files each agent uploaded, by name (the CDP door's upload area).
    agent_uploads: AgentUploads,
}

impl std::fmt::Debug for SessionFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionFiles")
            .field("root", &self.root.as_ref().map(|r| r.path().to_path_buf()))
            .finish_non_exhaustive()
    }
}

/// The events the downloads and the agents' file choosers are followed by.
pub(in crate::browser) const FILE_EVENTS: &[&str] = &[
    "Page.fileChooserOpened",
    "Browser.downloadWillBegin",
    "Browser.downloadProgress",
];

impl SessionFiles {
    /// Creates the session's directory; unless `place` is off, [`Self::follow`] points the
    /// browser's downloads at their place and follows them. `downloads_root`: where channels'
    /// download directories go (`<data_dir>/downloads`); without one the list (and local files)
    /// go to a temporary directory removed with the session.
    pub(in crate::browser) fn open(
        channel: &str,
        place: DownloadPlace,
        downloads_root: Option<&Path>,
        notices: broadcast::Sender<PaneMessage>,
        limits: DownloadLimits,
    ) -> Arc<Self> {
        let watch = matches!(place, DownloadPlace::Watch);
        let (tracking, browser_side, reader) = match place {
            DownloadPlace::Daemon => (DownloadTracking::On, None, None),
            DownloadPlace::Browser { dir, files } => {
                (DownloadTracking::On, Some(PathBuf::from(dir)), Some(files))
            }
            // Chrome names the place of each file; nothing is pointed anywhere.
            DownloadPlace::Watch => (DownloadTracking::On, Some(PathBuf::new()), None),
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
        Arc::new(Self {
            root,
            downloads_dir,
            browser_dir,
            reader,
            downloads: Mutex::new(earlier),
            version: AtomicU64::new(0),
            saved: Mutex::new(0),
            forgotten_bytes: AtomicU64::new(0),
            uploads: AtomicU64::new(0),
            tracking: Mutex::new(tracking),
            choosers: Mutex::new(HashMap::new()),
            pending_owners: Mutex::new(HashMap::new()),
            notices: DownloadNotices::new(notices),
            limits,
            unowned: watch.then(|| Mutex::new(HashMap::new())),
            ends: tokio::sync::watch::Sender::new(()),
            agent_uploads: AgentUploads::default(),
        })
    }

    /// Points the browser's downloads at their place, unless they are off, and follows them and
    /// the agents' file choosers (`events`: the session's [`FILE_EVENTS`] of `cdp`) until the
    /// session ends.
    pub(in crate::browser) fn follow(
        self: &Arc<Self>,
        cdp: &CdpConnection,
        events: RoomEvents,
    ) -> impl Future<Output = ()> + Send + 'static {
        let downloads = match (self.tracking(), &self.browser_dir) {
            (DownloadTracking::On, Some(dir)) if self.downloads_dir.is_some() => Some(dir.clone()),
            _ => None,
        };
        self.clone()
            .follow_downloads(cdp.clone(), events, downloads)
    }

    /// The channel's downloads directory on the daemon's side.
    pub fn downloads_dir(&self) -> Option<PathBuf> {
        self.downloads_dir.clone()
    }

    /// Whether the browser keeps its own download place and only our tabs' are listed
    /// (host mode).
    pub fn watches(&self) -> bool {
        self.unowned.is_some()
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
    pub async fn read_download(
        &self,
        download: &Download,
        limit: u64,
    ) -> Result<ReadBack, DownloadError> {
        let gone = |e: &dyn std::fmt::Display| DownloadError::Gone {
            id: download.id.clone(),
            name: download.name.clone(),
            reason: e.to_string(),
        };
        match self.reader.as_ref().filter(|_| !download.on_daemon) {
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

    /// The bytes of a finished download for the API: the open file when it is on the
    /// daemon's disk, else read back from the browser's (at most the channel's cap).
    pub async fn open_download(&self, download: &Download) -> Result<DownloadBody, DownloadError> {
        let gone = |e: &dyn std::fmt::Display| DownloadError::Gone {
            id: download.id.clone(),
            name: download.name.clone(),
            reason: e.to_string(),
        };
        let Some(reader) = self.reader.as_ref().filter(|_| !download.on_daemon) else {
            let file = tokio::fs::File::open(&download.path)
                .await
                .map_err(|e| gone(&crate::providers::io_reason(&e)))?;
            let size = file
                .metadata()
                .await
                .map_err(|e| gone(&crate::providers::io_reason(&e)))?
                .len();
            return Ok(DownloadBody {
                reader: Box::new(file),
                size,
            });
        };
        let limit = match self.limits.max_bytes {
            0 => u64::MAX / 2,
            cap => cap,
        };
        let path = download.path.display().to_string();
        let (reader, size) = reader.open(&path, limit).await.map_err(|e| {
            tracing::warn!(event = "download_unreadable", id = %download.id, %e, detail = e.detail().unwrap_or_default());
            gone(&e)
        })?;
        Ok(DownloadBody { reader, size })
    }

    /// Records who owns the download `guid` (its tab's owner, and the tab): at once when it
    /// is listed, else kept until its `downloadWillBegin` is recorded (both follow the same
    /// events). Panes hear of the person's downloads from here or from that record,
    /// whichever comes second.
    pub fn set_owner_of(&self, guid: &str, owner: &str, target_id: Option<&str>) {
        let mut downloads = self.downloads.lock().expect("downloads lock");
        match downloads.iter_mut().find(|d| d.guid == guid) {
            Some(d) => {
                d.owner = Some(owner.to_string());
                d.target_id = target_id.map(str::to_string);
                self.notices.started(d);
                let snapshot = self.snapshot(&downloads);
                drop(downloads);
                self.save(snapshot);
            }
            None => {
                self.pending_owners
                    .lock()
                    .expect("pending owners lock")
                    .insert(
                        guid.to_string(),
                        (owner.to_string(), target_id.map(str::to_string)),
                    );
                // Host mode: a download of one of our tabs, seen before its owner was.
                let held = self
                    .unowned
                    .as_ref()
                    .and_then(|unowned| unowned.lock().expect("unowned lock").remove(guid));
                drop(downloads);
                if let Some((begin, progress)) = held {
                    let dir = PathBuf::new();
                    self.apply("Browser.downloadWillBegin", &begin, &dir);
                    if let Some(progress) = progress {
                        self.apply("Browser.downloadProgress", &progress, &dir);
                    }
                }
            }
        }
    }

    /// The person allowed the download `guid` as it began (see `session::held_downloads`).
    pub(in crate::browser) fn allow_download(&self, guid: &str) {
        let mut downloads = self.downloads.lock().expect("downloads lock");
        let Some(d) = downloads.iter_mut().find(|d| d.guid == guid) else {
            return;
        };
        d.allowed = true;
        let snapshot = self.snapshot(&downloads);
        drop(downloads);
        self.save(snapshot);
    }

    /// The person declined the download `guid` (or nobody answered): cancelled in the
    /// browser, its file removed, and the list says `why`.
    pub(in crate::browser) async fn refuse_download(
        &self,
        cdp: &CdpConnection,
        guid: &str,
        why: &str,
    ) {
        let refused = {
            let mut downloads = self.downloads.lock().expect("downloads lock");
            let Some(d) = downloads.iter_mut().find(|d| d.guid == guid) else {
                return;
            };
            d.state = DownloadState::Canceled;
            d.why = Some(format!("canceled by Porthole: {why}"));
            let refused = d.clone();
            let snapshot = self.snapshot(&downloads);
            drop(downloads);
            self.save(snapshot);
            refused
        };
        tracing::info!(event = "download_refused", id = %refused.id);
        self.notices.failed(&refused);
        // Already finished is fine: the file is removed all the same.
        let _ = cdp
            .call("Browser.cancelDownload", json!({"guid": refused.guid}))
            .await;
        self.remove_partial(&refused).await;
    }

    /// Stores `bytes` as a finished download of the person's (a print of tab `target_id`),
    /// on the daemon's side, and tells panes. Refused over `browser.downloads_max_mb`.
    pub fn add_file(
        &self,
        name: &str,
        target_id: &str,
        bytes: &[u8],
    ) -> Result<Download, DownloadError> {
        let Some(dir) = &self.downloads_dir else {
            return Err(DownloadError::NoDirectory);
        };
        let size = bytes.len() as u64;
        let mut downloads = self.downloads.lock().expect("downloads lock");
        if let Some(why) = self.over_cap(&downloads, "", size) {
            return Err(DownloadError::OverCap(why));
        }
        let n = next_number(&downloads);
        let guid = format!("print-{n}-{}", std::process::id());
        let mut download = Download {
            id: format!("d{n}"),
            guid: guid.clone(),
            name: name.to_string(),
            url: String::new(),
            state: DownloadState::Completed,
            received: size,
            total: size,
            path: dir.join(&guid),
            frame_id: target_id.to_string(),
            owner: Some(crate::browser::floor::TabOwner::Human.id().to_string()),
            target_id: Some(target_id.to_string()),
            on_daemon: true,
            why: None,
            allowed: false,
        };
        // A small synchronous write under the short lock (never an await), so ids stay in order.
        if let Err(e) = std::fs::write(&download.path, bytes) {
            download.state = DownloadState::Canceled;
            self.notices.failed(&download);
            return Err(DownloadError::NotStored {
                name: name.to_string(),
                reason: e.to_string(),
            });
        }
        let forgotten = self.make_room(&mut downloads);
        downloads.push(download.clone());
        self.notices.started(&download);
        let snapshot = self.snapshot(&downloads);
        drop(downloads);
        self.save(snapshot);
        for d in forgotten.into_iter().flatten() {
            self.forget_file(&d);
        }
        Ok(download)
    }

    /// Why `size` more bytes for download `guid` would take the channel over its cap.
    fn over_cap(&self, downloads: &[Download], guid: &str, size: u64) -> Option<String> {
        let cap = self.limits.max_bytes;
        if cap == 0 || self.unowned.is_some() {
            return None;
        }
        let others: u64 = downloads
            .iter()
            .filter(|d| d.guid != guid && d.state != DownloadState::Canceled)
            .map(|d| d.received)
            .sum::<u64>()
            .saturating_add(self.forgotten_bytes.load(Ordering::Relaxed));
        (others.saturating_add(size) > cap).then(|| {
            format!(
                "canceled by Porthole: it would take this channel's downloads over                  browser.downloads_max_mb ({} MB; {others} bytes are already taken); raise that                  setting in the daemon's config to allow more",
                cap / (1024 * 1024)
            )
        })
    }

    /// A copy of the list to save, numbered; taken under the list's lock.
    fn snapshot(&self, downloads: &[Download]) -> (u64, Vec<Download>) {
        let version = self.version.fetch_add(1, Ordering::SeqCst) + 1;
        (version, downloads.to_vec())
    }

    /// Writes a snapshot of the list beside the files (best effort; a failure is logged), with
    /// the list's lock released: a snapshot older than the one already written is skipped.
    fn save(&self, (version, downloads): (u64, Vec<Download>)) {
        let Some(dir) = &self.downloads_dir else {
            return;
        };
        let mut saved = self.saved.lock().expect("saved lock");
        if *saved >= version {
            return;
        }
        let write = serde_json::to_vec_pretty(&downloads)
            .map_err(std::io::Error::other)
            .and_then(|json| {
                use std::io::Write;
                let tmp = dir.join(format!("{INDEX}.tmp"));
                let mut file = std::fs::File::create(&tmp)?;
                file.write_all(&json)?;
                file.sync_all()?;
                std::fs::rename(tmp, dir.join(INDEX))
            });
        match write {
            Ok(()) => *saved = version,
            Err(e) => tracing::warn!(event = "downloads_index_not_saved", error = %e),
        }
    }

    /// Makes room for one more entry in a full list: drops the oldest finished entry
    /// (completed before canceled) and hands it back for its file to be removed. `None` when
    /// every entry is still running (the list has no room); `Some(None)` when none was needed.
    fn make_room(&self, downloads: &mut Vec<Download>) -> Option<Option<Download>> {
        if downloads.len() < MAX_LISTED {
            return Some(None);
        }
        let oldest = |state| downloads.iter().position(|d| d.state == state);
        let at = oldest(DownloadState::Completed).or_else(|| oldest(DownloadState::Canceled))?;
        let dropped = downloads.remove(at);
        tracing::info!(event = "download_unlisted", id = %dropped.id, max = MAX_LISTED);
        Some(Some(dropped))
    }

    /// Removes a dropped entry's file from the daemon's disk; one left in the browser's
    /// container keeps counting against the cap.
    fn forget_file(&self, d: &Download) {
        if self.unowned.is_some() {
            return;
        }
        if self.reader.is_some() && !d.on_daemon {
            self.forgotten_bytes
                .fetch_add(d.received, Ordering::Relaxed);
            return;
        }
        match std::fs::remove_file(&d.path) {
            Ok(()) => tracing::info!(event = "download_file_removed", id = %d.id),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(event = "download_file_not_removed", id = %d.id, error = %e),
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

    /// The files each agent uploaded with `upload_file`, by name.
    pub fn agent_uploads(&self) -> &AgentUploads {
        &self.agent_uploads
    }

    /// Takes the file chooser the tab behind `session` opened last, if one is waiting.
    pub fn take_chooser(&self, session: &str) -> Option<Chooser> {
        self.choosers.lock().expect("choosers lock").remove(session)
    }

    /// The downloads so far, oldest first.
    pub fn downloads(&self) -> Vec<Download> {
        self.downloads.lock().expect("downloads lock").clone()
    }

    /// The download `id` once it has ended (completed or canceled), waiting for that at most
    /// `within`: Chrome reports the last bytes of a download before it says the download
    /// completed. `None` when no such download is listed; a download still running after
    /// `within` is returned as it stands.
    pub async fn ended(&self, id: &str, within: std::time::Duration) -> Option<Download> {
        let deadline = tokio::time::Instant::now() + within;
        // Subscribed before the first look, so an end between the look and the wait is seen.
        let mut ends = self.ends.subscribe();
        loop {
            let download = self.download(id)?;
            if download.state != DownloadState::InProgress {
                return Some(download);
            }
            if tokio::time::timeout_at(deadline, ends.changed())
                .await
                .is_err()
            {
                return Some(download);
            }
        }
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

    async fn follow_downloads(
        self: Arc<Self>,
        cdp: CdpConnection,
        mut events: RoomEvents,
        downloads: Option<PathBuf>,
    ) {
        if let Some(dir) = &downloads {
            self.allow_downloads(&cdp, dir).await;
        }
        while let Some(event) = events.next().await {
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
                    let Some(dir) = &downloads else {
                        continue;
                    };
                    match self.apply(method, &event.params, dir) {
                        Some(Effect::Cancel(d)) => {
                            let cancel = cdp
                                .call("Browser.cancelDownload", json!({"guid": d.guid}))
                                .await;
                            if let Err(e) = cancel {
                                tracing::warn!(event = "download_cancel_failed", id = %d.id, error = %e);
                            }
                            self.remove_partial(&d).await;
                        }
                        Some(Effect::Remove(d)) => self.remove_partial(&d).await,
                        Some(Effect::Forget(d)) => self.forget_file(&d),
                        None => {}
                    }
                }
                _ => {}
            }
        }
    }

    /// Removes what a download the daemon cancelled left on the daemon's disk (the file and
    /// Chrome's `.crdownload`); in a container Chrome removes its own partial file.
    async fn remove_partial(&self, d: &Download) {
        if self.reader.is_some() || self.unowned.is_some() {
            return;
        }
        let mut partial = d.path.clone().into_os_string();
        partial.push(".crdownload");
        for path in [d.path.clone(), PathBuf::from(partial)] {
            match tokio::fs::remove_file(&path).await {
                Ok(()) => tracing::info!(event = "download_partial_removed", id = %d.id),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    tracing::warn!(event = "download_partial_not_removed", id = %d.id, error = %e)
                }
            }
        }
    }

    /// Points the browser's downloads at `dir`, with events (host mode: Chrome's own place,
    /// events only); tracking goes off if refused.
    async fn allow_downloads(&self, cdp: &CdpConnection, dir: &Path) {
        let behavior = if self.unowned.is_some() {
            json!({"behavior": "default", "eventsEnabled": true})
        } else {
            json!({
                "behavior": "allowAndName",
                "downloadPath": dir.display().to_string(),
                "eventsEnabled": true,
            })
        };
        let set = cdp.call("Browser.setDownloadBehavior", behavior).await;
        if let Err(e) = set {
            tracing::warn!(event = "downloads_not_followed", error = %e);
            *self.tracking.lock().expect("tracking lock") =
                DownloadTracking::Off(format!("the browser refused to report downloads ({e})"));
        }
    }

    /// Records one download event; says what is left to do with the browser.
    fn apply(&self, method: &str, p: &Value, dir: &Path) -> Option<Effect> {
        let guid = p["guid"].as_str().unwrap_or_default();
        if guid.is_empty() {
            return None;
        }
        let mut downloads = self.downloads.lock().expect("downloads lock");
        match method {
            "Browser.downloadWillBegin" => {
                if downloads.iter().any(|d| d.guid == guid) {
                    return None;
                }
                let owner = self
                    .pending_owners
                    .lock()
                    .expect("pending owners lock")
                    .remove(guid);
                if let (None, Some(unowned)) = (&owner, &self.unowned) {
                    // Host mode: listed only once it is known to be one of our tabs'.
                    let mut unowned = unowned.lock().expect("unowned lock");
                    unowned.insert(guid.to_string(), (p.clone(), None));
                    return None;
                }
                let id = format!("d{}", next_number(&downloads));
                tracing::info!(event = "download_began", id, guid);
                let frame_id = p["frameId"].as_str().unwrap_or_default().to_string();
                let (owner, target_id) = owner.unzip();
                let download = Download {
                    id,
                    guid: guid.to_string(),
                    name: p["suggestedFilename"]
                        .as_str()
                        .unwrap_or("download")
                        .to_string(),
                    url: bounded_url(p["url"].as_str().unwrap_or_default()),
                    state: DownloadState::InProgress,
                    received: 0,
                    total: 0,
                    path: dir.join(guid),
                    frame_id,
                    owner,
                    target_id: target_id.flatten(),
                    on_daemon: false,
                    why: None,
                    allowed: false,
                };
                let Some(dropped) = self.make_room(&mut downloads) else {
                    // Every listed download is still running: this one is not taken.
                    let mut download = download;
                    download.state = DownloadState::Canceled;
                    download.why = Some(format!(
                        "canceled by Porthole: this channel already has {MAX_LISTED} downloads \
                         running; let one finish first"
                    ));
                    tracing::info!(event = "download_list_full", id = %download.id);
                    self.notices.failed(&download);
                    return Some(Effect::Cancel(download));
                };
                self.notices.started(&download);
                downloads.push(download);
                let snapshot = self.snapshot(&downloads);
                drop(downloads);
                self.save(snapshot);
                dropped.map(Effect::Forget)
            }
            "Browser.downloadProgress" => {
                let Some(at) = downloads.iter().position(|d| d.guid == guid) else {
                    if let Some(unowned) = &self.unowned {
                        if let Some(held) = unowned.lock().expect("unowned lock").get_mut(guid) {
                            held.1 = Some(p.clone());
                        }
                    }
                    return None;
                };
                let was = downloads[at].state;
                let received = p["receivedBytes"]
                    .as_u64()
                    .unwrap_or(downloads[at].received);
                let total = p["totalBytes"].as_u64().unwrap_or(downloads[at].total);
                let state = match p["state"].as_str() {
                    Some("completed") => DownloadState::Completed,
                    Some("canceled") => DownloadState::Canceled,
                    _ => DownloadState::InProgress,
                };
                // Over the cap: cancelled here, so panes and the list say so at once.
                let over = (state == DownloadState::InProgress && downloads[at].why.is_none())
                    .then(|| self.over_cap(&downloads, guid, received.max(total)))
                    .flatten();
                let d = &mut downloads[at];
                if was != DownloadState::InProgress {
                    // Chrome confirms a cancel of ours: remove what it may have left.
                    let ours = d.why.is_some() && state == DownloadState::Canceled;
                    return ours.then(|| Effect::Remove(d.clone()));
                }
                d.received = received;
                d.total = total;
                d.state = state;
                if let Some(path) = p["filePath"].as_str().filter(|p| !p.is_empty()) {
                    d.path = PathBuf::from(path);
                }
                let effect = match over {
                    Some(why) => {
                        tracing::info!(event = "download_over_cap", id = %d.id, bytes = d.received);
                        d.why = Some(why);
                        d.state = DownloadState::Canceled;
                        Some(Effect::Cancel(d.clone()))
                    }
                    None => None,
                };
                self.notices.moved(d);
                if d.state != DownloadState::InProgress {
                    tracing::info!(event = "download_ended", id = %d.id, state = d.state.as_str(), bytes = d.received);
                    let snapshot = self.snapshot(&downloads);
                    drop(downloads);
                    self.save(snapshot);
                    self.ends.send_replace(());
                }
                effect
            }
            _ => None,
        }
    }
}

/// The number of the next download's id (`d<n>`): one past the highest listed, so ids stay
/// unique when old entries are dropped.
fn next_number(downloads: &[Download]) -> u64 {
    downloads
        .iter()
        .filter_map(|d| d.id.strip_prefix('d')?.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
        + 1
}

/// A page's URL cut to [`MAX_URL_CHARS`] characters (the last one `…` when cut).
fn bounded_url(url: &str) -> String {
    match url.char_indices().nth(MAX_URL_CHARS - 1) {
        Some((at, _)) if url[at..].chars().nth(1).is_some() => format!("{}…", &url[..at]),
        _ => url.to_string(),
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
        if d.url.chars().nth(MAX_URL_CHARS).is_some() {
            d.url = bounded_url(&d.url);
        }
    }
    let over = list.len().saturating_sub(MAX_LISTED);
    list.drain(..over);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_files() -> SessionFiles {
        let root = tempfile::tempdir().unwrap();
        SessionFiles {
            downloads_dir: Some(root.path().join("downloads")),
            browser_dir: Some(root.path().join("downloads")),
            reader: None,
            root: Some(root),
            downloads: Mutex::new(Vec::new()),
            version: AtomicU64::new(0),
            saved: Mutex::new(0),
            forgotten_bytes: AtomicU64::new(0),
            uploads: AtomicU64::new(0),
            tracking: Mutex::new(DownloadTracking::On),
            choosers: Mutex::new(HashMap::new()),
            pending_owners: Mutex::new(HashMap::new()),
            notices: DownloadNotices::new(broadcast::channel(16).0),
            limits: DownloadLimits::default(),
            unowned: None,
            ends: tokio::sync::watch::Sender::new(()),
            agent_uploads: AgentUploads::default(),
        }
    }

    fn begin(files: &SessionFiles, dir: &Path, guid: &str, url: &str) -> Option<Effect> {
        files.apply(
            "Browser.downloadWillBegin",
            &json!({"guid": guid, "url": url, "suggestedFilename": "f.txt"}),
            dir,
        )
    }

    fn end(files: &SessionFiles, dir: &Path, guid: &str, state: &str) {
        files.apply(
            "Browser.downloadProgress",
            &json!({"guid": guid, "receivedBytes": 1, "totalBytes": 1, "state": state}),
            dir,
        );
    }

    #[test]
    fn the_list_keeps_its_bound_dropping_the_oldest_completed_first() {
        let files = session_files();
        let dir = files.downloads_dir().unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        // The first canceled, the second running, the rest completed (each with its file).
        for n in 1..=MAX_LISTED {
            let guid = format!("g{n}");
            std::fs::write(dir.join(&guid), b"x").unwrap();
            begin(&files, &dir, &guid, "http://x/f");
            match n {
                1 => end(&files, &dir, &guid, "canceled"),
                2 => {}
                _ => end(&files, &dir, &guid, "completed"),
            }
        }
        assert_eq!(files.downloads().len(), MAX_LISTED);
        // One more: the oldest completed (g3) goes, with its file; the canceled and the
        // running one stay.
        let effect = begin(&files, &dir, "new1", "http://x/new");
        let Some(Effect::Forget(gone)) = effect else {
            panic!("no entry dropped")
        };
        assert_eq!(gone.guid, "g3");
        files.forget_file(&gone);
        assert!(!dir.join("g3").exists(), "the dropped entry's file is kept");
        let list = files.downloads();
        assert_eq!(list.len(), MAX_LISTED);
        assert!(list.iter().all(|d| d.guid != "g3"));
        assert_eq!(list[0].guid, "g1");
        assert_eq!(list[1].guid, "g2");
        // Ids stay unique once entries are gone.
        let last = list.last().unwrap();
        assert_eq!(last.id, format!("d{}", MAX_LISTED + 1));
        // The list on disk keeps the bound too.
        assert_eq!(load_index(&dir).len(), MAX_LISTED);
        // With only the canceled one and running ones left to drop, the canceled one goes.
        let mut effects = Vec::new();
        for n in 0..MAX_LISTED {
            effects.push(begin(&files, &dir, &format!("run{n}"), "http://x/r"));
        }
        let list = files.downloads();
        assert_eq!(list.len(), MAX_LISTED);
        assert!(list.iter().all(|d| d.state == DownloadState::InProgress));
        assert!(list.iter().any(|d| d.guid == "g2"));
        // Every entry running: a new download is cancelled, never listed.
        let refused = begin(&files, &dir, "one-too-many", "http://x/z");
        let Some(Effect::Cancel(d)) = refused else {
            panic!("a download over a full list of running ones was taken")
        };
        assert!(d.why.unwrap().contains("500 downloads"));
        assert_eq!(files.downloads().len(), MAX_LISTED);
        assert!(files.download("one-too-many").is_none());
    }

    #[tokio::test]
    async fn a_download_with_every_byte_is_waited_on_until_chrome_says_it_ended() {
        use std::time::{Duration, Instant};
        let files = Arc::new(session_files());
        let dir = files.downloads_dir().unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        begin(&files, &dir, "g1", "http://x/f");
        let progress = |state: &str| json!({"guid": "g1", "receivedBytes": 5, "totalBytes": 5, "state": state});
        files.apply("Browser.downloadProgress", &progress("inProgress"), &dir);
        assert!(files.download("d1").unwrap().all_bytes_in());
        // Chrome says nothing more: the wait ends at its bound, the download as it stands.
        let asked = Instant::now();
        let d = files.ended("d1", Duration::from_millis(200)).await.unwrap();
        assert_eq!(d.state, DownloadState::InProgress);
        assert!(asked.elapsed() >= Duration::from_millis(200));
        // Chrome's `completed` comes during the wait: the answer is the completed download,
        // when it comes and not at the bound.
        let chrome = {
            let (files, dir) = (files.clone(), dir.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                files.apply("Browser.downloadProgress", &progress("completed"), &dir);
            })
        };
        let bound = Duration::from_secs(30);
        let asked = Instant::now();
        let d = files.ended("g1", bound).await.unwrap();
        assert_eq!(d.state, DownloadState::Completed);
        assert!(!d.all_bytes_in());
        assert!(asked.elapsed() < bound);
        chrome.await.unwrap();
        assert!(files.ended("d9", bound).await.is_none());
    }

    #[test]
    fn a_long_url_is_kept_cut() {
        let files = session_files();
        let dir = files.downloads_dir().unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let long = format!("http://x/f?q={}", "é".repeat(100_000));
        begin(&files, &dir, "g1", &long);
        let url = files.download("g1").unwrap().url;
        assert_eq!(url.chars().count(), MAX_URL_CHARS);
        assert!(url.ends_with('…') && long.starts_with(url.trim_end_matches('…')));
        let exact = "y".repeat(MAX_URL_CHARS);
        assert_eq!(bounded_url(&exact), exact);
        assert_eq!(bounded_url("http://x/a"), "http://x/a");
        assert_eq!(load_index(&dir)[0].url, url);
    }

    #[test]
    fn download_events_make_a_list() {
        let files = session_files();
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
        files.set_owner_of("g1", "agent-7", None);
        let again = load_index(&dir);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].owner.as_deref(), Some("agent-7"));
        assert_eq!(again[0].state, DownloadState::Completed);
        // An owner settled before the download is recorded is kept for it.
        files.set_owner_of("g2", "agent-9", None);
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
