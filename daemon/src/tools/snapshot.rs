//! `read_page` and `find`: a compact accessibility-style tree, one element per line with a
//! ref, across same-origin iframes and open shadow roots (walked by `page.js`) and
//! out-of-process cross-origin iframes (each snapshotted in its own CDP session and spliced in
//! under its `<iframe>`), cut at `max_chars` with a note.

use porthole_mcp::vocabulary::{FindArgs, ReadPageArgs, ReadPageFilter};
use porthole_mcp::ToolOutput;
use serde_json::{json, Value};

use super::driver::{helper_on, Tab};
use super::error::ToolError;
use super::refs::{self, FrameRefs};

/// A placeholder `page.js` leaves where a cross-origin frame's content goes.
const FRAME_MARK: &str = "\u{0}frame:";

/// `read_page`.
pub async fn read_page(tab: &Tab, args: &ReadPageArgs) -> Result<ToolOutput, ToolError> {
    let filter = match args.filter() {
        ReadPageFilter::Interactive => "interactive",
        ReadPageFilter::All => "all",
    };
    let mut book = refs::book(tab);
    let opts = json!({"filter": filter, "depth": args.depth, "base": book.next, "indent": 0});
    let main = tab.helper("snapshot", std::slice::from_ref(&opts)).await?;
    book.next = book.next.max(main["next"].as_u64().unwrap_or(1));
    book.frames.clear();
    let mut lines: Vec<String> = strings(&main["lines"]);
    for frame in main["frames"].as_array().cloned().unwrap_or_default() {
        let iframe_ref = frame["ref"].as_str().unwrap_or_default().to_string();
        let depth = frame["depth"].as_u64().unwrap_or(1);
        let mark = format!("{FRAME_MARK}{iframe_ref}");
        let Some(at) = lines.iter().position(|l| *l == mark) else {
            continue;
        };
        let indent = "  ".repeat(depth as usize);
        let replacement = match cross_origin_frame(tab, &iframe_ref).await {
            Some(session_id) => {
                let lo = book.next;
                let mut child_opts = opts.clone();
                child_opts["base"] = json!(lo);
                child_opts["indent"] = json!(depth);
                match helper_on(tab.cdp(), &session_id, "snapshot", &[child_opts]).await {
                    Ok(child) => {
                        let hi = child["next"].as_u64().unwrap_or(lo).max(lo);
                        book.next = hi;
                        book.frames.push(FrameRefs {
                            lo,
                            hi,
                            session_id,
                            iframe_ref: iframe_ref.clone(),
                        });
                        strings(&child["lines"])
                            .into_iter()
                            .map(|l| {
                                if l.starts_with(FRAME_MARK) {
                                    format!("{indent}  - (nested cross-origin frame not read)")
                                } else {
                                    l
                                }
                            })
                            .collect()
                    }
                    Err(e) => vec![format!("{indent}- (cross-origin frame not readable: {e})")],
                }
            }
            None => vec![format!(
                "{indent}- (cross-origin frame {} not readable)",
                frame["src"].as_str().unwrap_or_default()
            )],
        };
        lines.splice(at..=at, replacement);
    }
    refs::store(tab, book);
    let header = format!(
        "Page: {} — {}",
        main["title"].as_str().unwrap_or_default(),
        main["url"].as_str().unwrap_or_default()
    );
    let body = if lines.is_empty() {
        match args.filter() {
            ReadPageFilter::Interactive => {
                "(no interactive elements; try filter \"all\" or get_page_text)".to_string()
            }
            ReadPageFilter::All => "(the page is empty)".to_string(),
        }
    } else {
        lines.join("\n")
    };
    let (body, note) = cap(&body, args.max_chars());
    let mut out = ToolOutput::text(format!("{header}\n{body}"));
    if let Some(note) = note {
        out = out.with_text(note);
    }
    Ok(out)
}

/// `find`.
pub async fn find(tab: &Tab, args: &FindArgs) -> Result<ToolOutput, ToolError> {
    let base = refs::book(tab).next;
    let found = tab
        .helper(
            "find",
            &[
                Value::from(args.query.as_str()),
                Value::from(args.max_results()),
                Value::from(base),
            ],
        )
        .await?;
    refs::advance(tab, found["next"].as_u64().unwrap_or(base));
    let lines = strings(&found["lines"]);
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
        "[Truncated: showing {shown} of {total} characters. Narrow it with depth, filter \
         \"interactive\", find, or a larger max_chars.]"
    );
    (cut, Some(note))
}

/// Attaches to the out-of-process frame whose `<iframe>` has ref `iframe_ref` in the main
/// frame; its flat session id, or `None` when it cannot be found.
async fn cross_origin_frame(tab: &Tab, iframe_ref: &str) -> Option<String> {
    let cdp = tab.cdp();
    let targets = cdp.call("Target.getTargets", json!({})).await.ok()?;
    let mut dom_enabled = false;
    for info in targets["targetInfos"].as_array().into_iter().flatten() {
        if info["type"] != "iframe" {
            continue;
        }
        let frame_id = info["targetId"].as_str()?;
        let mut owner = cdp
            .call_on(
                &tab.session_id,
                "DOM.getFrameOwner",
                json!({"frameId": frame_id}),
            )
            .await;
        if owner.is_err() && !dom_enabled {
            dom_enabled = true;
            let _ = cdp.call_on(&tab.session_id, "DOM.enable", json!({})).await;
            owner = cdp
                .call_on(
                    &tab.session_id,
                    "DOM.getFrameOwner",
                    json!({"frameId": frame_id}),
                )
                .await;
        }
        let Ok(owner) = owner else { continue };
        let Ok(node) = cdp
            .call_on(
                &tab.session_id,
                "DOM.resolveNode",
                json!({"backendNodeId": owner["backendNodeId"]}),
            )
            .await
        else {
            continue;
        };
        let Ok(r) = cdp
            .call_on(
                &tab.session_id,
                "Runtime.callFunctionOn",
                json!({
                    "objectId": node["object"]["objectId"],
                    "functionDeclaration": "function () { try { return window.top[Symbol.for('porthole.tools')].refOf(this); } catch (_) { return null; } }",
                    "returnByValue": true,
                }),
            )
            .await
        else {
            continue;
        };
        if r["result"]["value"].as_str() != Some(iframe_ref) {
            continue;
        }
        let attached = cdp
            .call(
                "Target.attachToTarget",
                json!({"targetId": frame_id, "flatten": true}),
            )
            .await
            .ok()?;
        return attached["sessionId"].as_str().map(str::to_string);
    }
    None
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
