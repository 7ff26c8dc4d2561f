//! Console and network logs per tab: bounded ring buffers filled from the CDP events of every
//! tab the session attaches (`Runtime.enable` / `Network.enable` are sent on attach), so the
//! agent's `read_console_messages` / `read_network_requests` see what happened since the tab
//! was attached, not only since the first question.
//!
//! Bounded twice over (DESIGN.md §16): every entry is cut to [`ENTRY_BYTES`] (a console line,
//! a request's URL; the smaller fields to [`FIELD_BYTES`]), and the events that feed the
//! buffers reach the daemon's event channel already cut (`CdpConnection::trim_events`), so a
//! page that logs megabyte lines or requests megabyte URLs costs a few KB per entry.
//!
//! A tab's buffers live in its record (`TabEntry`) and go with it; the recorder reaches them by
//! a weak link from the tab's flat session, so events of a session no tab holds are dropped.
//! Owns the buffers and the recorder task; reading and filtering for tools is `tools::read::page_logs`.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};

use crate::browser::floor::RoomEvents;
use crate::cdp::CdpConnection;
use serde_json::Value;

/// Entries kept per tab and kind; the oldest go first.
pub const LOG_CAPACITY: usize = 1000;
/// The most bytes of a console message's text or a request's URL that are kept.
pub const ENTRY_BYTES: usize = 4096;
/// The most bytes kept of an entry's other fields (source, method, failure, type).
const FIELD_BYTES: usize = 512;
/// The events the buffers are filled from; no one else reads their long strings.
pub(in crate::browser) const LOG_EVENTS: &[&str] = &[
    "Network.",
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
];

/// One console message or uncaught exception.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleEntry {
    /// `log`, `debug`, `info`, `warning`, `error` (uncaught exceptions are `error`).
    pub level: String,
    pub text: String,
    /// Where it came from, `url:line`, when Chrome said.
    pub source: Option<String>,
}

/// One network request and, once known, its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkEntry {
    pub request_id: String,
    pub method: String,
    pub url: String,
    /// `Document`, `Script`, `Fetch`, …
    pub resource_type: String,
    pub status: Option<u16>,
    pub failure: Option<String>,
    pub finished: bool,
}

#[derive(Debug, Default)]
struct TabBuffers {
    console: VecDeque<ConsoleEntry>,
    network: VecDeque<NetworkEntry>,
    /// How many uncaught exceptions the tab's page threw, ever (a mark for [`TabLogs::thrown_since`]).
    thrown: u64,
    /// The last [`RECENT_THROWN`] of them, by number.
    recent_thrown: VecDeque<(u64, ConsoleEntry)>,
}

/// Uncaught exceptions kept apart for an action's answer (`TabLogs::thrown_since`).
const RECENT_THROWN: usize = 8;

/// One tab's console and network buffers, held by the tab's record. Short lock, never held
/// across an await.
#[derive(Debug, Default)]
pub struct TabLogBuffers(Mutex<TabBuffers>);

impl TabLogBuffers {
    fn lock(&self) -> std::sync::MutexGuard<'_, TabBuffers> {
        self.0.lock().expect("tab logs lock")
    }
}

/// The way to every tab's log buffers of one browser connection, by flat CDP session id.
#[derive(Clone, Default)]
pub struct TabLogs {
    /// Short lock, never held across an await (nor while a tab's buffers are locked).
    tabs: Arc<Mutex<HashMap<String, Weak<TabLogBuffers>>>>,
}

impl TabLogs {
    /// The way to the logs of `cdp`'s tabs, whose [`LOG_EVENTS`] reach the daemon cut (see the
    /// module doc); they are recorded by [`Self::follow`].
    pub(in crate::browser) fn new(cdp: &CdpConnection) -> Self {
        cdp.trim_events(LOG_EVENTS, ENTRY_BYTES);
        Self::default()
    }

    /// Records `events` (the session's [`LOG_EVENTS`]) until the session ends.
    pub(in crate::browser) fn follow(
        &self,
        mut events: RoomEvents,
    ) -> impl Future<Output = ()> + Send + 'static {
        let logs = self.clone();
        async move {
            while let Some(event) = events.next().await {
                if let Some(session) = event.session_id.as_deref() {
                    logs.apply(session, &event.method, &event.params);
                }
            }
        }
    }

    /// Fresh buffers for the tab behind `session`, recorded into from now on while the
    /// returned `Arc` (kept in the tab's record) lives.
    pub fn open(&self, session: &str) -> Arc<TabLogBuffers> {
        let buffers = Arc::new(TabLogBuffers::default());
        let mut tabs = self.tabs.lock().expect("tab logs lock");
        tabs.retain(|_, tab| tab.strong_count() > 0);
        tabs.insert(session.to_string(), Arc::downgrade(&buffers));
        buffers
    }

    /// The buffers of the tab behind `session`, while its record holds them.
    fn buffers(&self, session: &str) -> Option<Arc<TabLogBuffers>> {
        let tabs = self.tabs.lock().expect("tab logs lock");
        tabs.get(session).and_then(Weak::upgrade)
    }

    /// Records one event of the tab behind `session` (nothing when no tab holds it).
    pub fn apply(&self, session: &str, method: &str, p: &Value) {
        let Some(buffers) = self.buffers(session) else {
            return;
        };
        let mut tab = buffers.lock();
        match method {
            "Runtime.consoleAPICalled" => {
                let level = match p["type"].as_str().unwrap_or("log") {
                    "warning" | "warn" => "warning",
                    "error" | "assert" => "error",
                    "debug" | "trace" => "debug",
                    "info" => "info",
                    _ => "log",
                };
                let text = console_text(p["args"].as_array().map(Vec::as_slice).unwrap_or(&[]));
                let frame = &p["stackTrace"]["callFrames"][0];
                let source = frame["url"].as_str().filter(|u| !u.is_empty()).map(|u| {
                    format!(
                        "{}:{}",
                        cut(u, FIELD_BYTES),
                        frame["lineNumber"].as_i64().unwrap_or(0) + 1
                    )
                });
                push(
                    &mut tab.console,
                    ConsoleEntry {
                        level: level.into(),
                        text,
                        source,
                    },
                );
            }
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                let text = cut(
                    d["exception"]["description"]
                        .as_str()
                        .or(d["text"].as_str())
                        .unwrap_or("Uncaught exception"),
                    ENTRY_BYTES,
                );
                let source = d["url"].as_str().filter(|u| !u.is_empty()).map(|u| {
                    format!(
                        "{}:{}",
                        cut(u, FIELD_BYTES),
                        d["lineNumber"].as_i64().unwrap_or(0) + 1
                    )
                });
                let entry = ConsoleEntry {
                    level: "error".into(),
                    text,
                    source,
                };
                tab.thrown += 1;
                let number = tab.thrown;
                if tab.recent_thrown.len() == RECENT_THROWN {
                    tab.recent_thrown.pop_front();
                }
                tab.recent_thrown.push_back((number, entry.clone()));
                push(&mut tab.console, entry);
            }
            "Network.requestWillBeSent" => {
                let entry = NetworkEntry {
                    request_id: cut(p["requestId"].as_str().unwrap_or_default(), FIELD_BYTES),
                    method: cut(
                        p["request"]["method"].as_str().unwrap_or("GET"),
                        FIELD_BYTES,
                    ),
                    url: cut(
                        p["request"]["url"].as_str().unwrap_or_default(),
                        ENTRY_BYTES,
                    ),
                    resource_type: cut(p["type"].as_str().unwrap_or("Other"), FIELD_BYTES),
                    status: None,
                    failure: None,
                    finished: false,
                };
                let buffers = &mut *tab;
                // A redirect reuses the request id: the previous hop is done.
                if let Some(previous) = buffers
                    .network
                    .iter_mut()
                    .rev()
                    .find(|e| e.request_id == entry.request_id && !e.finished)
                {
                    previous.status = p["redirectResponse"]["status"]
                        .as_u64()
                        .map(|s| s as u16)
                        .or(previous.status);
                    previous.finished = true;
                }
                push(&mut buffers.network, entry);
            }
            "Network.responseReceived" | "Network.loadingFinished" | "Network.loadingFailed" => {
                let buffers = &mut *tab;
                let id = p["requestId"].as_str().unwrap_or_default();
                let Some(entry) = buffers
                    .network
                    .iter_mut()
                    .rev()
                    .find(|e| e.request_id == id)
                else {
                    return;
                };
                match method {
                    "Network.responseReceived" => {
                        entry.status = p["response"]["status"].as_u64().map(|s| s as u16);
                    }
                    "Network.loadingFinished" => entry.finished = true,
                    _ => {
                        entry.finished = true;
                        entry.failure = p["errorText"].as_str().map(|t| cut(t, FIELD_BYTES));
                    }
                }
            }
            _ => {}
        }
    }

    /// The console messages of a tab, oldest first.
    pub fn console(&self, session: &str) -> Vec<ConsoleEntry> {
        self.buffers(session)
            .map(|t| t.lock().console.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The network requests of a tab, oldest first.
    pub fn network(&self, session: &str) -> Vec<NetworkEntry> {
        self.buffers(session)
            .map(|t| t.lock().network.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// How many uncaught exceptions the tab's page has thrown so far (a mark for
    /// [`Self::thrown_since`]).
    pub fn thrown_mark(&self, session: &str) -> u64 {
        self.buffers(session).map(|t| t.lock().thrown).unwrap_or(0)
    }

    /// The uncaught exceptions thrown after `mark` (the last few), and how many there were.
    pub fn thrown_since(&self, session: &str, mark: u64) -> (Vec<ConsoleEntry>, u64) {
        let Some(buffers) = self.buffers(session) else {
            return (Vec::new(), 0);
        };
        let tab = buffers.lock();
        let entries = tab
            .recent_thrown
            .iter()
            .filter(|(n, _)| *n > mark)
            .map(|(_, e)| e.clone())
            .collect();
        (entries, tab.thrown.saturating_sub(mark))
    }

    /// Empties a tab's console buffer.
    pub fn clear_console(&self, session: &str) {
        if let Some(t) = self.buffers(session) {
            t.lock().console.clear();
        }
    }

    /// Empties a tab's network buffer.
    pub fn clear_network(&self, session: &str) {
        if let Some(t) = self.buffers(session) {
            t.lock().network.clear();
        }
    }
}

fn push<T>(buffer: &mut VecDeque<T>, entry: T) {
    if buffer.len() == LOG_CAPACITY {
        buffer.pop_front();
    }
    buffer.push_back(entry);
}

/// `text`, cut to `max` bytes with a note of how much went.
fn cut(text: &str, max: usize) -> String {
    crate::cdp::cut_text(text, max).unwrap_or_else(|| text.to_string())
}

/// A console call's arguments as one line, within [`ENTRY_BYTES`]: arguments are added until
/// the line is full, and the rest is counted, not copied.
fn console_text(args: &[Value]) -> String {
    let mut text = String::new();
    for (i, arg) in args.iter().enumerate() {
        if text.len() > ENTRY_BYTES {
            let left = args.len() - i;
            text.push_str(&format!(" … [{left} more argument(s)]"));
            break;
        }
        if i > 0 {
            text.push(' ');
        }
        match &arg["value"] {
            Value::String(s) => text.push_str(&s[..floor_boundary(s, ENTRY_BYTES + 1)]),
            Value::Null => text.push_str(
                arg["description"]
                    .as_str()
                    .or(arg["unserializableValue"].as_str())
                    .unwrap_or(arg["type"].as_str().unwrap_or("undefined")),
            ),
            other => text.push_str(&other.to_string()),
        }
    }
    cut(&text, ENTRY_BYTES)
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thrown_since_gives_the_exceptions_after_a_mark_and_counts_past_the_last_few() {
        let logs = TabLogs::default();
        let _held = logs.open("s");
        let throw = |n: usize| {
            logs.apply(
                "s",
                "Runtime.exceptionThrown",
                &json!({"exceptionDetails": {"exception": {"description": format!("Error: e{n}")}, "url": "http://x/p", "lineNumber": 2}}),
            );
        };
        throw(0);
        let mark = logs.thrown_mark("s");
        assert_eq!(mark, 1);
        assert_eq!(logs.thrown_since("s", mark), (Vec::new(), 0));
        // A console error is not a throw.
        logs.apply(
            "s",
            "Runtime.consoleAPICalled",
            &json!({"type": "error", "args": [{"type": "string", "value": "logged"}]}),
        );
        for n in 1..=RECENT_THROWN + 2 {
            throw(n);
        }
        let (thrown, count) = logs.thrown_since("s", mark);
        assert_eq!(count, RECENT_THROWN as u64 + 2);
        assert_eq!(thrown.len(), RECENT_THROWN, "only the last few are kept");
        assert_eq!(
            thrown.last().unwrap().text,
            format!("Error: e{}", RECENT_THROWN + 2)
        );
        assert_eq!(thrown[0].source.as_deref(), Some("http://x/p:3"));
        // A tab no record holds has thrown nothing.
        assert_eq!(logs.thrown_mark("gone"), 0);
    }

    #[test]
    fn buffers_are_bounded_and_follow_requests() {
        let logs = TabLogs::default();
        let held = logs.open("s");
        for i in 0..LOG_CAPACITY + 5 {
            logs.apply(
                "s",
                "Runtime.consoleAPICalled",
                &json!({"type": "log", "args": [{"type": "string", "value": format!("m{i}")}, {"type": "number", "value": 3}]}),
            );
        }
        let console = logs.console("s");
        assert_eq!(console.len(), LOG_CAPACITY);
        assert_eq!(console[0].text, "m5 3");
        logs.apply(
            "s",
            "Network.requestWillBeSent",
            &json!({"requestId": "1", "request": {"url": "http://x/a", "method": "POST"}, "type": "Fetch"}),
        );
        logs.apply(
            "s",
            "Network.responseReceived",
            &json!({"requestId": "1", "response": {"status": 404}}),
        );
        logs.apply("s", "Network.loadingFinished", &json!({"requestId": "1"}));
        let net = logs.network("s");
        assert_eq!(net[0].status, Some(404));
        assert!(net[0].finished);
        logs.clear_network("s");
        assert!(logs.network("s").is_empty());
        assert!(logs.console("other").is_empty());
        drop(held);
        assert!(
            logs.console("s").is_empty(),
            "the buffers go with the tab's record"
        );
        logs.apply(
            "s",
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "args": [{"type": "string", "value": "late"}]}),
        );
        assert!(logs.console("s").is_empty());
    }

    #[test]
    fn entries_are_cut_at_4_kb() {
        let logs = TabLogs::default();
        let _held = logs.open("s");
        let mega = "x".repeat(1 << 20);
        logs.apply(
            "s",
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "args": [{"type": "string", "value": mega}, {"type": "number", "value": 3}],
                    "stackTrace": {"callFrames": [{"url": format!("http://x/{mega}"), "lineNumber": 0}]}}),
        );
        logs.apply(
            "s",
            "Network.requestWillBeSent",
            &json!({"requestId": "1", "request": {"url": format!("http://x/?{mega}"), "method": "GET"}, "type": "Fetch"}),
        );
        let console = &logs.console("s")[0];
        assert!(console.text.len() <= ENTRY_BYTES, "{}", console.text.len());
        assert!(
            console.text.ends_with("bytes cut]"),
            "{}",
            &console.text[4000..]
        );
        assert!(console.source.as_ref().unwrap().len() <= FIELD_BYTES + 12);
        let url = &logs.network("s")[0].url;
        assert!(
            url.len() <= ENTRY_BYTES && url.starts_with("http://x/?xxx"),
            "{}",
            url.len()
        );
    }
}
