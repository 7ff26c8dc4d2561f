//! The `Target` domain as the client sees it: a browser whose only tabs are the agent's own.
//! Discovery, auto-attach and `getTargets` list the agent's tabs; a target id that is not the
//! agent's answers Chrome's own "No target with given id found"; `createTarget` opens an agent
//! tab through the daemon's own machinery (`agent_tabs().open`, as MCP `new_tab`), in the
//! agent's window and recorded as its; `closeTarget` closes only its own; sessions are flat
//! only. Opening and closing tabs is shared with the door's `json/new` and `json/close`.
//!
//! A tab the client opens is announced (`targetCreated`) and auto-attached
//! (`attachedToTarget`) before `createTarget` answers, as Chrome does: Playwright looks the
//! new page up the moment the answer arrives.

use std::sync::Arc;

use porthole_mcp::ToolName;
use serde_json::{json, Value};

use super::door::Door;
use super::wire::{self, failure, Failure, INVALID_PARAMS, NO_TARGET, SERVER_ERROR};
use crate::browser::UrlPolicy;

/// The result of a `Target` command and the events the client must see before it.
pub(super) struct Answered {
    pub(super) before: Vec<String>,
    pub(super) result: Value,
}

impl Answered {
    fn just(result: Value) -> Self {
        Self {
            before: Vec::new(),
            result,
        }
    }
}

/// Runs browser-level `Target.<name>` for the client.
pub(super) async fn handle(
    door: &Arc<Door>,
    name: &str,
    params: &Value,
) -> Result<Answered, Failure> {
    match name {
        "getTargets" => {
            let mut infos = Vec::new();
            for target in own_tabs(door) {
                if let Some(info) = info(door, &target).await {
                    infos.push(info);
                }
            }
            Ok(Answered::just(json!({ "targetInfos": infos })))
        }
        "getTargetInfo" => match params["targetId"].as_str() {
            // The browser's own target.
            None => forward(door, "Target.getTargetInfo", json!({}))
                .await
                .map(Answered::just),
            Some(target) => {
                ensure_own(door, target)?;
                let info = info(door, target).await.ok_or_else(no_target)?;
                Ok(Answered::just(json!({ "targetInfo": info })))
            }
        },
        "setDiscoverTargets" => {
            let on = params["discover"].as_bool().unwrap_or(false);
            door.set_discover(on);
            let mut before = Vec::new();
            if on {
                for target in own_tabs(door) {
                    before.extend(arrived(door, &target).await);
                }
            }
            Ok(Answered {
                before,
                result: json!({}),
            })
        }
        "setAutoAttach" => {
            flat_only(params)?;
            let on = params["autoAttach"].as_bool().unwrap_or(false);
            door.set_auto_attach(on);
            let mut before = Vec::new();
            if on {
                for target in own_tabs(door) {
                    before.extend(arrived(door, &target).await);
                }
            }
            Ok(Answered {
                before,
                result: json!({}),
            })
        }
        "attachToTarget" => {
            flat_only(params)?;
            let target = params["targetId"].as_str().unwrap_or_default();
            ensure_own(door, target)?;
            let (session, info) = attach(door, target).await?;
            Ok(Answered {
                before: vec![attached_event(&session, info)],
                result: json!({ "sessionId": session }),
            })
        }
        "detachFromTarget" => {
            let session = params["sessionId"].as_str().unwrap_or_default();
            if door.tab_of(session).is_none() {
                return Err((INVALID_PARAMS, wire::NO_SESSION.to_string()));
            }
            let result = forward(
                door,
                "Target.detachFromTarget",
                json!({ "sessionId": session }),
            )
            .await?;
            door.detached(session);
            Ok(Answered::just(result))
        }
        "createTarget" => {
            if let Some(context) = params["browserContextId"].as_str() {
                return Err((
                    SERVER_ERROR,
                    format!("Failed to find browser context with id {context}"),
                ));
            }
            let url = params["url"].as_str().unwrap_or("about:blank");
            let target = open(door, url).await?;
            let before = arrived(door, &target).await;
            Ok(Answered {
                before,
                result: json!({ "targetId": target }),
            })
        }
        "closeTarget" => {
            let target = params["targetId"].as_str().unwrap_or_default();
            close(door, target).await?;
            Ok(Answered::just(json!({ "success": true })))
        }
        "attachToBrowserTarget" => Ok(Answered::just(
            json!({ "sessionId": door.new_browser_session() }),
        )),
        "getBrowserContexts" => Ok(Answered::just(json!({ "browserContextIds": [] }))),
        "sendMessageToTarget" => Err((
            SERVER_ERROR,
            "Porthole's CDP door speaks flat sessions only: attach with Target.attachToTarget \
             {flatten: true} (or setAutoAttach with flatten: true) and send commands with their \
             sessionId; Target.sendMessageToTarget is not supported"
                .to_string(),
        )),
        _ => Err((
            SERVER_ERROR,
            wire::refused(name, super::allow::NOT_ON_TABLE),
        )),
    }
}

/// Opens a tab of the agent's on `url` (checked as MCP `new_tab` checks it) and records it as
/// this connection's; returns its target id.
pub(super) async fn open(door: &Arc<Door>, url: &str) -> Result<String, Failure> {
    let entry = &door.entry;
    let session = &entry.session;
    let target = session
        .agent_tabs()
        .open(&entry.actor)
        .await
        .map_err(|e| (SERVER_ERROR, crate::tools::ToolError::from(e).to_string()))?;
    door.opened(&target);
    super::warm_next::when_quiet(door);
    tracing::info!(event = "cdp_door_tab_opened", channel_id = %entry.channel, agent_id = entry.actor.id(), target_id = %target);
    if !url.is_empty() && url != "about:blank" {
        let tab_session = session.tab_session(&target).ok_or_else(no_target)?;
        let navigated = session
            .navigation()
            .navigate_with(&tab_session, url, UrlPolicy::Agent, None)
            .await;
        if let Err(error) = navigated {
            let _ = session.agent_tabs().close(&entry.actor, &target).await;
            return Err((
                SERVER_ERROR,
                crate::tools::ToolError::from(error).to_string(),
            ));
        }
    }
    Ok(target)
}

/// Closes the agent's tab `target`, unless the person holds control or uses it.
pub(super) async fn close(door: &Arc<Door>, target: &str) -> Result<(), Failure> {
    ensure_own(door, target)?;
    let entry = &door.entry;
    if let Some(refusal) = entry.control_refusal(ToolName::CloseTab, target) {
        return Err((SERVER_ERROR, refusal));
    }
    entry
        .session
        .agent_tabs()
        .close(&entry.actor, target)
        .await
        .map_err(|e| (SERVER_ERROR, crate::tools::ToolError::from(e).to_string()))
}

/// The agent's tabs, in display order.
pub(super) fn own_tabs(door: &Door) -> Vec<String> {
    let entry = &door.entry;
    entry
        .session
        .agent_tabs()
        .visible(&entry.actor)
        .into_iter()
        .map(|t| t.target_id)
        .collect()
}

/// Ok when `target` is one of the agent's tabs; otherwise Chrome's own answer, as if it did
/// not exist.
pub(super) fn ensure_own(door: &Door, target: &str) -> Result<(), Failure> {
    let entry = &door.entry;
    match entry
        .session
        .agent_tabs()
        .check_access(&entry.actor, target)
    {
        Ok(()) => Ok(()),
        Err(_) => Err(no_target()),
    }
}

/// Chrome's `targetInfo` of the agent's tab `target`.
pub(super) async fn info(door: &Door, target: &str) -> Option<Value> {
    let reply = door
        .entry
        .session
        .cdp()
        .call("Target.getTargetInfo", json!({ "targetId": target }))
        .await
        .ok()?;
    Some(reply["targetInfo"].clone())
}

/// What the client must see of a tab of the agent's it has not seen yet: `targetCreated` when
/// it discovers targets, `attachedToTarget` (with a session of its own) when it auto-attaches.
/// The tab's info and the client's session are asked for at once: one round trip.
async fn arrived(door: &Arc<Door>, target: &str) -> Vec<String> {
    let announce = door.to_announce(target);
    let auto_attach = door.to_auto_attach(target);
    if !announce && !auto_attach {
        return Vec::new();
    }
    let session = async {
        match auto_attach {
            true => Some(attach_session(door, target).await),
            false => None,
        }
    };
    let (info, session) = tokio::join!(info(door, target), session);
    let mut events = Vec::new();
    let Some(info) = info else {
        return events;
    };
    if announce {
        events.push(wire::event(
            "Target.targetCreated",
            &json!({ "targetInfo": info }),
            None,
        ));
    }
    match session {
        Some(Ok(session)) => events.push(attached_event(&session, info)),
        Some(Err((_, error))) => {
            tracing::debug!(event = "cdp_door_attach_failed", target_id = %target, %error)
        }
        None => {}
    }
    events
}

/// A flat session of the client's own on `target`, with the tab's info (asked at once).
async fn attach(door: &Door, target: &str) -> Result<(String, Value), Failure> {
    let (session, info) = tokio::join!(attach_session(door, target), info(door, target));
    Ok((session?, info.unwrap_or(Value::Null)))
}

/// A flat session of the client's own on `target`, recorded as the client's.
async fn attach_session(door: &Door, target: &str) -> Result<String, Failure> {
    let reply = forward(
        door,
        "Target.attachToTarget",
        json!({ "targetId": target, "flatten": true }),
    )
    .await?;
    let session = reply["sessionId"]
        .as_str()
        .ok_or_else(no_target)?
        .to_string();
    door.attached(&session, target);
    Ok(session)
}

fn attached_event(session: &str, info: Value) -> String {
    wire::event(
        "Target.attachedToTarget",
        &json!({ "sessionId": session, "targetInfo": info, "waitingForDebugger": false }),
        None,
    )
}

/// Refuses a non-flat attach, naming `flatten`.
fn flat_only(params: &Value) -> Result<(), Failure> {
    match params["flatten"].as_bool() {
        Some(true) => Ok(()),
        _ => Err((
            SERVER_ERROR,
            "Porthole's CDP door speaks flat sessions only: pass flatten: true".to_string(),
        )),
    }
}

/// Sends a browser-level command to Chrome; Chrome's own error comes back as it is.
pub(super) async fn forward(door: &Door, method: &str, params: Value) -> Result<Value, Failure> {
    door.entry
        .session
        .cdp()
        .call(method, params)
        .await
        .map_err(failure)
}

fn no_target() -> Failure {
    (INVALID_PARAMS, NO_TARGET.to_string())
}

/// The page socket's own session on the agent's tab `target`.
pub(super) async fn attach_page(door: &Door, target: &str) -> Result<String, Failure> {
    ensure_own(door, target)?;
    attach_session(door, target).await
}

/// How long a popup may take to be on the agent's record before the client is told of it.
const POPUP_TRACKED_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// The events telling the client of popup `target` of its page (announced, auto-attached), once
/// the daemon has recorded it as the agent's; none when it never is (refused over the
/// agent's tab limit, closed at once).
pub(super) async fn popup(door: Arc<Door>, target: String) -> Vec<String> {
    let mut tabs_changed = door.entry.session.subscribe();
    let tracked = tokio::time::timeout(POPUP_TRACKED_WITHIN, async {
        while ensure_own(&door, &target).is_err() {
            if let Err(tokio::sync::broadcast::error::RecvError::Closed) = tabs_changed.recv().await
            {
                return false;
            }
        }
        true
    })
    .await
    .unwrap_or(false);
    match tracked {
        true => arrived(&door, &target).await,
        false => Vec::new(),
    }
}
