//! `DOM.setFileInputFiles`, confined (DESIGN.md §21): a door client sets on a file input only
//! files its agent uploaded to the channel with `upload_file` (the session's
//! `agent_uploads`), named by file name. A client library sends a path (Playwright and
//! Puppeteer resolve a name to an absolute path on their own machine): the door takes its
//! last component as the name and never reads the path, so a host file never reaches the
//! page; a name the agent did not upload is refused naming the rule, and nothing is set.
//!
//! The files are set from their bytes in the page, through a `DataTransfer`
//! (`js/set-files.js`), as `upload_file` does, so it works in every mode (the browser may not
//! share the daemon's filesystem). When the agent's `confirm` holds `upload`, the person is
//! asked first, as for `upload_file`.

use serde_json::{json, Value};

use super::door::Door;
use super::wire::{self, SERVER_ERROR};
use super::wire::{failure, Failure, FORWARD_DEADLINE};
use crate::approvals::{ApprovalKind, Verdict};

/// The function that sets the files on the input (`this`).
const SET_FILES: &str = include_str!("js/set-files.js");

/// Runs the client's `DOM.setFileInputFiles` with `params` on its session `session` of the
/// agent's tab `tab`.
pub(super) async fn set_file_input_files(
    door: &Door,
    params: &Value,
    session: &str,
    tab: &str,
) -> Result<Value, Failure> {
    let entry = &door.entry;
    let agent = entry.actor.id();
    let uploads = entry.session.files();
    let asked: Vec<&str> = params["files"]
        .as_array()
        .map(|files| files.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut files = Vec::with_capacity(asked.len());
    for path in &asked {
        let name = path.rsplit(['/', '\\']).next().unwrap_or_default();
        let Some(file) = uploads.agent_uploads().named(agent, name) else {
            tracing::info!(event = "cdp_door_file_refused", channel_id = %entry.channel, agent_id = agent);
            let uploaded = uploads.agent_uploads().names(agent);
            let have = match uploaded.is_empty() {
                true => "it has uploaded none".to_string(),
                false => format!("it has uploaded {}", uploaded.join(", ")),
            };
            let name: String = name.chars().take(100).collect();
            return Err((
                SERVER_ERROR,
                wire::refused(
                    "DOM.setFileInputFiles",
                    &format!(
                        "a door client sets only files its agent uploaded to the channel with \
                         upload_file, by name, and never reads a path; {name:?} is not one of \
                         them ({have})"
                    ),
                ),
            ));
        };
        files.push(json!({ "name": file.name, "data": file.data, "type": "" }));
    }
    let names: Vec<&str> = files.iter().filter_map(|f| f["name"].as_str()).collect();
    let verdict = entry
        .session
        .approvals()
        .approve_act(agent, ApprovalKind::Upload, tab, None, names.join(", "))
        .await;
    if let Verdict::Refused { refusal, .. } = verdict {
        return Err((SERVER_ERROR, refusal));
    }
    let object = object_of(door, params, session).await?;
    let cdp = entry.session.cdp();
    let called = cdp
        .call_with(
            "Runtime.callFunctionOn",
            json!({
                "objectId": object,
                "functionDeclaration": SET_FILES,
                "arguments": [{ "value": files }],
                "awaitPromise": false,
            }),
            Some(session),
            FORWARD_DEADLINE,
        )
        .await
        .map_err(failure)?;
    if let Some(thrown) = called.get("exceptionDetails") {
        let message = thrown["exception"]["description"]
            .as_str()
            .and_then(|d| d.lines().next())
            .unwrap_or("Node is not a file input element")
            .trim_start_matches("Error: ")
            .to_string();
        return Err((SERVER_ERROR, message));
    }
    tracing::info!(event = "cdp_door_files_set", channel_id = %entry.channel, agent_id = agent, files = files.len());
    Ok(json!({}))
}

/// The remote object of the node `params` name (`objectId`, `nodeId` or `backendNodeId`).
async fn object_of(door: &Door, params: &Value, session: &str) -> Result<String, Failure> {
    if let Some(object) = params["objectId"].as_str() {
        return Ok(object.to_string());
    }
    let node = match (params.get("nodeId"), params.get("backendNodeId")) {
        (Some(id), _) => json!({ "nodeId": id }),
        (None, Some(id)) => json!({ "backendNodeId": id }),
        (None, None) => {
            return Err((
                wire::INVALID_PARAMS,
                "Either nodeId, backendNodeId or objectId must be specified".to_string(),
            ))
        }
    };
    let resolved = door
        .entry
        .session
        .cdp()
        .call_with("DOM.resolveNode", node, Some(session), FORWARD_DEADLINE)
        .await
        .map_err(failure)?;
    resolved["object"]["objectId"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| (SERVER_ERROR, "Could not resolve the node".to_string()))
}
