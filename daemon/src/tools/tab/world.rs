//! The isolated JavaScript world the tools' in-page helper (`page.js`) runs in (DESIGN.md §13).
//!
//! An isolated world shares the page's DOM but none of its JavaScript: its own globals, its own
//! `JSON`, its own `Element.prototype`. A hostile page that replaces DOM methods, `JSON` or
//! defines globals under the helper's name changes nothing the helper sees, so it can neither
//! forge `read_page` nor move where a ref click lands. (The `evaluate` tool runs the agent's
//! code in the page's main world on purpose; it does not come through here.)
//!
//! One world per frame, made with `Page.createIsolatedWorld` and addressed by the
//! context's `uniqueId` (from `Runtime.executionContextCreated`), never by its numeric id:
//! numeric context ids are reused by the next renderer process after a cross-site navigation,
//! so a stale one could land in the new page's main world. A navigation destroys the world's
//! context; the next call finds it gone, makes a new one and runs once more.
//!
//! A frame is named by its *address*: the flat session of a tab or of an out-of-process frame
//! (the world goes in that session's main frame), or, for a frame Chrome keeps in its parent's
//! process (a same-site cross-origin `<iframe>`, which has no target and no session of its
//! own), `<session>/<frame id>` ([`in_process`]): the world is made in that frame by its id on
//! its parent's session.
//!
//! Owns no state: each session keeps its frames' worlds (`browser::worlds`). Touches nothing
//! but the frame it is given.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::browser::BrowserSession;
use crate::browser::NewDocumentWorld;
use crate::cdp::{CdpConnection, CdpError, CdpEvent};
use crate::tools::error::ToolError;

/// Name of the world in every frame.
const WORLD_NAME: &str = "porthole-tools";
/// The helper's API object, as the isolated world's own code reaches it.
/// The in-page helper: refs, snapshot, hit testing, form filling, text, quiet-DOM waits.
const PAGE_JS: &str = include_str!("page.js");

pub const HELPER: &str = "globalThis[Symbol.for('porthole.tools')]";
/// Sets the nonce on the helper's API: `(api, nonce)`.
const INSTALL: &str = include_str!("js/install.js");
/// A frame's isolated world with the helper installed (kept on the session).
pub type World = crate::browser::IsolatedWorld;

/// The address of the in-process frame `frame_id` of the document behind `session` (a tab's
/// or an out-of-process frame's flat session).
pub fn in_process(session: &str, frame_id: &str) -> String {
    format!("{session}/{frame_id}")
}

/// An address's flat CDP session, and the frame's id when the address names an in-process
/// frame (see [`in_process`]).
pub fn split(address: &str) -> (&str, Option<&str>) {
    match address.split_once('/') {
        Some((session, frame)) => (session, Some(frame)),
        None => (address, None),
    }
}

/// The helper's world in the frame at `session` (an address), made when there is none yet.
pub async fn world(browser: &BrowserSession, session: &str) -> Result<World, ToolError> {
    Ok(world_then(browser, session, None).await?.0)
}

/// [`world`], and when it has to be made, `then` evaluated in it in the same call as the
/// helper's install (one round trip less after each navigation): its reply comes back too.
async fn world_then(
    browser: &BrowserSession,
    session: &str,
    then: Option<(&str, Duration)>,
) -> Result<(World, Option<Value>), ToolError> {
    if let Some(world) = browser.worlds().get(session) {
        return Ok((world, None));
    }
    let (cdp_session, in_frame) = split(session);
    let frame = match in_frame {
        Some(frame) => Some(frame.to_string()),
        None => browser.main_frame_of(session),
    };
    let is_tab = in_frame.is_none() && frame.is_some();
    let (world, reply) = create(browser.cdp(), cdp_session, frame, then).await?;
    browser.worlds().remember(session, world.clone());
    if is_tab && browser.worlds().on_new_documents(session).is_none() {
        made_in_new_documents(browser, session);
    }
    Ok((world, reply))
}

/// Has Chrome make the helper's world in each new document of the tab behind `session` from
/// now on, unless it does already (sent without waiting): called as a tab's tool call begins,
/// so a first call that navigates finds the world made in its new document, not made after
/// it (one round trip less).
pub fn in_new_documents(browser: &BrowserSession, session: &str) {
    if browser.main_frame_of(session).is_some()
        && browser.worlds().on_new_documents(session).is_none()
    {
        made_in_new_documents(browser, session);
    }
}

/// From now on Chrome makes the world, helper installed, in each new document of the tab
/// behind `session` (`Page.addScriptToEvaluateOnNewDocument`, sent without waiting), and the
/// session learns its id from the context's report (`Worlds::context_created`): a tool after
/// a navigation finds the world there instead of making one (two round trips). Only tabs the
/// tools have used pay for the helper in every document.
fn made_in_new_documents(browser: &BrowserSession, session: &str) {
    let world = NewDocumentWorld {
        name: format!("{WORLD_NAME}-{:016x}", rand::random::<u64>()),
        nonce: format!("{:032x}", rand::random::<u128>()),
    };
    browser.cdp().fire(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": install_script(&world.nonce), "worldName": world.name}),
        Some(session),
    );
    browser.worlds().register_new_documents(session, world);
}

/// The script that installs the helper in a world, `nonce` on it; its value is `true`.
fn install_script(nonce: &str) -> String {
    format!(
        "({INSTALL})(({PAGE_JS}), {})",
        serde_json::to_string(nonce).expect("a string serializes")
    )
}

/// Evaluates `expression` in the helper's world of the frame at `session` (value returned
/// by JSON, promises awaited) within `deadline`; exceptions become errors. A world destroyed
/// by a navigation is made again and the expression run once more.
pub async fn evaluate(
    browser: &BrowserSession,
    session: &str,
    expression: &str,
    deadline: Duration,
) -> Result<Value, ToolError> {
    let cdp = browser.cdp();
    let mut retried = false;
    loop {
        let (world, made) = world_then(browser, session, Some((expression, deadline))).await?;
        let reply = match made {
            Some(reply) => Ok(reply),
            None => {
                cdp.call_with(
                    "Runtime.evaluate",
                    json!({
                        "expression": expression,
                        "uniqueContextId": world.unique_id,
                        "returnByValue": true,
                        "awaitPromise": true,
                    }),
                    Some(split(session).0),
                    deadline,
                )
                .await
            }
        };
        let error = match reply {
            Ok(reply) => {
                if let Some(text) = crate::cdp::thrown(&reply) {
                    return Err(ToolError::msg(format!("JavaScript error: {text}")));
                }
                return Ok(reply["result"]["value"].clone());
            }
            Err(error) => error,
        };
        let gone = matches!(&error, CdpError::Protocol { message, .. } if is_world_gone(message));
        if !gone {
            return Err(error.into());
        }
        browser.worlds().forget(session, &world);
        if retried {
            return Err(ToolError::msg(
                "The page navigated away twice while the tool was reading it; try again once it \
                 has settled.",
            ));
        }
        tracing::debug!(event = "tools_world_gone", session, %error);
        retried = true;
    }
}

/// Chrome's ways of saying the context is no more (navigated away, frame gone).
fn is_world_gone(message: &str) -> bool {
    [
        "uniqueContextId not found",
        "Cannot find context with specified id",
        "Execution context was destroyed",
    ]
    .iter()
    .any(|gone| message.contains(gone))
}

/// Makes the world in the session's frame (`frame`: its id when known, else asked) and
/// installs the helper in it; with `then`, evaluates that expression right after the install
/// in the same call and returns its reply (a thrown exception in it is in the reply).
async fn create(
    cdp: &CdpConnection,
    session: &str,
    frame: Option<String>,
    then: Option<(&str, Duration)>,
) -> Result<(World, Option<Value>), ToolError> {
    let frame_id = match frame {
        Some(frame) => frame,
        None => {
            let tree = cdp.call_on(session, "Page.getFrameTree", json!({})).await?;
            tree["frameTree"]["frame"]["id"]
                .as_str()
                .ok_or_else(|| {
                    ToolError::msg("the browser did not name the page's frame; try again")
                })?
                .to_string()
        }
    };
    // Subscribed before anything is asked, so no context report can be missed. Chrome reports
    // a context before it answers the call that made it.
    let mut events = cdp.subscribe();
    // A fresh name each time: a document that already has a world of the asked name (made by
    // an earlier daemon, before the cache forgot it, or restored from the back/forward cache)
    // would get that world back without a report, its uniqueId unknown. Tried twice.
    let names = [0, 1].map(|_| format!("{WORLD_NAME}-{:016x}", rand::random::<u64>()));
    let mut enabled_here = false;
    for name in names.iter().map(String::as_str) {
        let created = cdp
            .call_on(
                session,
                "Page.createIsolatedWorld",
                json!({"frameId": frame_id, "worldName": name, "grantUniveralAccess": true}),
            )
            .await?;
        let Some(context_id) = created["executionContextId"].as_i64() else {
            continue;
        };
        let mut unique_id = reported(&mut events, session, context_id, name);
        if unique_id.is_none() && !enabled_here {
            // No report: the session may not have Runtime on (a frame session). Turning it
            // on reports every context the frame has, ours included, and is put back after.
            // Where Runtime was on already (a tab's session) nothing is reported, and the
            // world was an old one: the fresh name follows.
            enabled_here = true;
            cdp.call_on(session, "Runtime.enable", json!({})).await?;
            unique_id = reported(&mut events, session, context_id, name);
            if unique_id.is_some() {
                let _ = cdp.call_on(session, "Runtime.disable", json!({})).await;
            }
        }
        let Some(unique_id) = unique_id else {
            continue;
        };
        let nonce = format!("{:032x}", rand::random::<u128>());
        let install = install_script(&nonce);
        // With `then`: the install, then the expression, in one script (its value is the
        // expression's); an install that throws never reaches it.
        let (expression, deadline) = match then {
            Some((then, deadline)) => (
                format!("{install};\n({then})"),
                deadline.max(Duration::from_secs(10)),
            ),
            None => (install, Duration::from_secs(10)),
        };
        let reply = cdp
            .call_with(
                "Runtime.evaluate",
                json!({"expression": expression, "uniqueContextId": unique_id,
                    "returnByValue": true, "awaitPromise": then.is_some()}),
                Some(session),
                deadline,
            )
            .await?;
        let installed = then.is_none() || {
            // Installed unless the throw came before the helper existed.
            crate::cdp::thrown(&reply).is_none() || helper_present(cdp, session, &unique_id).await
        };
        if !installed {
            let text = crate::cdp::thrown(&reply).unwrap_or_default();
            return Err(ToolError::msg(format!(
                "the page helper failed to load: {text}"
            )));
        }
        if then.is_none() {
            if let Some(text) = crate::cdp::thrown(&reply) {
                return Err(ToolError::msg(format!(
                    "the page helper failed to load: {text}"
                )));
            }
        }
        tracing::debug!(
            event = "tools_world_created",
            session,
            frame_id,
            context_id,
            name
        );
        let world = World {
            unique_id,
            context_id,
            nonce,
        };
        return Ok((world, then.map(|_| reply)));
    }
    Err(ToolError::msg(
        "the browser did not report Porthole's isolated world for this page; try again",
    ))
}

/// Whether the helper is in the world `unique_id` (after a combined install whose expression
/// threw: the throw may be the expression's own).
async fn helper_present(cdp: &CdpConnection, session: &str, unique_id: &str) -> bool {
    let reply = cdp
        .call_on(
            session,
            "Runtime.evaluate",
            json!({"expression": format!("typeof {HELPER}"), "uniqueContextId": unique_id,
                "returnByValue": true}),
        )
        .await;
    reply.is_ok_and(|r| r["result"]["value"] == "object")
}

/// The `uniqueId` of context `context_id` named `name`, from the reports already received.
fn reported(
    events: &mut broadcast::Receiver<CdpEvent>,
    session: &str,
    context_id: i64,
    name: &str,
) -> Option<String> {
    loop {
        let event = match events.try_recv() {
            Ok(event) => event,
            Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
            Err(_) => return None,
        };
        if event.method != "Runtime.executionContextCreated"
            || event.session_id.as_deref() != Some(session)
        {
            continue;
        }
        let context = &event.params["context"];
        if context["id"].as_i64() == Some(context_id) && context["name"] == name {
            if let Some(unique) = context["uniqueId"].as_str() {
                return Some(unique.to_string());
            }
        }
    }
}
