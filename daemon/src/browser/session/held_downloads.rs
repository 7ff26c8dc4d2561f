//! The `download` kind at the browser's own download (DESIGN.md §20): a download that starts
//! in the tab of an agent held to `download` waits for the person. Chrome has no pause for a
//! download, so its bytes go on arriving in the channel's download directory meanwhile, where
//! no agent can have them (`get_download` waits on the same answer); when the person declines,
//! or nobody answers, it is cancelled and its file removed, the list says why, and the agent's
//! answer is an error that says so. When she allows it, `get_download` does not ask again.
//!
//! In the session: it weighs the prompts' approvals and the files' list together.

use std::sync::Arc;

use super::handle::BrowserSession;
use crate::approvals::{ApprovalKind, Verdict};

impl BrowserSession {
    /// Holds the download `guid` (named `name`, from `url`) that began in `agent_id`'s tab
    /// `target_id` to the person's answer, in a task of its own (the event loop never waits).
    pub(in crate::browser) fn hold_download(
        self: &Arc<Self>,
        guid: &str,
        agent_id: &str,
        target_id: &str,
        url: &str,
        name: &str,
    ) {
        if self
            .agents
            .consent
            .asks(agent_id, ApprovalKind::Download)
            .is_none()
        {
            return;
        }
        let session = self.clone();
        let (guid, agent_id) = (guid.to_string(), agent_id.to_string());
        let ask = self.approvals().ask_for(
            &agent_id,
            ApprovalKind::Download,
            target_id,
            url,
            format!("{name} from {url} (the browser's own download, held until you answer)"),
        );
        tokio::spawn(async move {
            let verdict = session
                .approvals()
                .approve_noting(ask, |refusal| {
                    session.agents.notes.leave_held_back(
                        &agent_id,
                        format!(
                            "{refusal} The browser's download was cancelled and its file removed."
                        ),
                    )
                })
                .await;
            match verdict {
                Verdict::Go => session.files().allow_download(&guid),
                Verdict::Refused { refusal, .. } => {
                    session
                        .files()
                        .refuse_download(session.core.cdp(), &guid, &refusal)
                        .await
                }
            }
        });
    }
}
