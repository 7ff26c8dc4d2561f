//! Following Chrome's events for a BrowserSession: tabs appearing and disappearing, URL and
//! title changes, main-frame navigations (which restart the screencast), and the browser
//! going away. Runs as one follower per session, reading its queue of the session's one
//! dispatch (the floor's `dispatch`) once the tabs the browser had are tracked; it only updates
//! session state and notifies. The events of other rooms that need the tab list as tracking
//! left it (dialogs, the tools' worlds, titles, the pane world's reports, a download's owner)
//! come in the same queue, in Chrome's order, and are handed to their rooms from here.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::handle::BrowserSession;
use crate::browser::floor::{Delivery, Ownership, PaneMessage, RoomEvents, TabOwner, HUMAN};
use crate::browser::prompts::dialogs::DIALOG_EVENTS;
use crate::cdp::CdpEvent;

/// The document's own title.
const DOCUMENT_TITLE: &str = include_str!("js/document-title.js");

/// The events the session follows its tabs by (beside the dialogs', [`DIALOG_EVENTS`]).
const TAB_EVENTS: &[&str] = &[
    "Target.targetCreated",
    "Target.targetInfoChanged",
    "Target.targetDestroyed",
    "Target.detachedFromTarget",
    "Page.frameAttached",
    "Page.frameDetached",
    "Page.frameNavigated",
    "Page.domContentEventFired",
    "Page.loadEventFired",
    "Page.navigatedWithinDocument",
    "Browser.downloadWillBegin",
    "Runtime.executionContextsCleared",
    "Runtime.executionContextCreated",
    "Runtime.bindingCalled",
];

impl BrowserSession {
    /// Every event the session's own task follows ([`Self::follow_events`]).
    pub(in crate::browser) fn followed_events() -> Vec<&'static str> {
        [TAB_EVENTS, DIALOG_EVENTS].concat()
    }

    /// Follows Chrome's target events (`events`: the session's [`Self::followed_events`])
    /// until the session ends.
    pub(in crate::browser) async fn follow_events(self: Arc<Self>, mut events: RoomEvents) {
        loop {
            let event = tokio::select! {
                _ = self.core.closed() => return,
                _ = self.core.cdp().lost() => {
                    let reason = self.core.cdp().lost_reason().unwrap_or_default();
                    tracing::warn!(event = "browser_lost", channel_id = %self.core.channel(), %reason);
                    self.core.notify(PaneMessage::error("browser_gone", self.tab_life().gone_message(&reason)));
                    self.close("browser_gone");
                    return;
                }
                event = events.recv() => match event {
                    Some(Delivery::Event(event)) => event,
                    Some(Delivery::Lagged(missed)) => {
                        tracing::warn!(event = "browser_events_lagged", channel_id = %self.core.channel(), missed);
                        continue;
                    }
                    None => return,
                },
            };
            self.handle_event(&event).await;
        }
    }

    async fn handle_event(self: &Arc<Self>, event: &CdpEvent) {
        self.dialogs().follow(event);
        let info = &event.params["targetInfo"];
        match event.method.as_str() {
            "Target.targetCreated" if info["type"] == "page" => {
                let id = info["targetId"].as_str().unwrap_or_default();
                // A popup belongs to whoever owns the tab that opened it.
                let opener_owner = info["openerId"]
                    .as_str()
                    .and_then(|opener| self.core.tabs().owner_of(opener));
                let opener_is_ours = opener_owner.is_some();
                let winding_down = self.tab_life().winding_down();
                if winding_down && opener_is_ours && self.core.ownership() == Ownership::OwnTabs {
                    // A popup of ours while a host-mode stop closes our tabs: it goes too.
                    let _ = self
                        .core
                        .cdp()
                        .call("Target.closeTarget", json!({ "targetId": id }))
                        .await;
                    return;
                }
                if !opener_is_ours && self.tab_life().tracked_by_its_opener(id).await {
                    return;
                }
                // The agent tab opened ahead: untracked until an agent's tab takes it.
                if self.tab_life().is_warm(id) {
                    return;
                }
                if self.core.ownership() == Ownership::AllTabs || opener_is_ours {
                    let owner = opener_owner.unwrap_or(TabOwner::Human);
                    if self.agent_tabs().refuse_popup_over_limit(&owner, id).await {
                        return;
                    }
                    if let Err(error) = self.tab_life().track(id, owner).await {
                        tracing::debug!(event = "tab_attach_failed", channel_id = %self.core.channel(), %error);
                    }
                }
            }
            "Target.targetInfoChanged" => self.apply_info(info),
            "Page.frameAttached" => {
                if let (Some(session), Some(frame)) = (
                    event.session_id.as_deref(),
                    event.params["frameId"].as_str(),
                ) {
                    self.core.tabs().frame_attached(session, frame);
                }
            }
            // A frame swapped into another process is still on its page.
            "Page.frameDetached" if event.params["reason"] != "swap" => {
                if let Some(frame) = event.params["frameId"].as_str() {
                    self.core.tabs().frame_detached(frame);
                }
            }
            // A download is its tab's owner's, settled while the tab is surely open; an agent's
            // waits for the person when it is held to `download` (`held_downloads`).
            "Browser.downloadWillBegin" => {
                let owner = event.params["frameId"].as_str().and_then(|frame| {
                    self.core
                        .tabs()
                        .tab_of_child_frame(frame)
                        .map(|t| (t.owner.id().to_string(), t.target_id))
                });
                if let (Some(guid), Some((owner, tab))) = (event.params["guid"].as_str(), owner) {
                    self.files().set_owner_of(guid, &owner, Some(&tab));
                    if owner != HUMAN {
                        let url = event.params["url"].as_str().unwrap_or_default();
                        let name = event.params["suggestedFilename"]
                            .as_str()
                            .unwrap_or("download");
                        self.hold_download(guid, &owner, &tab, url, name);
                    }
                }
            }
            // The tools' world: gone with its document, made by Chrome in the next one.
            "Runtime.executionContextsCleared" => {
                if let Some(session) = event.session_id.as_deref() {
                    self.worlds().cleared(session, event.received);
                }
            }
            "Runtime.executionContextCreated" => {
                if let Some(session) = event.session_id.as_deref() {
                    let context = &event.params["context"];
                    self.worlds()
                        .context_created(session, context, event.received, || {
                            self.core
                                .tabs()
                                .main_frame_of(session)
                                .is_some_and(|frame| {
                                    context["auxData"]["frameId"].as_str() == Some(frame.as_str())
                                })
                        });
                }
            }
            "Runtime.bindingCalled" => {
                self.title_reported(event.session_id.as_deref(), &event.params);
                self.pane_reported(event.session_id.as_deref(), &event.params);
            }
            // A cross-process navigation can end a running screencast without a word.
            "Page.frameNavigated" if event.params["frame"]["parentId"].is_null() => {
                if let Some(session) = event.session_id.as_deref() {
                    self.screencast.restart(session);
                }
            }
            "Page.domContentEventFired"
            | "Page.loadEventFired"
            | "Page.navigatedWithinDocument" => {
                let target = event
                    .session_id
                    .as_deref()
                    .and_then(|session| self.core.tabs().target_of_session(session));
                if let (Some(target_id), Some(session)) = (target, event.session_id.as_deref()) {
                    self.refresh_info(&target_id, session).await;
                }
            }
            // Another session of a tab leaving (a sharp capture's, see `view::sharp`) leaves
            // the tab as it is.
            "Target.detachedFromTarget" if !self.own_session_left(&event.params) => {}
            "Target.targetDestroyed" | "Target.detachedFromTarget" => {
                if let Some(id) = event.params["targetId"].as_str() {
                    self.tab_life().untrack(id);
                    // Closed from outside (a page's window.close(), the user in their own
                    // Chrome): a channel always keeps one tab to show and drive.
                    let winding_down = self.tab_life().winding_down();
                    if self.tab_count() == 0 && self.is_alive() && !winding_down {
                        tracing::info!(event = "last_tab_replaced", channel_id = %self.core.channel());
                        if let Err(error) = self.new_tab(None).await {
                            tracing::warn!(event = "last_tab_replace_failed", channel_id = %self.core.channel(), %error);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether a `Target.detachedFromTarget` ends its tab: the session that left is the one
    /// the tab is tracked by, or the tab is not tracked (yet).
    fn own_session_left(&self, params: &Value) -> bool {
        let Some(target_id) = params["targetId"].as_str() else {
            return true;
        };
        match self.core.tabs().session_of(target_id) {
            Some(own) => params["sessionId"].as_str() == Some(own.as_str()),
            None => true,
        }
    }

    /// Re-reads a tab's url and title from Chrome.
    ///
    /// Chrome learns a document's title over a different channel than the page's load events,
    /// so right after a load `Target.getTargetInfo` can still show the old title; the page's
    /// own `document.title` is asked as well and wins when it has one.
    async fn refresh_info(&self, target_id: &str, session_id: &str) {
        // Both asked at once: one round trip to a distant engine, not two.
        let (reply, title) = tokio::join!(
            self.core
                .cdp()
                .call("Target.getTargetInfo", json!({ "targetId": target_id })),
            self.core.cdp().call_with(
                "Runtime.evaluate",
                json!({"expression": DOCUMENT_TITLE, "returnByValue": true}),
                Some(session_id),
                Duration::from_secs(2),
            )
        );
        let Ok(reply) = reply else {
            return;
        };
        let mut info = reply["targetInfo"].clone();
        if let Some(title) = title
            .ok()
            .and_then(|r| r["result"]["value"].as_str().map(str::to_string))
            .filter(|t| !t.trim().is_empty())
        {
            info["title"] = Value::String(title);
        }
        self.apply_info(&info);
    }

    /// A `Runtime.bindingCalled` from a tab's title observer: records the new title.
    fn title_reported(&self, session: Option<&str>, params: &Value) {
        let (Some(session), Some(title)) = (
            session,
            crate::browser::tabs::titles::reported_title(params),
        ) else {
            return;
        };
        let found = self
            .core
            .tabs()
            .by_session(session)
            .map(|t| (t.target_id, t.url));
        if let Some((target_id, url)) = found {
            self.apply_info(&json!({"targetId": target_id, "url": url, "title": title}));
        }
    }

    /// Records a `TargetInfo`'s url and title; tells panes when they changed.
    pub(in crate::browser) fn apply_info(&self, info: &Value) {
        let id = info["targetId"].as_str().unwrap_or_default();
        let url = info["url"].as_str().unwrap_or_default();
        let title = info["title"].as_str().unwrap_or_default();
        let changed = self.core.tabs().update(id, url, title);
        self.url_guard().landing(id, url);
        if changed {
            // Every tab's: each pane keeps those of the tab it watches.
            self.core.notify(PaneMessage::PageInfo {
                target_id: Some(id.to_string()),
                url: url.to_string(),
                title: title.to_string(),
            });
            self.core.notify(self.tabs_message());
        }
    }
}
