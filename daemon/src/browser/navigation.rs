//! Navigation of the active tab: URL checks, navigate, history, reload.
//!
//! A bad URL fails at once: malformed ones before Chrome is asked, unreachable ones with
//! Chrome's own reason (`net::ERR_…`) as soon as `Page.navigate` reports it.

use std::time::Duration;

use serde_json::json;

use super::session::{BrowserSession, SessionError};

/// Longest a navigation may take to commit.
const NAVIGATE_DEADLINE: Duration = Duration::from_secs(30);

/// Schemes a channel's browser may be sent to.
const ALLOWED_SCHEMES: &[&str] = &["http", "https", "about", "data"];

/// Checks that `url` is absolute and of an allowed scheme; returns it normalised.
pub fn check_url(url: &str) -> Result<String, SessionError> {
    let trimmed = url.trim();
    if trimmed.is_empty() {
        return Err(SessionError::BadUrl("the URL is empty".to_string()));
    }
    let parsed = url::Url::parse(trimmed).map_err(|e| {
        SessionError::BadUrl(format!(
            "{trimmed:?} is not an absolute URL ({e}); include the scheme, e.g. https://{trimmed}"
        ))
    })?;
    if !ALLOWED_SCHEMES.contains(&parsed.scheme()) {
        return Err(SessionError::BadUrl(format!(
            "the {}: scheme is not allowed; use http, https, about or data",
            parsed.scheme()
        )));
    }
    if matches!(parsed.scheme(), "http" | "https") && parsed.host_str().is_none_or(str::is_empty) {
        return Err(SessionError::BadUrl(format!("{trimmed:?} has no host")));
    }
    Ok(parsed.to_string())
}

impl BrowserSession {
    /// Navigates the active tab; returns once the navigation committed (or failed).
    pub async fn navigate(&self, url: &str) -> Result<(), SessionError> {
        let (_, session) = self.active_tab()?;
        self.navigate_on(&session, url).await
    }

    /// Navigates the tab behind the flat CDP `session`; returns once the navigation committed
    /// (or failed).
    pub async fn navigate_on(&self, session: &str, url: &str) -> Result<(), SessionError> {
        let url = check_url(url)?;
        let reply = self
            .cdp
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

    /// Goes one entry back (`-1`) or forward (`1`) in the active tab's history; false when
    /// there is no such entry.
    pub async fn go_history(&self, step: i64) -> Result<bool, SessionError> {
        let (_, session) = self.active_tab()?;
        self.go_history_on(&session, step).await
    }

    /// [`Self::go_history`] in the tab behind the flat CDP `session`.
    pub async fn go_history_on(&self, session: &str, step: i64) -> Result<bool, SessionError> {
        let history = self
            .cdp
            .call_on(session, "Page.getNavigationHistory", json!({}))
            .await?;
        let current = history["currentIndex"].as_i64().unwrap_or(0);
        let entries = history["entries"].as_array().cloned().unwrap_or_default();
        let Some(entry) = usize::try_from(current + step)
            .ok()
            .and_then(|i| entries.get(i))
        else {
            return Ok(false);
        };
        self.cdp
            .call_with(
                "Page.navigateToHistoryEntry",
                json!({ "entryId": entry["id"] }),
                Some(session),
                NAVIGATE_DEADLINE,
            )
            .await?;
        Ok(true)
    }

    /// Reloads the active tab.
    pub async fn reload(&self) -> Result<(), SessionError> {
        let (_, session) = self.active_tab()?;
        self.reload_on(&session).await
    }

    /// Reloads the tab behind the flat CDP `session`.
    pub async fn reload_on(&self, session: &str) -> Result<(), SessionError> {
        self.cdp.call_on(session, "Page.reload", json!({})).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_before_chrome_sees_them() {
        assert_eq!(
            check_url(" https://example.com ").unwrap(),
            "https://example.com/"
        );
        assert!(check_url("about:blank").is_ok());
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
