//! What a daemon's log says about one channel start (the `sidecar_start_steps` line, the
//! session's and the cast's start events), read by the docker start tests and the docker bench.

/// What the daemon logged about one start: the `name=ms` pairs of its `sidecar_start_steps`
/// line, its Engine API requests, whether it restarted a kept container, the rest of the
/// channel's start (`session_started`, `channel_started`), the cast's first frame
/// (`screencast_first_frame`), and the CDP replies the session's opening and the cast's start
/// waited on one after another.
#[derive(Debug, Default, Clone)]
pub struct StartLog {
    pub steps: Vec<(String, f64)>,
    pub requests: Option<u32>,
    pub reused: bool,
    /// `name=ms` of the channel's start outside the provider, in order.
    pub parts: Vec<(&'static str, f64)>,
    /// CDP replies the session's opening waited on one after another.
    pub open_waits: Option<f64>,
    /// CDP replies the cast's start waited on one after another.
    pub cast_waits: Option<f64>,
}

/// The numbers of one `key=value` log line, by key.
fn number(line: &str, key: &str) -> Option<f64> {
    field(line, key).and_then(|n| n.parse().ok())
}

/// The value of `key=` in a log line (quotes trimmed).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!(" {key}="))? + key.len() + 2;
    let rest = &line[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next();
    }
    rest.split_whitespace().next()
}

/// Reads the last start in `log` (a daemon's log from before the start).
pub fn start_log(log: &str) -> StartLog {
    let mut found = StartLog::default();
    if let Some(line) = log
        .lines()
        .rev()
        .find(|l| l.contains("sidecar_start_steps"))
    {
        found.steps = field(line, "steps")
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|pair| {
                let (name, ms) = pair.split_once('=')?;
                Some((name.to_string(), ms.parse().ok()?))
            })
            .collect();
        found.requests = field(line, "engine_requests").and_then(|n| n.parse().ok());
        found.reused = field(line, "reused") == Some("true");
    }
    let last = |event: &str| log.lines().rev().find(|l| l.contains(event));
    let mut parts = Vec::new();
    if let Some(line) = last("event=\"channel_started\"") {
        parts.push(("lock wait", number(line, "waited_ms")));
    }
    if let Some(line) = last("session_started") {
        let provider = number(line, "provider_ms");
        let steps: f64 = found.steps.iter().map(|(_, v)| v).sum();
        parts.push(("provider other", provider.map(|p| p - steps)));
        parts.push(("CDP connect", number(line, "connect_ms")));
        parts.push(("session open", number(line, "open_ms")));
        found.open_waits = number(line, "open_sequential_waits");
    }
    if let Some(line) = last("event=\"channel_started\"") {
        parts.push(("start hook", number(line, "hook_ms")));
    }
    if let Some(line) = last("event=\"screencast_started\"") {
        found.cast_waits = number(line, "sequential_waits");
    }
    if let Some(line) = last("screencast_first_frame") {
        parts.push(("cast asked → first frame", number(line, "frame_ms")));
    }
    found.parts = parts
        .into_iter()
        .filter_map(|(name, ms)| Some((name, ms?)))
        .collect();
    found
}
