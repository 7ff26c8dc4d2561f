//! Which tab a request paused at `Fetch` comes from, by its `frameId` (measured on Chromium
//! 156, docs/measured-network.md): a tab's main frame carries the tab's target id, a frame its
//! own frame id, a dedicated worker its tab's frame; a shared or service worker carries its
//! own target id, which no tab owns. A frame the tab list does not know yet (attached before
//! its tab was tracked: a popup whose opener wrote frames into it at once) is looked for again
//! in every tab's frame tree; a page target not tracked yet is its opener's (Chrome gives a
//! popup its `openerId`, `noopener` included) or, with none, the person's: Porthole opens an
//! agent's tab blank and tracks it before it loads anything. What is still nobody's is
//! [`Source::Nobody`], and the session's `paused` refuses it while any agent rule would
//! (fail closed).

use serde_json::json;

use crate::browser::floor::{SessionCore, TabOwner};
use crate::browser::tabs::tracking::record_frame_tree;

/// Where a paused request comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::browser) enum Source {
    /// A tab (its target id) and its owner.
    Tab { target_id: String, owner: TabOwner },
    /// No tab Porthole can tell: why, for the log.
    Nobody(&'static str),
}

/// The tab the request of `frame` (its `frameId`, if any) comes from.
pub(in crate::browser) async fn source_of(core: &SessionCore, frame: Option<&str>) -> Source {
    let Some(frame) = frame.filter(|f| !f.is_empty()) else {
        return Source::Nobody("no frame");
    };
    if let Some(source) = known(core, frame) {
        return source;
    }
    let info = core
        .cdp()
        .call("Target.getTargetInfo", json!({ "targetId": frame }))
        .await;
    if let Ok(info) = info {
        let info = &info["targetInfo"];
        return match info["type"].as_str() {
            Some("page") => {
                let owner = match info["openerId"].as_str() {
                    Some(opener) => match core.tabs().owner_of(opener) {
                        Some(owner) => owner,
                        None => return Source::Nobody("a popup of an untracked page"),
                    },
                    None => TabOwner::Human,
                };
                Source::Tab {
                    target_id: frame.to_string(),
                    owner,
                }
            }
            Some("shared_worker") => Source::Nobody("a shared worker"),
            Some("service_worker") => Source::Nobody("a service worker"),
            _ => Source::Nobody("an out-of-process target of no tab"),
        };
    }
    // A frame, not a target: one the frame map missed. Every tab's frame tree is read again.
    let sessions: Vec<String> = core.tabs().read(|tabs| {
        tabs.entries()
            .map(|entry| entry.tab.session_id.clone())
            .collect()
    });
    let reads = sessions.iter().map(|s| record_frame_tree(core, s));
    for read in futures_util::future::join_all(reads).await {
        if let Err(error) = read {
            tracing::debug!(event = "frame_tree_not_read", channel_id = %core.channel(), %error);
        }
    }
    known(core, frame).unwrap_or(Source::Nobody("a frame of no tracked tab"))
}

/// The tab of `frame` in the tab list, if it knows it.
fn known(core: &SessionCore, frame: &str) -> Option<Source> {
    core.tabs().tab_of_frame(frame).map(|tab| Source::Tab {
        target_id: tab.target_id,
        owner: tab.owner,
    })
}
