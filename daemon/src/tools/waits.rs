//! Waiting, without fixed sleeps: `wait_for_selector` / `wait_for_text` polled every 250 ms
//! until they match or `wait_timeout_ms` passes (a timeout is an error), and settling after an
//! action — until the DOM has been quiet for a couple of rendering frames, and, if the action
//! started a navigation of the main frame (seen in the tab's events by then), until that
//! navigation's load — with a report of what changed (URL, title, new tabs, dialogs, which are
//! accepted so the page does not hang).

use std::time::{Duration, Instant};

use porthole_mcp::vocabulary::wait::{WaitFor, WAIT_POLL_INTERVAL};
use serde_json::Value;
use tokio::sync::broadcast;

use super::driver::Tab;
use super::error::ToolError;
use crate::cdp::CdpEvent;

/// How long an explicit navigation (navigate, history, reload) may take to show its first
/// event; it ends at that event, so it only costs time when nothing navigates.
const NAVIGATION_GRACE: Duration = Duration::from_millis(150);
/// The longest we follow a navigation to its load event.
const LOAD_DEADLINE: Duration = Duration::from_secs(10);
/// DOM quiet: this many rendering frames in a row without a mutation …
const QUIET_FRAMES: u32 = 2;
/// … or at most this long (a page that animates forever).
const QUIET_MAX: Duration = Duration::from_millis(500);
/// The longest we wait for a tab the action opened to be listed.
const NEW_TAB_DEADLINE: Duration = Duration::from_secs(2);
/// How often the tab list is looked at meanwhile.
const NEW_TAB_POLL: Duration = Duration::from_millis(10);

/// The state of a tab before an action.
pub struct Before {
    url: String,
    title: String,
    tabs: Vec<String>,
    events: broadcast::Receiver<CdpEvent>,
}

/// Records the tab's state; call before acting.
pub async fn before(tab: &Tab) -> Before {
    let events = tab.cdp().subscribe();
    let (url, title) = tab.location().await.unwrap_or_default();
    let tabs = tab
        .visible_tabs()
        .into_iter()
        .map(|t| t.target_id)
        .collect();
    Before {
        url,
        title,
        tabs,
        events,
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
            }
            "Page.navigatedWithinDocument" if main_frame => {
                self.navigating = true;
                self.loaded = true;
            }
            "Page.loadEventFired" if self.navigating => self.loaded = true,
            "Page.frameStoppedLoading" if self.navigating && main_frame => self.loaded = true,
            "Page.windowOpen" => self.window_open = true,
            _ => {}
        }
    }
}

/// After an input action (click, typing, a form fill): waits until the page reflects it and
/// says what changed (empty when nothing did). No fixed window: the DOM-quiet wait in the page
/// is also the round trip after which any navigation the action requested (even from a
/// `setTimeout(0)` handler) has shown up in the tab's events; only then is its load awaited.
pub async fn settle(tab: &Tab, mut before: Before) -> Vec<String> {
    let mut notes = Vec::new();
    let mut seen = Seen::default();
    quiet(tab, &mut before, &mut seen, &mut notes).await;
    if seen.navigating && !seen.blocked {
        follow_load(tab, &mut before, &mut seen, &mut notes).await;
        if seen.loaded && !seen.blocked {
            quiet(tab, &mut before, &mut seen, &mut notes).await;
        }
    }
    if seen.window_open {
        wait_new_tab(tab, &before).await;
    }
    changes(tab, &before, notes, seen.blocked).await
}

/// After an explicit navigation (navigate, history, reload): follows it to its load, then
/// waits for DOM quiet, and says what changed.
pub async fn settle_navigation(tab: &Tab, mut before: Before) -> Vec<String> {
    let mut notes = Vec::new();
    let mut seen = Seen::default();
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
    if seen.navigating && !seen.blocked {
        follow_load(tab, &mut before, &mut seen, &mut notes).await;
    }
    if !seen.blocked {
        quiet(tab, &mut before, &mut seen, &mut notes).await;
    }
    changes(tab, &before, notes, seen.blocked).await
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

/// Runs the in-page DOM-quiet wait, answering dialogs that open meanwhile (so it can end) and
/// noting navigation events; then takes in the events that arrived before its reply.
async fn quiet(tab: &Tab, before: &mut Before, seen: &mut Seen, notes: &mut Vec<String>) {
    let quiet_js = format!(
        "({}).quiet({}, {})",
        super::driver::PAGE_JS,
        QUIET_FRAMES,
        QUIET_MAX.as_millis()
    );
    let deadline = QUIET_MAX + Duration::from_secs(2);
    let end = Instant::now() + deadline;
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
            _ = &mut quiet => break,
        }
    }
    // Events are delivered in the order Chrome sent them, so whatever the page did before the
    // reply is queued by now.
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
async fn changes(tab: &Tab, before: &Before, mut notes: Vec<String>, blocked: bool) -> Vec<String> {
    let location = if blocked {
        Err(ToolError::msg("blocked by a dialog"))
    } else {
        tab.location().await
    };
    if let Ok((url, title)) = location {
        if url != before.url {
            notes.push(format!("URL changed: {url}"));
        }
        if title != before.title {
            notes.push(format!("Title changed: {title:?}"));
        }
    }
    let tabs = tab.visible_tabs();
    for (i, t) in tabs.iter().enumerate() {
        if !before.tabs.contains(&t.target_id) {
            notes.push(format!(
                "A new tab opened: [{}] {} (use switch_tab to act on it)",
                i + 1,
                t.url
            ));
        }
    }
    notes
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
pub async fn wait_for(tab: &Tab, wait: &WaitFor) -> Result<String, ToolError> {
    let started = Instant::now();
    let check = format!(
        "(() => {{ const P = ({}); return {} && {}; }})()",
        super::driver::PAGE_JS,
        wait.selector
            .as_ref()
            .map(|s| format!(
                "P.hasSelector({})",
                serde_json::to_string(s).unwrap_or_default()
            ))
            .unwrap_or_else(|| "true".into()),
        wait.text
            .as_ref()
            .map(|t| format!(
                "P.hasText({})",
                serde_json::to_string(t).unwrap_or_default()
            ))
            .unwrap_or_else(|| "true".into()),
    );
    let mut last_error = None;
    loop {
        // The tab may have navigated or been replaced; evaluate wherever it is now.
        let current = tab.current();
        match current.eval(&check, Duration::from_secs(5)).await {
            Ok(Value::Bool(true)) => {
                return Ok(format!(
                    "Waited {} ms for {}.",
                    started.elapsed().as_millis(),
                    what(wait)
                ))
            }
            Ok(_) => {}
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

fn what(wait: &WaitFor) -> String {
    match (&wait.selector, &wait.text) {
        (Some(s), Some(t)) => format!("selector `{s}` and text {t:?}"),
        (Some(s), None) => format!("selector `{s}`"),
        (None, Some(t)) => format!("text {t:?}"),
        (None, None) => "nothing".into(),
    }
}
