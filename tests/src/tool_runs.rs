//! What a daemon's log says about its tool calls: the `tool_run` lines' CDP commands and the
//! replies each call waited on in sequence, and the log-field reader for them. Used by the
//! round-trip tests and the distance bench.

/// The value of field `name` in a log line (the event's own fields come last: a span before
/// them may hold `tool=` too).
pub fn field(line: &str, name: &str) -> Option<String> {
    let at = line.rfind(&format!(" {name}="))? + name.len() + 2;
    let value = line[at..].split_whitespace().next()?;
    Some(value.trim_matches('"').to_string())
}

/// `(tool, commands, sequential waits)` of the daemon's `tool_run` lines in `log`, in order:
/// the commands each tool call sent and the replies it waited on one after another (each a
/// round trip to the engine), counted for that call alone (`porthole::cdp::tallied`).
pub fn cdp_counts(log: &str) -> Vec<(String, u64, u64)> {
    log.lines()
        .filter(|l| l.contains("event=\"tool_run\""))
        .filter_map(|l| {
            Some((
                field(l, "tool")?,
                field(l, "commands")?.parse().ok()?,
                field(l, "sequential_waits")?.parse().ok()?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_tool_run_lines() {
        let log = "2026-12-01T17:00:00Z DEBUG agent_action{channel_id=c tool=navigate}: porthole::calls: event=\"tool_run\" channel_id=c agent_id=\"a\" tool=\"navigate\" ok=true elapsed_ms=80 commands=3 sequential_waits=2\nother line\n";
        assert_eq!(super::cdp_counts(log), vec![("navigate".to_string(), 3, 2)]);
    }
}
