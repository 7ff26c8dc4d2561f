//! Console and network logs per tab: bounded ring buffers filled from the CDP events of every
//! tab the session attaches (`Runtime.enable` / `Network.enable` are sent on attach), so the
//! agent's `read_console_messages` / `read_network_requests` see what happened since the tab
//! was attached, not only since the first question.
//!
//! Owns the buffers and the recorder task; reading and filtering for tools is `tools::logs`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::cdp::{CdpConnection, CdpEvent};

/// Entries kept per tab and kind; the oldest go first.
pub const LOG_CAPACITY: usize = 1000;

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

#[derive(Default)]
struct TabBuffers {
    console: VecDeque<ConsoleEntry>,
    network: VecDeque<NetworkEntry>,
}

/// The log buffers of every tab of one browser connection, keyed by flat CDP session id.
#[derive(Clone, Default)]
pub struct TabLogs {
    /// Short lock, never held across an await.
    tabs: Arc<Mutex<HashMap<String, TabBuffers>>>,
}

impl TabLogs {
    /// Starts recording the events of `cdp` until `closed` is cancelled or the socket goes.
    pub fn spawn(cdp: &CdpConnection, closed: CancellationToken) -> Self {
        let logs = Self::default();
        let events = cdp.subscribe();
        tokio::spawn(logs.clone().record(events, closed));
        logs
    }

    async fn record(self, mut events: broadcast::Receiver<CdpEvent>, closed: CancellationToken) {
        while let Some(event) = super::events::next_event(&mut events, &closed, "logs").await {
            if let Some(session) = event.session_id.as_deref() {
                self.apply(session, &event.method, &event.params);
            }
        }
    }

    /// Records one event of the tab behind `session`.
    pub fn apply(&self, session: &str, method: &str, p: &Value) {
        let mut tabs = self.tabs.lock().expect("tab logs lock");
        let tab = || -> TabBuffers { TabBuffers::default() };
        match method {
            "Runtime.consoleAPICalled" => {
                let level = match p["type"].as_str().unwrap_or("log") {
                    "warning" | "warn" => "warning",
                    "error" | "assert" => "error",
                    "debug" | "trace" => "debug",
                    "info" => "info",
                    _ => "log",
                };
                let text = p["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(remote_object_text)
                    .collect::<Vec<_>>()
                    .join(" ");
                let frame = &p["stackTrace"]["callFrames"][0];
                let source = frame["url"]
                    .as_str()
                    .filter(|u| !u.is_empty())
                    .map(|u| format!("{u}:{}", frame["lineNumber"].as_i64().unwrap_or(0) + 1));
                push(
                    &mut tabs.entry(session.to_string()).or_insert_with(tab).console,
                    ConsoleEntry {
                        level: level.into(),
                        text,
                        source,
                    },
                );
            }
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                let text = d["exception"]["description"]
                    .as_str()
                    .or(d["text"].as_str())
                    .unwrap_or("Uncaught exception")
                    .to_string();
                let source = d["url"]
                    .as_str()
                    .filter(|u| !u.is_empty())
                    .map(|u| format!("{u}:{}", d["lineNumber"].as_i64().unwrap_or(0) + 1));
                push(
                    &mut tabs.entry(session.to_string()).or_insert_with(tab).console,
                    ConsoleEntry {
                        level: "error".into(),
                        text,
                        source,
                    },
                );
            }
            "Network.requestWillBeSent" => {
                let entry = NetworkEntry {
                    request_id: p["requestId"].as_str().unwrap_or_default().to_string(),
                    method: p["request"]["method"].as_str().unwrap_or("GET").to_string(),
                    url: p["request"]["url"].as_str().unwrap_or_default().to_string(),
                    resource_type: p["type"].as_str().unwrap_or("Other").to_string(),
                    status: None,
                    failure: None,
                    finished: false,
                };
                let buffers = tabs.entry(session.to_string()).or_insert_with(tab);
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
                let Some(buffers) = tabs.get_mut(session) else {
                    return;
                };
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
                        entry.failure = p["errorText"].as_str().map(str::to_string);
                    }
                }
            }
            _ => {}
        }
    }

    /// The console messages of a tab, oldest first.
    pub fn console(&self, session: &str) -> Vec<ConsoleEntry> {
        let tabs = self.tabs.lock().expect("tab logs lock");
        tabs.get(session)
            .map(|t| t.console.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The network requests of a tab, oldest first.
    pub fn network(&self, session: &str) -> Vec<NetworkEntry> {
        let tabs = self.tabs.lock().expect("tab logs lock");
        tabs.get(session)
            .map(|t| t.network.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Empties a tab's console buffer.
    pub fn clear_console(&self, session: &str) {
        if let Some(t) = self.tabs.lock().expect("tab logs lock").get_mut(session) {
            t.console.clear();
        }
    }

    /// Empties a tab's network buffer.
    pub fn clear_network(&self, session: &str) {
        if let Some(t) = self.tabs.lock().expect("tab logs lock").get_mut(session) {
            t.network.clear();
        }
    }

    /// Drops a closed tab's buffers.
    pub fn forget(&self, session: &str) {
        self.tabs.lock().expect("tab logs lock").remove(session);
    }
}

fn push<T>(buffer: &mut VecDeque<T>, entry: T) {
    if buffer.len() == LOG_CAPACITY {
        buffer.pop_front();
    }
    buffer.push_back(entry);
}

/// A console argument as text: strings as they are, other values as JSON or their description.
fn remote_object_text(arg: &Value) -> String {
    match &arg["value"] {
        Value::String(s) => s.clone(),
        Value::Null => arg["description"]
            .as_str()
            .or(arg["unserializableValue"].as_str())
            .unwrap_or(arg["type"].as_str().unwrap_or("undefined"))
            .to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn buffers_are_bounded_and_follow_requests() {
        let logs = TabLogs::default();
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
    }
}
