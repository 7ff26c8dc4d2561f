//! The CDP door (DESIGN.md §21): any CDP client — Playwright's `connectOverCDP`, Puppeteer,
//! chrome-devtools-mcp, a raw WebSocket — drives its agent's channel through
//! `http://127.0.0.1:<port>/cdp/<agent-token>` (or `/cdp` with `Authorization: Bearer`), and
//! sees a browser whose only tabs are the agent's own, under the same rules as its MCP tools:
//! the door passes the `calls` pipeline's layers (`calls::enter_door`).
//!
//! Why a proxy over the daemon's own browser connection and not a second raw connection to
//! Chrome: in local mode the daemon speaks to Chromium over its debugging pipe and there is no
//! port to dial, in docker mode the browser is behind the sidecar; and the session's own
//! connection already knows every tab, its owner and its guards. So each client command is
//! sent on that connection (its ids are the connection's own; the client's id is kept by the
//! door and put back on the answer), on a flat session the door attached for the client, and
//! Chrome's events reach the client only for its own sessions and tabs.
//!
//! Rooms, one job each: [`allow`] (the allow table, with the reason per domain), [`acts`]
//! (which commands the timeline records), [`cookies`] (the cookie commands), [`cookie_mask`]
//! (cookie values hidden in Chrome's messages), [`set_cookies`] (the cookies each agent set),
//! [`files`] (`DOM.setFileInputFiles`), [`script_reads`] (commands the vault's rule holds),
//! [`address`] (the token and the door's URLs), [`http_json`] (the `json/…` addresses), [`socket`] (a
//! client's WebSocket), [`command`] (one command), [`targets`] (the `Target` domain of the
//! agent's own tabs), [`control`] (the person's control and the sites), [`door`] (what one
//! client has been shown), [`wire`] (Chrome's message shapes).
//!
//! The routes are on every listener's router (`api::app_on`), so the agent socket and
//! `server.agent_listen` have the door too; the loopback listener's and `server.agent_listen`'s
//! (with `Authorization: Bearer`) are tested, and the agent socket's through `porthole-mcp cdp
//! --listen` (the forwarder for tools that take only a
//! port, in the `porthole-mcp` crate's `cdp_forward`).
//!
//! Confined ([`allow::CONFINED`]): cookies ([`cookies`], [`cookie_mask`], [`set_cookies`]: values
//! hidden unless the agent set the cookie through the door, only sites it may open), download
//! behaviour (never applied; the download events of the client's tabs reach it, [`door`]) and
//! file inputs ([`files`]: only the agent's `upload_file` files, by name). The vault's rule
//! ([`script_reads`]): script and value reads mark the document scripted and are refused in a
//! filled one. Deleting the agent ends its connections ([`socket`]).
//!
//! Not in this slice: `agent_activity` for door commands, holding a client's new tab or popup
//! before its first load (Chrome's `waitForDebuggerOnStart`), the vault's rule for a client's
//! `Page.addScriptToEvaluateOnNewDocument` (it runs in later documents, which are not marked
//! scripted), and download events of a download a subframe started.

mod activity;
mod acts;
mod address;
mod allow;
mod command;
mod control;
mod cookie_mask;
mod cookies;
mod door;
mod files;
mod http_json;
mod protocol;
mod script_reads;
mod set_cookies;
mod socket;
mod targets;
mod warm_next;
mod wire;

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State, WebSocketUpgrade};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;

pub(crate) use address::logged_path;

use crate::agents::Agents;
use crate::calls::Parts;
use door::Door;

/// What the door needs of the server it is mounted on (the API's state implements it, so the
/// door does not reach into the API): the agents, to know a token, and the call pipeline's
/// parts, to admit its agent.
pub(crate) trait DoorHost: Clone + Send + Sync + 'static {
    fn agents(&self) -> &Agents;
    fn call_parts(&self) -> Parts<'_>;
}

/// The door's routes (merged into the API's router, under its admission of Host and Origin).
pub(crate) fn routes<S: DoorHost>() -> Router<S> {
    Router::new()
        .route("/cdp/json", any(json_bearer_root::<S>))
        .route("/cdp/json/{*rest}", any(json_bearer::<S>))
        .route("/cdp/devtools/{*rest}", get(devtools_bearer::<S>))
        .route("/cdp/{token}/json", any(json_root::<S>))
        .route("/cdp/{token}/json/{*rest}", any(json::<S>))
        .route("/cdp/{token}/devtools/{*rest}", get(devtools::<S>))
}

async fn json_root<S: DoorHost>(
    State(state): State<S>,
    Path(token): Path<String>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    json_at(state, Some(&token), "", method, headers, query).await
}

async fn json<S: DoorHost>(
    State(state): State<S>,
    Path((token, rest)): Path<(String, String)>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    json_at(state, Some(&token), &rest, method, headers, query).await
}

async fn json_bearer_root<S: DoorHost>(
    State(state): State<S>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    json_at(state, None, "", method, headers, query).await
}

async fn json_bearer<S: DoorHost>(
    State(state): State<S>,
    Path(rest): Path<String>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    json_at(state, None, &rest, method, headers, query).await
}

async fn devtools<S: DoorHost>(
    State(state): State<S>,
    Path((token, rest)): Path<(String, String)>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    devtools_at(state, Some(&token), &rest, headers, ws).await
}

async fn devtools_bearer<S: DoorHost>(
    State(state): State<S>,
    Path(rest): Path<String>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    devtools_at(state, None, &rest, headers, ws).await
}

async fn json_at<S: DoorHost>(
    state: S,
    token: Option<&str>,
    rest: &str,
    method: Method,
    headers: HeaderMap,
    query: Option<String>,
) -> Response {
    let (door, visitor) = match enter(&state, token, &headers).await {
        Ok(entered) => entered,
        Err(refused) => return refused.into_response(),
    };
    http_json::answer(door, &visitor, &method, rest, query.as_deref()).await
}

async fn devtools_at<S: DoorHost>(
    state: S,
    token: Option<&str>,
    rest: &str,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let page = match rest.split_once('/') {
        _ if rest == "browser" => None,
        Some(("browser", _)) => None,
        Some(("page", target)) => Some(target.to_string()),
        _ => {
            return address::refusal(
                StatusCode::NOT_FOUND,
                "not_found",
                "no such CDP door socket: use …/devtools/browser or …/devtools/page/<id>",
            )
        }
    };
    let (door, _) = match enter(&state, token, &headers).await {
        Ok(entered) => entered,
        Err(refused) => return refused.into_response(),
    };
    if let Some(target) = &page {
        if targets::ensure_own(&door, target).is_err() {
            return address::refusal(StatusCode::NOT_FOUND, "no_target", "No such target id");
        }
    }
    socket::upgrade(ws, door, page)
}

/// The agent at the door, let through the pipeline's admission; or the refusal it reads.
async fn enter<S: DoorHost>(
    state: &S,
    token: Option<&str>,
    headers: &HeaderMap,
) -> Result<(Arc<Door>, address::Visitor), address::Refused> {
    let visitor = address::visitor(state.agents(), token, headers)?;
    let entry = crate::calls::enter_door(&state.call_parts(), &visitor.agent)
        .await
        .map_err(|shut| address::shut(&visitor.agent, &shut))?;
    Ok((Arc::new(Door::new(entry)), visitor))
}
