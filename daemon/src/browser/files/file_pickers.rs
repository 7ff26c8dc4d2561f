//! `showOpenFilePicker` for the person and for agents (DESIGN.md §15 "Files from the person").
//!
//! Verified on Chromium 156: with `Page.setInterceptFileChooserDialog` on (every tab of ours, see
//! `tabs::tracking`), `showOpenFilePicker()` fires `Page.fileChooserOpened` with no `backendNodeId`
//! and rejects at once with an `AbortError` ("Intercepted by
//! Page.setInterceptFileChooserDialog()"): nothing can answer it. So every tab gets a script in its
//! own world (`js/open-file-picker.js`, before the page's scripts) that serves the picker with a
//! hidden `<input type=file>`: its chooser reaches the person as `file_chooser` (or an agent's
//! `upload_file`), and the page receives `FileSystemFileHandle`s that read the chosen files
//! (writing them back is refused). A cancelled chooser fires the input's `cancel` event, as a
//! browser does when its dialog is dismissed, which rejects the picker with `AbortError`.
//! `showSaveFilePicker` and `showDirectoryPicker` are left as Chrome answers them.

use serde_json::json;

use crate::cdp::CdpConnection;

/// The page-world script that serves `showOpenFilePicker` with a file input.
const OPEN_FILE_PICKER: &str = include_str!("js/open-file-picker.js");

/// Fires `cancel` on a file input (run on the input with `Runtime.callFunctionOn`).
pub(in crate::browser) const CANCEL_JS: &str = include_str!("js/cancel-file-input.js");

/// Installs the picker on the tab behind flat CDP `session`, for its current and every later
/// document (best effort: a tab that refuses keeps Chrome's own answer).
pub async fn install(cdp: &CdpConnection, session: &str) {
    let script = cdp
        .call_on(
            session,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": OPEN_FILE_PICKER, "runImmediately": true}),
        )
        .await;
    if let Err(error) = script {
        tracing::debug!(event = "open_file_picker_install_failed", %error);
    }
}
