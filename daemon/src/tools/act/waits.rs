//! Waiting, without fixed sleeps: `wait_for_selector` / `wait_for_text` polled every 250 ms
//! until they match or `wait_timeout_ms` passes (a timeout is an error), and settling after an
//! action — until the DOM has been quiet for a couple of rendering frames, and, if the action
//! started a navigation of the main frame (seen in the tab's events by then), until that
//! navigation's load, and (bounded) for the requests the action started and the render after
//! them — with a report of what changed (URL, title, new tabs, dialogs). A tab the action
//! opened becomes the one the caller acts in.

use std::time::{Duration, Instant};

use porthole_mcp::vocabulary::wait::{WaitFor, WAIT_POLL_INTERVAL};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::cdp::CdpEvent;
use crate::tools::error::ToolError;
use crate::tools::tab::driver::Tab;

/// How long an explicit navigation (navigate, history, reload) may take to show its first
/// event; it ends at that event, so it only costs time when nothing navigates.
const NAVIGATION_GRACE: Duration = Duration::from_millis(150);
/// The longest we follow a navigation to its load event.
const LOAD_DEADLINE: Duration = Duration::from_secs(10);
/// DOM quiet: this many rendering frames in a row without a mutation (one, when the page
/// scheduled no frame callback and no timer since the action) …
const QUIET_FRAMES: u32 = 2;
/// … or at most this long (a page that animates forever).
const QUIET_MAX: Duration = Duration::from_millis(500);
/// The longest we wait for a tab the action opened to be listed.
const NEW_TAB_DEADLINE: Duration = Duration::from_secs(2);
/// How often the tab list is looked at meanwhile.
const NEW_TAB_POLL: Duration = Duration::from_millis(10);
/// A new tab's URL and load state.
const LOAD_STATE: &str = include_str!("js/load-state.js");
/// The DOM-quiet wait, then an expression in the same call: `(quiet, then)`.
const QUIET_THEN: &str = include_str!("js/quiet-then.js");
/// Kinds of request an action's result waits for (not navigations, streams or beacons, which
/// are followed elsewhere or never end).
const AWAITED_REQUESTS: [&str; 6] = ["XHR", "Fetch", "Script", "Stylesheet", "Image", "Font"];

/// The state of a tab before an action.
pub struct Before {
    url: String,
    title: String,
    tabs: Vec<String>,
    events: broadcast::Receiver<CdpEvent>,
    /// The page's animation-frame and timer ids before the action (`page.js` `marks()`): the
    /// first DOM-quiet wait after it ends after one quiet frame when the page scheduled
    /// nothing since. Taken by that wait.
    marks: Option<Value>,
    /// The first DOM-quiet wait begins once the page saw the mouse button release armed by
    /// [`arm_release`] (it is sent right behind the input, not after its answer).
    after_release: bool,
}

impl Before {
    /// The action's input and the settle go out back to back: see [`arm_release`].
    pub fn settle_after_release(&mut self) {
        self.after_release = true;
    }

    pub fn is_after_release(&self) -> bool {
        self.after_release
    }
}

/// What the DOM-quiet wait sent right behind an input waits for first (see [`arm_release`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arm {
    /// The mouse button release of a click.
    Release,
    /// The text typed into a field after a click on it (its `input` event).
    Typed,
}

/// Arms the main frame's helper for the mouse button release a click on ref `r` is about to
/// cause, so the settle after it can be sent right behind the input (one round trip less):
/// its DOM-quiet wait begins once the page has seen the release (bounded, in `page.js`).
/// False when it could not be armed (the ref's element is not of the main document, or for
/// [`Arm::Typed`] not a field that takes text).
pub async fn arm_release(tab: &Tab, r: &str, arm: Arm) -> bool {
    let kind = match arm {
        Arm::Release => "mouseup",
        Arm::Typed => "input",
    };
    tab.helper("armRelease", &[Value::from(r), Value::from(kind)])
        .await
        .is_ok_and(|armed| armed == true)
}

/// Records the tab's state; call before acting.
pub async fn before(tab: &Tab) -> Before {
    let mut before = before_navigation(tab);
    let here = tab.helper("here", &[]).await.unwrap_or_default();
    let text = |k: &str| here[k].as_str().unwrap_or_default().to_string();
    (before.url, before.title) = (text("url"), text("title"));
    before.marks = Some(here["marks"].clone()).filter(Value::is_array);
    before
}

/// Records what an explicit navigation (navigate, history, reload) needs to know before it:
/// the tabs and, from now on, the tab's events. Nothing is read from the page (a round trip
/// to the browser): where it was is not reported after a navigation, and its timers belong
/// to the document the navigation replaces.
pub fn before_navigation(tab: &Tab) -> Before {
    let events = tab.cdp().subscribe();
    let tabs = tab
        .visible_tabs()
        .into_iter()
        .map(|t| t.target_id)
        .collect();
    Before {
        url: String::new(),
        title: String::new(),
        tabs,
        events,
        // The new document's marks are read as its first DOM-quiet wait begins: one quiet
        // frame is enough unless the page asks for more work from then on.
        marks: Some(Value::from("now")),
        after_release: false,
    }
}

/// What the tab's events said about the main frame since [`before`].
#[derive(Default)]
struct Seen {
    /// A navigation of the main frame was requested or started.
    navigating: bool,
    /// … and it loaded (or stayed within the document).
    loaded: bool,
    /// The page opened a window.
    window_open: bool,
    /// A JavaScript dialog opened: the page is blocked until someone answers it.
    blocked: bool,
    /// The page opened a file chooser (intercepted, never shown).
    file_chooser: bool,
    /// Requests started since the action that have not finished (request ids).
    requests: std::collections::HashSet<String>,
    /// Where the page was when the last DOM-quiet wait ended: `(url, title)`; cleared when a
    /// navigation shows up after it.
    location: Option<(String, String)>,
    /// An expression run after each DOM-quiet wait, and its value after the last one.
    then: Option<(String, Option<Value>)>,
}

impl Seen {
    fn observe(&mut self, tab: &Tab, event: &CdpEvent) {
        let main_frame = event.params["frameId"].as_str() == Some(tab.target_id.as_str());
        match event.method.as_str() {
            "Page.frameStartedLoading"
            | "Page.frameRequestedNavigation"
            | "Page.frameStartedNavigating"
                if main_frame =>
            {
                self.navigating = true;
                self.loaded = false;
                self.location = None;
            }
            "Page.navigatedWithinDocument" if main_frame => {
                self.navigating = true;
                self.loaded = true;
                self.location = None;
            }
            "Page.loadEventFired" if self.navigating => self.loaded = true,
            "Page.frameStoppedLoading" if self.navigating && main_frame => self.loaded = true,
            "Page.windowOpen" => self.window_open = true,
            "Page.fileChooserOpened" => self.file_chooser = true,
            "Network.requestWillBeSent"
                if event.params["type"]
                    .as_str()
                    .is_some_and(|t| AWAITED_REQUESTS.contains(&t)) =>
            {
                if let Some(id) = event.params["requestId"].as_str() {
                    self.requests.insert(id.to_string());
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Some(id) = event.params["requestId"].as_str() {
                    self.requests.remove(id);
                }
            }
            // The tools' world of a new document, learnt here as well as by the session's
            // event task (which can be a round trip behind, busy with calls of its own): the
            // DOM-quiet wait after a navigation goes to the new document's world, not to the
            // old one's, which would fail and cost a round trip more.
            "Runtime.executionContextsCleared" => tab
                .browser
                .worlds()
                .cleared(&tab.session_id, event.received),
            "Runtime.executionContextCreated" => {
                let context = &event.params["context"];
                tab.browser.worlds().context_created(
                    &tab.session_id,
                    context,
                    event.received,
                    || context["auxData"]["frameId"].as_str() == Some(tab.target_id.as_str()),
                );
            }
            _ => {}
        }
    }
}

/// After an input action (click, typing, a form fill): waits until the page reflects it and
/// says what changed (empty when nothing did). No fixed window: the DOM-quiet wait in the page
/// is also the round trip after which any navigation the action requested (even from a
/// `setTimeout(0)` handler) has shown up in the tab's events; only then is its load awaited.
/// And with `then` (an expression in the tools' world of the main frame), its
/// value as the settled page gives it: evaluated right after each DOM-quiet wait in the same
/// call, so it costs no round trip of its own; the last wait's is returned. `None` when no
/// wait ran it to the end (a dialog blocked the page): the caller asks on its own.
pub async fn settle(
    tab: &Tab,
    mut before: Before,
    then: Option<&str>,
) -> (Vec<String>, Option<Value>) {
    let mut notes = Vec::new();
    let mut seen = Seen {
        then: then.map(|t| (t.to_string(), None)),
        ..Seen::default()
    };
    quiet(tab, &mut before, &mut seen, &mut notes).await;
    if seen.navigating && !seen.blocked {
        follow_load(tab, &mut before, &mut seen, &mut notes).await;
        if seen.loaded && !seen.blocked {
            quiet(tab, &mut before, &mut seen, &mut notes).await;
        }
    }
    // Requests the action started: wait for them (bounded), then for the render after them,
    // which may start more.
    let network_max = tab.browser.settle_limits().network;
    let network_end = Instant::now() + network_max;
    while !seen.requests.is_empty() && !seen.blocked && !seen.navigating {
        if !requests_done(tab, &mut before, &mut seen, &mut notes, network_end).await {
            notes.push(format!(
                "{} request(s) this action started were still running after {} ms \
                 (tools.settle_network_ms).",
                seen.requests.len(),
                network_max.as_millis()
            ));
            break;
        }
        quiet(tab, &mut before, &mut seen, &mut notes).await;
    }
    if seen.window_open {
        wait_new_tab(tab, &before).await;
    }
    if seen.file_chooser {
        notes.push(
            "The page opened a file chooser (not shown): set the input's files with \
             upload_file."
                .into(),
        );
    }
    let then = seen.then.as_mut().and_then(|(_, value)| value.take());
    (changes(tab, &before, notes, &seen).await, then)
}

/// After an explicit navigation (navigate, history, reload): follows it to its load, then
/// waits for DOM quiet; returns where the page is then, `(url, title)`, when the quiet wait
/// saw it (else the caller asks). A tab the navigation opened becomes the caller's, as after
/// an action.
pub async fn settle_navigation(tab: &Tab, mut before: Before) -> Option<(String, String)> {
    let mut notes = Vec::new();
    let mut seen = Seen::default();
    let started = Instant::now();
    // The first event ends the grace at once; a history step with no navigation ends it.
    let grace_end = Instant::now() + NAVIGATION_GRACE;
    while !seen.navigating && !seen.blocked {
        let Some(event) = next_event(&mut before.events, &tab.session_id, grace_end).await else {
            break;
        };
        if handle_dialog(tab, &event, &mut notes).await {
            seen.blocked = true;
        } else {
            seen.observe(tab, &event);
        }
    }
    let first_event = started.elapsed();
    if seen.navigating && !seen.blocked {
        follow_load(tab, &mut before, &mut seen, &mut notes).await;
    }
    let loaded = started.elapsed();
    if !seen.blocked {
        // The tab's navigation history is asked for beside the DOM-quiet wait (no round trip
        // of its own) and kept while no navigation follows: a `go_back` next checks and takes
        // its entry from it instead of asking first.
        tokio::join!(
            quiet(tab, &mut before, &mut seen, &mut notes),
            keep_history(tab)
        );
    }
    let quiet_done = started.elapsed();
    new_tabs(tab, &before, &mut notes).await;
    // Where an explicit navigation's settle spends its time, after the command's reply.
    tracing::debug!(
        event = "navigation_settled",
        first_event_ms = first_event.as_millis() as u64,
        load_ms = (loaded - first_event).as_millis() as u64,
        quiet_ms = (quiet_done - loaded).as_millis() as u64,
        located = seen.location.is_some()
    );
    seen.location
}

/// Reads the tab's navigation history and keeps it on the session for the next history
/// step (see `browser::url_guard`), unless a navigation is received after it was asked for.
async fn keep_history(tab: &Tab) {
    let asked = Instant::now();
    let history = tab
        .cdp()
        .call_on(
            &tab.session_id,
            "Page.getNavigationHistory",
            serde_json::json!({}),
        )
        .await;
    if let Ok(history) = history {
        tab.browser
            .url_guard()
            .keep_history(&tab.target_id, asked, history);
    }
}

/// Waits (up to [`LOAD_DEADLINE`]) until the navigation in `seen` loaded.
async fn follow_load(tab: &Tab, before: &mut Before, seen: &mut Seen, notes: &mut Vec<String>) {
    let end = Instant::now() + LOAD_DEADLINE;
    while !seen.loaded && !seen.blocked {
        let Some(event) = next_event(&mut before.events, &tab.session_id, end).await else {
            break;
        };
        if handle_dialog(tab, &event, notes).await {
            seen.blocked = true;
        } else {
            seen.observe(tab, &event);
        }
    }
}

/// Follows the tab's events until every request in `seen` finished (true) or `end` passed.
async fn requests_done(
    tab: &Tab,
    before: &mut Before,
    seen: &mut Seen,
    notes: &mut Vec<String>,
    end: Instant,
) -> bool {
    while !seen.requests.is_empty() {
        let Some(event) = next_event(&mut before.events, &tab.session_id, end).await else {
            return false;
        };
        if handle_dialog(tab, &event, notes).await {
            seen.blocked = true;
            return true;
        }
        seen.observe(tab, &event);
    }
    true
}

/// Runs the in-page DOM-quiet wait, answering dialogs that open meanwhile (so it can end) and
/// noting navigation events; then takes in the events that arrived before its reply.
async fn quiet(tab: &Tab, before: &mut Before, seen: &mut Seen, notes: &mut Vec<String>) {
    // What arrived so far first (a new document's world among it).
    take_queued(tab, before, seen, notes).await;
    if seen.blocked {
        return;
    }
    seen.location = None;
    let since = before.marks.take().unwrap_or(Value::Null);
    let after_release = std::mem::take(&mut before.after_release);
    // The helper already in the world (made again with it after a navigation), not a fresh
    // copy of page.js to parse on every action.
    let mut quiet_js = crate::tools::tab::driver::helper_call(
        "quiet",
        &[
            json!(QUIET_FRAMES),
            json!(QUIET_MAX.as_millis() as u64),
            since,
            json!(after_release),
        ],
    );
    if let Some((then, value)) = seen.then.as_mut() {
        *value = None;
        quiet_js = format!("({QUIET_THEN})({quiet_js}, () => ({then}))");
    }
    let deadline = QUIET_MAX + Duration::from_secs(2);
    let started = Instant::now();
    let end = started + deadline;
    let quiet = tab.eval(&quiet_js, deadline);
    tokio::pin!(quiet);
    loop {
        tokio::select! {
            biased;
            event = next_event(&mut before.events, &tab.session_id, end) => match event {
                Some(event) => {
                    if handle_dialog(tab, &event, notes).await {
                        // The page is blocked: the quiet wait cannot end until it is answered.
                        seen.blocked = true;
                        break;
                    }
                    seen.observe(tab, &event);
                }
                None => break,
            },
            done = &mut quiet => {
                if let Ok(v) = &done {
                    tracing::debug!(
                        event = "dom_quiet",
                        elapsed_ms = started.elapsed().as_millis() as u64,
                        page_scheduled = v["busy"].as_bool()
                    );
                }
                if let (Some((_, value)), Ok(v)) = (seen.then.as_mut(), &done) {
                    *value = v.get("then").cloned();
                }
                seen.location = done.ok().and_then(|v| {
                    Some((v["url"].as_str()?.to_string(), v["title"].as_str()?.to_string()))
                });
                break;
            }
        }
    }
    // Events are delivered in the order Chrome sent them, so whatever the page did before the
    // reply is queued by now.
    take_queued(tab, before, seen, notes).await;
}

/// Takes in the tab's events already received, answering nothing (dialogs are noted).
async fn take_queued(tab: &Tab, before: &mut Before, seen: &mut Seen, notes: &mut Vec<String>) {
    loop {
        match before.events.try_recv() {
            Ok(event) if event.session_id.as_deref() == Some(tab.session_id.as_str()) => {
                if handle_dialog(tab, &event, notes).await {
                    seen.blocked = true;
                } else {
                    seen.observe(tab, &event);
                }
            }
            Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
            Err(_) => break,
        }
    }
}

/// Waits until the tab list shows a tab that was not there before (the session learns of new
/// targets from its own events), up to [`NEW_TAB_DEADLINE`].
async fn wait_new_tab(tab: &Tab, before: &Before) {
    let end = Instant::now() + NEW_TAB_DEADLINE;
    while Instant::now() < end {
        let tabs = tab.visible_tabs();
        if tabs.iter().any(|t| !before.tabs.contains(&t.target_id)) {
            return;
        }
        tokio::time::sleep(NEW_TAB_POLL).await;
    }
}

/// What changed since `before`: URL, title, new tabs; after `notes` (dialogs). A page blocked
/// by a dialog cannot be asked for its location.
async fn changes(tab: &Tab, before: &Before, mut notes: Vec<String>, seen: &Seen) -> Vec<String> {
    // Where the last DOM-quiet wait left the page (no navigation showed up after it).
    let known = seen.location.clone();
    let location = match (known, seen.blocked) {
        (_, true) => Err(ToolError::msg("blocked by a dialog")),
        (Some(known), false) => Ok(known),
        (None, false) => tab.location().await,
    };
    if let Ok((url, title)) = location {
        if url != before.url {
            notes.push(format!("URL changed: {url}"));
        }
        if title != before.title {
            notes.push(format!("Title changed: {title:?}"));
        }
    }
    new_tabs(tab, before, &mut notes).await;
    notes
}

/// Notes the tabs opened since `before`; the first becomes the one the caller acts in.
async fn new_tabs(tab: &Tab, before: &Before, notes: &mut Vec<String>) {
    let tabs = tab.visible_tabs();
    let mut followed = false;
    for (i, t) in tabs.iter().enumerate() {
        if before.tabs.contains(&t.target_id) {
            continue;
        }
        // The first tab the action opened becomes the one the caller acts in.
        if !followed
            && tab
                .browser
                .agent_tabs()
                .use_tab(&tab.actor, &t.target_id)
                .await
                .is_ok()
        {
            followed = true;
            let url = loaded_url(tab, &t.target_id).await.unwrap_or(t.url.clone());
            let back = before
                .tabs
                .iter()
                .position(|id| *id == tab.target_id)
                .map(|i| format!(" (switch_tab {} goes back)", i + 1))
                .unwrap_or_default();
            notes.push(format!(
                "A new tab opened and you now act in it: [{}] {url}{back}",
                i + 1
            ));
        } else {
            notes.push(format!(
                "A new tab opened: [{}] {} (use switch_tab to act on it)",
                i + 1,
                t.url
            ));
        }
    }
}

/// Waits (up to `tools.new_tab_load_ms`) until the tab `target_id` has loaded a document other than
/// the blank one it starts with; returns its URL then.
async fn loaded_url(tab: &Tab, target_id: &str) -> Option<String> {
    let session = tab.browser.tab_session(target_id)?;
    let started = Instant::now();
    let end = started + tab.browser.settle_limits().new_tab_load;
    let mut url = None;
    while Instant::now() < end {
        let state = crate::tools::tab::driver::eval_on(
            &tab.browser,
            &session,
            LOAD_STATE,
            Duration::from_secs(2),
        )
        .await;
        if let Ok(v) = state {
            url = v["url"].as_str().map(str::to_string);
            let blank = url.as_deref() == Some("about:blank");
            // A tab opened blank on purpose (window.open()) stays blank: a second is enough.
            if v["state"] == "complete" && (!blank || started.elapsed() > Duration::from_secs(1)) {
                return url;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    url
}

/// The next event of `session` (or a browser-level one), or `None` at `end`.
async fn next_event(
    events: &mut broadcast::Receiver<CdpEvent>,
    session: &str,
    end: Instant,
) -> Option<CdpEvent> {
    loop {
        let left = end.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, events.recv()).await {
            Ok(Ok(event)) if event.session_id.as_deref() == Some(session) => return Some(event),
            Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
            Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => return None,
        }
    }
}

/// Notes a JavaScript dialog that opened (never answering it: that is for a person or the
/// agent to decide); true if the event was one. The page is blocked until it is answered, so
/// the caller stops waiting on it.
async fn handle_dialog(tab: &Tab, event: &CdpEvent, notes: &mut Vec<String>) -> bool {
    if event.method != "Page.javascriptDialogOpening" {
        return false;
    }
    let kind = event.params["type"].as_str().unwrap_or("alert");
    let message = event.params["message"].as_str().unwrap_or_default();
    let _ = tab;
    notes.push(format!(
        "A {kind} dialog opened saying {message:?}. It is still open and the page waits for it: \
         answer it with handle_dialog {{accept: true or false}} (the person at the browser may \
         answer it too)."
    ));
    true
}

/// Polls every 250 ms until `wait` matches; a timeout is an error saying what never appeared.
/// The selector and the text may each be found in the page or in any of its cross-origin
/// frames.
pub async fn wait_for(tab: &Tab, wait: &WaitFor) -> Result<String, ToolError> {
    let started = Instant::now();
    let mut last_error = None;
    loop {
        // The tab may have navigated or been replaced; look wherever it is now.
        let current = tab.current();
        match found(&current, wait).await {
            Ok(true) => {
                return Ok(format!(
                    "Waited {} ms for {}.",
                    started.elapsed().as_millis(),
                    what(wait)
                ))
            }
            Ok(false) => {}
            Err(e) => last_error = Some(e.to_string()),
        }
        if started.elapsed() + WAIT_POLL_INTERVAL > wait.timeout {
            let (url, title) = current.location().await.unwrap_or_default();
            let mut text = format!(
                "Timed out after {} ms waiting for {}. The page is {title:?} at {url}.",
                wait.timeout.as_millis(),
                what(wait)
            );
            if let Some(e) = last_error {
                text.push_str(&format!(" (last check failed: {e})"));
            }
            text.push_str(" Check the selector/text with read_page or screenshot, or wait longer with wait_timeout_ms (max 60000).");
            return Err(ToolError::msg(text));
        }
        tokio::time::sleep(WAIT_POLL_INTERVAL).await;
    }
}

/// Whether `wait`'s selector and text are each in the page or one of its cross-origin frames.
async fn found(tab: &Tab, wait: &WaitFor) -> Result<bool, ToolError> {
    let args = [
        Value::from(wait.selector.clone()),
        Value::from(wait.text.clone()),
    ];
    let (mut selector, mut text) = (wait.selector.is_none(), wait.text.is_none());
    let mut check = |v: &Value, text_here: bool| {
        selector |= v["selector"] == true;
        text |= text_here;
        selector && text
    };
    let v = tab.helper("has", &args).await?;
    let here = text_found(tab, &tab.session_id, wait, &v).await;
    if check(&v, here) {
        return Ok(true);
    }
    let frames = crate::tools::tab::iframes::sessions(tab).await;
    for (frame, v) in crate::tools::tab::iframes::helper_in_each(tab, &frames, "has", &args).await {
        let here = text_found(tab, &frame.session_id, wait, &v).await;
        if check(&v, here) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the frame behind `session` (whose `has` answered `v`) shows `wait`'s text once
/// filled secrets are scrubbed: a text found only inside a secret is not found (no oracle).
async fn text_found(tab: &Tab, session: &str, wait: &WaitFor, v: &Value) -> bool {
    let (Some(needle), true) = (&wait.text, v["text"] == true) else {
        return false;
    };
    if !tab.redact.is_active() {
        return true;
    }
    // Room on each side: a secret around the text is whole in its stretch.
    let args = [Value::from(needle.as_str()), Value::from(1000)];
    let Ok(stretches) =
        crate::tools::tab::driver::helper_on(&tab.browser, session, "textAround", &args).await
    else {
        return false;
    };
    stretches.as_array().into_iter().flatten().any(|s| {
        s.as_str()
            .is_some_and(|s| tab.redact.apply(s).contains(needle.as_str()))
    })
}

fn what(wait: &WaitFor) -> String {
    match (&wait.selector, &wait.text) {
        (Some(s), Some(t)) => format!("selector `{s}` and text {t:?}"),
        (Some(s), None) => format!("selector `{s}`"),
        (None, Some(t)) => format!("text {t:?}"),
        (None, None) => "nothing".into(),
    }
}
