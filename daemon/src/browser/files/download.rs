//! One download as the session's list keeps it (`index.json`, `list_downloads`, the pane's
//! `download` notices): its ids, where it stands, how far it got, where the file is and whose
//! tab it came from. Plain data; `transfers` keeps the list.

use std::path::PathBuf;

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
    /// The tab it came from, once known.
    #[serde(default)]
    pub target_id: Option<String>,
    /// The file is on the daemon's side even when the browser's downloads are not (a print).
    #[serde(default)]
    pub on_daemon: bool,
    /// Why the daemon cancelled it (a bound, or the person declined it), for `list_downloads`.
    #[serde(default)]
    pub why: Option<String>,
    /// The person allowed it when it began (an agent held to `download`): its bytes reach the
    /// agent without asking her again.
    #[serde(default)]
    pub allowed: bool,
}

impl Download {
    /// Every byte has arrived (the server said how many) but Chrome has not said the download
    /// completed yet: it reports the last bytes before it finishes the file.
    pub fn all_bytes_in(&self) -> bool {
        self.state == DownloadState::InProgress && self.total > 0 && self.received == self.total
    }
}
