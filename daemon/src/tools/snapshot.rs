//! `read_page` and `find`: a compact accessibility-style tree, one element per line with a
//! ref, across same-origin iframes and open shadow roots (walked by `page.js`) and
//! out-of-process cross-origin iframes (each snapshotted in its own CDP session and spliced in
//! under its `<iframe>`), cut at `max_chars` with a note. A frame's session is kept for the
//! frame's life and reused by later reads; sessions of frames that are gone are detached.

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
    // Frames read last time; those still in the page keep their session, the rest are let go.
    let mut earlier = std::mem::take(&mut book.frames);
    let mut lines: Vec<String> = strings(&main["lines"]);
    let frames = main["frames"].as_array().cloned().unwrap_or_default();
    let owners = if frames.is_empty() {
        Vec::new()
    } else {
        frame_owners(tab).await
    };
    for frame in frames {
        let iframe_ref = frame["ref"].as_str().unwrap_or_default().to_string();
        let depth = frame["depth"].as_u64().unwrap_or(1);
        let mark = format!("{FRAME_MARK}{iframe_ref}");
        let Some(at) = lines.iter().position(|l| *l == mark) else {
            continue;
        };
        let indent = "  ".repeat(depth as usize);
        let target = owners
            .iter()
            .find(|(_, owner)| *owner == iframe_ref)
            .map(|(target, _)| target.clone());
        let replacement = match target {
            Some(target_id) => {
                let prior = earlier
                    .iter()
                    .position(|f| f.target_id == target_id)
                    .map(|i| earlier.swap_remove(i));
                let lo = book.next;
                let mut child_opts = opts.clone();
                child_opts["base"] = json!(lo);
                child_opts["indent"] = json!(depth);
                match snapshot_frame(tab, &target_id, prior, &child_opts).await {
                    Ok((mut entry, child)) => {
                        let hi = child["next"].as_u64().unwrap_or(lo).max(lo);
                        book.next = hi;
                        if hi > lo {
                            entry.ranges.push((lo, hi));
                        }
                        entry.iframe_ref = iframe_ref.clone();
                        book.frames.push(entry);
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
    for gone in earlier {
        detach(tab, &gone.target_id, &gone.session_id).await;
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

/// Snapshots the out-of-process frame `target_id` in the session kept from an earlier
/// `read_page` (`prior`), or in a new one when there is none or it no longer answers.
async fn snapshot_frame(
    tab: &Tab,
    target_id: &str,
    prior: Option<FrameRefs>,
    opts: &Value,
) -> Result<(FrameRefs, Value), ToolError> {
    let mut ranges = Vec::new();
    if let Some(prior) = prior {
        match helper_on(
            tab.cdp(),
            &prior.session_id,
            "snapshot",
            std::slice::from_ref(opts),
        )
        .await
        {
            Ok(child) => return Ok((prior, child)),
            Err(e) => {
                tracing::debug!(event = "frame_session_lost", target_id, error = %e);
                detach(tab, target_id, &prior.session_id).await;
                ranges = prior.ranges;
            }
        }
    }
    let attached = tab
        .cdp()
        .call(
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
        )
        .await?;
    let session_id = attached["sessionId"]
        .as_str()
        .ok_or_else(|| ToolError::msg("the browser gave no session for the frame"))?
        .to_string();
    tracing::debug!(event = "frame_session_attached", target_id, session_id = %session_id);
    match helper_on(
        tab.cdp(),
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
            },
            child,
        )),
        Err(e) => {
            detach(tab, target_id, &session_id).await;
            Err(e)
        }
    }
}

/// Lets go of a frame session (best effort: the frame may be gone, and its session with it).
async fn detach(tab: &Tab, target_id: &str, session_id: &str) {
    let result = tab
        .cdp()
        .call(
            "Target.detachFromTarget",
            json!({ "sessionId": session_id }),
        )
        .await;
    tracing::debug!(
        event = "frame_session_detached",
        target_id,
        session_id,
        was_attached = result.is_ok()
    );
}

/// The out-of-process frames of this tab's page: `(target id, ref of its <iframe>)` for each
/// whose `<iframe>` got a ref in the main frame's snapshot.
async fn frame_owners(tab: &Tab) -> Vec<(String, String)> {
    const GROUP: &str = "porthole-frame-owners";
    let cdp = tab.cdp();
    // Owners are resolved into the helper's isolated world (where the refs are), and only an
    // answer carrying that world's nonce is believed.
    let Ok(world) = super::world::world(cdp, &tab.session_id).await else {
        return Vec::new();
    };
    let Ok(targets) = cdp.call("Target.getTargets", json!({})).await else {
        return Vec::new();
    };
    let mut owners = Vec::new();
    let mut dom_enabled = false;
    for info in targets["targetInfos"].as_array().into_iter().flatten() {
        if info["type"] != "iframe" {
            continue;
        }
        let Some(frame_id) = info["targetId"].as_str() else {
            continue;
        };
        // Frames of other tabs are not owned by a node of this one, and fail here.
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
                json!({
                    "backendNodeId": owner["backendNodeId"],
                    "objectGroup": GROUP,
                    "executionContextId": world.context_id,
                }),
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
                    "functionDeclaration": "function (nonce) { try { const h = window.top[Symbol.for('porthole.tools')]; return h && h.nonce === nonce ? h.refOf(this) : null; } catch (_) { return null; } }",
                    "arguments": [{"value": world.nonce}],
                    "returnByValue": true,
                }),
            )
            .await
        else {
            continue;
        };
        if let Some(r) = r["result"]["value"].as_str() {
            owners.push((frame_id.to_string(), r.to_string()));
        }
    }
    let _ = cdp
        .call_on(
            &tab.session_id,
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": GROUP }),
        )
        .await;
    owners
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
