//! Web origins as the vault binds logins to them: an item's origins from its URL fields, and
//! the patterns a share may narrow them with (`https://a.example:8443`, `*.example.com`,
//! `https://*.example.com`). A frame's origin is allowed for an item only when it equals one
//! of the item's origins (scheme, host and port exactly) and, when the share names origins,
//! also matches one of them.

/// A serialised origin, `scheme://host[:port]` as the browser writes it (`window.origin`).
pub fn origin_of(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    // KeePass URLs are often written without a scheme ("github.com/login").
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("https://{raw}")
    };
    let url = url::Url::parse(&with_scheme).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    match url.origin() {
        origin @ url::Origin::Tuple(..) => Some(origin.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

/// A share's origin pattern, checked when the share is set.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    let (scheme, host, port) = split_pattern(pattern);
    if let Some(scheme) = scheme {
        if !matches!(scheme, "http" | "https") {
            return Err(format!(
                "origin pattern {pattern:?}: the scheme must be http or https"
            ));
        }
    }
    let bare = host.strip_prefix("*.").unwrap_or(host);
    let valid_host = !bare.is_empty()
        && bare.len() <= 253
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'));
    if !valid_host || bare.contains('*') {
        return Err(format!(
            "origin pattern {pattern:?} is not an origin (https://example.com:8443) or a host \
             with its subdomains (*.example.com)"
        ));
    }
    if let Some(port) = port {
        if port.parse::<u16>().is_err() {
            return Err(format!("origin pattern {pattern:?}: bad port"));
        }
    }
    Ok(())
}

/// `(scheme?, host, port?)` of a pattern.
fn split_pattern(pattern: &str) -> (Option<&str>, &str, Option<&str>) {
    let pattern = pattern.trim().trim_end_matches('/');
    let (scheme, rest) = match pattern.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, pattern),
    };
    // An IPv6 host keeps its colons inside brackets.
    let (host, port) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains(']') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    (scheme, host, port)
}

/// Whether serialised origin `origin` matches share pattern `pattern`.
pub fn matches_pattern(origin: &str, pattern: &str) -> bool {
    let Ok(url) = url::Url::parse(origin) else {
        return false;
    };
    let (scheme, host, port) = split_pattern(pattern);
    if scheme.is_some_and(|s| !s.eq_ignore_ascii_case(url.scheme())) {
        return false;
    }
    if let Some(port) = port {
        if url
            .port_or_known_default()
            .map(|p| p.to_string())
            .as_deref()
            != Some(port)
        {
            return false;
        }
    }
    let Some(actual) = url.host_str() else {
        return false;
    };
    let host = host.to_ascii_lowercase();
    match host.strip_prefix("*.") {
        Some(parent) => actual == parent || actual.ends_with(&format!(".{parent}")),
        None => actual == host,
    }
}

/// The origins of `item_origins` a share with `narrow` patterns allows (all when `narrow` is
/// empty).
pub fn narrowed(item_origins: &[String], narrow: &[String]) -> Vec<String> {
    item_origins
        .iter()
        .filter(|o| narrow.is_empty() || narrow.iter().any(|p| matches_pattern(o, p)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_from_entry_urls() {
        assert_eq!(
            origin_of("https://github.com/login").as_deref(),
            Some("https://github.com")
        );
        assert_eq!(
            origin_of("github.com/login").as_deref(),
            Some("https://github.com")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:4444/a?b").as_deref(),
            Some("http://127.0.0.1:4444")
        );
        assert_eq!(
            origin_of("HTTPS://GitHub.com:443/").as_deref(),
            Some("https://github.com")
        );
        assert_eq!(origin_of("ftp://x"), None);
        assert_eq!(origin_of("javascript:alert(1)"), None);
        assert_eq!(origin_of(""), None);
    }

    #[test]
    fn share_patterns_narrow() {
        let item = vec![
            "https://example.com".to_string(),
            "https://login.example.com".to_string(),
            "http://127.0.0.1:4444".to_string(),
        ];
        assert_eq!(narrowed(&item, &[]), item);
        assert_eq!(
            narrowed(&item, &["*.example.com".into()]),
            item[..2].to_vec()
        );
        assert_eq!(
            narrowed(&item, &["https://login.example.com".into()]),
            vec!["https://login.example.com".to_string()]
        );
        assert_eq!(
            narrowed(&item, &["http://127.0.0.1:4444".into()]),
            vec!["http://127.0.0.1:4444".to_string()]
        );
        assert!(narrowed(&item, &["http://127.0.0.1:5555".into()]).is_empty());
        assert!(!matches_pattern("https://evilexample.com", "*.example.com"));
        assert!(check_pattern("*.example.com").is_ok());
        assert!(check_pattern("https://a.b:8443").is_ok());
        assert!(check_pattern("file://x").is_err());
        assert!(check_pattern("a*.b").is_err());
        assert!(check_pattern("https://a:99999").is_err());
    }
}
