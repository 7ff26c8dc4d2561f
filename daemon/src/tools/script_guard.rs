//! Script and secrets never share a document (DESIGN.md §19), on the browser side: which
//! document a tab shows now (its main frame's loader id and origin, from `Page.getFrameTree`),
//! whether a document the vault's ledger remembers is still live, the fill's refusal where the
//! agent ran `evaluate`, and `evaluate`'s refusal after a fill. Porthole's own isolated-world
//! reads are not agent script and are not counted.

use std::sync::Arc;

use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::ToolOutput;
use serde_json::json;

use crate::browser::{Actor, BrowserSession};
use crate::tools::login::vault_tools::VaultHooks;
use crate::tools::tab::driver::Tab;
use crate::vault::ledger::Doc;

/// `(loader id, origin)` of the document tab session `session` shows now.
async fn document_of(browser: &BrowserSession, session: &str) -> Option<(String, String)> {
    let tree = browser
        .cdp()
        .call_on(session, "Page.getFrameTree", json!({}))
        .await
        .ok()?;
    let frame = &tree["frameTree"]["frame"];
    Some((
        frame["loaderId"].as_str()?.to_string(),
        frame["securityOrigin"]
            .as_str()
            .unwrap_or("null")
            .to_string(),
    ))
}

/// The document `tab` shows now, as the ledger keeps it.
pub async fn doc_of(tab: &Tab, origin: Option<String>) -> Option<Doc> {
    let (loader, top_origin) = document_of(&tab.browser, &tab.session_id).await?;
    Some(Doc {
        channel: tab.browser.channel().to_string(),
        agent: tab.actor.id().to_string(),
        target: tab.target_id.clone(),
        loader,
        origin: origin.unwrap_or(top_origin),
    })
}

/// The live ones of `docs`; the ledger forgets the others.
async fn live(browser: &BrowserSession, hooks: &VaultHooks, docs: Vec<Doc>) -> Vec<Doc> {
    let (mut alive, mut gone) = (Vec::new(), Vec::new());
    for doc in docs {
        let now = match browser.tab_session(&doc.target) {
            Some(session) => document_of(browser, &session).await,
            None => None,
        };
        if now.is_some_and(|(loader, _)| loader == doc.loader) {
            alive.push(doc);
        } else {
            gone.push(doc);
        }
    }
    hooks.vault.documents.forget(&gone);
    alive
}

/// The live documents of `origins` where one of `agents` ran `evaluate` in this channel.
async fn scripted(
    browser: &Arc<BrowserSession>,
    hooks: &VaultHooks,
    agents: &[&str],
    origins: &[String],
) -> Option<Doc> {
    let docs: Vec<Doc> = agents
        .iter()
        .flat_map(|agent| {
            hooks
                .vault
                .documents
                .evaluated_by(browser.channel().as_str(), agent)
        })
        .filter(|d| origins.contains(&d.origin))
        .collect();
    live(browser, hooks, docs).await.into_iter().next()
}

/// Why a fill of an item with `origins` is refused: the agent ran `evaluate` in a live
/// document of one of them.
pub async fn fill_refusal(
    browser: &Arc<BrowserSession>,
    hooks: &VaultHooks,
    actor: &Actor,
    origins: &[String],
) -> Option<String> {
    let doc = scripted(browser, hooks, &[actor.id()], origins).await?;
    Some(format!(
        "Refused: you ran evaluate in a page of {} that is still open (tab {}) since it loaded, \
         and a script of yours there could read what is typed. Script and secrets never share \
         a document: load the page again (navigate or reload) and fill without evaluate. \
         Nothing was typed.",
        doc.origin, doc.target
    ))
}

/// Why the person's fill of an item with `origins` is refused: one of the channel's `agents`
/// ran `evaluate` in a live document of one of them (its script could be waiting there).
pub async fn person_fill_refusal(
    browser: &Arc<BrowserSession>,
    hooks: &VaultHooks,
    agents: &[String],
    origins: &[String],
) -> Option<String> {
    let agents: Vec<&str> = agents.iter().map(String::as_str).collect();
    let doc = scripted(browser, hooks, &agents, origins).await?;
    Some(format!(
        "Refused: agent {} ran a script (evaluate) in a page of {} that is still open (tab {}), \
         and that script could read what is typed. Reload the page, then fill again. Nothing \
         was typed.",
        doc.agent, doc.origin, doc.target
    ))
}

/// `evaluate` for a caller with the vault: refused in a document of an origin it filled while
/// a filled document lives; otherwise run, and the document noted.
pub async fn evaluate(
    browser: &Arc<BrowserSession>,
    call: &ToolCall,
    actor: &Actor,
    hooks: &VaultHooks,
) -> ToolOutput {
    let doc = match Tab::for_actor(browser, actor).await {
        Ok(tab) => doc_of(&tab, None).await,
        Err(_) => None,
    };
    if let Some(doc) = &doc {
        let filled: Vec<Doc> = hooks
            .vault
            .documents
            .filled_by(browser.channel().as_str(), actor.id())
            .into_iter()
            .filter(|d| d.origin == doc.origin)
            .collect();
        if let Some(filled) = live(browser, hooks, filled).await.into_iter().next() {
            tracing::info!(event = "vault_evaluate_refused", channel_id = %browser.channel(), agent_id = actor.id());
            return ToolOutput::error(format!(
                "Refused: a login was filled into a page of {} that is still open (tab {}) (by \
                 you, or by the person for your tab), so evaluate is refused in pages of that \
                 site until that page is gone (navigated away or closed), because script and \
                 secrets never share a page.",
                filled.origin, filled.target
            ));
        }
    }
    let output = crate::tools::run::run(browser, call, actor).await;
    // The code ran (or may have, even when it failed): the document counts as scripted.
    if let Some(doc) = doc {
        hooks.vault.documents.evaluated(doc);
    }
    output
}
