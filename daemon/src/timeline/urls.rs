//! What the timeline keeps of a URL (docs/security.md, "The timeline"): the scheme, host, port
//! and path, and the names of the query's parameters without their values (`?code=&state=`).
//! Never the user name or password, a query value or the fragment: OAuth `code=` values,
//! `#access_token=` fragments and reset links' tokens live there, and an export is meant to be
//! mailed around. At most [`URL_MAX`] characters. Also rewrites the URLs inside a line of text
//! ([`safe_urls_in`]: summaries that embed one, and events written before these rules).

/// The most characters of a URL the timeline keeps.
pub const URL_MAX: usize = 1024;

/// The URL as the timeline keeps it (see the module's docs).
pub fn safe_url(url: &str) -> String {
    let kept = match url::Url::parse(url) {
        Ok(parsed) => of_parsed(parsed),
        // Not a URL the parser knows: what comes before any query or fragment.
        Err(_) => before_query(url).to_string(),
    };
    cut(&kept, URL_MAX)
}

fn of_parsed(mut parsed: url::Url) -> String {
    if parsed.cannot_be_a_base() {
        // `data:`, `javascript:`, `blob:`, `about:`, `mailto:`: the "path" is the content.
        return match parsed.scheme() {
            "about" => before_query(parsed.as_str()).to_string(),
            "blob" => format!("blob:{}", safe_url(parsed.path())),
            "data" => {
                let media = parsed.path().split(',').next().unwrap_or_default();
                format!("data:{},…", before_query(media))
            }
            scheme => format!("{scheme}:…"),
        };
    }
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    parsed.set_fragment(None);
    let names = parsed.query().map(query_names);
    parsed.set_query(None);
    let mut kept = parsed.to_string();
    if let Some(names) = names.filter(|n| !n.is_empty()) {
        kept.push('?');
        kept.push_str(&names);
    }
    kept
}

/// `a=1&b=2&flag` → `a=&b=`: the names of the parameters that have a value (a bare part may
/// itself be a token, so it goes too).
fn query_names(query: &str) -> String {
    query
        .split('&')
        .filter_map(|part| part.split_once('=').map(|(name, _)| name))
        .filter(|name| !name.is_empty())
        .map(|name| format!("{name}="))
        .collect::<Vec<_>>()
        .join("&")
}

fn before_query(text: &str) -> &str {
    text.split(['?', '#']).next().unwrap_or_default()
}

/// `text` cut to `max` characters (the last one `…` when cut).
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` with every `scheme://…` in it (up to a space, a quote or an angle bracket) made a
/// [`safe_url`].
pub fn safe_urls_in(text: &str) -> String {
    if !text.contains("://") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        // The scheme before `://`: letters, digits, `+`, `-`, `.`, starting with a letter.
        let scheme_len = rest[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .count();
        let start = at - scheme_len;
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            .map_or(rest.len(), |n| at + n);
        out.push_str(&rest[..start]);
        if scheme_len == 0 {
            // Not a URL (`://` alone): kept as it is, without what would be its query.
            out.push_str(before_query(&rest[start..end]));
        } else {
            out.push_str(&safe_url(&rest[start..end]));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_fragments_and_credentials_go() {
        assert_eq!(
            safe_url(
                "https://bob:pw@app.example.com/cb?code=SECRET&state=xyz#access_token=SECRET2"
            ),
            "https://app.example.com/cb?code=&state="
        );
        assert_eq!(
            safe_url("https://x.example/reset?token=abc&flagtoken"),
            "https://x.example/reset?token="
        );
        assert_eq!(safe_url("https://x.example/a/b"), "https://x.example/a/b");
        assert_eq!(safe_url("http://127.0.0.1:8080/"), "http://127.0.0.1:8080/");
        assert_eq!(safe_url("about:blank#frag"), "about:blank");
        assert_eq!(safe_url("data:text/html,<b>secret</b>"), "data:text/html,…");
        assert_eq!(safe_url("javascript:steal(1)"), "javascript:…");
        assert_eq!(
            safe_url("blob:https://x.example/uuid#t=SECRET"),
            "blob:https://x.example/uuid"
        );
        assert_eq!(safe_url("not a url?token=SECRET"), "not a url");
    }

    #[test]
    fn a_kept_url_is_kept_as_it_is() {
        for url in [
            "https://app.example.com/cb?code=&state=",
            "http://127.0.0.1:8080/x",
        ] {
            assert_eq!(safe_url(url), url);
        }
    }

    #[test]
    fn long_urls_are_cut() {
        let long = format!("https://x.example/{}", "a".repeat(2 * 1024 * 1024));
        let kept = safe_url(&long);
        assert_eq!(kept.chars().count(), URL_MAX);
        assert!(kept.ends_with('…'));
        let names = format!("https://x.example/?{}", "n=v&".repeat(100_000));
        assert_eq!(safe_url(&names).chars().count(), URL_MAX);
    }

    #[test]
    fn urls_inside_text_lose_their_secrets() {
        assert_eq!(
            safe_urls_in(r#"navigate url="https://x.example/cb?code=SECRET#access_token=T2""#),
            r#"navigate url="https://x.example/cb?code=""#
        );
        assert_eq!(
            safe_urls_in("loaded https://x.example/?a=1 then http://y.example/#t"),
            "loaded https://x.example/?a= then http://y.example/"
        );
        assert_eq!(safe_urls_in("no url here"), "no url here");
        assert_eq!(safe_urls_in(":// ?x=1"), ":// ?x=1");
    }
}
