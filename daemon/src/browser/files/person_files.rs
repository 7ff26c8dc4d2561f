//! Files the person at a pane hands a page: the file choosers a page opens in the person's
//! tabs (`file_chooser` → `file_chooser_answer`) and files dropped from the person's desktop
//! onto the pane (`drop_files`, a real drag and drop through `Input.dispatchDragEvent`).
//!
//! Choosers stay intercepted (`tabs::tracking` turns interception on for every tab); this module
//! tells panes of those opened in a tab the person owns (an agent's tab keeps them for
//! `upload_file`, see `transfers`). Where the bytes go: local and host modes write them to a fresh
//! directory of the session's (the browser reads the daemon's disk), removed when their tab closes
//! or the session ends; docker mode, whose browser cannot see the daemon's disk, builds the files
//! in the page from their bytes (in an isolated world) as `upload_file` does. Checking sizes
//! against `browser.pane_upload_max_mb` is the API's; this module takes decoded bytes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use serde_json::{json, Value};

use super::transfers::SessionFiles;
use crate::browser::floor::{
    PaneMessage, Prompt, Registry, RoomEvents, SessionCore, SessionError, TabOwner,
};
use crate::cdp::{CdpError, CdpEvent};
use crate::mode::Mode;

/// One file the person hands a page, decoded.
#[derive(Clone)]
pub struct HandedFile {
    /// A plain file name (see [`safe_name`]).
    pub name: String,
    /// Its MIME type, maybe empty.
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for HandedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandedFile")
            .field("name", &self.name)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// A file chooser waiting for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonChooser {
    pub id: String,
    pub target_id: String,
    /// The tab's flat CDP session.
    session_id: String,
    /// The frame the input is in.
    frame_id: String,
    backend_node_id: i64,
    pub multiple: bool,
    pub accept: String,
}

impl PersonChooser {
    /// The `file_chooser` message for panes.
    pub fn message(&self) -> PaneMessage {
        PaneMessage::FileChooser {
            id: self.id.clone(),
            target_id: self.target_id.clone(),
            multiple: self.multiple,
            accept: self.accept.clone(),
        }
    }
}

/// The open choosers of a session and the directories of files handed to its tabs.
#[derive(Debug, Default)]
pub struct FileHandoffs {
    /// The open choosers, oldest first.
    open: Registry<PersonChooser>,
    /// Directories of files handed to each tab (target id → dirs), removed when it closes.
    /// Short lock.
    dirs: Mutex<HashMap<String, Vec<PathBuf>>>,
}

impl Prompt for PersonChooser {
    const PREFIX: &'static str = "f";
}

/// Why handing files failed; the text is for the person.
#[derive(Debug, thiserror::Error)]
pub enum HandError {
    #[error("no file chooser {0} is open (it was answered or cancelled, or its page went away)")]
    NoChooser(String),
    #[error("this file chooser takes one file (its input has no `multiple` attribute); got {0}")]
    OneFileOnly(usize),
    #[error("send at least one file, or cancel: true")]
    NoFiles,
    #[error("the input whose chooser this was is gone (its page changed); click it again")]
    InputGone,
    #[error("the files could not be stored where the browser reads them ({0})")]
    Store(String),
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl HandError {
    /// A stable snake_case code for panes.
    pub fn code(&self) -> &'static str {
        match self {
            HandError::NoChooser(_) => "no_file_chooser",
            HandError::OneFileOnly(_) | HandError::NoFiles => "bad_request",
            HandError::InputGone => "file_input_gone",
            HandError::Store(_) => "files_unavailable",
            HandError::Session(e) => e.code(),
        }
    }
}

impl From<CdpError> for HandError {
    fn from(error: CdpError) -> Self {
        HandError::Session(error.into())
    }
}

/// A name safe to write as one path component: the last component of what the pane sent,
/// `file` when nothing usable is left.
pub fn safe_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last.chars().filter(|c| !c.is_control()).collect();
    match cleaned.trim() {
        "" | "." | ".." => "file".to_string(),
        name => name.chars().take(200).collect(),
    }
}

/// Sets files built from their bytes on `this` (a file input), as if the person picked them.
const SET_FILES_JS: &str = include_str!("js/set-files.js");

/// Drops files built from their bytes on the element at (x, y), as a drag from the desktop.
const DROP_FILES_JS: &str = include_str!("js/drop-files.js");

/// The events the person's file choosers are followed by.
pub(in crate::browser) const CHOOSER_EVENTS: &[&str] =
    &["Page.fileChooserOpened", "Page.frameNavigated"];

/// Follows file choosers opening and documents changing (`events`: the session's
/// [`CHOOSER_EVENTS`]) until the session ends (a closed tab's are forgotten by `untrack`).
pub(in crate::browser) async fn follow(
    core: Arc<SessionCore>,
    handoffs: Arc<FileHandoffs>,
    files: Arc<SessionFiles>,
    mut events: RoomEvents,
) {
    let person_files = PersonFiles::new(&core, &handoffs, &files);
    while let Some(event) = events.next().await {
        match event.method.as_str() {
            "Page.fileChooserOpened" => person_files.chooser_opened(&event).await,
            // A new document in a tab: the input of its chooser is gone.
            "Page.frameNavigated" if event.params["frame"]["parentId"].is_null() => {
                if let Some(session) = event.session_id.as_deref() {
                    person_files.close_choosers(|c| c.session_id == session);
                }
            }
            _ => {}
        }
    }
    // The session's directory (with every file in it) goes with the session.
}

/// The file choosers and handed files of one session's tabs (borrowed from the session:
/// `session.person_files()`).
pub(crate) struct PersonFiles<'s> {
    core: &'s SessionCore,
    handoffs: &'s FileHandoffs,
    /// Where handed files are written (the session's upload directories), and the agents'
    /// side of the same choosers.
    files: &'s SessionFiles,
}

impl<'s> PersonFiles<'s> {
    pub(in crate::browser) fn new(
        core: &'s SessionCore,
        handoffs: &'s FileHandoffs,
        files: &'s SessionFiles,
    ) -> Self {
        Self {
            core,
            handoffs,
            files,
        }
    }

    async fn chooser_opened(&self, event: &CdpEvent) {
        let Some(session) = event.session_id.as_deref() else {
            return;
        };
        let tab = {
            self.core
                .tabs()
                .by_session(session)
                .map(|t| (t.target_id, t.owner))
        };
        // An agent's tab keeps its chooser for `upload_file`.
        let Some((target_id, TabOwner::Human)) = tab else {
            return;
        };
        let Some(backend_node_id) = event.params["backendNodeId"].as_i64() else {
            return;
        };
        let accept = self
            .core
            .cdp()
            .call_on(
                session,
                "DOM.describeNode",
                json!({ "backendNodeId": backend_node_id }),
            )
            .await
            .ok()
            .and_then(|reply| attribute(&reply["node"]["attributes"], "accept"))
            .unwrap_or_default();
        let chooser = PersonChooser {
            id: self.handoffs.open.mint(),
            target_id: target_id.clone(),
            session_id: session.to_string(),
            frame_id: event.params["frameId"]
                .as_str()
                .unwrap_or(&target_id)
                .to_string(),
            backend_node_id,
            multiple: event.params["mode"] == "selectMultiple",
            accept,
        };
        // One chooser per tab, as a browser shows: a new one replaces the last.
        self.close_choosers(|c| c.target_id == target_id);
        tracing::info!(event = "file_chooser_opened", channel_id = %self.core.channel(), id = %chooser.id, %target_id, multiple = chooser.multiple);
        self.handoffs
            .open
            .insert(chooser.id.clone(), chooser.clone());
        self.core.notify(chooser.message());
    }

    /// Closes the choosers `which` picks, telling panes.
    fn close_choosers(&self, which: impl Fn(&PersonChooser) -> bool) {
        let closed = self.handoffs.open.take_where(which);
        for (id, _) in closed {
            self.core.notify(PaneMessage::FileChooserClosed { id });
        }
    }

    /// A closed tab's choosers and handed files go.
    /// Closes a tab's file choosers and removes the files handed to it (see
    /// `tabs::tracking::untrack`).
    pub(in crate::browser) fn forget_tab(&self, target_id: &str) {
        self.close_choosers(|c| c.target_id == target_id);
        let dirs = self
            .handoffs
            .dirs
            .lock()
            .expect("dirs lock")
            .remove(target_id)
            .unwrap_or_default();
        for dir in dirs {
            if let Err(error) = std::fs::remove_dir_all(&dir) {
                tracing::debug!(event = "handed_files_not_removed", dir = %dir.display(), %error);
            }
        }
    }

    /// The file choosers waiting for the person (for a pane that attaches while one is open).
    pub(crate) fn all(&self) -> Vec<PersonChooser> {
        self.handoffs
            .open
            .read(|open| open.iter().map(|(_, c)| c.clone()).collect())
    }

    /// Answers chooser `id`: sets `files` on its input, or cancels it (`None`). Nothing is set
    /// on an error, and the chooser stays open for another answer unless it is gone.
    pub(crate) async fn answer(
        &self,
        id: &str,
        files: Option<Vec<HandedFile>>,
    ) -> Result<(), HandError> {
        let chooser = self
            .handoffs
            .open
            .read(|open| open.iter().find(|(i, _)| i == id).map(|(_, c)| c.clone()))
            .ok_or_else(|| HandError::NoChooser(id.to_string()))?;
        if let Some(files) = &files {
            if files.is_empty() {
                return Err(HandError::NoFiles);
            }
            if files.len() > 1 && !chooser.multiple {
                return Err(HandError::OneFileOnly(files.len()));
            }
            let set = self.set_chooser_files(&chooser, files).await;
            if matches!(set, Err(HandError::InputGone)) {
                self.close_choosers(|c| c.id == id);
            }
            set?;
        } else {
            self.cancel_chooser_input(&chooser).await;
        }
        // Any agent-side record of the same chooser is answered too.
        self.files.take_chooser(&chooser.session_id);
        tracing::info!(event = "file_chooser_answered", channel_id = %self.core.channel(), %id, files = files.as_ref().map_or(0, Vec::len), cancelled = files.is_none());
        self.close_choosers(|c| c.id == id);
        Ok(())
    }

    /// Fires `cancel` on a cancelled chooser's input, as a browser does when the person
    /// dismisses its dialog (a page's `showOpenFilePicker` rejects on it, see `file_pickers`).
    /// Best effort: an input already gone has nobody to tell.
    async fn cancel_chooser_input(&self, chooser: &PersonChooser) {
        let cancel = super::file_pickers::CANCEL_JS;
        let _ = self.call_on_chooser_input(chooser, cancel, json!([])).await;
    }

    /// Runs `function` on the chooser's input in an isolated world with `arguments` (CDP
    /// call arguments), releasing the input's handle afterwards; returns the call's reply.
    async fn call_on_chooser_input(
        &self,
        chooser: &PersonChooser,
        function: &str,
        arguments: Value,
    ) -> Result<Value, HandError> {
        let session = chooser.session_id.as_str();
        let object = self
            .resolve_in_world(session, &chooser.frame_id, chooser.backend_node_id)
            .await?;
        let reply = self
            .core
            .cdp()
            .call_on(
                session,
                "Runtime.callFunctionOn",
                json!({
                    "objectId": object,
                    "functionDeclaration": function,
                    "arguments": arguments,
                    "returnByValue": true,
                }),
            )
            .await;
        let release = json!({ "objectId": object });
        let _ = self
            .core
            .cdp()
            .call_on(session, "Runtime.releaseObject", release)
            .await;
        Ok(reply?)
    }

    async fn set_chooser_files(
        &self,
        chooser: &PersonChooser,
        files: &[HandedFile],
    ) -> Result<(), HandError> {
        if self.core.mode() == Mode::Docker {
            let arguments = json!([{ "value": inline(files) }]);
            let reply = self
                .call_on_chooser_input(chooser, SET_FILES_JS, arguments)
                .await?;
            if let Some(thrown) = crate::cdp::thrown(&reply) {
                tracing::warn!(event = "file_chooser_set_failed", %thrown);
                return Err(HandError::InputGone);
            }
            return Ok(());
        }
        let paths = self.store(&chooser.target_id, files).await?;
        self.core
            .cdp()
            .call_on(
                &chooser.session_id,
                "DOM.setFileInputFiles",
                json!({ "files": paths, "backendNodeId": chooser.backend_node_id }),
            )
            .await
            .map_err(|_| HandError::InputGone)?;
        Ok(())
    }

    /// Drops `files` at (`x`, `y`) of the tab behind `session`: dragEnter, dragOver and drop
    /// with the files, as when the person drags them from the desktop.
    pub(crate) async fn drop_files(
        &self,
        session: &str,
        x: f64,
        y: f64,
        files: &[HandedFile],
    ) -> Result<(), HandError> {
        if files.is_empty() {
            return Err(HandError::NoFiles);
        }
        let target_id = { self.core.tabs().target_of_session(session) }
            .ok_or(HandError::Session(SessionError::Closed))?;
        if self.core.mode() == Mode::Docker {
            let world = self
                .core
                .cdp()
                .call_on(
                    session,
                    "Page.createIsolatedWorld",
                    json!({ "frameId": target_id, "worldName": "porthole-person-files" }),
                )
                .await?;
            let reply = self
                .core
                .cdp()
                .call_on(
                    session,
                    "Runtime.callFunctionOn",
                    json!({
                        "executionContextId": world["executionContextId"],
                        "functionDeclaration": DROP_FILES_JS,
                        "arguments": [{ "value": x }, { "value": y }, { "value": inline(files) }],
                        "returnByValue": true,
                    }),
                )
                .await?;
            if let Some(thrown) = crate::cdp::thrown(&reply) {
                tracing::warn!(event = "drop_failed", %thrown);
                return Err(HandError::InputGone);
            }
        } else {
            let paths = self.store(&target_id, files).await?;
            let data = json!({ "items": [], "files": paths, "dragOperationsMask": 1 });
            for kind in ["dragEnter", "dragOver", "drop"] {
                self.core
                    .cdp()
                    .call_on(
                        session,
                        "Input.dispatchDragEvent",
                        json!({ "type": kind, "x": x, "y": y, "data": data }),
                    )
                    .await?;
            }
        }
        tracing::info!(event = "files_dropped", channel_id = %self.core.channel(), %target_id, files = files.len());
        Ok(())
    }

    /// Writes `files` to a fresh directory of the session's (one folder per file, so two of
    /// the same name both go), remembered for `target_id` so it goes when the tab closes.
    async fn store(&self, target_id: &str, files: &[HandedFile]) -> Result<Vec<String>, HandError> {
        let dir = self
            .files
            .upload_dir()
            .map_err(|e| HandError::Store(crate::providers::io_reason(&e).to_string()))?;
        self.handoffs
            .dirs
            .lock()
            .expect("dirs lock")
            .entry(target_id.to_string())
            .or_default()
            .push(dir.clone());
        let mut paths = Vec::with_capacity(files.len());
        for (i, file) in files.iter().enumerate() {
            let folder = dir.join(i.to_string());
            let path = folder.join(safe_name(&file.name));
            let written = async {
                tokio::fs::create_dir_all(&folder).await?;
                tokio::fs::write(&path, &file.bytes).await
            };
            written.await.map_err(|e| {
                tracing::warn!(event = "handed_file_not_stored", error = %e);
                HandError::Store(crate::providers::io_reason(&e).to_string())
            })?;
            paths.push(path.display().to_string());
        }
        Ok(paths)
    }

    /// The node's object in an isolated world of `frame_id` (a page cannot see or forge it).
    async fn resolve_in_world(
        &self,
        session: &str,
        frame_id: &str,
        backend_node_id: i64,
    ) -> Result<String, HandError> {
        let world = self
            .core
            .cdp()
            .call_on(
                session,
                "Page.createIsolatedWorld",
                json!({ "frameId": frame_id, "worldName": "porthole-person-files" }),
            )
            .await?;
        let params = json!({
            "backendNodeId": backend_node_id,
            "executionContextId": world["executionContextId"],
        });
        let mut resolved = self
            .core
            .cdp()
            .call_on(session, "DOM.resolveNode", params.clone())
            .await;
        if resolved.is_err() {
            let _ = self
                .core
                .cdp()
                .call_on(session, "DOM.enable", json!({}))
                .await;
            resolved = self
                .core
                .cdp()
                .call_on(session, "DOM.resolveNode", params)
                .await;
        }
        resolved
            .ok()
            .and_then(|r| r["object"]["objectId"].as_str().map(str::to_string))
            .ok_or(HandError::InputGone)
    }
}

/// The files as the page builds them.
fn inline(files: &[HandedFile]) -> Value {
    let engine = base64::engine::general_purpose::STANDARD;
    Value::from(
        files
            .iter()
            .map(|f| {
                json!({
                    "name": safe_name(&f.name),
                    "type": f.mime_type,
                    "data": engine.encode(&f.bytes),
                })
            })
            .collect::<Vec<_>>(),
    )
}

/// An attribute's value from `DOM.Node.attributes` (`[name, value, name, value, …]`).
fn attribute(attributes: &Value, name: &str) -> Option<String> {
    let list = attributes.as_array()?;
    list.chunks(2)
        .find(|pair| pair[0].as_str() == Some(name))
        .and_then(|pair| pair.get(1)?.as_str().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_one_plain_component() {
        assert_eq!(safe_name("report.pdf"), "report.pdf");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("C:\\Users\\ann\\scan.png"), "scan.png");
        assert_eq!(safe_name(".."), "file");
        assert_eq!(safe_name("dir/"), "file");
        assert_eq!(safe_name("a\u{0}b\nc"), "abc");
    }

    #[test]
    fn attributes_are_read_by_name() {
        let attributes = json!(["type", "file", "accept", ".txt,image/*", "multiple", ""]);
        assert_eq!(
            attribute(&attributes, "accept").as_deref(),
            Some(".txt,image/*")
        );
        assert_eq!(attribute(&attributes, "multiple").as_deref(), Some(""));
        assert_eq!(attribute(&attributes, "capture"), None);
    }
}
