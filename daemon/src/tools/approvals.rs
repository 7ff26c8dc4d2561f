//! The tools whose acts an agent's `confirm` kinds may hold for the person (DESIGN.md §20):
//! `evaluate` shows its script, `upload_file` the file names, `get_download` the file. The
//! call waits for the answer; a refusal is its error. The network's acts (`submit`,
//! `new_site`) are held in the browser itself (`browser::guard::paused`).

use std::sync::Arc;

use porthole_mcp::vocabulary::ToolCall;

use crate::approvals::ApprovalKind;
use crate::browser::{Actor, BrowserSession, Download};
use crate::tools::error::ToolError;

/// Waits for the person when `call` in `target_id` is an act `actor` must ask about.
pub async fn gate(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    target_id: &str,
    call: &ToolCall,
) -> Result<(), ToolError> {
    let (kind, detail) = match call {
        ToolCall::Evaluate(a) => (ApprovalKind::Evaluate, a.expression.clone()),
        ToolCall::UploadFile(a) => (ApprovalKind::Upload, file_names(a)),
        _ => return Ok(()),
    };
    browser
        .approvals()
        .approve_act(actor.id(), kind, target_id, None, detail)
        .await
        .map_err(ToolError::msg)
}

/// Waits for the person before a finished download's bytes reach `actor`.
pub async fn gate_download(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    download: &Download,
) -> Result<(), ToolError> {
    let detail = format!(
        "{} ({} bytes) from {}",
        download.name, download.received, download.url
    );
    let tab = download.target_id.as_deref().unwrap_or_default();
    browser
        .approvals()
        .approve_act(
            actor.id(),
            ApprovalKind::Download,
            tab,
            Some(&download.url),
            detail,
        )
        .await
        .map_err(ToolError::msg)
}

fn file_names(args: &porthole_mcp::vocabulary::UploadFileArgs) -> String {
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
