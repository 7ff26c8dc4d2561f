//! The client's path at the listener's root to the door's path on the daemon:
//! `/json…` → `/cdp/json…`, `/devtools/…` → `/cdp/devtools/…` (the query kept, for
//! `PUT /json/new?<url>`). Anything else is not CDP's and is not forwarded.

/// The door's path and query for the client's `path_and_query`, or `None` when it is not a
/// CDP address.
pub(super) fn door_path(path_and_query: &str) -> Option<String> {
    let path = path_and_query.split('?').next().unwrap_or_default();
    let cdp = path == "/json"
        || path.starts_with("/json/")
        || path.starts_with("/json?")
        || path.starts_with("/devtools/");
    cdp.then(|| format!("cdp{path_and_query}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_paths_go_to_the_door() {
        assert_eq!(door_path("/json/version").unwrap(), "cdp/json/version");
        assert_eq!(door_path("/json").unwrap(), "cdp/json");
        assert_eq!(
            door_path("/json/new?https://example.com/").unwrap(),
            "cdp/json/new?https://example.com/"
        );
        assert_eq!(
            door_path("/devtools/page/ABC").unwrap(),
            "cdp/devtools/page/ABC"
        );
        for other in [
            "/",
            "/api/browser/action",
            "/cdp/json",
            "/jsonx",
            "/devtools",
        ] {
            assert!(door_path(other).is_none(), "{other}");
        }
    }
}
