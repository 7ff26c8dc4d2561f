//! The cookies each agent set through the door (`Network.setCookie(s)`, `Storage.setCookies`),
//! by name, domain and path, with the value it set: the only cookie values a door client reads
//! back (DESIGN.md §21: a cookie's value leaves only when the agent put it there). A cookie a
//! site wrote over since holds the site's value, which does not match, and stays hidden. Kept per agent
//! for the daemon's life, across its connections (a client that reconnects still reads its
//! own), and forgotten when the agent is deleted or the client deletes the cookie.
//!
//! One registry for the daemon, keyed by agent id (ids are unique, so two daemons in one test
//! process never share an entry). Short lock, never held across an await.

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex};

/// One cookie as the record knows it: its name, its domain without a leading dot and in lower
/// case, its path (None: the client gave none, so Chrome chose it from the URL) and the value
/// the agent set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct CookieKey {
    pub(super) name: String,
    pub(super) domain: String,
    pub(super) path: Option<String>,
    pub(super) value: String,
}

impl CookieKey {
    pub(super) fn new(name: &str, domain: &str, path: Option<&str>, value: &str) -> Self {
        Self {
            name: name.to_string(),
            domain: plain_domain(domain),
            path: path.filter(|p| !p.is_empty()).map(str::to_string),
            value: value.to_string(),
        }
    }

    fn same_cookie(&self, other: &CookieKey) -> bool {
        self.name == other.name && self.domain == other.domain && self.path == other.path
    }
}

/// A cookie domain as the record compares it.
pub(super) fn plain_domain(domain: &str) -> String {
    domain.trim().trim_start_matches('.').to_ascii_lowercase()
}

/// Agent id → the cookies it set.
static SET: LazyLock<Mutex<HashMap<String, HashSet<CookieKey>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn with<T>(f: impl FnOnce(&mut HashMap<String, HashSet<CookieKey>>) -> T) -> T {
    f(&mut SET.lock().expect("door cookie record lock"))
}

/// Records that `agent_id` set `cookie` through the door (its earlier value of that cookie is
/// forgotten).
pub(super) fn record(agent_id: &str, cookie: CookieKey) {
    with(|all| {
        let set = all.entry(agent_id.to_string()).or_default();
        set.retain(|c| !c.same_cookie(&cookie));
        set.insert(cookie);
    });
}

/// Whether `agent_id` set the cookie `name` of `domain` at `path` to `value` through the door.
pub(super) fn set_by(agent_id: &str, name: &str, domain: &str, path: &str, value: &str) -> bool {
    let domain = plain_domain(domain);
    with(|all| {
        all.get(agent_id).is_some_and(|set| {
            set.iter().any(|c| {
                c.name == name
                    && c.domain == domain
                    && c.value == value
                    && c.path.as_deref().is_none_or(|p| p == path)
            })
        })
    })
}

/// Forgets the cookies `name` of `domain` that `agent_id` set (it deleted them, or a site
/// wrote over one: its value is the site's from then on).
pub(super) fn forget(agent_id: &str, name: &str, domain: &str) {
    let domain = plain_domain(domain);
    with(|all| {
        if let Some(set) = all.get_mut(agent_id) {
            set.retain(|c| !(c.name == name && c.domain == domain));
        }
    });
}

/// Forgets everything `agent_id` set (the agent was deleted).
pub(crate) fn forget_agent(agent_id: &str) {
    with(|all| {
        all.remove(agent_id);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_is_the_agents_only_by_its_name_domain_and_path() {
        let agent = "agent-record-test";
        record(
            agent,
            CookieKey::new("mine", ".Example.com", Some("/"), "old"),
        );
        record(
            agent,
            CookieKey::new("mine", ".Example.com", Some("/"), "v"),
        );
        record(agent, CookieKey::new("any", "example.com", None, "w"));
        assert!(set_by(agent, "mine", "example.com", "/", "v"));
        assert!(!set_by(agent, "mine", "example.com", "/", "old"));
        assert!(!set_by(agent, "mine", "example.com", "/", "a site's"));
        assert!(!set_by(agent, "mine", "example.com", "/a", "v"));
        assert!(!set_by(agent, "mine", "other.com", "/", "v"));
        assert!(!set_by("another-agent", "mine", "example.com", "/", "v"));
        assert!(set_by(agent, "any", ".example.com", "/deep", "w"));
        forget(agent, "mine", "example.com");
        assert!(!set_by(agent, "mine", "example.com", "/", "v"));
        forget_agent(agent);
        assert!(!set_by(agent, "any", "example.com", "/deep", "w"));
    }
}
