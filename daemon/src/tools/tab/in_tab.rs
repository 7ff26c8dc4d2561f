//! [`run_in_tab`]: the ref tools (`read_page`, `find`, `computer`, `form_input`) on a tab named
//! by its target id instead of the active one, so several tabs can be read and acted on at the
//! same time (each with its own ref book on the session).

use std::sync::Arc;

use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::ToolOutput;

use crate::browser::BrowserSession;
use crate::tools::act::{computer as actions, forms};
use crate::tools::read::snapshot;
use crate::tools::tab::driver::Tab;

/// Runs a ref tool on the tracked tab `target_id`; other tools and unknown tabs are error
/// results.
pub async fn run_in_tab(
    browser: &Arc<BrowserSession>,
    target_id: &str,
    call: &ToolCall,
) -> ToolOutput {
    let Some(session_id) = browser.tab_session(target_id) else {
        return ToolOutput::error(format!("no tab {target_id} in this channel"));
    };
    let tab = Tab {
        browser: browser.clone(),
        target_id: target_id.to_string(),
        session_id,
        actor: crate::browser::Actor::Owner,
        redact: crate::tools::tab::redact::Redact::none(),
    };
    let result = match call {
        ToolCall::ReadPage(a) => snapshot::read_page(&tab, a).await,
        ToolCall::Find(a) => snapshot::find(&tab, a).await,
        ToolCall::Computer(a) => actions::computer(&tab, a).await,
        ToolCall::FormInput(a) => forms::form_input(&tab, a).await,
        other => {
            return ToolOutput::error(format!("`{}` runs on the active tab only", other.name()))
        }
    };
    result.unwrap_or_else(|e| ToolOutput::error(e.to_string()))
}
