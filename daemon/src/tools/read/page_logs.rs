//! `read_console_messages` and `read_network_requests` over the session's per-tab ring
//! buffers (`browser::logs`), filtered and limited to the most recent matches. A filter matches
//! the text as the answer shows it, filled secrets scrubbed (`Tab::redact`): never a secret.
//!
//! An answer stays within the read budget ([`BUDGET`], `read_page`'s hard cap): when the
//! entries asked for do not fit, the most recent that do are shown and a note says how many
//! older ones were left out and the `offset` that reads them. A cut answer does not `clear`
//! the buffer, so nothing is dropped unread.

use porthole_mcp::vocabulary::{
    ConsoleLevel, ReadConsoleMessagesArgs, ReadNetworkRequestsArgs, MAX_READ_PAGE_BYTES,
};
use porthole_mcp::ToolOutput;

use crate::tools::tab::driver::Tab;

/// The most bytes one answer holds: the read budget `read_page` keeps to.
const BUDGET: usize = MAX_READ_PAGE_BYTES as usize;
/// Of the budget, what the heading and the note may take.
const NOTE_ROOM: usize = 500;

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
    let lines: Vec<String> = logs
        .console(&tab.session_id)
        .into_iter()
        .filter(|e| args.level.is_none_or(|min| level_of(&e.level) >= min))
        .filter(|e| {
            pattern
                .as_deref()
                .is_none_or(|p| tab.redact.apply(&e.text).to_lowercase().contains(p))
        })
        .map(|e| {
            let source = e
                .source
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            format!("[{}] {}{source}", e.level, e.text)
        })
        .collect();
    let page = Page::of(&lines, args.offset(), args.limit());
    if args.clear == Some(true) && page.cut == 0 {
        logs.clear_console(&tab.session_id);
    }
    if page.shown.is_empty() {
        return ToolOutput::text("No console messages match (since this tab was attached).");
    }
    page.answer("console message(s)", args.clear == Some(true))
}

/// `read_network_requests`.
pub fn network(tab: &Tab, args: &ReadNetworkRequestsArgs) -> ToolOutput {
    let logs = tab.browser.logs();
    let pattern = args.url_pattern.as_deref().map(str::to_lowercase);
    let lines: Vec<String> = logs
        .network(&tab.session_id)
        .into_iter()
        .filter(|e| {
            pattern
                .as_deref()
                .is_none_or(|p| tab.redact.apply(&e.url).to_lowercase().contains(p))
        })
        .map(|e| {
            let status = match (&e.failure, e.status, e.finished) {
                (Some(f), _, _) => format!("failed {f}"),
                (None, Some(s), _) => s.to_string(),
                (None, None, true) => "done".into(),
                (None, None, false) => "pending".into(),
            };
            format!("{} {} {} [{}]", e.method, e.url, status, e.resource_type)
        })
        .collect();
    let page = Page::of(&lines, args.offset(), args.limit());
    if args.clear == Some(true) && page.cut == 0 {
        logs.clear_network(&tab.session_id);
    }
    if page.shown.is_empty() {
        return ToolOutput::text("No network requests match (since this tab was attached).");
    }
    page.answer("request(s)", args.clear == Some(true))
}

/// The part of the matches one answer shows.
struct Page<'a> {
    /// Shown, oldest first.
    shown: &'a [String],
    /// Matches in all.
    total: usize,
    /// Most recent matches skipped on purpose (`offset`).
    offset: usize,
    /// Older entries of the window asked for that did not fit the budget.
    cut: usize,
}

impl<'a> Page<'a> {
    /// The `limit` matches before the `offset` most recent, less the oldest of them that do
    /// not fit the budget.
    fn of(lines: &'a [String], offset: usize, limit: usize) -> Self {
        let end = lines.len().saturating_sub(offset);
        let window = &lines[end.saturating_sub(limit)..end];
        let mut used = 0;
        let fit = window
            .iter()
            .rev()
            .take_while(|line| {
                used += line.len() + 1;
                used <= BUDGET - NOTE_ROOM
            })
            .count();
        Self {
            shown: &window[window.len() - fit..],
            total: lines.len(),
            offset: offset.min(lines.len()),
            cut: window.len() - fit,
        }
    }

    fn answer(&self, what: &str, clear: bool) -> ToolOutput {
        let shown = self.shown.len();
        let scope = if self.offset > 0 {
            format!(
                " (of {} matching, before the {} most recent)",
                self.total, self.offset
            )
        } else if shown < self.total {
            format!(" (the last {shown} of {})", self.total)
        } else {
            String::new()
        };
        let mut lines = vec![format!("{shown} {what}{scope}:")];
        lines.extend(self.shown.iter().cloned());
        let mut out = ToolOutput::text(lines.join("\n"));
        if self.cut > 0 {
            let mut note = format!(
                "[Cut at the read budget ({BUDGET} bytes): the {} older entries asked for are \
                 left out. Call again with offset: {} to read them.",
                self.cut,
                self.offset + shown
            );
            if clear {
                note.push_str(" Not cleared, so nothing is lost: clear once an answer is whole.");
            }
            note.push(']');
            out = out.with_text(note);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_keep_to_the_budget_and_say_where_the_rest_is() {
        let lines: Vec<String> = (0..100)
            .map(|i| format!("{i:03} {}", "x".repeat(4000)))
            .collect();
        let page = Page::of(&lines, 0, 100);
        let shown = page.shown.len();
        assert!(shown > 0 && shown < 100);
        assert!(page.shown.iter().map(|l| l.len() + 1).sum::<usize>() <= BUDGET - NOTE_ROOM);
        assert!(page.shown.last().unwrap().starts_with("099"));
        assert_eq!(page.cut, 100 - shown);
        let out = serde_json::to_string(&page.answer("x", false)).unwrap();
        assert!(out.contains(&format!("offset: {shown}")), "{out}");
        // The next page starts where the note said.
        let next = Page::of(&lines, shown, 100 - shown);
        assert!(next
            .shown
            .last()
            .unwrap()
            .starts_with(&format!("{:03}", 99 - shown)));
        // Small entries all fit.
        let small: Vec<String> = (0..5).map(|i| i.to_string()).collect();
        let page = Page::of(&small, 1, 2);
        assert_eq!(page.shown, ["2", "3"]);
        assert_eq!(page.cut, 0);
    }
}
