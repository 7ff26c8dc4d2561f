//! Tracking a session's tabs (`TabLife`, borrowed from the session: `session.tab_life()`):
//! attaching to a page target and preparing it (page events, file chooser interception, focus
//! emulation, logs, title observer; an agent's tab bypasses service workers), reading a tab's
//! frame tree into the frame map (`record_frame_tree`), waiting for a target to be tracked, forgetting a closed
//! one, and opening a new tab for an owner (safely against a stop that lands while Chrome is
//! still creating it). What other rooms keep, install and close per tab reaches them through
//! [`TabHooks`], which the session implements (`session/per_tab.rs`), so tracking names none of
//! them.

use std::future::Future;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::adoption::Adoption;
use super::traffic::TabTraffic;
use crate::browser::floor::{
    Ownership, PaneMessage, SessionCore, SessionError, Tab, TabEntry, TabOwner, TabPart,
};
use crate::cdp::CdpError;

/// How long to wait for a target we created to show up as attached.
const TRACK_DEADLINE: Duration = Duration::from_secs(10);

/// What the rest of the session keeps, installs and does when a tab arrives or goes (the
/// session implements it, in `session/per_tab.rs`).
pub(in crate::browser) trait TabHooks: Send + Sync {
    /// The parts other rooms keep about the tab `target_id` (flat session `session_id`) that is
    /// being tracked: its record holds them, and leaves each when it drops.
    fn parts(&self, target_id: &str, session_id: &str) -> Vec<TabPart>;
    /// Installs the scripts every document of the tab behind `session_id` runs (sent in order
    /// on its first poll; not waited on by the tracking).
    fn scripts(&self, session_id: &str) -> BoxFuture<'static, ()>;
    /// A tab was tracked on `url`: the URL guard looks at an agent's popup's first page.
    fn landed(&self, target_id: &str, url: &str);
    /// A tab closed (or was never tracked): what waits for the person in it goes (login
    /// prompts, file choosers, approvals).
    fn closed(&self, target_id: &str);
}

/// The tabs of one session coming and going.
pub(in crate::browser) struct TabLife<'s> {
    pub(in crate::browser) core: &'s SessionCore,
    /// Tabs coming and going (waits for tracking, what a host-mode stop closes).
    pub(in crate::browser) traffic: &'s TabTraffic,
    /// What the other rooms keep, install and close per tab.
    pub(in crate::browser) hooks: &'s dyn TabHooks,
}

impl TabLife<'_> {
    /// Attaches to a page target and starts tracking it as `owner`'s (idempotent: a tab
    /// already tracked keeps its owner).
    pub(crate) async fn track(&self, target_id: &str, owner: TabOwner) -> Result<(), SessionError> {
        self.track_laid_out(target_id, owner, None).await.map(drop)
    }

    /// [`Self::track`], laying the tab out at `size` with its preparation (no round trip of
    /// its own) when given. True when it did; false when the tab was tracked by another call
    /// (which did not lay it out).
    pub(crate) async fn track_laid_out(
        &self,
        target_id: &str,
        owner: TabOwner,
        size: Option<(u32, u32)>,
    ) -> Result<bool, SessionError> {
        let claimed = self.core.tabs().write(|tabs| tabs.begin_attach(target_id));
        if !claimed {
            return self.wait_tracked(target_id).await.map(|()| false);
        }
        let attached = self
            .core
            .cdp()
            .call(
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await;
        let session_id = match attached {
            Ok(reply) => reply["sessionId"].as_str().unwrap_or_default().to_string(),
            Err(error) => {
                self.core
                    .tabs()
                    .write(|tabs| tabs.abandon_attach(target_id));
                self.traffic.version.send_modify(|v| *v += 1);
                return Err(error.into());
            }
        };
        // The tab's record starts here: its logs fill from the domains enabled below, and its
        // places in the registries kept by session or target id are left when it drops.
        let parts = self.hooks.parts(target_id, &session_id);
        // The tab's preparation, sent at once and in this order (Chrome runs a session's
        // commands in order), so a browser far away costs one round trip for all of it, not
        // one per command:
        // - page events tell us when a document loaded (titles arrive with no Target event);
        // - a file chooser the page opens is reported to us, never shown (upload_file sets
        //   files);
        // - every tab behaves as the focused one: panes and agents each type into a tab of
        //   their own, in windows that cannot all have the focus at once;
        // - console and network logs from the moment the tab is ours (see `logs`);
        // - the title observer, the pane's world and the file-picker hook, installed in this
        //   document and every later one: sent here, in this order, but not waited on (the
        //   page runs them; their failures were only ever logged), so a pane's first frame
        //   does not wait for a just-started renderer to run three scripts;
        // - an agent's tab never uses service workers: its page loads and requests reach the
        //   network, where `Fetch` pauses them (a service worker answers a tab's navigation
        //   with no paused request at all, docs/measured-network.md).
        let cdp = self.core.cdp();
        let on = |method: &'static str, params: Value| cdp.call_on(&session_id, method, params);
        // In a tally of their own: not waited on by the work that tracks the tab, so not
        // counted among its round trips.
        let mut scripts = Box::pin(crate::cdp::tallied(self.hooks.scripts(&session_id)));
        let mut scripts_done = false;
        let send_scripts = std::future::poll_fn(|cx| {
            // One poll sends their commands (in order, after the ones above).
            scripts_done = scripts.as_mut().poll(cx).is_ready();
            std::task::Poll::Ready(())
        });
        // - the layout asked for (an agent's tab, in a window of its own), after the scripts.
        let lay_out = async {
            match size {
                Some(size) => {
                    let requested = self.core.layouts().request(&session_id, size);
                    Some(requested.apply(cdp).await)
                }
                None => None,
            }
        };
        let agents = matches!(owner, TabOwner::Agent { .. });
        let no_service_workers = async {
            if agents {
                let bypass = on("Network.setBypassServiceWorker", json!({"bypass": true})).await;
                if let Err(error) = bypass {
                    tracing::warn!(event = "service_worker_bypass_failed", %error);
                }
            }
        };
        let (_, _, _, _, _, (), (), laid_out, info) = tokio::join!(
            biased;
            on("Page.enable", json!({})),
            on(
                "Page.setInterceptFileChooserDialog",
                json!({"enabled": true})
            ),
            on(
                "Emulation.setFocusEmulationEnabled",
                json!({"enabled": true})
            ),
            on("Runtime.enable", json!({})),
            on("Network.enable", json!({})),
            no_service_workers,
            send_scripts,
            lay_out,
            cdp.call("Target.getTargetInfo", json!({"targetId": target_id})),
        );
        if !scripts_done {
            tokio::spawn(scripts);
        }
        let info = info.unwrap_or(Value::Null);
        let tab = Tab {
            target_id: target_id.to_string(),
            session_id,
            url: info["targetInfo"]["url"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            title: info["targetInfo"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            owner,
        };
        let landed_on = tab.url.clone();
        let created = PaneMessage::TabCreated {
            target_id: tab.target_id.clone(),
            url: tab.url.clone(),
            title: tab.title.clone(),
            opener_id: info["targetInfo"]["openerId"].as_str().map(str::to_string),
        };
        let became_active = self.core.tabs().add(TabEntry::new(tab, parts));
        self.traffic.version.send_modify(|v| *v += 1);
        self.core.notify(created);
        self.core.notify(self.core.tabs_message());
        if became_active {
            self.core.size_active();
        }
        // A popup of an agent's page can open on a page agents may not use.
        self.hooks.landed(target_id, &landed_on);
        // A layout that failed is asked again by the caller, which reports its error.
        Ok(matches!(laid_out, Some(Ok(()))))
    }

    /// Whether `target_id`, just reported created, was tracked by the call of ours that asked
    /// Chrome for it (which lays an agent's tab out with its preparation). Chrome reports a
    /// target before it answers its creator, so this waits for the calls creating tabs to be
    /// answered, then for that call to track it (each at most [`TRACK_DEADLINE`]). False
    /// when no call of ours made it, or its call ended without tracking it (failed or
    /// cancelled: its [`Adoption`] lets the target go at once): the caller tracks it then.
    pub(in crate::browser) async fn tracked_by_its_opener(&self, target_id: &str) -> bool {
        if *self.traffic.creating.borrow() == 0 && !self.traffic.adopting.contains(target_id) {
            return false;
        }
        let mut creating = self.traffic.creating.subscribe();
        let answered = creating.wait_for(|n| *n == 0);
        let _ = tokio::time::timeout(TRACK_DEADLINE, answered).await;
        let mut version = self.traffic.version.subscribe();
        let tracked = async {
            loop {
                if self.core.tabs().read(|tabs| tabs.contains(target_id)) {
                    return true;
                }
                if !self.traffic.adopting.contains(target_id) || version.changed().await.is_err() {
                    return false;
                }
            }
        };
        tokio::time::timeout(TRACK_DEADLINE, tracked)
            .await
            .unwrap_or(false)
    }

    async fn wait_tracked(&self, target_id: &str) -> Result<(), SessionError> {
        let mut version = self.traffic.version.subscribe();
        let wait = async {
            loop {
                let (tracked, attaching) = self
                    .core
                    .tabs()
                    .read(|tabs| (tabs.contains(target_id), tabs.is_attaching(target_id)));
                if tracked {
                    return Ok(());
                }
                if !attaching {
                    return Err(SessionError::UnknownTab(target_id.to_string()));
                }
                if version.changed().await.is_err() {
                    return Err(SessionError::Closed);
                }
            }
        };
        tokio::time::timeout(TRACK_DEADLINE, wait)
            .await
            .unwrap_or_else(|_| Err(SessionError::UnknownTab(target_id.to_string())))
    }

    /// Stops tracking a tab (it was closed or detached); picks a new active tab if needed. Removing
    /// its record is the forgetting: everything kept about the tab is in it (see the floor's
    /// `tab_list::entry`), dropped here, outside the tabs lock; what waits for the person in it
    /// (login prompts, file choosers and the files handed to it) is closed here too, whether or not
    /// the tab was tracked yet. The one place a closed tab is forgotten.
    pub(in crate::browser) fn untrack(&self, target_id: &str) {
        self.traffic.warm.forget(target_id);
        let (removed, switched) = self.core.tabs().write(|tabs| tabs.remove(target_id));
        self.traffic.version.send_modify(|v| *v += 1);
        self.hooks.closed(target_id);
        let Some(removed) = removed else {
            return;
        };
        drop(removed);
        self.core.notify(PaneMessage::TabClosed {
            target_id: target_id.to_string(),
        });
        if switched.is_some() {
            self.core.size_active();
        }
        self.core.notify(self.core.tabs_message());
    }

    /// Opens and tracks a tab of `owner` (about:blank by default) without making it the tab
    /// panes show; `own_window` puts it in a window of its own, where it is the active tab and
    /// paints. Returns its target id.
    pub(in crate::browser) async fn open_tab(
        &self,
        url: Option<&str>,
        owner: TabOwner,
        own_window: bool,
    ) -> Result<String, SessionError> {
        self.open_tab_with(url, owner, own_window, None).await
    }

    /// Opens and tracks a tab of `owner`'s in a window of its own (an agent's), laid out at
    /// the channel's viewport with its preparation; returns its target id.
    pub(in crate::browser) async fn open_tab_laid_out(
        &self,
        owner: TabOwner,
    ) -> Result<String, SessionError> {
        let size = Some(self.core.viewport());
        if let Some(warm) = self.traffic.warm.take() {
            tracing::debug!(event = "warm_tab_taken", channel_id = %self.core.channel(), target_id = %warm);
            match self.adopt(&warm, owner.clone(), size).await {
                Ok(target_id) => return Ok(target_id),
                Err(error) => {
                    // Gone meanwhile (a crash, a reset): a tab of its own is opened instead.
                    tracing::debug!(event = "warm_tab_lost", channel_id = %self.core.channel(), %error);
                    let _ = self
                        .core
                        .cdp()
                        .call("Target.closeTarget", json!({ "targetId": warm }))
                        .await;
                }
            }
        }
        self.open_tab_with(None, owner, true, size).await
    }

    /// [`Self::open_tab`], laying the tab out at `size` when given.
    async fn open_tab_with(
        &self,
        url: Option<&str>,
        owner: TabOwner,
        own_window: bool,
        size: Option<(u32, u32)>,
    ) -> Result<String, SessionError> {
        let url = match url {
            Some(url) => super::navigation::check_url(url)?,
            None => "about:blank".to_string(),
        };
        if !self.core.is_alive() {
            return Err(SessionError::Closed);
        }
        let mut params = json!({ "url": url });
        if self.core.ownership() == Ownership::OwnTabs || own_window {
            // The user's Chrome: a window of Porthole's own, opened without taking focus, so
            // the tab is active (it paints) without covering or hiding anything of the user's.
            // An agent's tab: a window of its own, so it paints beside everyone else's.
            params["newWindow"] = json!(true);
            params["background"] = json!(true);
            params["focus"] = json!(false);
        }
        // Created in a task of its own: a caller cancelled mid-way (a pane's stop aborts its
        // queued commands) still leaves the new target's id where a stop finds it, or closes
        // it when the stop already looked (`winding_down` is read under the `opening` lock
        // that `close_own_tabs` drains under, so every created tab meets one or the other).
        self.traffic.creating.send_modify(|n| *n += 1);
        // This call tracks the new target itself, for as long as it lives.
        let adoption = Adoption::new(&self.traffic.adopting, &self.traffic.version);
        let (cdp, creating, opening, winding_down, claim) = (
            self.core.cdp().clone(),
            self.traffic.creating.clone(),
            self.traffic.opening.clone(),
            self.traffic.winding_down.clone(),
            adoption.claim(),
        );
        // Its round trip is the caller's (counted in the caller's tally).
        let created = tokio::spawn(crate::cdp::carried(async move {
            let created = cdp.call("Target.createTarget", params).await;
            let mut stopped_meanwhile = None;
            if let Some(id) = created.as_ref().ok().and_then(|r| r["targetId"].as_str()) {
                let mut opening = opening.lock().expect("opening lock");
                if winding_down.load(std::sync::atomic::Ordering::SeqCst) {
                    stopped_meanwhile = Some(id.to_string());
                } else {
                    opening.insert(id.to_string());
                    claim.made(id);
                }
            }
            if let Some(id) = stopped_meanwhile {
                // Stopped while Chrome was opening it: close it rather than leave it behind.
                let _ = cdp
                    .call("Target.closeTarget", json!({ "targetId": id }))
                    .await;
                creating.send_modify(|n| *n = n.saturating_sub(1));
                return Err(SessionError::Closed);
            }
            creating.send_modify(|n| *n = n.saturating_sub(1));
            created.map_err(SessionError::from)
        }))
        .await
        .map_err(|_| SessionError::Closed)??;
        let target_id = created["targetId"]
            .as_str()
            .ok_or_else(|| CdpError::Shape {
                method: "Target.createTarget".into(),
                detail: "no targetId".into(),
            })?
            .to_string();
        if self
            .traffic
            .winding_down
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            // A stop is closing our tabs: this one is in `opening`, so it goes with them.
            return Err(SessionError::Closed);
        }
        self.adopt(&target_id, owner, size).await
    }

    /// Opens the next agent tab ahead (`warm.rs`), in the background, when none is ready:
    /// never in host mode (it would be a window on the user's screen) or for a closed session.
    pub(in crate::browser) fn keep_warm(&self) {
        if self.core.ownership() != Ownership::AllTabs || !self.core.is_alive() {
            return;
        }
        let traffic = self.traffic;
        let channel = self.core.channel().to_string();
        traffic.warm.open_ahead(
            self.core.cdp(),
            &traffic.creating,
            &traffic.winding_down,
            &channel,
        );
    }

    /// Whether `target_id` is the agent tab opened ahead (the event loop leaves it alone).
    pub(in crate::browser) fn is_warm(&self, target_id: &str) -> bool {
        self.traffic.warm.is(target_id)
    }

    /// Tracks `target_id`, a tab Chrome opened for us, as `owner`'s, laid out at `size` when
    /// given; its id.
    async fn adopt(
        &self,
        target_id: &str,
        owner: TabOwner,
        size: Option<(u32, u32)>,
    ) -> Result<String, SessionError> {
        let target_id = target_id.to_string();
        let tracked = self.track_laid_out(&target_id, owner.clone(), size).await;
        self.traffic
            .opening
            .lock()
            .expect("opening lock")
            .remove(&target_id);
        let laid_out = tracked?;
        if let (Some(size), false) = (size, laid_out) {
            let session = self
                .core
                .tab_session(&target_id)
                .ok_or_else(|| SessionError::UnknownTab(target_id.clone()))?;
            // Tracked by another call meanwhile, or its layout failed: laid out now.
            self.core.size_tab_to(&session, size).await?;
        }
        // The target-created event may have won the attach and recorded another owner.
        let changed = self.core.tabs().write(|tabs| {
            let differs = tabs.get(&target_id).is_some_and(|t| t.owner != owner);
            differs && tabs.set_owner(&target_id, owner)
        });
        if changed {
            self.core.notify(self.core.tabs_message());
        }
        Ok(target_id)
    }
}

/// Records every child frame the tab behind flat `session_id` holds now (`Page.getFrameTree`),
/// for frames attached before the tab was tracked or before its `Page.enable` (a popup's
/// frames its opener wrote synchronously): `Page.enable` replays no `frameAttached`. Frames
/// inside an out-of-process frame are in that frame's own session and are not seen here.
pub(in crate::browser) async fn record_frame_tree(
    core: &SessionCore,
    session_id: &str,
) -> Result<(), CdpError> {
    let tree = core
        .cdp()
        .call_on(session_id, "Page.getFrameTree", json!({}))
        .await?;
    let mut frames = Vec::new();
    child_frames(&tree["frameTree"], &mut frames);
    for frame in frames {
        core.tabs().frame_attached(session_id, &frame);
    }
    Ok(())
}

/// The ids of the frames below `node` of a `Page.getFrameTree` answer.
fn child_frames(node: &Value, into: &mut Vec<String>) {
    for child in node["childFrames"].as_array().into_iter().flatten() {
        if let Some(id) = child["frame"]["id"].as_str() {
            into.push(id.to_string());
        }
        child_frames(child, into);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_tree_gives_every_frame_below_the_main_one() {
        let tree = json!({
            "frame": {"id": "main"},
            "childFrames": [
                {"frame": {"id": "a"}, "childFrames": [{"frame": {"id": "a1"}}]},
                {"frame": {"id": "b"}},
            ],
        });
        let mut frames = Vec::new();
        child_frames(&tree, &mut frames);
        assert_eq!(frames, ["a", "a1", "b"]);
    }
}
