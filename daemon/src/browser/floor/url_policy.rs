//! Which URLs a tab may be sent to, and which it may show, per kind of caller (DESIGN.md §16).
//!
//! Agents (every MCP tool, the owner token's included) open only `http`, `https`, `data`,
//! `blob` of their own page's origin and `about:blank`: Chrome maps `about:history`,
//! `about:settings`, `about:inspect`… to `chrome://` pages, which hold the profile's history
//! (the pane URL with the owner token among it) or, in host mode, the user's own. The person
//! in a pane may also open `about:` pages. Pure functions: the session applies them.

use crate::browser::floor::SessionError;

/// Who asks for a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlPolicy {
    /// An MCP tool: http, https, data, blob (of the current page's origin), about:blank.
    Agent,
    /// The person in a pane: http, https, data and any `about:` page.
    Pane,
}

/// What an agent may open, as refusals say it.
const AGENT_ALLOWED: &str =
    "agents may open only http, https, data and blob (of their own page) URLs and about:blank";

/// Checks that `url` is absolute and allowed for `policy`; returns it normalised. `current`
/// is the URL of the page the call acts from (a `blob:` URL must be of that page's origin).
pub fn check_url_for(
    url: &str,
    policy: UrlPolicy,
    current: Option<&str>,
) -> Result<String, SessionError> {
    let trimmed = url.trim();
    if trimmed.is_empty() {
        return Err(SessionError::BadUrl("the URL is empty".to_string()));
    }
    let parsed = url::Url::parse(trimmed).map_err(|e| {
        SessionError::BadUrl(format!(
            "{trimmed:?} is not an absolute URL ({e}); include the scheme, e.g. https://{trimmed}"
        ))
    })?;
    match (policy, parsed.scheme()) {
        (_, "http" | "https") => {
            if parsed.host_str().is_none_or(str::is_empty) {
                return Err(SessionError::BadUrl(format!("{trimmed:?} has no host")));
            }
        }
        (_, "data") => {}
        (UrlPolicy::Pane, "about") => {}
        (UrlPolicy::Agent, "about") if is_about_blank(&parsed) => {}
        (UrlPolicy::Agent, "blob") => {
            let origin = blob_origin(&parsed);
            let own = current
                .and_then(|c| url::Url::parse(c).ok())
                .map(|c| c.origin());
            let same = matches!((&origin, &own), (Some(o), Some(c)) if o.is_tuple() && o == c);
            if !same {
                return Err(SessionError::BadUrl(format!(
                    "{trimmed} is not a blob of the page you are on; {AGENT_ALLOWED}"
                )));
            }
        }
        (UrlPolicy::Agent, scheme) => {
            return Err(SessionError::BadUrl(format!(
                "{trimmed} is refused: {}; {AGENT_ALLOWED}",
                why_refused(scheme)
            )))
        }
        (UrlPolicy::Pane, scheme) => {
            return Err(SessionError::BadUrl(format!(
                "the {scheme}: scheme is not allowed; use http, https, about or data"
            )))
        }
    }
    Ok(parsed.to_string())
}

/// True when an agent's tab may stay on `url` once there (a redirect, a page script or a
/// popup took it there): what agents may open, any `blob:` of a web origin, an empty URL (a
/// target being created) and Chrome's error page for a failed load. Anything else (a
/// `chrome://` page, `file:`, `view-source:` …) is closed.
pub fn agent_may_stay_on(url: &str) -> bool {
    if url.is_empty() {
        return true;
    }
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    match parsed.scheme() {
        "http" | "https" | "data" => true,
        "about" => is_about_blank(&parsed),
        "blob" => blob_origin(&parsed).is_some_and(|o| o.is_tuple()),
        // The page Chrome shows for a failed load (its URL bar keeps the URL asked for).
        "chrome-error" => parsed.host_str() == Some("chromewebdata"),
        _ => false,
    }
}

/// `about:blank`, with or without a query or fragment (`about:blank#blocked` is what Chrome
/// shows for a navigation it blocked).
fn is_about_blank(parsed: &url::Url) -> bool {
    parsed.scheme() == "about" && parsed.path() == "blank"
}

/// The origin a `blob:` URL belongs to, when it names a web one.
fn blob_origin(parsed: &url::Url) -> Option<url::Origin> {
    let inner = url::Url::parse(parsed.path()).ok()?;
    matches!(inner.scheme(), "http" | "https").then(|| inner.origin())
}

/// Why a scheme is refused, for the agent to read.
fn why_refused(scheme: &str) -> &'static str {
    match scheme {
        "about" | "chrome" | "chrome-untrusted" | "devtools" | "view-source" => {
            "it is one of the browser's internal pages"
        }
        "file" | "filesystem" => "it is a file on the machine, not a web page",
        "javascript" => "javascript: URLs run code in the page; use evaluate",
        _ => "its scheme is not one agents may open",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_get_web_pages_only() {
        let agent = |u: &str| check_url_for(u, UrlPolicy::Agent, Some("https://a.test/page"));
        assert_eq!(
            agent(" https://example.com ").unwrap(),
            "https://example.com/"
        );
        for ok in [
            "about:blank",
            "about:blank#x",
            "data:text/html,hi",
            "http://127.0.0.1:8080/x",
            "blob:https://a.test/0b0e7c1a-1111-2222-3333-444455556666",
        ] {
            assert!(agent(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "http://",
            "about:history",
            "about:settings",
            "about:inspect",
            "about:password-manager",
            "about:version",
            "about:srcdoc",
            "ABOUT:HISTORY",
            "chrome://history",
            "chrome://settings/passwords",
            "chrome-untrusted://print",
            "devtools://devtools/bundled/inspector.html",
            "view-source:https://example.com",
            "file:///etc/passwd",
            "filesystem:https://a.test/temporary/x",
            "javascript:alert(1)",
            "blob:https://other.test/0b0e7c1a-1111-2222-3333-444455556666",
            "blob:null/0b0e7c1a-1111-2222-3333-444455556666",
        ] {
            let refused = agent(bad).expect_err(bad).to_string();
            assert!(!refused.is_empty(), "{bad}");
        }
        assert!(
            check_url_for("blob:https://a.test/x", UrlPolicy::Agent, None).is_err(),
            "no page, no blob"
        );
        let why = agent("about:history").unwrap_err().to_string();
        assert!(
            why.contains("internal") && why.contains("about:blank"),
            "{why}"
        );
    }

    #[test]
    fn the_person_may_open_about_pages() {
        let pane = |u: &str| check_url_for(u, UrlPolicy::Pane, None);
        for ok in [
            "about:blank",
            "about:version",
            "about:history",
            "https://x.test",
        ] {
            assert!(pane(ok).is_ok(), "{ok}");
        }
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "chrome://history",
        ] {
            assert!(pane(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn landing_places_an_agent_may_stay_on() {
        for ok in [
            "",
            "about:blank",
            "about:blank#blocked",
            "https://x.test/",
            "data:text/html,x",
            "blob:http://127.0.0.1:9/abc",
            "chrome-error://chromewebdata/",
        ] {
            assert!(agent_may_stay_on(ok), "{ok}");
        }
        for bad in [
            "chrome://history/",
            "chrome://settings/",
            "chrome://inspect/",
            "about:version",
            "chrome-untrusted://x/",
            "devtools://devtools/x",
            "view-source:https://x.test/",
            "file:///etc/passwd",
            "filesystem:https://x.test/temporary/a",
            "blob:null/abc",
        ] {
            assert!(!agent_may_stay_on(bad), "{bad}");
        }
    }
}
