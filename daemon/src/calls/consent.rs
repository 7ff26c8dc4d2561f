//! What the person must allow first (DESIGN.md §20): the agent's sites and `confirm` kinds,
//! looked up from its record (and the config's `agents.sites` / `agents.confirm`) and held on
//! its session: when its call begins, and at once when the owner changes its record
//! ([`apply_rules`]); the tools' own acts an approval holds (`evaluate` shows its script whole
//! and runs only in the document the card named, `upload_file` the file names, `get_download`
//! the file, a vault fill the item and fields); and the wait for the person's answers to what
//! the call's page sent (a form post, a new site), which the browser holds at the network
//! layer (`browser::guard`). Each ends in an [`Verdict`]; a refusal is the call's error.

use std::sync::Arc;

use porthole_mcp::vocabulary::{ToolCall, UploadFileArgs};

use crate::agents::{AgentIdentity, Agents};
use crate::approvals::{ApprovalKind, Verdict, MAX_DETAIL_CHARS};
use crate::browser::{Actor, BrowserSession, CallGuard, ConsentRules, Download, ScriptedDocs};
use crate::tools::{Tab, ToolError};
use crate::vault::Vault;

/// Holds `agent`'s tabs in `session` to its sites and approvals as its record says now, and
/// counts the call, so its tab's requests are its acts while the guard lives. The error (what
/// the agent reads) when it is held to rules and the session's network checks are not on:
/// its call is refused, never run unchecked.
pub(crate) async fn hold(
    agents: &Agents,
    session: &BrowserSession,
    actor: &Actor,
    agent: Option<&AgentIdentity>,
) -> Result<CallGuard, String> {
    if let Some(agent) = agent {
        apply_rules(agents, session, agent).await;
        let ruled = !agents.site_rules(agent).is_open() || !agents.confirm_kinds(agent).is_empty();
        if ruled {
            session.auth().request_pauses_on().await?;
        }
    }
    Ok(session.approvals().call_begins(actor.id()))
}

/// Lets `session` read the documents agents ran script in from `vault`'s ledger (a `submit`
/// from one of them is the agent's act whenever it leaves, DESIGN.md §20a).
pub(crate) fn read_scripted_from(session: &BrowserSession, vault: &Arc<Vault>) {
    let vault = vault.clone();
    let channel = session.channel().to_string();
    session
        .approvals()
        .read_scripted_from(ScriptedDocs(Arc::new(move |agent, target| {
            vault
                .scripted_by(&channel, agent)
                .into_iter()
                .filter(|doc| doc.target == target)
                .map(|doc| doc.loader)
                .collect()
        })));
}

/// Holds `agent`'s tabs in `session` to its sites and `confirm` kinds as its record says now:
/// its tabs' next requests are checked by them, and the session pauses what they need before
/// this returns (the owner's change of an agent applies at once, not from its next call).
pub(crate) async fn apply_rules(agents: &Agents, session: &BrowserSession, agent: &AgentIdentity) {
    session
        .sites()
        .set(&agent.agent_id, agents.site_rules(agent));
    let rules = ConsentRules {
        name: agent.name.clone(),
        kinds: agents.confirm_kinds(agent),
        remembered: agents.remembered().clone(),
        timeout: agents.approval_timeout(),
        settling: agents.act_settling(),
    };
    session.approvals().set_rules(&agent.agent_id, rules);
    // Site rules pause every request, `submit` data requests (`browser::session::paused`).
    session.pause_what_rules_need().await;
}

/// Waits for the person when `call` in `tab` is an act its agent must ask about
/// (`evaluate`, `upload_file`).
pub(crate) async fn approve(tab: &Tab, call: &ToolCall) -> Result<(), ToolError> {
    let (kind, detail) = match call {
        ToolCall::Evaluate(a) => (ApprovalKind::Evaluate, a.expression.clone()),
        ToolCall::UploadFile(a) => (ApprovalKind::Upload, file_names(a)),
        _ => return Ok(()),
    };
    // The person is shown the whole script, never a cut one: one too long to show is refused.
    let length = detail.chars().count();
    if kind == ApprovalKind::Evaluate
        && length > MAX_DETAIL_CHARS
        && tab.browser.approvals().holds(tab.actor.id(), kind)
    {
        return Err(ToolError::msg(format!(
            "Porthole did not run this script: it is {length} characters, and the person \
             approves a script only when shown it whole (at most {MAX_DETAIL_CHARS}). Send a \
             shorter one."
        )));
    }
    // The card names the page the tab shows now: a script allowed for it never runs in the
    // next one (a navigation while the person read the card).
    let shown = match kind == ApprovalKind::Evaluate
        && tab.browser.approvals().holds(tab.actor.id(), kind)
    {
        true => document_of(tab).await,
        false => None,
    };
    let verdict = tab
        .browser
        .approvals()
        .approve_act(tab.actor.id(), kind, &tab.target_id, None, detail)
        .await;
    refused(verdict)?;
    if let Some((loader, url)) = shown {
        let now = document_of(tab).await;
        if now.as_ref().map(|(l, _)| l) != Some(&loader) {
            let now_url = now.map(|(_, u)| u).unwrap_or_else(|| "no page".to_string());
            return Err(ToolError::msg(format!(
                "Porthole did not run the script: the person allowed it for the page {url}, \
                 and the tab shows another document now ({now_url}). Call evaluate again to \
                 ask about the page it shows now."
            )));
        }
    }
    Ok(())
}

/// `(loader id, URL)` of the document `tab` shows now (None when the tab does not answer).
async fn document_of(tab: &Tab) -> Option<(String, String)> {
    let tree = tab
        .browser
        .cdp()
        .call_on(&tab.session_id, "Page.getFrameTree", serde_json::json!({}))
        .await
        .ok()?;
    let frame = &tree["frameTree"]["frame"];
    Some((
        frame["loaderId"].as_str()?.to_string(),
        frame["url"].as_str().unwrap_or_default().to_string(),
    ))
}

/// Waits for the person before a finished download's bytes reach `actor`, unless she
/// allowed it as it began.
pub(crate) async fn approve_download(
    session: &Arc<BrowserSession>,
    actor: &Actor,
    download: &Download,
) -> Result<(), ToolError> {
    if download.allowed {
        return Ok(());
    }
    let detail = format!(
        "{} ({} bytes) from {}",
        download.name, download.received, download.url
    );
    let tab = download.target_id.as_deref().unwrap_or_default();
    let verdict = session
        .approvals()
        .approve_act(
            actor.id(),
            ApprovalKind::Download,
            tab,
            Some(&download.url),
            detail,
        )
        .await;
    refused(verdict)
}

/// Waits for the person before `actor` fills a login into `tab` (`detail` names the item
/// and fields, never a value). The person is never asked about her own fill.
pub(crate) async fn approve_login(tab: &Tab, detail: String) -> Result<(), String> {
    let verdict = tab
        .browser
        .approvals()
        .approve_act(
            tab.actor.id(),
            ApprovalKind::Login,
            &tab.target_id,
            None,
            detail,
        )
        .await;
    match verdict {
        Verdict::Go => Ok(()),
        Verdict::Refused { refusal, .. } => Err(refusal),
    }
}

/// Resolves once the person answered every approval the call's page asked for (a form post,
/// a new site), so the call's answer can say how they ended.
pub(crate) async fn settled(session: &BrowserSession, actor: &Actor) {
    session.approvals().settled(actor.id()).await;
}

fn refused(verdict: Verdict) -> Result<(), ToolError> {
    match verdict {
        Verdict::Go => Ok(()),
        Verdict::Refused { refusal, .. } => Err(ToolError::msg(refusal)),
    }
}

fn file_names(args: &UploadFileArgs) -> String {
    let names: Vec<String> = match &args.files {
        Some(files) => files.iter().map(|f| f.name.clone()).collect(),
        None => args
            .paths
            .iter()
            .map(|p| {
                std::path::Path::new(p)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.clone())
            })
            .collect(),
    };
    format!("files: {}", names.join(", "))
}
