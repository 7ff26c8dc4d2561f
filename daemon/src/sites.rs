//! Which sites an agent may open (DESIGN.md §20): patterns, the lists an agent record and the
//! config hold, and the verdict on one URL. Pure data, a leaf: imports nothing of the crate.
//!
//! A pattern is a host (`github.com`: that host, any scheme and port), a host with its
//! subdomains (`*.github.com`: `github.com` and every name under it) or an origin
//! (`http://127.0.0.1:8080`: that scheme, host and port exactly). With an `allow` list only
//! what it names loads; `deny` always wins. Where several lists apply (the config's for every
//! agent, the agent's own), a URL must pass each.
//!
//! Every spelling of a host is one host (DESIGN.md §20a), in patterns and URLs alike
//! ([`canonical_host`]): case, a trailing dot (`localhost.`), IDN and punycode (the `url`
//! crate's IDNA), the numeric IPv4 forms (`0x7f.1`, `2130706433`) and IPv4-mapped IPv6
//! (`[::ffff:127.0.0.1]`) all compare equal to their plain form. This machine's loopback is
//! one host, `localhost`, under every name and address Chromium connects to it by:
//! `localhost`, any `*.localhost`, `127.0.0.0/8`, `::1` and the unspecified `0.0.0.0`/`::`. So a
//! deny of `localhost` or of `127.0.0.1` covers all of them, and an allow of one admits the
//! others; an origin pattern still names its scheme and port (`http://127.0.0.1:8080` and
//! `http://localhost:8080` are one origin, `http://localhost:8081` another).

use std::net::{Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};
use url::{Host, Url};

/// The one name of this machine's loopback, whichever way a pattern or URL spells it.
pub const LOOPBACK: &str = "localhost";

/// The host Porthole compares: the same string for every spelling of one host (see the
/// module's doc). Domains come lower-cased and in punycode from the `url` crate.
pub fn canonical_host<S: AsRef<str>>(host: &Host<S>) -> String {
    match host {
        Host::Domain(domain) => {
            let domain = domain.as_ref().trim_end_matches('.').to_ascii_lowercase();
            if domain == LOOPBACK || domain.ends_with(".localhost") {
                LOOPBACK.to_string()
            } else {
                domain
            }
        }
        Host::Ipv4(address) => canonical_ipv4(*address),
        Host::Ipv6(address) => canonical_ipv6(*address),
    }
}

fn canonical_ipv4(address: Ipv4Addr) -> String {
    if address.is_loopback() || address.is_unspecified() {
        LOOPBACK.to_string()
    } else {
        address.to_string()
    }
}

fn canonical_ipv6(address: Ipv6Addr) -> String {
    if let Some(v4) = address.to_ipv4_mapped() {
        return canonical_ipv4(v4);
    }
    if address.is_loopback() || address.is_unspecified() {
        LOOPBACK.to_string()
    } else {
        format!("[{address}]")
    }
}

/// The canonical host of `url` (None for a URL without one: `about:`, `data:`, `blob:`).
pub fn host_of(url: &Url) -> Option<String> {
    url.host().as_ref().map(canonical_host)
}

/// The origin an "always" answer is kept under: `scheme://host:port` with the canonical host,
/// for `http`, `https`, `ws` and `wss` URLs; None for every opaque origin (`about:`, `data:`,
/// `blob:`, `file:`, a URL that does not parse), which no "always" may cover.
pub fn origin_of(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https" | "ws" | "wss") {
        return None;
    }
    let host = host_of(&parsed)?;
    let port = parsed.port_or_known_default()?;
    Some(format!("{}://{host}:{port}", parsed.scheme()))
}

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
            let host = host_of(&url).ok_or_else(|| bad("no host"))?;
            return Ok(Pattern::Origin {
                scheme: url.scheme().to_string(),
                host,
                port: url.port_or_known_default().unwrap_or(0),
            });
        }
        let (wild, host) = match trimmed.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let host = pattern_host(host).ok_or_else(|| {
            bad("a host is letters, digits, dots and dashes, a trailing dot allowed (a bracketed IPv6 address goes in an origin)")
        })?;
        Ok(if wild {
            Pattern::Subdomains(host)
        } else {
            Pattern::Host(host)
        })
    }

    fn matches(&self, url: &Url) -> bool {
        let Some(host) = host_of(url) else {
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

/// The canonical host a host pattern names (one trailing dot allowed, IDN in any form, an
/// IPv4 address in any numeric form), or None when it names none.
fn pattern_host(text: &str) -> Option<String> {
    let text = text.strip_suffix('.').unwrap_or(text);
    if text.is_empty() || text.starts_with('.') || text.ends_with('.') || text.contains("..") {
        return None;
    }
    if text.starts_with('[') {
        return None;
    }
    let host = Host::parse(text).ok()?;
    if let Host::Domain(ascii) = &host {
        let plain = ascii
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
        if !plain {
            return None;
        }
    }
    Some(canonical_host(&host))
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
    /// to any site). A URL Porthole cannot read is refused while any rule applies.
    pub fn verdict(&self, url: &str) -> Result<(), SiteRefusal> {
        if self.is_open() {
            return Ok(());
        }
        let Ok(parsed) = Url::parse(url) else {
            return Err(SiteRefusal {
                rule: "Porthole cannot read this URL's host, and this agent's sites are limited"
                    .to_string(),
            });
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
    /// Whether some page of `host` (a cookie's domain: any scheme, any port; a leading dot
    /// allowed) may load. Cookies know no port or scheme, so a host's cookies are an agent's to
    /// see or write when it may open that host at all; an origin pattern admits its host.
    pub fn host_verdict(&self, host: &str) -> Result<(), SiteRefusal> {
        if self.is_open() {
            return Ok(());
        }
        let host = host.trim().trim_start_matches('.');
        let Ok(plain) = Url::parse(&format!("http://{host}/")) else {
            return Err(SiteRefusal {
                rule:
                    "Porthole cannot read this cookie's domain, and this agent's sites are limited"
                        .to_string(),
            });
        };
        let Some(canonical) = host_of(&plain) else {
            return self.verdict(plain.as_str());
        };
        let mut candidates = vec![plain.to_string(), format!("https://{host}/")];
        for (_, allow) in &self.allows {
            for (_, pattern) in allow {
                if let Pattern::Origin {
                    scheme,
                    host: h,
                    port,
                } = pattern
                {
                    if *h == canonical {
                        candidates.push(format!("{scheme}://{host}:{port}/"));
                    }
                }
            }
        }
        let mut first = None;
        for url in &candidates {
            match self.verdict(url) {
                Ok(()) => return Ok(()),
                Err(refusal) => {
                    first.get_or_insert(refusal);
                }
            }
        }
        Err(first.expect("at least one candidate"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_domain_passes_when_its_host_may_be_opened() {
        let rules = SiteRules::new(&[(
            "x",
            &sites(
                &["http://127.0.0.1:8080", "*.example.com"],
                &["bad.example.com"],
            ),
        )]);
        assert!(rules.host_verdict("127.0.0.1").is_ok());
        assert!(rules.host_verdict("localhost").is_ok());
        assert!(rules.host_verdict(".example.com").is_ok());
        assert!(rules.host_verdict("a.example.com").is_ok());
        assert!(rules.host_verdict("bad.example.com").is_err());
        assert!(rules.host_verdict("other.test").is_err());
        assert!(rules.host_verdict("a b").is_err());
        assert!(SiteRules::default().host_verdict("other.test").is_ok());
    }

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
    fn every_spelling_of_a_host_is_that_host() {
        let deny = SiteRules::new(&[(
            "x",
            &sites(
                &[],
                &["localhost", "denied.test", "bücher.example", "10.0.0.1"],
            ),
        )]);
        for url in [
            "http://localhost:9/",
            "http://LOCALHOST:9/",
            "http://localhost.:9/",
            "http://x.localhost:9/",
            "http://a.b.localhost.:9/",
            "http://127.0.0.1:9/",
            "http://127.0.0.1.:9/",
            "http://127.1:9/",
            "http://0x7f.1:9/",
            "http://2130706433:9/",
            "http://127.0.0.2:9/",
            "http://[::1]:9/",
            "http://[::ffff:127.0.0.1]:9/",
            "http://[::ffff:7f00:1]:9/",
            "http://0.0.0.0:9/",
            "https://DENIED.test./x",
            "https://denied.test/",
            "https://xn--bcher-kva.example/",
            "https://BÜCHER.example./",
            "http://10.0.0.1/",
            "http://0xa.0.0.1/",
            "http://167772161/",
            "http://[::ffff:10.0.0.1]/",
        ] {
            assert!(deny.verdict(url).is_err(), "{url} passed a deny");
        }
        for url in [
            "https://denied.test.example/",
            "https://notdenied.test/",
            "http://10.0.0.2/",
            "http://localhost.example/",
            "http://[::2]/",
        ] {
            assert!(deny.verdict(url).is_ok(), "{url} was denied");
        }
    }

    #[test]
    fn patterns_take_every_spelling_too() {
        for pattern in [
            "localhost.",
            "LocalHost",
            "x.localhost",
            "127.0.0.1",
            "0x7f.0.0.1",
            "http://localhost.:8080",
            "http://[::ffff:127.0.0.1]:8080",
            "http://127.0.0.1:8080/",
        ] {
            let rules = SiteRules::new(&[("x", &sites(&[], &[pattern]))]);
            assert!(sites(&[], &[pattern]).check().is_ok(), "{pattern}");
            assert!(
                rules.verdict("http://localhost:8080/").is_err(),
                "{pattern} does not cover localhost:8080"
            );
        }
        let origin = SiteRules::new(&[("x", &sites(&["http://localhost.:8080"], &[]))]);
        assert!(origin.verdict("http://127.0.0.1:8080/a").is_ok());
        assert!(origin.verdict("http://localhost:8081/a").is_err());
        assert!(origin.verdict("https://localhost:8080/a").is_err());
        let idn = SiteRules::new(&[("x", &sites(&["*.xn--bcher-kva.example."], &[]))]);
        assert!(idn.verdict("https://shop.bücher.example/").is_ok());
        assert!(idn.verdict("https://bücher.example./").is_ok());
        assert!(idn.verdict("https://other.example/").is_err());
        for bad in [
            "localhost..",
            ".localhost",
            "a b",
            "[::1]",
            "*.bad_name.test",
        ] {
            assert!(sites(&[bad], &[]).check().is_err(), "{bad}");
        }
    }

    #[test]
    fn an_origin_is_scheme_canonical_host_and_port_and_opaque_ones_are_none() {
        assert_eq!(
            origin_of("https://Shop.Example.:443/cart").as_deref(),
            Some("https://shop.example:443")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:9/x").as_deref(),
            Some("http://localhost:9")
        );
        assert_eq!(
            origin_of("http://[::ffff:127.0.0.1]:9/").as_deref(),
            Some("http://localhost:9")
        );
        for opaque in [
            "about:blank",
            "data:text/html,hi",
            "blob:http://a.test/0b7e",
            "file:///etc/passwd",
            "not a url",
        ] {
            assert_eq!(origin_of(opaque), None, "{opaque}");
        }
    }

    #[test]
    fn a_url_porthole_cannot_read_is_refused_while_a_rule_applies() {
        let rules = SiteRules::new(&[("x", &sites(&[], &["denied.test"]))]);
        assert!(rules.verdict("http://[oops/").is_err());
        assert!(SiteRules::default().verdict("http://[oops/").is_ok());
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
