//! The CDP gate's HTTP handling as pure functions: find and parse a request head, decide where it
//! goes, accept a WebSocket upgrade, and build the short answers the gate gives itself.
//!
//! No I/O here (the socket side lives in `proxy`), so every rule is unit-tested below.

/// The largest request head the gate reads before it answers 431 and closes.
pub const MAX_HEAD: usize = 16 * 1024;

/// A parsed HTTP/1.x request head, borrowing from the bytes read off the socket.
#[derive(Debug, PartialEq, Eq)]
pub struct RequestHead<'a> {
    pub method: &'a str,
    /// The raw request target, e.g. `/<secret>/devtools/browser`.
    pub target: &'a str,
    pub version: &'a str,
    pub headers: Vec<(&'a str, &'a str)>,
}

/// Where a request goes, decided from its head alone.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    /// `GET /<secret>/devtools/browser HTTP/1.1`: a browser-level CDP WebSocket.
    Browser,
    /// `GET /<secret>/ready`: 200 once Chrome has answered on its pipe, 503 before.
    Ready,
    /// The first path segment is not the secret (or the target is not a path): 403.
    Forbidden,
    /// The secret is right but nothing lives at that path or method: 404.
    NotFound,
}

/// Returns the length of the head (up to and including the blank line) once `buf` holds one.
pub fn head_len(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Parses a request head (`head` ends with the blank line). `None` when it is not HTTP/1.x.
pub fn parse_head(head: &[u8]) -> Option<RequestHead<'_>> {
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let mut parts = lines.next()?.split(' ');
    let method = parts.next().filter(|m| is_token(m))?;
    let target = parts.next().filter(|t| !t.is_empty())?;
    let version = parts
        .next()
        .filter(|v| *v == "HTTP/1.1" || *v == "HTTP/1.0")?;
    if parts.next().is_some() {
        return None;
    }
    let mut headers = Vec::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let (name, value) = line.split_once(':')?;
        if !is_token(name) {
            return None;
        }
        headers.push((name, value.trim_matches(|c| c == ' ' || c == '\t')));
    }
    Some(RequestHead {
        method,
        target,
        version,
        headers,
    })
}

/// Decides where a request goes. The secret is compared in constant time.
pub fn route(head: &RequestHead<'_>, secret: &str) -> Route {
    let path = head.target.split('?').next().unwrap_or_default();
    let rest = match path.strip_prefix('/') {
        Some(rest) => rest,
        None => return Route::Forbidden,
    };
    let (first, tail) = rest.split_once('/').unwrap_or((rest, ""));
    if !secret_matches(first.as_bytes(), secret.as_bytes()) {
        return Route::Forbidden;
    }
    match (head.method, tail) {
        ("GET", "devtools/browser") if head.version == "HTTP/1.1" => Route::Browser,
        ("GET", "ready") => Route::Ready,
        _ => Route::NotFound,
    }
}

/// Compares `candidate` with `secret` in time that depends only on the secret's length.
pub fn secret_matches(candidate: &[u8], secret: &[u8]) -> bool {
    let mut diff = candidate.len() ^ secret.len();
    for (i, s) in secret.iter().enumerate() {
        let c = candidate.get(i).copied().unwrap_or(0);
        diff |= usize::from(c ^ s);
    }
    diff == 0 && !secret.is_empty()
}

/// The value of the first header called `name` (case-insensitive).
pub fn header<'a>(head: &RequestHead<'a>, name: &str) -> Option<&'a str> {
    head.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// The `101 Switching Protocols` answer to a valid WebSocket upgrade request (RFC 6455
/// §4.2.1), or what is wrong with it. `Origin` is not looked at: the secret is the gate.
pub fn accept_upgrade(head: &RequestHead<'_>) -> Result<String, &'static str> {
    let has_token = |name: &str, token: &str| {
        header(head, name).map_or(false, |v| {
            v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token))
        })
    };
    if !has_token("upgrade", "websocket") || !has_token("connection", "upgrade") {
        return Err("not a WebSocket upgrade");
    }
    if header(head, "sec-websocket-version") != Some("13") {
        return Err("WebSocket version 13 only");
    }
    let key = header(head, "sec-websocket-key")
        .filter(|k| {
            k.len() == 24
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        })
        .ok_or("no valid Sec-WebSocket-Key")?;
    Ok(format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {}\r\n\r\n",
        crate::digest::websocket_accept(key)
    ))
}

/// A complete short answer from the gate itself; the connection closes after it.
pub fn simple_response(status: u16, reason: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Whether `secret` can travel as one URL path segment without escaping (RFC 3986 unreserved).
pub fn valid_secret(secret: &str) -> bool {
    !secret.is_empty()
        && secret.len() <= 256
        && secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// RFC 9110 token characters (method and header names).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cret";

    fn head(text: &str) -> RequestHead<'_> {
        parse_head(text.as_bytes()).expect("valid head")
    }

    fn ws_request(target: &str) -> String {
        format!(
            "GET {target} HTTP/1.1\r\nHost: localhost:49153\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nOrigin: http://evil.example\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
    }

    #[test]
    fn head_len_finds_the_blank_line() {
        assert_eq!(head_len(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nrest"), Some(27));
        assert_eq!(head_len(b"GET / HTTP/1.1\r\nHost: a\r\n"), None);
        assert_eq!(head_len(b""), None);
    }

    #[test]
    fn parses_request_line_and_headers() {
        let text = ws_request("/s3cret/devtools/browser");
        let h = head(&text);
        assert_eq!(h.method, "GET");
        assert_eq!(h.target, "/s3cret/devtools/browser");
        assert_eq!(h.version, "HTTP/1.1");
        assert_eq!(h.headers[0], ("Host", "localhost:49153"));
        assert_eq!(h.headers.len(), 6);
    }

    #[test]
    fn rejects_what_is_not_http() {
        assert!(parse_head(b"\x16\x03\x01\x02\x00\x01\r\n\r\n").is_none());
        assert!(parse_head(b"GET /\r\n\r\n").is_none());
        assert!(parse_head(b"GET / HTTP/2\r\n\r\n").is_none());
        assert!(parse_head(b"GET  / HTTP/1.1\r\n\r\n").is_none());
        assert!(parse_head(b"GET / HTTP/1.1 extra\r\n\r\n").is_none());
        assert!(parse_head(b"GET / HTTP/1.1\r\nno colon here\r\n\r\n").is_none());
        assert!(parse_head(b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n").is_none());
        assert!(parse_head(b"G\xffT / HTTP/1.1\r\n\r\n").is_none());
    }

    #[test]
    fn routes_the_browser_endpoint_only_with_the_secret() {
        let ok = ws_request("/s3cret/devtools/browser");
        assert_eq!(route(&head(&ok), SECRET), Route::Browser);
        let query = ws_request("/s3cret/devtools/browser?x=1");
        assert_eq!(route(&head(&query), SECRET), Route::Browser);
        for target in [
            "/devtools/browser",
            "/s3cre/devtools/browser",
            "/s3cret2/devtools/browser",
            "/S3CRET/devtools/browser",
            "//s3cret/devtools/browser",
            "/",
            "*",
            "http://127.0.0.1/s3cret/devtools/browser",
        ] {
            assert_eq!(
                route(&head(&ws_request(target)), SECRET),
                Route::Forbidden,
                "{target}"
            );
        }
    }

    #[test]
    fn right_secret_wrong_path_or_method_is_not_found() {
        for target in [
            "/s3cret",
            "/s3cret/",
            "/s3cret/devtools/browser/",
            "/s3cret/devtools/browser/abc",
            "/s3cret/devtools/page/abc",
            "/s3cret/json/version",
        ] {
            assert_eq!(
                route(&head(&ws_request(target)), SECRET),
                Route::NotFound,
                "{target}"
            );
        }
        let post = head("POST /s3cret/devtools/browser HTTP/1.1\r\n\r\n");
        assert_eq!(route(&post, SECRET), Route::NotFound);
        let http10 = head("GET /s3cret/devtools/browser HTTP/1.0\r\n\r\n");
        assert_eq!(route(&http10, SECRET), Route::NotFound);
    }

    #[test]
    fn routes_ready() {
        assert_eq!(
            route(&head("GET /s3cret/ready HTTP/1.1\r\n\r\n"), SECRET),
            Route::Ready
        );
        assert_eq!(
            route(&head("GET /s3cret/ready HTTP/1.0\r\n\r\n"), SECRET),
            Route::Ready
        );
        assert_eq!(
            route(&head("GET /nope/ready HTTP/1.1\r\n\r\n"), SECRET),
            Route::Forbidden
        );
        assert_eq!(
            route(&head("PUT /s3cret/ready HTTP/1.1\r\n\r\n"), SECRET),
            Route::NotFound
        );
    }

    #[test]
    fn secret_comparison() {
        assert!(secret_matches(b"s3cret", b"s3cret"));
        assert!(!secret_matches(b"s3cre", b"s3cret"));
        assert!(!secret_matches(b"s3crett", b"s3cret"));
        assert!(!secret_matches(b"s3creT", b"s3cret"));
        assert!(!secret_matches(b"", b"s3cret"));
        assert!(!secret_matches(b"", b""));
        // A length difference that is a multiple of 256 must still count.
        let long = vec![b'a'; 256 + 3];
        assert!(!secret_matches(&long, b"aaa"));
    }

    #[test]
    fn accepts_a_websocket_upgrade_with_the_rfc_answer() {
        let text = ws_request("/s3cret/devtools/browser");
        let answer = accept_upgrade(&head(&text)).unwrap();
        assert_eq!(
            answer,
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        );
        // Header names in any case, tokens in lists (Firefox sends "keep-alive, Upgrade").
        let mixed = "GET /s3cret/devtools/browser HTTP/1.1\r\nUPGRADE: WebSocket\r\n\
                     connection: keep-alive, Upgrade\r\nsec-websocket-version: 13\r\n\
                     Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
        assert!(accept_upgrade(&head(mixed)).is_ok());
    }

    #[test]
    fn refuses_what_is_not_a_websocket_upgrade() {
        let plain = head("GET /s3cret/devtools/browser HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(accept_upgrade(&plain).is_err());
        let text = ws_request("/s3cret/devtools/browser");
        for (from, to) in [
            ("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8"),
            (
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Key: short",
            ),
            (
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "X-Nothing: x",
            ),
            ("Upgrade: websocket", "Upgrade: h2c"),
        ] {
            let changed = text.replace(from, to);
            assert!(accept_upgrade(&head(&changed)).is_err(), "{to}");
        }
    }

    #[test]
    fn simple_response_is_complete() {
        let r = simple_response(403, "Forbidden", "forbidden\n");
        assert!(r.starts_with("HTTP/1.1 403 Forbidden\r\n"));
        assert!(r.contains("Content-Length: 10\r\n"));
        assert!(r.contains("Connection: close\r\n"));
        assert!(r.ends_with("\r\n\r\nforbidden\n"));
    }

    #[test]
    fn secret_validation() {
        assert!(valid_secret("s3cret"));
        assert!(valid_secret("a-b_c.d~E9"));
        assert!(!valid_secret(""));
        assert!(!valid_secret("has/slash"));
        assert!(!valid_secret("has space"));
        assert!(!valid_secret("per%20cent"));
        assert!(!valid_secret(&"x".repeat(257)));
    }
}
