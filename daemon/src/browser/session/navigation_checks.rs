//! What an agent's navigation is held to, answered for the `tabs` room's `Navigation`: the
//! guard's sites and the prompts' approval of a new site before a load is sent, and the
//! history the URL guard kept for a history step.

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::handle::BrowserSession;
use crate::browser::floor::SessionError;
use crate::browser::tabs::navigation::NavigationChecks;

impl NavigationChecks for BrowserSession {
    fn admit<'a>(
        &'a self,
        agent_id: &'a str,
        session: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<(), SessionError>> {
        Box::pin(async move {
            self.sites().check(agent_id, url)?;
            self.approvals()
                .approve_new_site(agent_id, session, url)
                .await
        })
    }

    fn kept_history(&self, target_id: &str) -> Option<Value> {
        self.url_guard().kept_history(target_id)
    }
}
