//! `read_page` and `find`: a compact accessibility-style tree, one element per line with a
//! ref, across same-origin iframes and open shadow roots (walked by `page.js`) and
//! cross-origin iframes (each snapshotted in the tools' world of its own document — an
//! out-of-process frame's in its own CDP session, a same-site one's by its frame id on its
//! parent's — and spliced in under its `<iframe>`), returned in windows of `max_bytes` from
//! `offset` with a note saying what was cut, made compact by [`snapshot_lines`]. A frame's
//! session is kept for the frame's life and reused by later reads; sessions of frames that
//! are gone are detached.

use porthole_mcp::vocabulary::{FindArgs, ReadPageArgs, ReadPageFilter};
use porthole_mcp::ToolOutput;
use serde_json::{json, Value};

use crate::tools::error::ToolError;
use crate::tools::read::read_window;
use crate::tools::read::snapshot_lines;
use crate::tools::tab::driver::{helper_on, Tab};
use crate::tools::tab::element_refs::{self as refs, FrameRefs};
use crate::tools::tab::iframes as frames;

/// A placeholder `page.js` leaves where a cross-origin frame's content goes.
const FRAME_MARK: &str = "\u{0}frame:";

/// `read_page`.
pub async fn read_page(tab: &Tab, args: &ReadPageArgs) -> Result<ToolOutput, ToolError> {
    let filter = match args.filter() {
        ReadPageFilter::Interactive => "interactive",
        ReadPageFilter::All => "all",
    };
    let book = refs::book(tab);
    let mut next = book.next;
    let opts = json!({"filter": filter, "depth": args.depth, "base": next, "indent": 0,
                      "reader": tab.actor.id()});
    let main = tab.helper("snapshot", std::slice::from_ref(&opts)).await?;
    next = next.max(main["next"].as_u64().unwrap_or(1));
    let mut reading = Reading {
        tab,
        opts,
        next,
        // Frames read last time; those still in the page keep their session, the rest are
        // let go.
        earlier: book.frames,
        read: Vec::new(),
        marks: Marks::of(&main),
        targets: None,
    };
    let mut lines: Vec<String> = strings(&main["lines"]);
    reading.splice(&mut lines, frames_of(&main), None, 1).await;
    let Reading {
        next,
        earlier,
        read,
        marks,
        ..
    } = reading;
    let gone: Vec<String> = earlier.iter().map(|f| f.target_id.clone()).collect();
    for gone in earlier {
        frames::detach(tab, &gone.target_id, &gone.session_id).await;
    }
    tab.browser.refs().merge(&tab.target_id, next, read, &gone);
    let (lines, inline_marks) = snapshot_lines::compact(lines);
    let mut header = format!(
        "Page: {} — {}",
        main["title"].as_str().unwrap_or_default(),
        main["url"].as_str().unwrap_or_default()
    );
    if let Some(legend) = marks.legend(inline_marks) {
        header.push(' ');
        header.push_str(&legend);
    }
    if lines.is_empty() {
        let empty = match args.filter() {
            ReadPageFilter::Interactive => {
                "(no interactive elements; try filter \"all\" or get_page_text)"
            }
            ReadPageFilter::All => "(the page is empty)",
        };
        // Within max_bytes too (a long title is shortened).
        let text = read_window::answer(&header, empty, 0, args.max_bytes())?;
        return Ok(ToolOutput::text(text));
    }
    let body = lines.join("\n");
    let text = read_window::answer(&header, &body, args.offset(), args.max_bytes())?;
    Ok(ToolOutput::text(text))
}

/// `find`: the main document first, then each cross-origin frame while room is left.
pub async fn find(tab: &Tab, args: &FindArgs) -> Result<ToolOutput, ToolError> {
    let max = args.max_results();
    let base = refs::book(tab).next;
    let found = tab
        .helper(
            "find",
            &[
                Value::from(args.query.as_str()),
                Value::from(max),
                Value::from(base),
            ],
        )
        .await?;
    refs::advance(tab, found["next"].as_u64().unwrap_or(base));
    let mut lines = strings(&found["lines"]);
    if lines.len() < max {
        for frame in frames::sessions(tab).await {
            let left = max.saturating_sub(lines.len());
            if left == 0 {
                break;
            }
            let lo = refs::book(tab).next;
            let args = [
                Value::from(args.query.as_str()),
                Value::from(left),
                Value::from(lo),
            ];
            let Ok(found) = helper_on(&tab.browser, &frame.session_id, "find", &args).await else {
                continue;
            };
            frames::record(tab, &frame, lo, found["next"].as_u64().unwrap_or(lo));
            lines.extend(strings(&found["lines"]));
        }
    }
    if lines.is_empty() {
        return Ok(ToolOutput::text(format!(
            "Nothing on the page matches {:?}. Try other words, or read_page with filter \"all\".",
            args.query
        )));
    }
    Ok(ToolOutput::text(format!(
        "{} match(es) for {:?}:\n{}",
        lines.len(),
        args.query,
        lines.join("\n")
    )))
}

/// How many lines of a snapshot carry each mark.
#[derive(Debug, Default)]
struct Marks {
    off: u64,
    fresh: u64,
}

impl Marks {
    fn of(snapshot: &Value) -> Self {
        let mut marks = Self::default();
        marks.add(snapshot);
        marks
    }

    fn add(&mut self, snapshot: &Value) {
        self.off += snapshot["off"].as_u64().unwrap_or(0);
        self.fresh += snapshot["fresh"].as_u64().unwrap_or(0);
    }

    /// The line that explains the marks used, if any (`inline_off`: some line still carries
    /// its own off-screen mark; long runs are explained by their own mark line).
    fn legend(&self, inline_off: bool) -> Option<String> {
        let mut parts = Vec::new();
        if self.off > 0 && inline_off {
            parts.push("↓↑←→ off-screen");
        }
        if self.fresh > 0 {
            parts.push("new: since your last read");
        }
        (!parts.is_empty()).then(|| format!("[{}]", parts.join("; ")))
    }
}

/// What one `read_page` gathers while it walks into cross-origin frames.
struct Reading<'t> {
    tab: &'t Tab,
    opts: Value,
    /// The next ref number to issue.
    next: u64,
    /// Frames read last time and not met again yet (their sessions are reused; those left at
    /// the end are let go).
    earlier: Vec<FrameRefs>,
    /// Frames read this time, each before the frames inside it.
    read: Vec<FrameRefs>,
    marks: Marks,
    /// The browser's out-of-process frames, asked once the page shows one.
    targets: Option<Vec<String>>,
}

impl Reading<'_> {
    /// Puts each cross-origin frame a snapshot listed (`frames`) into `lines` in place of its
    /// mark: read in its own session, frames inside it too, down to [`frames::MAX_NESTING`]
    /// levels. `doc` is the frame whose document was read (`None`: the main document).
    fn splice<'a>(
        &'a mut self,
        lines: &'a mut Vec<String>,
        listed: Vec<Value>,
        doc: Option<FrameRefs>,
        level: usize,
    ) -> futures_util::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            if listed.is_empty() {
                return;
            }
            let doc_session = doc
                .as_ref()
                .map_or(self.tab.session_id.clone(), |d| d.session_id.clone());
            if self.targets.is_none() {
                self.targets = Some(frames::iframe_targets(self.tab).await);
            }
            let left: Vec<String> = self
                .targets
                .iter()
                .flatten()
                .filter(|t| !self.read.iter().any(|f| &f.target_id == *t))
                .cloned()
                .collect();
            let owners = frames::owners_in(self.tab, &doc_session, &left, None)
                .await
                .0;
            for frame in listed {
                let iframe_ref = frame["ref"].as_str().unwrap_or_default().to_string();
                let depth = frame["depth"].as_u64().unwrap_or(1);
                let mark = format!("{FRAME_MARK}{iframe_ref}");
                let Some(at) = lines.iter().position(|l| *l == mark) else {
                    continue;
                };
                let indent = " ".repeat(depth as usize);
                let target = owners
                    .iter()
                    .find(|(_, owner)| *owner == iframe_ref)
                    .map(|(target, _)| target.clone());
                let replacement = match target {
                    Some(_) if level > frames::MAX_NESTING => vec![format!(
                        "{indent}- (cross-origin frame nested more than {} deep: not read)",
                        frames::MAX_NESTING
                    )],
                    Some(target_id) => {
                        // Out of process: a session is found or made; else the frame is
                        // reached by its id on the session of the document holding it.
                        let own_target = self.targets.iter().flatten().any(|t| *t == target_id);
                        let session_id = match own_target {
                            true => String::new(),
                            false => crate::tools::tab::world::in_process(
                                crate::tools::tab::world::split(&doc_session).0,
                                &target_id,
                            ),
                        };
                        let placed = FrameRefs {
                            ranges: Vec::new(),
                            target_id,
                            session_id,
                            iframe_ref,
                            parent: doc.as_ref().map(|d| d.target_id.clone()),
                        };
                        self.read_frame(placed, depth, level).await
                    }
                    None => vec![format!(
                        "{indent}- (cross-origin frame {} not readable)",
                        frame["src"].as_str().unwrap_or_default()
                    )],
                };
                lines.splice(at..=at, replacement);
            }
        })
    }

    /// The lines of one cross-origin frame (`frame` says where it is; its session is found or
    /// made here), with the frames inside it.
    async fn read_frame(&mut self, frame: FrameRefs, depth: u64, level: usize) -> Vec<String> {
        let indent = " ".repeat(depth as usize);
        let prior = self
            .earlier
            .iter()
            .position(|f| f.target_id == frame.target_id)
            .map(|i| self.earlier.swap_remove(i));
        let lo = self.next;
        let mut opts = self.opts.clone();
        opts["base"] = json!(lo);
        opts["indent"] = json!(depth);
        opts["view"] = self.top_view_in(&frame).await;
        match snapshot_frame(self.tab, &frame, prior, &opts).await {
            Ok((mut entry, child)) => {
                let hi = child["next"].as_u64().unwrap_or(lo).max(lo);
                self.next = hi;
                if hi > lo {
                    entry.ranges.push((lo, hi));
                }
                entry.iframe_ref = frame.iframe_ref;
                entry.parent = frame.parent;
                self.read.push(entry.clone());
                self.marks.add(&child);
                let mut lines = strings(&child["lines"]);
                self.splice(&mut lines, frames_of(&child), Some(entry), level + 1)
                    .await;
                lines
            }
            Err(e) => vec![format!("{indent}- (cross-origin frame not readable: {e})")],
        }
    }

    /// The top-level viewport as `frame` sees it (in its own CSS pixels), for its off-screen
    /// marks; null when the frame cannot be placed.
    async fn top_view_in(&self, frame: &FrameRefs) -> Value {
        let Ok(placed) = frames::place(self.tab, frame, &self.read).await else {
            return Value::Null;
        };
        let (w, h) = self.tab.browser.viewport();
        json!({"x": -placed.x, "y": -placed.y, "w": w, "h": h})
    }
}

/// The cross-origin frames a snapshot listed.
fn frames_of(snapshot: &Value) -> Vec<Value> {
    snapshot["frames"].as_array().cloned().unwrap_or_default()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().map(str::to_string))
        .collect()
}

/// Cuts `text` at a line boundary within `max` characters; the note says what was left out.
pub fn cap(text: &str, max: usize) -> (String, Option<String>) {
    let total = text.chars().count();
    if total <= max {
        return (text.to_string(), None);
    }
    let cut: String = text.chars().take(max).collect();
    let cut = match cut.rfind('\n') {
        Some(i) if i > 0 => cut[..i].to_string(),
        _ => cut,
    };
    let shown = cut.chars().count();
    let note = format!(
        "[Truncated: showing {shown} of {total} characters; a larger max_chars shows more.]"
    );
    (cut, Some(note))
}

/// Snapshots the cross-origin frame `frame`: one in its parent's process at its address; an
/// out-of-process one in the session kept from an earlier `read_page` (`prior`), or in a new
/// one when there is none or it no longer answers.
async fn snapshot_frame(
    tab: &Tab,
    frame: &FrameRefs,
    prior: Option<FrameRefs>,
    opts: &Value,
) -> Result<(FrameRefs, Value), ToolError> {
    let target_id = frame.target_id.as_str();
    if !frame.session_id.is_empty() {
        let child = helper_on(
            &tab.browser,
            &frame.session_id,
            "snapshot",
            std::slice::from_ref(opts),
        )
        .await?;
        let ranges = prior.map(|p| p.ranges).unwrap_or_default();
        return Ok((
            FrameRefs {
                ranges,
                ..frame.clone()
            },
            child,
        ));
    }
    let mut ranges = Vec::new();
    if let Some(prior) = prior {
        match helper_on(
            &tab.browser,
            &prior.session_id,
            "snapshot",
            std::slice::from_ref(opts),
        )
        .await
        {
            Ok(child) => return Ok((prior, child)),
            Err(e) => {
                tracing::debug!(event = "frame_session_lost", target_id, error = %e);
                frames::detach(tab, target_id, &prior.session_id).await;
                ranges = prior.ranges;
            }
        }
    }
    let session_id = frames::attach(tab, target_id).await?;
    match helper_on(
        &tab.browser,
        &session_id,
        "snapshot",
        std::slice::from_ref(opts),
    )
    .await
    {
        Ok(child) => Ok((
            FrameRefs {
                ranges,
                target_id: target_id.to_string(),
                session_id,
                iframe_ref: String::new(),
                parent: None,
            },
            child,
        )),
        Err(e) => {
            frames::detach(tab, target_id, &session_id).await;
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cap;

    #[test]
    fn caps_at_a_line_boundary_with_a_note() {
        let (text, note) = cap("aaa\nbbb\nccc", 9);
        assert_eq!(text, "aaa\nbbb");
        assert!(note.unwrap().contains("showing 7 of 11"));
        assert_eq!(cap("short", 10), ("short".into(), None));
    }
}
