//! Out-of-process (cross-origin) frames of a tab: which frames its page embeds (each frame's
//! target id and the ref of the `<iframe>` that owns it), and one flat CDP session per frame,
//! kept in the tab's ref book ([`super::refs`]) for the frame's life and reused by every tool
//! that looks into frames (`read_page`, `find`, `get_page_text`, `wait_for_*`).
//!
//! Only frames owned by an `<iframe>` of the tab's main document are reached (a cross-origin
//! frame inside another one is not). Owns no state of its own: the sessions live in the book.

use serde_json::{json, Value};

use super::driver::{helper_on, Tab};
use super::error::ToolError;
use super::refs::{self, FrameRefs};

/// The out-of-process frames of this tab's page: `(target id, ref of its <iframe>)` for each
/// whose `<iframe>` has a ref in the main document — or is given one from `issue` (the next
/// free ref number) when it has none yet. Also returns the main document's next ref number.
pub async fn owners(tab: &Tab, issue: Option<u64>) -> (Vec<(String, String)>, Option<u64>) {
    const GROUP: &str = "porthole-frame-owners";
    let cdp = tab.cdp();
    let mut next = None;
    // Owners are resolved into the helper's isolated world (where the refs are), and only an
    // answer carrying that world's nonce is believed.
    let Ok(world) = super::world::world(&tab.browser, &tab.session_id).await else {
        return (Vec::new(), next);
    };
    let Ok(targets) = cdp.call("Target.getTargets", json!({})).await else {
        return (Vec::new(), next);
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
                    "functionDeclaration": "function (nonce, base) { try { const h = window.top[Symbol.for('porthole.tools')]; if (!h || h.nonce !== nonce) return null; const r = h.refOf(this); return r ? { ref: r } : (base ? h.issue(this, base) : null); } catch (_) { return null; } }",
                    "arguments": [{"value": world.nonce}, {"value": issue}],
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
            &tab.session_id,
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": GROUP }),
        )
        .await;
    (owners, next)
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

/// Lets go of a frame session (best effort: the frame may be gone, and its session with it).
pub async fn detach(tab: &Tab, target_id: &str, session_id: &str) {
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

/// Every out-of-process frame of the tab with a session to it: the one kept in the book, or a
/// new one (then kept there too). `<iframe>`s without a ref get one.
pub async fn sessions(tab: &Tab) -> Vec<FrameRefs> {
    let book = refs::book(tab);
    let (owners, next) = owners(tab, Some(book.next)).await;
    if let Some(next) = next {
        refs::advance(tab, next);
    }
    let mut out = Vec::new();
    let mut added = Vec::new();
    for (target_id, iframe_ref) in owners {
        if let Some(known) = book.frames.iter().find(|f| f.target_id == target_id) {
            out.push(known.clone());
            continue;
        }
        match attach(tab, &target_id).await {
            Ok(session_id) => {
                let frame = FrameRefs {
                    ranges: Vec::new(),
                    target_id,
                    session_id,
                    iframe_ref,
                };
                added.push(frame.clone());
                out.push(frame);
            }
            Err(e) => tracing::debug!(event = "frame_attach_failed", target_id, error = %e),
        }
    }
    if !added.is_empty() {
        tab.browser.refs().merge(&tab.target_id, 0, added, &[]);
    }
    out
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
