//! Cross-origin frames of a tab: which frames its page embeds (each frame's id and the ref of
//! the `<iframe>` that owns it), and where the tools reach each one, kept in the tab's ref book
//! ([`crate::tools::tab::element_refs`]) for the frame's life and reused by every tool that looks into frames
//! (`read_page`, `find`, `get_page_text`, `wait_for_*`, badges). An out-of-process frame (a
//! cross-site one) is a target of its own, reached through one flat CDP session attached to
//! it. A cross-origin frame of the same site stays in its parent's process with no target:
//! it is reached by its frame id on the session of the document holding it
//! ([`crate::tools::tab::world::in_process`]), where the tools' world is made in it.
//!
//! A cross-origin frame inside another one is reached through its parent's session, down to
//! [`MAX_NESTING`] levels; where a frame sits in the viewport is the sum of its `<iframe>`s'
//! places along that chain ([`place`]). Owns no state of its own: the sessions live in the
//! book.

use serde_json::{json, Value};

use crate::tools::error::ToolError;
use crate::tools::tab::driver::{helper_on, Tab};
use crate::tools::tab::element_refs::{self as refs, FrameRefs};

/// An `<iframe>`'s ref in the tools' world of the document holding it: `(nonce, base)` on the
/// element.
const FRAME_REF: &str = include_str!("js/frame-ref.js");

/// How deep cross-origin frames inside cross-origin frames are followed (the tab's main
/// document's frames are level 1).
pub const MAX_NESTING: usize = 4;

/// The most out-of-process frames of one tab the tools look into.
const MAX_FRAMES: usize = 32;

/// The target ids of every out-of-process frame in the browser (of any tab).
pub async fn iframe_targets(tab: &Tab) -> Vec<String> {
    let Ok(targets) = tab.cdp().call("Target.getTargets", json!({})).await else {
        return Vec::new();
    };
    targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|info| info["type"] == "iframe")
        .filter_map(|info| info["targetId"].as_str().map(str::to_string))
        .collect()
}

/// Which of the out-of-process frames `candidates` (target ids) have their `<iframe>` in the
/// document behind flat session `doc_session` (the tab's main session, or a frame's):
/// `(target id, ref of its <iframe>)` for each whose `<iframe>` has a ref in that document —
/// or is given one from `issue` (the next free ref number) when it has none yet. Also returns
/// that document's next ref number.
///
/// The frames the document holds in its own process (cross-origin frames of the same site)
/// are candidates too, unless the document's world reads them itself (same origin).
pub async fn owners_in(
    tab: &Tab,
    doc: &str,
    candidates: &[String],
    issue: Option<u64>,
) -> (Vec<(String, String)>, Option<u64>) {
    const GROUP: &str = "porthole-frame-owners";
    let cdp = tab.cdp();
    let doc_session = crate::tools::tab::world::split(doc).0;
    let mut next = None;
    let in_process: Vec<String> = in_process_children(tab, doc)
        .await
        .into_iter()
        .filter(|f| !candidates.contains(f))
        .collect();
    if candidates.is_empty() && in_process.is_empty() {
        return (Vec::new(), next);
    }
    // Owners are resolved into the helper's isolated world (where the refs are), and only an
    // answer carrying that world's nonce is believed.
    let Ok(world) = crate::tools::tab::world::world(&tab.browser, doc).await else {
        return (Vec::new(), next);
    };
    let mut owners = Vec::new();
    let mut dom_enabled = false;
    let all = candidates.iter().map(|f| (f, false));
    for (frame_id, skip_readable) in all.chain(in_process.iter().map(|f| (f, true))) {
        let frame_id = frame_id.as_str();
        // Frames of other tabs or documents are not owned by a node of this one, and fail here.
        let mut owner = cdp
            .call_on(
                doc_session,
                "DOM.getFrameOwner",
                json!({"frameId": frame_id}),
            )
            .await;
        if owner.is_err() && !dom_enabled {
            dom_enabled = true;
            let _ = cdp.call_on(doc_session, "DOM.enable", json!({})).await;
            owner = cdp
                .call_on(
                    doc_session,
                    "DOM.getFrameOwner",
                    json!({"frameId": frame_id}),
                )
                .await;
        }
        let Ok(owner) = owner else { continue };
        let Ok(node) = cdp
            .call_on(
                doc_session,
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
                doc_session,
                "Runtime.callFunctionOn",
                json!({
                    "objectId": node["object"]["objectId"],
                    "functionDeclaration": FRAME_REF,
                    "arguments": [{"value": world.nonce}, {"value": issue},
                                  {"value": skip_readable}],
                    "returnByValue": true,
                }),
            )
            .await
        else {
            continue;
        };
        let value = &r["result"]["value"];
        if let Some(n) = value["next"].as_u64() {
            next = Some(next.unwrap_or(0).max(n));
        }
        if let Some(r) = value["ref"].as_str() {
            owners.push((frame_id.to_string(), r.to_string()));
        }
    }
    let _ = cdp
        .call_on(
            doc_session,
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": GROUP }),
        )
        .await;
    (owners, next)
}

/// The frames directly inside the document at `doc` (an address, see [`crate::tools::tab::world`]) that
/// live in its own process, by frame id; those of the document's own origin (which `page.js`
/// walks in place) are left out here, without a round trip each.
async fn in_process_children(tab: &Tab, doc: &str) -> Vec<String> {
    let (session, frame) = crate::tools::tab::world::split(doc);
    let Ok(tree) = tab
        .cdp()
        .call_on(session, "Page.getFrameTree", json!({}))
        .await
    else {
        return Vec::new();
    };
    let node = match frame {
        None => Some(&tree["frameTree"]),
        Some(frame) => find_frame(&tree["frameTree"], frame, 0),
    };
    let Some(node) = node else {
        return Vec::new();
    };
    let origin = &node["frame"]["securityOrigin"];
    node["childFrames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|child| origin.is_null() || child["frame"]["securityOrigin"] != *origin)
        .filter_map(|child| child["frame"]["id"].as_str().map(str::to_string))
        .collect()
}

/// The node of frame `id` in a `Page.FrameTree`.
fn find_frame<'t>(tree: &'t Value, id: &str, depth: usize) -> Option<&'t Value> {
    if tree["frame"]["id"] == id {
        return Some(tree);
    }
    if depth > 2 * MAX_NESTING {
        return None;
    }
    tree["childFrames"]
        .as_array()?
        .iter()
        .find_map(|child| find_frame(child, id, depth + 1))
}

/// Attaches a flat session to the frame `target_id`.
pub async fn attach(tab: &Tab, target_id: &str) -> Result<String, ToolError> {
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
    Ok(session_id)
}

/// Lets go of a frame session (best effort: the frame may be gone, and its session with it);
/// an in-process frame has none of its own.
pub async fn detach(tab: &Tab, target_id: &str, session_id: &str) {
    if crate::tools::tab::world::split(session_id).1.is_some() {
        return;
    }
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

/// Every cross-origin frame of the tab with where to reach it, parents before their children:
/// an out-of-process frame's session kept in the book, or a new one (then kept there too); an
/// in-process frame's address on its parent's session. `<iframe>`s without a ref get one
/// (recorded as their document's).
pub async fn sessions(tab: &Tab) -> Vec<FrameRefs> {
    let known = refs::book(tab).frames;
    let all = iframe_targets(tab).await;
    let mut out: Vec<FrameRefs> = Vec::new();
    // Kept in the book at once, so refs issued in a frame's document are recorded as its.
    let keep = |frame: &FrameRefs| {
        tab.browser
            .refs()
            .merge(&tab.target_id, 0, vec![frame.clone()], &[]);
    };
    // Documents to look in: `None` is the tab's main document; each level's frames next.
    let mut level: Vec<Option<FrameRefs>> = vec![None];
    for _ in 0..MAX_NESTING {
        let mut below = Vec::new();
        for parent in level {
            if out.len() >= MAX_FRAMES {
                break;
            }
            let doc_session = parent
                .as_ref()
                .map_or(tab.session_id.clone(), |p| p.session_id.clone());
            // Frames placed already are not looked for again.
            let left: Vec<String> = all
                .iter()
                .filter(|t| !out.iter().any(|f| &f.target_id == *t))
                .cloned()
                .collect();
            let lo = refs::book(tab).next;
            let (owners, next) = owners_in(tab, &doc_session, &left, Some(lo)).await;
            match (&parent, next) {
                (None, Some(next)) => refs::advance(tab, next),
                (Some(parent), Some(next)) => record(tab, parent, lo, next),
                (_, None) => {}
            }
            for (target_id, iframe_ref) in owners {
                if out.iter().any(|f| f.target_id == target_id) || out.len() >= MAX_FRAMES {
                    continue;
                }
                let parent_id = parent.as_ref().map(|p| p.target_id.clone());
                if let Some(found) = known.iter().find(|f| f.target_id == target_id) {
                    let mut found = found.clone();
                    if found.parent != parent_id || found.iframe_ref != iframe_ref {
                        (found.parent, found.iframe_ref) = (parent_id, iframe_ref);
                        keep(&found);
                    }
                    below.push(Some(found.clone()));
                    out.push(found);
                    continue;
                }
                if !all.contains(&target_id) {
                    // In the process of the document holding it: reached on that session.
                    let session = crate::tools::tab::world::split(&doc_session).0;
                    let frame = FrameRefs {
                        ranges: Vec::new(),
                        session_id: crate::tools::tab::world::in_process(session, &target_id),
                        target_id,
                        iframe_ref,
                        parent: parent_id,
                    };
                    keep(&frame);
                    below.push(Some(frame.clone()));
                    out.push(frame);
                    continue;
                }
                match attach(tab, &target_id).await {
                    Ok(session_id) => {
                        let frame = FrameRefs {
                            ranges: Vec::new(),
                            target_id,
                            session_id,
                            iframe_ref,
                            parent: parent_id,
                        };
                        keep(&frame);
                        below.push(Some(frame.clone()));
                        out.push(frame);
                    }
                    Err(e) => {
                        tracing::debug!(event = "frame_attach_failed", target_id, error = %e)
                    }
                }
            }
        }
        if below.is_empty() {
            break;
        }
        level = below;
    }
    out
}

/// Where an out-of-process frame's content sits in the tab's viewport (CSS px).
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// The frame content's top-left corner.
    pub x: f64,
    pub y: f64,
    /// The part of the viewport the frame can show in: its `<iframe>`'s box cut by each
    /// enclosing frame's (`x0, y0, x1, y1`; not cut by the viewport).
    pub shown: (f64, f64, f64, f64),
    /// Each `<iframe>` on the way from the main document down to the frame's own: the flat
    /// session of the document holding it, its ref there, and where that document's content
    /// starts in the viewport.
    pub holders: Vec<Holder>,
}

/// One `<iframe>` on the way to a frame (see [`Placement::holders`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub doc_session: String,
    pub iframe_ref: String,
    pub doc_origin: (f64, f64),
}

/// Places `frame` in the viewport by summing its `<iframe>`s' places from the main document
/// down; `known` holds its enclosing frames (the book's frames, or those read so far).
pub async fn place(
    tab: &Tab,
    frame: &FrameRefs,
    known: &[FrameRefs],
) -> Result<Placement, ToolError> {
    let mut chain = vec![frame.clone()];
    while let Some(parent) = chain.last().and_then(|f| f.parent.clone()) {
        let found = known.iter().find(|f| f.target_id == parent);
        match found {
            Some(p) if chain.len() <= MAX_NESTING => chain.push(p.clone()),
            _ => {
                return Err(ToolError::msg(
                    "the cross-origin frame around this one is gone; call read_page again",
                ))
            }
        }
    }
    let mut placed = Placement {
        x: 0.0,
        y: 0.0,
        shown: (f64::MIN, f64::MIN, f64::MAX, f64::MAX),
        holders: Vec::new(),
    };
    let mut doc_session = tab.session_id.clone();
    for f in chain.iter().rev() {
        let origin = helper_on(
            &tab.browser,
            &doc_session,
            "frameOrigin",
            &[Value::from(f.iframe_ref.as_str())],
        )
        .await?;
        if let Some(error) = refs::ref_error(tab, &f.iframe_ref, &origin) {
            return Err(error);
        }
        let number = |k: &str| origin[k].as_f64().unwrap_or(0.0);
        let (x, y) = (placed.x + number("x"), placed.y + number("y"));
        let (x0, y0, x1, y1) = placed.shown;
        let mut holders = std::mem::take(&mut placed.holders);
        holders.push(Holder {
            doc_session: doc_session.clone(),
            iframe_ref: f.iframe_ref.clone(),
            doc_origin: (placed.x, placed.y),
        });
        placed = Placement {
            x,
            y,
            shown: (
                x0.max(x),
                y0.max(y),
                x1.min(x + number("w")),
                y1.min(y + number("h")),
            ),
            holders,
        };
        doc_session = f.session_id.clone();
    }
    Ok(placed)
}

/// Calls `page.js`'s `function(args…)` in each frame; frames that do not answer (gone, or
/// navigating) are left out.
pub async fn helper_in_each(
    tab: &Tab,
    frames: &[FrameRefs],
    function: &str,
    args: &[Value],
) -> Vec<(FrameRefs, Value)> {
    let mut out = Vec::new();
    for frame in frames {
        match helper_on(&tab.browser, &frame.session_id, function, args).await {
            Ok(v) => out.push((frame.clone(), v)),
            Err(e) => {
                tracing::debug!(event = "frame_helper_failed", target_id = %frame.target_id, error = %e)
            }
        }
    }
    out
}

/// Records that refs `[lo, hi)` were issued in `frame` (and raises the tab's next number).
pub fn record(tab: &Tab, frame: &FrameRefs, lo: u64, hi: u64) {
    if hi <= lo {
        return;
    }
    let mut entry = refs::book(tab)
        .frames
        .into_iter()
        .find(|f| f.target_id == frame.target_id)
        .unwrap_or_else(|| frame.clone());
    entry.ranges.push((lo, hi));
    tab.browser
        .refs()
        .merge(&tab.target_id, hi, vec![entry], &[]);
}

/// Scrolls the element into view and returns its centre in viewport CSS pixels, refusing
/// when it is covered or gone.
pub async fn point_of(tab: &Tab, r: &str) -> Result<(f64, f64, String), ToolError> {
    let (session, iframe) = refs::locate(tab, r)?;
    let answer = helper_on(&tab.browser, &session, "point", &[Value::from(r)])
        .await
        .map_err(|e| refs::frame_gone(r, &iframe, e))?;
    if let Some(error) = refs::ref_error(tab, r, &answer) {
        return Err(error);
    }
    let (mut x, mut y) = (
        answer["x"].as_f64().unwrap_or(0.0),
        answer["y"].as_f64().unwrap_or(0.0),
    );
    if let Some(frame) = iframe {
        let placed = place(tab, &frame, &refs::book(tab).frames).await?;
        x += placed.x;
        y += placed.y;
    }
    Ok((
        x,
        y,
        answer["what"].as_str().unwrap_or_default().to_string(),
    ))
}
