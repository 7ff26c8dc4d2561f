//! Which sites an agent may open (DESIGN.md §20): patterns, the lists an agent record and the
//! config hold, and the verdict on one URL. Pure data, a leaf: imports nothing of the crate.
//!
//! A pattern is a host (`github.com`: that host, any scheme and port), a host with its
//! subdomains (`*.github.com`: `github.com` and every name under it) or an origin
//! (`http://127.0.0.1:8080`: that scheme, host and port exactly). With an `allow` list only
//! what it names loads; `deny` always wins. Where several lists apply (the config's for every
//! agent, the agent's own), a URL must pass each.

use serde::{Deserialize, Serialize};
use url::Url;

/// Most patterns in one list.
pub const MAX_PATTERNS: usize = 200;
/// Longest pattern.
const MAX_PATTERN_LEN: usize = 300;

/// The `sites` of an agent record or of `agents.sites`, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Sites {
    /// Only these sites load (none: every site not denied).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// These sites never load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl Sites {
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Checks every pattern; the error names the first bad one and says what a good one is.
    pub fn check(&self) -> Result<(), SiteError> {
        for list in [&self.allow, &self.deny] {
            if list.len() > MAX_PATTERNS {
                return Err(SiteError::TooMany { count: list.len() });
            }
            for pattern in list {
                Pattern::parse(pattern)?;
            }
        }
        Ok(())
    }
}

/// A bad site pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SiteError {
    #[error("site pattern {pattern:?} is not a host (github.com), a host with its subdomains (*.github.com) or an origin (https://github.com:8443): {reason}")]
    Malformed { pattern: String, reason: String },
    #[error("{count} site patterns in one list; at most {MAX_PATTERNS}")]
    TooMany { count: usize },
}

/// One parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    Host(String),
    Subdomains(String),
    Origin {
        scheme: String,
        host: String,
        port: u16,
    },
}

impl Pattern {
    fn parse(text: &str) -> Result<Self, SiteError> {
        let bad = |reason: &str| SiteError::Malformed {
            pattern: text.chars().take(80).collect(),
            reason: reason.to_string(),
        };
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.len() > MAX_PATTERN_LEN {
            return Err(bad("empty or too long"));
        }
        if trimmed.contains("://") {
            let url = Url::parse(trimmed).map_err(|e| bad(&e.to_string()))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(bad("an origin's scheme is http or https"));
            }
            let origin_only = url.path() == "/"
                && url.query().is_none()
                && url.fragment().is_none()
                && url.username().is_empty()
                && url.password().is_none()
                && !trimmed.trim_end_matches('/').ends_with('?');
            if !origin_only {
                return Err(bad("an origin has no path, query, fragment or user"));
            }
            let host = url.host_str().ok_or_else(|| bad("no host"))?;
            return Ok(Pattern::Origin {
                scheme: url.scheme().to_string(),
                host: host.to_ascii_lowercase(),
                port: url.port_or_known_default().unwrap_or(0),
            });
        }
        let (wild, host) = match trimmed.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let host = host.to_ascii_lowercase();
        let valid = !host.is_empty()
            && !host.starts_with('.')
            && !host.ends_with('.')
            && !host.contains("..")
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
        if !valid {
            return Err(bad(
                "a host is letters, digits, dots and dashes (a bracketed IPv6 address goes in an origin)",
            ));
        }
        Ok(if wild {
            Pattern::Subdomains(host)
        } else {
            Pattern::Host(host)
        })
    }

    fn matches(&self, url: &Url) -> bool {
        let Some(host) = url.host_str().map(|h| h.to_ascii_lowercase()) else {
            return false;
        };
        match self {
            Pattern::Host(h) => host == *h,
            Pattern::Subdomains(h) => host == *h || host.ends_with(&format!(".{h}")),
            Pattern::Origin {
                scheme,
                host: h,
                port,
            } => url.scheme() == scheme && host == *h && url.port_or_known_default() == Some(*port),
        }
    }
}

/// The lists that apply to one agent, parsed: the config's and its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteRules {
    /// Each non-empty allow list, with the place it comes from.
    allows: Vec<(&'static str, Vec<(String, Pattern)>)>,
    /// Every deny pattern, with the place it comes from.
    denies: Vec<(&'static str, String, Pattern)>,
}

/// Why a URL may not load: the rule, in words an agent can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRefusal {
    pub rule: String,
}

impl SiteRules {
    /// The rules of `lists` (each with where it comes from: `"agents.sites"`, `"the agent's
    /// sites"`); patterns that do not parse were refused when the list was set and are skipped.
    pub fn new(lists: &[(&'static str, &Sites)]) -> Self {
        let mut rules = Self::default();
        for (place, sites) in lists {
            let allow: Vec<(String, Pattern)> = sites
                .allow
                .iter()
                .filter_map(|p| Some((p.trim().to_string(), Pattern::parse(p).ok()?)))
                .collect();
            if !sites.allow.is_empty() {
                rules.allows.push((place, allow));
            }
            for p in &sites.deny {
                if let Ok(pattern) = Pattern::parse(p) {
                    rules.denies.push((place, p.trim().to_string(), pattern));
                }
            }
        }
        rules
    }

    /// Whether no list restricts anything.
    pub fn is_open(&self) -> bool {
        self.allows.is_empty() && self.denies.is_empty()
    }

    /// Whether a document at `url` may load. Only `http`/`https` URLs are sites; other
    /// schemes are left to the URL policy (`about:blank`, `data:` and `blob:` make no request
    /// to any site).
    pub fn verdict(&self, url: &str) -> Result<(), SiteRefusal> {
        if self.is_open() {
            return Ok(());
        }
        let Ok(parsed) = Url::parse(url) else {
            return Ok(());
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return Ok(());
        }
        if let Some((place, text, _)) = self.denies.iter().find(|(_, _, p)| p.matches(&parsed)) {
            return Err(SiteRefusal {
                rule: format!("{place} deny {text:?}"),
            });
        }
        for (place, allow) in &self.allows {
            if !allow.iter().any(|(_, p)| p.matches(&parsed)) {
                let names: Vec<&str> = allow.iter().map(|(t, _)| t.as_str()).collect();
                return Err(SiteRefusal {
                    rule: format!("{place} allow only {}", names.join(", ")),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(allow: &[&str], deny: &[&str]) -> Sites {
        Sites {
            allow: allow.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn patterns_parse_or_say_why() {
        for good in [
            "github.com",
            "*.github.com",
            "http://127.0.0.1:8080",
            "https://a.b",
            "localhost",
        ] {
            assert!(sites(&[good], &[]).check().is_ok(), "{good}");
        }
        for bad in [
            "",
            "*.",
            "git hub.com",
            "https://github.com/path",
            "ftp://github.com",
            "https://github.com/?q",
            "*.*.com",
            "a..b",
            "https://user@github.com",
        ] {
            let error = sites(&[], &[bad]).check().unwrap_err();
            assert!(error.to_string().contains("site pattern"), "{bad}: {error}");
        }
    }

    #[test]
    fn host_subdomain_and_origin_match_as_documented() {
        let rules = SiteRules::new(&[(
            "x",
            &sites(
                &["github.com", "*.example.com", "http://127.0.0.1:8080"],
                &[],
            ),
        )]);
        assert!(rules.verdict("https://github.com/a").is_ok());
        assert!(rules.verdict("http://github.com:81/").is_ok());
        assert!(rules.verdict("https://api.github.com/").is_err());
        assert!(rules.verdict("https://example.com/").is_ok());
        assert!(rules.verdict("https://a.b.example.com/").is_ok());
        assert!(rules.verdict("https://badexample.com/").is_err());
        assert!(rules.verdict("http://127.0.0.1:8080/x").is_ok());
        assert!(rules.verdict("http://127.0.0.1:8081/x").is_err());
        assert!(rules.verdict("https://127.0.0.1:8080/x").is_err());
        // Not sites: left to the URL policy.
        assert!(rules.verdict("about:blank").is_ok());
        assert!(rules.verdict("data:text/html,hi").is_ok());
    }

    #[test]
    fn deny_wins_and_every_allow_list_must_pass() {
        let config = sites(&["*.example.com"], &[]);
        let own = sites(&["example.com", "a.example.com"], &["a.example.com"]);
        let rules = SiteRules::new(&[("agents.sites", &config), ("the agent's sites", &own)]);
        assert!(rules.verdict("https://example.com/").is_ok());
        let denied = rules.verdict("https://a.example.com/").unwrap_err();
        assert!(denied.rule.contains("deny \"a.example.com\""), "{denied:?}");
        let own_allow = rules.verdict("https://b.example.com/").unwrap_err();
        assert!(own_allow.rule.starts_with("the agent's sites allow only"));
        let config_allow = rules.verdict("https://github.com/").unwrap_err();
        assert!(config_allow.rule.starts_with("agents.sites allow only"));
        assert!(SiteRules::new(&[("x", &Sites::default())]).is_open());
    }
}
