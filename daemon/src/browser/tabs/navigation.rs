//! Navigation of a tab: URL checks, navigate, history, reload.
//!
//! A bad URL fails at once: malformed ones before Chrome is asked, unreachable ones with
//! Chrome's own reason (`net::ERR_…`) as soon as `Page.navigate` reports it.

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use crate::browser::floor::{
    agent_may_stay_on, check_url_for, SessionCore, SessionError, TabOwner, UrlPolicy,
};

/// Longest a navigation may take to commit.
const NAVIGATE_DEADLINE: Duration = Duration::from_secs(30);

/// Checks `url` for the person in a pane (http, https, data, any `about:` page); returns it
/// normalised. Agents' URLs go through [`check_url_for`] with [`UrlPolicy::Agent`].
pub fn check_url(url: &str) -> Result<String, SessionError> {
    check_url_for(url, UrlPolicy::Pane, None)
}

/// What an agent's navigation is held to beyond its URL's policy, and what the URL guard kept
/// of a tab's history: the guard's and the prompts' business, which the session answers
/// (`session/navigation_checks.rs`), so navigation names neither room.
pub(in crate::browser) trait NavigationChecks: Sync {
    /// Ok when agent `agent_id` may send the tab behind flat CDP `session` to `url`: its sites
    /// allow it, and the person allowed a new site where its rules ask (the call waits).
    fn admit<'a>(
        &'a self,
        agent_id: &'a str,
        session: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<(), SessionError>>;

    /// The navigation history of `target_id` the tools kept after its last navigation, while
    /// no navigation happened since (see `guard::redirects`).
    fn kept_history(&self, target_id: &str) -> Option<Value>;
}

/// Navigation in one session's tabs (borrowed from the session: `session.navigation()`); an
/// agent's navigation is held to its sites and, where it asked, to the person's approval.
pub(crate) struct Navigation<'s> {
    pub(in crate::browser) core: &'s SessionCore,
    /// The sites, approvals and kept histories an agent's navigation is held to.
    pub(in crate::browser) checks: &'s dyn NavigationChecks,
}

impl Navigation<'_> {
    /// Navigates the tab behind the flat CDP `session` for the person in a pane; returns once
    /// the navigation committed (or failed).
    pub(crate) async fn navigate_on(&self, session: &str, url: &str) -> Result<(), SessionError> {
        self.navigate_with(session, url, UrlPolicy::Pane, None)
            .await
    }

    /// Navigates the tab behind the flat CDP `session` if `policy` allows `url`; returns once
    /// the navigation committed (or failed). A refused URL never reaches Chrome: the page
    /// stays as it was. An agent's `blob:` must be of the origin of `from` (the page the
    /// request comes from; `None`: the tab's own page).
    pub(crate) async fn navigate_with(
        &self,
        session: &str,
        url: &str,
        policy: UrlPolicy,
        from: Option<&str>,
    ) -> Result<(), SessionError> {
        let url = self.admit_url(session, url, policy, from).await?;
        let reply = self
            .core
            .cdp()
            .call_with(
                "Page.navigate",
                json!({ "url": url }),
                Some(session),
                NAVIGATE_DEADLINE,
            )
            .await?;
        match reply["errorText"].as_str() {
            Some(reason) if !reason.is_empty() => Err(SessionError::Navigation {
                url,
                reason: reason.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// `url` checked for the tab behind the flat CDP `session` as [`Self::navigate_with`]
    /// checks it before anything is sent (its URL policy; an agent's tab: its sites and the
    /// person's approval of a new site, which this waits for); returns it normalised. The CDP
    /// door checks a client's own `Page.navigate` here before forwarding it.
    pub(crate) async fn admit_url(
        &self,
        session: &str,
        url: &str,
        policy: UrlPolicy,
        from: Option<&str>,
    ) -> Result<String, SessionError> {
        let current = match from {
            Some(from) => Some(from.to_string()),
            None => self.url_of_session(session),
        };
        let url = check_url_for(url, policy, current.as_deref())?;
        if policy == UrlPolicy::Agent {
            if let Some(TabOwner::Agent { id, .. }) =
                self.core.tabs().by_session(session).map(|t| t.owner)
            {
                self.checks.admit(&id, session, &url).await?;
            }
        }
        Ok(url)
    }

    /// Goes one entry back (`-1`) or forward (`1`) in the history of the tab behind the flat
    /// CDP `session` (for the person); false when there is no such entry.
    pub(crate) async fn go_history_on(
        &self,
        session: &str,
        step: i64,
    ) -> Result<bool, SessionError> {
        self.go_history_with(session, step, UrlPolicy::Pane).await
    }

    /// `go_history_on` when `policy` lets the entry's page be shown (an agent never
    /// goes back to a browser-internal page).
    pub(crate) async fn go_history_with(
        &self,
        session: &str,
        step: i64,
        policy: UrlPolicy,
    ) -> Result<bool, SessionError> {
        // The history the tools kept after the last navigation, while none happened since
        // (see `url_guard`): the entry is checked and taken from it with no round trip.
        let kept = self
            .target_of_session(session)
            .and_then(|t| self.checks.kept_history(&t));
        if let Some(history) = kept {
            match self.go_to_entry(session, &history, step, policy).await {
                // An entry Chrome no longer has: asked afresh below.
                Err(SessionError::Cdp(crate::cdp::CdpError::Protocol { .. })) => {}
                done => return done,
            }
        }
        let history = self
            .core
            .cdp()
            .call_on(session, "Page.getNavigationHistory", json!({}))
            .await?;
        self.go_to_entry(session, &history, step, policy).await
    }

    /// Goes to the entry `step` away from the current one of `history` (a
    /// `Page.getNavigationHistory` reply) if `policy` lets its page be shown; false when there
    /// is no such entry.
    async fn go_to_entry(
        &self,
        session: &str,
        history: &Value,
        step: i64,
        policy: UrlPolicy,
    ) -> Result<bool, SessionError> {
        let current = history["currentIndex"].as_i64().unwrap_or(0);
        let entries = history["entries"].as_array().cloned().unwrap_or_default();
        let Some(entry) = usize::try_from(current + step)
            .ok()
            .and_then(|i| entries.get(i))
        else {
            return Ok(false);
        };
        let url = entry["url"].as_str().unwrap_or_default();
        if policy == UrlPolicy::Agent && !agent_may_stay_on(url) {
            return Err(SessionError::BadUrl(format!(
                "that history entry is {url}, a page agents may not open"
            )));
        }
        self.core
            .cdp()
            .call_with(
                "Page.navigateToHistoryEntry",
                json!({ "entryId": entry["id"] }),
                Some(session),
                NAVIGATE_DEADLINE,
            )
            .await?;
        Ok(true)
    }

    /// The target of the tab behind the flat CDP `session`.
    fn target_of_session(&self, session: &str) -> Option<String> {
        self.core.tabs().target_of_session(session)
    }

    /// The URL Porthole last saw on the tab behind the flat CDP `session`.
    fn url_of_session(&self, session: &str) -> Option<String> {
        self.core.tabs().by_session(session).map(|t| t.url)
    }

    /// Reloads the tab behind the flat CDP `session`.
    pub(crate) async fn reload_on(&self, session: &str) -> Result<(), SessionError> {
        self.core
            .cdp()
            .call_on(session, "Page.reload", json!({}))
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panes_urls_are_checked_before_chrome_sees_them() {
        assert_eq!(
            check_url(" https://example.com ").unwrap(),
            "https://example.com/"
        );
        assert!(check_url("about:blank").is_ok());
        assert!(check_url("about:version").is_ok());
        assert!(check_url("data:text/html,hi").is_ok());
        for bad in [
            "",
            "example.com",
            "not a url",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "http://",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }
}
