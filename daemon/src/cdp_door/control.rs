//! The person stays in charge, and sites hold, for commands a client sends on its own tab:
//! input, navigation, reload and close stand for the MCP tools `computer`, `navigate`,
//! `reload` and `close_tab` and are refused while the person holds control (Stop, takeover, a
//! handoff) or uses the tab (`calls::DoorEntry::control_refusal`); a navigation's URL, and a
//! request the client's own `Fetch` continues to a new URL, pass the check MCP `navigate`
//! makes before anything is sent (the URL guard, the agent's sites, the person's approval of
//! a new site). The network layer holds every other request of the tab as it does for tools.

use porthole_mcp::ToolName;
use serde_json::Value;

use super::door::Door;

/// The MCP tool a CDP command stands for, when the person's control applies to it.
pub(super) fn stands_for(method: &str) -> Option<ToolName> {
    let (domain, name) = method.split_once('.')?;
    match (domain, name) {
        ("Input", n) if n.starts_with("dispatch") || n.starts_with("synthesize") => {
            Some(ToolName::Computer)
        }
        ("Input", "insertText" | "imeSetComposition") => Some(ToolName::Computer),
        ("Page", "navigate" | "navigateToHistoryEntry") => Some(ToolName::Navigate),
        ("Page", "reload") => Some(ToolName::Reload),
        ("Page", "close") => Some(ToolName::CloseTab),
        _ => None,
    }
}

/// Ok when `method` with `params` may run in the agent's tab `tab`; otherwise the reason
/// the client reads.
pub(super) async fn check(
    door: &Door,
    method: &str,
    params: &Value,
    tab: &str,
) -> Result<(), String> {
    let entry = &door.entry;
    if let Some(tool) = stands_for(method) {
        if let Some(refusal) = entry.control_refusal(tool, tab) {
            tracing::info!(event = "cdp_door_held", channel_id = %entry.channel, agent_id = entry.actor.id(), method);
            return Err(refusal);
        }
    }
    let url = match method {
        "Page.navigate" => params["url"].as_str(),
        "Fetch.continueRequest" => params["url"].as_str(),
        _ => None,
    };
    if let Some(url) = url {
        if let Err(refusal) = entry.admit_url(tab, url).await {
            tracing::info!(event = "cdp_door_url_refused", channel_id = %entry.channel, agent_id = entry.actor.id(), method);
            return Err(refusal);
        }
    }
    Ok(())
}
