//! Waiting, without fixed sleeps: `wait_for_selector` / `wait_for_text` polled every 250 ms
//! until they match or `wait_timeout_ms` passes (a timeout is an error), and settling after an
//! action — a navigation it started is followed to its load, then the DOM must be quiet
//! briefly — with a report of what changed (URL, title, new tabs, dialogs, which are accepted
//! so the page does not hang).

use std::time::{Duration, Instant};

use porthole_mcp::vocabulary::wait::{WaitFor, WAIT_POLL_INTERVAL};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::driver::Tab;
use super::error::ToolError;
use crate::cdp::CdpEvent;

/// How long an action may take to start a navigation before we call it DOM-only.
const NAVIGATION_GRACE: Duration = Duration::from_millis(150);
/// The longest we follow a navigation to its load event.
const LOAD_DEADLINE: Duration = Duration::from_secs(10);
/// DOM quiet: no mutation for this long …
const QUIET: Duration = Duration::from_millis(100);
/// … or at most this long.
const QUIET_MAX: Duration = Duration::from_millis(1500);

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
        .browser
        .tab_infos()
        .0
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

/// Waits until the page reflects the action and says what changed (empty when nothing did).
pub async fn settle(tab: &Tab, mut before: Before) -> Vec<String> {
    let mut notes = Vec::new();
    let session = tab.session_id.clone();
    // 1. Did the action start a navigation of the main frame? Follow it to its load.
    let mut navigating = false;
    let grace_end = Instant::now() + NAVIGATION_GRACE;
    let mut load_end = None;
    loop {
        let end = load_end.unwrap_or(grace_end);
        let Some(event) = next_event(&mut before.events, &session, end).await else {
            break;
        };
        if handle_dialog(tab, &event, &mut notes).await {
            continue;
        }
        match event.method.as_str() {
            "Page.frameStartedLoading"
            | "Page.frameRequestedNavigation"
            | "Page.frameStartedNavigating"
                if !navigating && event.params["frameId"].as_str() == Some(&tab.target_id) =>
            {
                navigating = true;
                load_end = Some(Instant::now() + LOAD_DEADLINE);
            }
            "Page.loadEventFired" | "Page.navigatedWithinDocument" if navigating => break,
            "Page.frameStoppedLoading"
                if navigating && event.params["frameId"].as_str() == Some(&tab.target_id) =>
            {
                break
            }
            _ => {}
        }
    }
    // 2. DOM quiet (a dialog opening meanwhile is answered so the wait ends).
    let quiet_js = format!(
        "({}).quiet({}, {})",
        super::driver::PAGE_JS,
        QUIET.as_millis(),
        QUIET_MAX.as_millis()
    );
    let quiet = tab.eval(&quiet_js, QUIET_MAX + Duration::from_secs(2));
    tokio::pin!(quiet);
    loop {
        tokio::select! {
            _ = &mut quiet => break,
            event = next_event(&mut before.events, &session, Instant::now() + QUIET_MAX + Duration::from_secs(2)) => {
                match event {
                    Some(event) => { handle_dialog(tab, &event, &mut notes).await; }
                    None => break,
                }
            }
        }
    }
    // 3. What changed.
    if let Ok((url, title)) = tab.location().await {
        if url != before.url {
            notes.push(format!("URL changed: {url}"));
        }
        if title != before.title {
            notes.push(format!("Title changed: {title:?}"));
        }
    }
    let (tabs, _) = tab.browser.tab_infos();
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

/// Accepts a JavaScript dialog (so the page keeps running) and notes it; true if it was one.
async fn handle_dialog(tab: &Tab, event: &CdpEvent, notes: &mut Vec<String>) -> bool {
    if event.method != "Page.javascriptDialogOpening" {
        return false;
    }
    let kind = event.params["type"].as_str().unwrap_or("alert").to_string();
    let message = event.params["message"].as_str().unwrap_or_default();
    let mut params = json!({"accept": true});
    if let Some(default) = event.params["defaultPrompt"].as_str() {
        params["promptText"] = Value::from(default);
    }
    let _ = tab
        .cdp()
        .call_on(&tab.session_id, "Page.handleJavaScriptDialog", params)
        .await;
    notes.push(format!(
        "A {kind} dialog opened saying {message:?}; it was accepted."
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
        // The active tab may have navigated or been replaced; evaluate wherever it is now.
        let current = Tab::active(&tab.browser).unwrap_or_else(|_| tab.clone());
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
