//! Folding cookie scopes under their parent scope.
//!
//! Owns: choosing [`ScopeCount::parent`] and the order of the listing.
//!
//! The parent of a scope is the *nearest* other scope of the same jar that encloses it, by its
//! stored name. Candidates, nearest first, for a scope whose host is `a.b.c`:
//! 1. `.a.b.c` — only for the host-only scope `a.b.c` (a domain cookie on the same host covers
//!    it; the reverse is not true, so `.a.b.c` never has `a.b.c` as parent);
//! 2. `.b.c`, then `b.c`; 3. `.c`, then `c` — each shorter host with and without the dot.
//!
//! No public-suffix list and no invented groups: a parent is only ever a scope that holds
//! cookies in this jar, and browsers refuse cookies on public suffixes, so none ever shows up.
//! IP-address hosts have no enclosing hosts. Rows come busiest first, ties by name.

use std::collections::BTreeSet;
use std::net::IpAddr;

use super::ScopeCount;

/// Builds the listing from `(scope, count)` pairs.
pub(crate) fn fold(counts: Vec<(String, usize)>) -> Vec<ScopeCount> {
    let present: BTreeSet<&str> = counts.iter().map(|(s, _)| s.as_str()).collect();
    let mut rows: Vec<ScopeCount> = counts
        .iter()
        .map(|(scope, count)| ScopeCount {
            scope: scope.clone(),
            parent: parent_of(scope, &present),
            count: *count,
        })
        .collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.scope.cmp(&b.scope)));
    rows
}

fn parent_of(scope: &str, present: &BTreeSet<&str>) -> Option<String> {
    let dotted = scope.starts_with('.');
    let host = scope.trim_start_matches('.');
    if host.is_empty() {
        return None;
    }
    let mut candidates = Vec::new();
    if !dotted {
        candidates.push(format!(".{host}"));
    }
    let is_ip = host
        .trim_matches(|c| c == '[' || c == ']')
        .parse::<IpAddr>()
        .is_ok();
    if !is_ip {
        let mut rest = host;
        while let Some((_, shorter)) = rest.split_once('.') {
            if shorter.is_empty() {
                break;
            }
            candidates.push(format!(".{shorter}"));
            candidates.push(shorter.to_owned());
            rest = shorter;
        }
    }
    candidates
        .into_iter()
        .find(|c| c != scope && present.contains(c.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(pairs: &[(&str, usize)]) -> Vec<(String, Option<String>, usize)> {
        fold(pairs.iter().map(|(s, n)| (s.to_string(), *n)).collect())
            .into_iter()
            .map(|r| (r.scope, r.parent, r.count))
            .collect()
    }

    #[test]
    fn nearest_enclosing_scope_with_and_without_dot() {
        let rows = listing(&[
            (".github.com", 12),
            ("github.com", 3),
            ("gist.github.com", 3),
            ("api.gist.github.com", 1),
            (".b.example.org", 2),
            ("a.b.example.org", 5),
            ("x.y.example.org", 1),
            ("example.org", 1),
            ("127.0.0.1", 4),
            (".0.0.1", 1),
            ("localhost", 2),
            ("app.localhost", 2),
        ]);
        let parent = |s: &str| rows.iter().find(|r| r.0 == s).unwrap().1.clone();
        assert_eq!(parent(".github.com"), None);
        assert_eq!(parent("github.com").as_deref(), Some(".github.com"));
        assert_eq!(parent("gist.github.com").as_deref(), Some(".github.com"));
        assert_eq!(
            parent("api.gist.github.com").as_deref(),
            Some("gist.github.com")
        );
        assert_eq!(parent("a.b.example.org").as_deref(), Some(".b.example.org"));
        assert_eq!(parent(".b.example.org").as_deref(), Some("example.org"));
        assert_eq!(parent("x.y.example.org").as_deref(), Some("example.org"));
        assert_eq!(parent("example.org"), None);
        assert_eq!(parent("127.0.0.1"), None, "IP hosts have no enclosing host");
        assert_eq!(parent("app.localhost").as_deref(), Some("localhost"));
    }

    #[test]
    fn busiest_first_ties_by_name() {
        let rows = listing(&[("b.com", 2), ("a.com", 2), ("c.com", 9), ("d.com", 1)]);
        let order: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(order, ["c.com", "a.com", "b.com", "d.com"]);
    }

    #[test]
    fn no_invented_groups() {
        let rows = listing(&[("a.example.com", 1), ("b.example.com", 1)]);
        assert!(rows.iter().all(|r| r.1.is_none()));
    }
}
