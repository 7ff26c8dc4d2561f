//! Delegators under the old method names of the URL guard, sites, approvals and auth, for
//! callers in `tabs/` and `session/events.rs`; they go when those callers use the handles.

use crate::browser::error::SessionError;
use crate::browser::session::handle::BrowserSession;

// Glue until the lead moves the callers in tabs/ and session/events.rs.
impl BrowserSession {
    pub(in crate::browser) fn check_agent_site(
        &self,
        agent_id: &str,
        url: &str,
    ) -> Result<(), SessionError> {
        self.sites().check(agent_id, url)
    }

    pub(in crate::browser) fn guard_landing(&self, target_id: &str, url: &str) -> bool {
        self.url_guard().landing(target_id, url)
    }

    pub(in crate::browser) fn kept_history(&self, target_id: &str) -> Option<serde_json::Value> {
        self.url_guard().kept_history(target_id)
    }

    pub(in crate::browser) async fn approve_new_site(
        &self,
        agent_id: &str,
        session: &str,
        url: &str,
    ) -> Result<(), SessionError> {
        self.approvals()
            .approve_new_site(agent_id, session, url)
            .await
    }

    pub(in crate::browser) fn forget_approvals(&self, target_id: &str) {
        self.approvals().forget(target_id)
    }

    pub(in crate::browser) fn forget_auth_prompts(&self, target_id: &str) {
        self.auth().forget(target_id)
    }
}
