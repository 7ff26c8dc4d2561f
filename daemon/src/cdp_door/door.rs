//! One client's connection through the door: the agent let in (`calls::DoorEntry`) and what the
//! client has been shown — its flat sessions (each of one of the agent's tabs, or of a frame or
//! worker inside one), the tabs announced to it and auto-attached for it, the tabs it opened.
//!
//! Which of Chrome's events reach the client is decided here ([`Door::pass_event`]): events of
//! its own sessions (their cookie values hidden, `cookie_mask`), target events of tabs it was
//! told about, and the download events of its tabs' downloads once it asked for them
//! (`setDownloadBehavior` with `eventsEnabled`; without the file's path on the daemon's side).
//! Nothing else of the shared browser connection ever reaches it.
//!
//! Short lock: `seen` is never held across an await.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::{cookie_mask, wire};
use crate::calls::DoorEntry;
use crate::cdp::CdpEvent;

/// One client's connection.
pub(super) struct Door {
    pub(super) entry: DoorEntry,
    seen: Mutex<Seen>,
    /// For a page socket (`…/devtools/page/<id>`): the session its messages without a
    /// `sessionId` go to, and whose events reach it without one.
    page: Mutex<Option<String>>,
    /// When the client's last command came.
    last_command: Mutex<std::time::Instant>,
    /// The client's burst of acts, as panes see it (`activity.rs`).
    pub(super) activity: super::activity::Activity,
}

impl Drop for Door {
    /// A burst still open when the client leaves ends now: no pane keeps showing it driving.
    fn drop(&mut self) {
        if let Some(burst) = self.activity.take_open() {
            burst.end(&self.entry);
        }
    }
}

#[derive(Default)]
struct Seen {
    /// The client's flat sessions → the agent's tab each acts in.
    sessions: HashMap<String, String>,
    /// Sessions the door attached for the client at browser level (detached when it leaves).
    roots: Vec<String>,
    /// `Target.setDiscoverTargets` is on.
    discover: bool,
    /// `Target.setAutoAttach` is on at browser level.
    auto_attach: bool,
    /// Tabs the client was told of by `Target.targetCreated`.
    announced: HashSet<String>,
    /// Tabs auto-attached for the client.
    auto_attached: HashSet<String>,
    /// Tabs this connection opened (closed by `Browser.close`).
    opened: Vec<String>,
    /// Browser-level sessions the client made with `Target.attachToBrowserTarget` (the door
    /// plays them: their commands are browser-level commands).
    browser_sessions: HashSet<String>,
    /// The client asked for download events (`setDownloadBehavior {eventsEnabled: true}`).
    download_events: bool,
    /// Downloads of its tabs it was told of and that have not ended, by guid.
    downloads: HashSet<String>,
}

impl Door {
    pub(super) fn new(entry: DoorEntry) -> Self {
        Self {
            entry,
            seen: Mutex::new(Seen::default()),
            page: Mutex::new(None),
            last_command: Mutex::new(std::time::Instant::now()),
            activity: Default::default(),
        }
    }

    /// A command came from the client.
    pub(super) fn command_came(&self) {
        *self.last_command.lock().expect("door clock lock") = std::time::Instant::now();
    }

    /// How long the client has sent nothing.
    pub(super) fn quiet_for(&self) -> std::time::Duration {
        self.last_command.lock().expect("door clock lock").elapsed()
    }

    fn seen<T>(&self, f: impl FnOnce(&mut Seen) -> T) -> T {
        f(&mut self.seen.lock().expect("door lock"))
    }

    /// The page socket's own session, if this is one.
    pub(super) fn page_session(&self) -> Option<String> {
        self.page.lock().expect("door page lock").clone()
    }

    pub(super) fn set_page_session(&self, session: &str) {
        *self.page.lock().expect("door page lock") = Some(session.to_string());
    }

    /// The agent's tab the client's session `session` acts in, if the session is the client's.
    pub(super) fn tab_of(&self, session: &str) -> Option<String> {
        self.seen(|s| s.sessions.get(session).cloned())
    }

    /// A new browser-level session of the client's (`Target.attachToBrowserTarget`).
    pub(super) fn new_browser_session(&self) -> String {
        self.seen(|s| {
            let session = format!("porthole-browser-{}", s.browser_sessions.len() + 1);
            s.browser_sessions.insert(session.clone());
            session
        })
    }

    /// Whether `session` is one of the client's browser-level sessions.
    pub(super) fn is_browser_session(&self, session: &str) -> bool {
        self.seen(|s| s.browser_sessions.contains(session))
    }

    /// Records a session the door attached for the client at browser level.
    pub(super) fn attached(&self, session: &str, target_id: &str) {
        self.seen(|s| {
            s.sessions
                .insert(session.to_string(), target_id.to_string());
            s.roots.push(session.to_string());
        });
    }

    /// Forgets a session the client detached.
    pub(super) fn detached(&self, session: &str) {
        self.seen(|s| {
            s.sessions.remove(session);
            s.roots.retain(|r| r != session);
        });
    }

    pub(super) fn set_discover(&self, on: bool) {
        self.seen(|s| s.discover = on);
    }

    pub(super) fn set_auto_attach(&self, on: bool) {
        self.seen(|s| s.auto_attach = on);
    }

    /// Whether `target_id` is to be announced (discovery on, not told yet); marks it told.
    pub(super) fn to_announce(&self, target_id: &str) -> bool {
        self.seen(|s| s.discover && s.announced.insert(target_id.to_string()))
    }

    /// Whether `target_id` is to be auto-attached (auto-attach on, not attached yet); marks it.
    pub(super) fn to_auto_attach(&self, target_id: &str) -> bool {
        self.seen(|s| s.auto_attach && s.auto_attached.insert(target_id.to_string()))
    }

    /// The client asked for download events: the downloads of its tabs reach it from now on.
    pub(super) fn want_download_events(&self) {
        self.seen(|s| s.download_events = true);
    }

    /// Records a tab this connection opened.
    pub(super) fn opened(&self, target_id: &str) {
        self.seen(|s| s.opened.push(target_id.to_string()));
    }

    /// The tabs this connection opened.
    pub(super) fn opened_tabs(&self) -> Vec<String> {
        self.seen(|s| s.opened.clone())
    }

    /// The sessions the door attached for the client, taken (it leaves).
    pub(super) fn take_roots(&self) -> Vec<String> {
        self.seen(|s| std::mem::take(&mut s.roots))
    }

    /// The message for the client of Chrome's `event`, when it is the client's to see.
    pub(super) fn pass_event(&self, event: &CdpEvent) -> Option<String> {
        let params = event.params.as_ref();
        let page = self.page_session();
        match event.session_id.as_deref() {
            Some(session) => {
                let tab = self.tab_of(session)?;
                match event.method.as_str() {
                    // A frame or worker of the client's tab, attached to its session.
                    "Target.attachedToTarget" => {
                        if let Some(child) = params["sessionId"].as_str() {
                            self.seen(|s| s.sessions.insert(child.to_string(), tab));
                        }
                    }
                    "Target.detachedFromTarget" => {
                        if let Some(child) = params["sessionId"].as_str() {
                            self.seen(|s| s.sessions.remove(child));
                        }
                    }
                    _ => {}
                }
                let to = (page.as_deref() != Some(session)).then_some(session);
                if cookie_mask::carries_cookies(&event.method) {
                    let mut masked = params.clone();
                    cookie_mask::mask(self.entry.actor.id(), &mut masked);
                    return Some(wire::event(&event.method, &masked, to));
                }
                Some(wire::event(&event.method, params, to))
            }
            None => self.pass_browser_event(&event.method, params),
        }
    }

    fn pass_browser_event(&self, method: &str, params: &Value) -> Option<String> {
        let passes = match method {
            "Target.detachedFromTarget" => {
                let session = params["sessionId"].as_str()?;
                self.seen(|s| {
                    let known = s.sessions.remove(session).is_some();
                    s.roots.retain(|r| r != session);
                    known
                })
            }
            "Target.targetInfoChanged" => {
                let target = params["targetInfo"]["targetId"].as_str()?;
                self.seen(|s| s.announced.contains(target))
            }
            "Target.targetDestroyed" => {
                let target = params["targetId"].as_str()?;
                self.seen(|s| {
                    s.auto_attached.remove(target);
                    s.announced.remove(target)
                })
            }
            "Browser.downloadWillBegin" | "Browser.downloadProgress" => {
                return self.pass_download(method, params);
            }
            _ => false,
        };
        passes.then(|| wire::event(method, params, None))
    }

    /// A download event, when the download is of one of the agent's tabs (its main frame) and
    /// the client asked for them; without the file's path, which is the daemon's.
    fn pass_download(&self, method: &str, params: &Value) -> Option<String> {
        let guid = params["guid"].as_str()?;
        let passes = match method {
            "Browser.downloadWillBegin" => {
                let frame = params["frameId"].as_str()?;
                let wanted = self.seen(|s| s.download_events);
                let own = wanted
                    && self
                        .entry
                        .session
                        .agent_tabs()
                        .check_access(&self.entry.actor, frame)
                        .is_ok();
                own && self.seen(|s| s.downloads.insert(guid.to_string()))
            }
            _ => self.seen(|s| {
                let known = s.downloads.contains(guid);
                if params["state"] != "inProgress" {
                    s.downloads.remove(guid);
                }
                known
            }),
        };
        if !passes {
            return None;
        }
        let mut params = params.clone();
        if let Some(map) = params.as_object_mut() {
            map.remove("filePath");
        }
        Some(wire::event(method, &params, None))
    }

    /// The page a tab of the client's opened (`Target.targetCreated` with its `openerId`).
    pub(super) fn popup_of(&self, event: &CdpEvent) -> Option<String> {
        if event.session_id.is_some() || event.method != "Target.targetCreated" {
            return None;
        }
        let info = &event.params["targetInfo"];
        let opener = info["openerId"].as_str()?;
        let ours = self.seen(|s| s.sessions.values().any(|tab| tab == opener));
        (ours && info["type"] == "page")
            .then(|| info["targetId"].as_str().map(str::to_string))
            .flatten()
    }

    /// The client left: the sessions the door attached for it are detached (its frames' and
    /// workers' go with them).
    pub(super) fn leave(&self) {
        let cdp = self.entry.session.cdp();
        for session in self.take_roots() {
            cdp.fire(
                "Target.detachFromTarget",
                json!({ "sessionId": session }),
                None,
            );
        }
    }
}
