//! `read_console_messages` and `read_network_requests` over the session's per-tab ring
//! buffers (`browser::logs`), filtered and limited to the most recent matches.

use porthole_mcp::vocabulary::{ConsoleLevel, ReadConsoleMessagesArgs, ReadNetworkRequestsArgs};
use porthole_mcp::ToolOutput;

use super::driver::Tab;

fn level_of(name: &str) -> ConsoleLevel {
    match name {
        "debug" => ConsoleLevel::Debug,
        "info" => ConsoleLevel::Info,
        "warning" => ConsoleLevel::Warning,
        "error" => ConsoleLevel::Error,
        _ => ConsoleLevel::Log,
    }
}

/// `read_console_messages`.
pub fn console(tab: &Tab, args: &ReadConsoleMessagesArgs) -> ToolOutput {
    let logs = tab.browser.logs();
    let pattern = args.pattern.as_deref().map(str::to_lowercase);
    let matches: Vec<_> = logs
        .console(&tab.session_id)
        .into_iter()
        .filter(|e| args.level.is_none_or(|min| level_of(&e.level) >= min))
        .filter(|e| {
            pattern
                .as_deref()
                .is_none_or(|p| e.text.to_lowercase().contains(p))
        })
        .collect();
    if args.clear == Some(true) {
        logs.clear_console(&tab.session_id);
    }
    let shown = &matches[matches.len().saturating_sub(args.limit())..];
    if shown.is_empty() {
        return ToolOutput::text("No console messages match (since this tab was attached).");
    }
    let mut lines = vec![format!(
        "{} console message(s){}:",
        shown.len(),
        if shown.len() < matches.len() {
            format!(" (the last {} of {})", shown.len(), matches.len())
        } else {
            String::new()
        }
    )];
    for e in shown {
        let source = e
            .source
            .as_deref()
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        lines.push(format!("[{}] {}{source}", e.level, e.text));
    }
    ToolOutput::text(lines.join("\n"))
}

/// `read_network_requests`.
pub fn network(tab: &Tab, args: &ReadNetworkRequestsArgs) -> ToolOutput {
    let logs = tab.browser.logs();
    let pattern = args.url_pattern.as_deref().map(str::to_lowercase);
    let matches: Vec<_> = logs
        .network(&tab.session_id)
        .into_iter()
        .filter(|e| {
            pattern
                .as_deref()
                .is_none_or(|p| e.url.to_lowercase().contains(p))
        })
        .collect();
    if args.clear == Some(true) {
        logs.clear_network(&tab.session_id);
    }
    let shown = &matches[matches.len().saturating_sub(args.limit())..];
    if shown.is_empty() {
        return ToolOutput::text("No network requests match (since this tab was attached).");
    }
    let mut lines = vec![format!("{} request(s):", shown.len())];
    for e in shown {
        let status = match (&e.failure, e.status, e.finished) {
            (Some(f), _, _) => format!("failed {f}"),
            (None, Some(s), _) => s.to_string(),
            (None, None, true) => "done".into(),
            (None, None, false) => "pending".into(),
        };
        lines.push(format!(
            "{} {} {} [{}]",
            e.method, e.url, status, e.resource_type
        ));
    }
    ToolOutput::text(lines.join("\n"))
}
