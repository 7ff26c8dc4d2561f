//! `download` messages to panes (DESIGN.md §15): for the person's downloads only (a tab the
//! person owns, or a `print`), `started` once, `progress` at most 4 a second, and how each
//! ended. Agents' downloads stay theirs (`list_downloads`). Owns only the pacing; the list of
//! downloads is `files`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use super::download::{Download, DownloadState};
use crate::browser::floor::{DownloadPhase, PaneMessage, TabOwner};

/// The shortest gap between two `progress` messages of one download (4 a second).
const PROGRESS_GAP: Duration = Duration::from_millis(250);

/// Sends `download` messages to the session's panes.
pub(in crate::browser) struct DownloadNotices {
    notices: broadcast::Sender<PaneMessage>,
    /// When each running download last told panes (guid → when). Short lock.
    last: Mutex<HashMap<String, Instant>>,
}

impl DownloadNotices {
    pub(in crate::browser) fn new(notices: broadcast::Sender<PaneMessage>) -> Self {
        Self {
            notices,
            last: Mutex::new(HashMap::new()),
        }
    }

    /// Tells panes that `d` began (and, when it already ended, how).
    pub(in crate::browser) fn started(&self, d: &Download) {
        if !is_the_persons(d) {
            return;
        }
        self.send(d, DownloadPhase::Started);
        self.last
            .lock()
            .expect("notices lock")
            .insert(d.guid.clone(), Instant::now());
        if d.state != DownloadState::InProgress {
            self.moved(d);
        }
    }

    /// Tells panes where `d` stands now: `progress` unless one went out less than 250 ms ago,
    /// or how it ended.
    pub(in crate::browser) fn moved(&self, d: &Download) {
        if !is_the_persons(d) {
            return;
        }
        let phase = match d.state {
            DownloadState::InProgress => {
                let mut last = self.last.lock().expect("notices lock");
                let now = Instant::now();
                match last.get(&d.guid) {
                    Some(at) if now.duration_since(*at) < PROGRESS_GAP => return,
                    _ => last.insert(d.guid.clone(), now),
                };
                DownloadPhase::Progress
            }
            DownloadState::Completed => DownloadPhase::Completed,
            DownloadState::Canceled => DownloadPhase::Canceled,
        };
        if phase != DownloadPhase::Progress {
            self.last.lock().expect("notices lock").remove(&d.guid);
        }
        self.send(d, phase);
    }

    /// Tells panes that `d` failed (a print that could not be stored).
    pub(in crate::browser) fn failed(&self, d: &Download) {
        if is_the_persons(d) {
            self.send(d, DownloadPhase::Failed);
        }
    }

    fn send(&self, d: &Download, state: DownloadPhase) {
        let _ = self.notices.send(PaneMessage::Download {
            id: d.id.clone(),
            target_id: d.target_id.clone().unwrap_or_else(|| d.frame_id.clone()),
            name: d.name.clone(),
            state,
            received_bytes: d.received,
            total_bytes: (d.total > 0).then_some(d.total),
        });
    }
}

fn is_the_persons(d: &Download) -> bool {
    d.owner.as_deref() == Some(TabOwner::Human.id())
}
