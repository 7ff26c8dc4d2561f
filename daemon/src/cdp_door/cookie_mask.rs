//! Cookie values hidden from a door client (DESIGN.md §21, the cookie-import promise: values
//! never leave): in Chrome's events and answers every cookie value the agent did not set
//! through the door ([`super::set_cookies`]) becomes [`HIDDEN`]; names, domains and the rest
//! stay. What carries cookie values: the `Cookie` and `Set-Cookie` headers (in `headers`,
//! `requestHeaders`, `responseHeaders`, and the raw `headersText` / `requestHeadersText`), the
//! cookie objects of `associatedCookies` / `blockedCookies` / `exemptedCookies`, their
//! `cookieLine`s, and the `rawCookieLine` of an `Audits` cookie issue. A `Set-Cookie` is a site's (never the agent's), so it is always hidden.
//!
//! Pure functions over JSON; nothing here knows the connection.

use serde_json::Value;

use super::set_cookies;

/// What a hidden cookie value reads as.
pub(super) const HIDDEN: &str = "porthole-hidden";

/// Whether Chrome's event `method` may carry a cookie value (the others pass untouched).
pub(super) fn carries_cookies(method: &str) -> bool {
    matches!(
        method,
        "Network.requestWillBeSent"
            | "Network.requestWillBeSentExtraInfo"
            | "Network.responseReceived"
            | "Network.responseReceivedExtraInfo"
            | "Network.responseReceivedEarlyHints"
            | "Network.requestIntercepted"
            | "Network.webSocketWillSendHandshakeRequest"
            | "Network.webSocketHandshakeResponseReceived"
            | "Fetch.requestPaused"
            | "Audits.issueAdded"
    )
}

/// Whether the answer to `method` may carry a cookie value in headers.
pub(super) fn answer_carries_cookies(method: &str) -> bool {
    method == "Network.loadNetworkResource"
}

/// `message` (Chrome's params or result) with every cookie value `agent_id` did not set hidden.
pub(super) fn mask(agent_id: &str, message: &mut Value) {
    // The cookies a request sent that are the agent's own, by name and value: a `Cookie`
    // header names neither domain nor path, its `associatedCookies` do.
    let own: Vec<(String, String)> = message["associatedCookies"]
        .as_array()
        .map(|cookies| {
            cookies
                .iter()
                .map(|c| &c["cookie"])
                .filter(|c| is_own(agent_id, c))
                .filter_map(|c| Some((c["name"].as_str()?.into(), c["value"].as_str()?.into())))
                .collect()
        })
        .unwrap_or_default();
    walk(agent_id, &own, message);
}

/// Whether the cookie object `cookie` (Chrome's `Network.Cookie`) is one `agent_id` set.
pub(super) fn is_own(agent_id: &str, cookie: &Value) -> bool {
    let text = |key: &str| cookie[key].as_str().unwrap_or_default();
    set_cookies::set_by(
        agent_id,
        text("name"),
        text("domain"),
        text("path"),
        text("value"),
    )
}

/// `cookie` (Chrome's `Network.Cookie`) with its value hidden unless `agent_id` set it.
pub(super) fn mask_cookie(agent_id: &str, cookie: &mut Value) {
    if cookie.get("value").is_some() && !is_own(agent_id, cookie) {
        cookie["value"] = Value::from(HIDDEN);
    }
}

fn walk(agent_id: &str, own: &[(String, String)], value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                match key.as_str() {
                    "headers" | "requestHeaders" | "responseHeaders" => headers(own, inner),
                    "headersText" | "requestHeadersText" => {
                        if let Some(text) = inner.as_str() {
                            *inner = Value::from(headers_text(own, text));
                        }
                    }
                    "cookieLine" | "rawCookieLine" => {
                        if let Some(line) = inner.as_str() {
                            *inner = Value::from(set_cookie(line));
                        }
                    }
                    "cookie" if inner.is_object() => mask_cookie(agent_id, inner),
                    _ => walk(agent_id, own, inner),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(agent_id, own, item);
            }
        }
        _ => {}
    }
}

/// A headers object (`{name: value}`) or list (`[{name, value}]`, as `Fetch` sends them).
fn headers(own: &[(String, String)], headers: &mut Value) {
    let masked = |name: &str, value: &str| -> Option<String> {
        if name.eq_ignore_ascii_case("cookie") {
            Some(cookie_header(own, value))
        } else if name.eq_ignore_ascii_case("set-cookie") {
            // Several `Set-Cookie` headers come joined by newlines.
            Some(
                value
                    .split('\n')
                    .map(set_cookie)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        } else {
            None
        }
    };
    match headers {
        Value::Object(map) => {
            for (name, value) in map.iter_mut() {
                if let Some(text) = value.as_str().and_then(|v| masked(name, v)) {
                    *value = Value::from(text);
                }
            }
        }
        Value::Array(list) => {
            for entry in list {
                let name = entry["name"].as_str().unwrap_or_default().to_string();
                if let Some(text) = entry["value"].as_str().and_then(|v| masked(&name, v)) {
                    entry["value"] = Value::from(text);
                }
            }
        }
        _ => {}
    }
}

/// A `Cookie` header (`a=1; b=2`) with each value hidden but those in `own`.
fn cookie_header(own: &[(String, String)], header: &str) -> String {
    header
        .split(';')
        .map(|pair| {
            let pair = pair.trim();
            match pair.split_once('=') {
                Some((name, value)) if own.iter().any(|(n, v)| n == name && v == value) => {
                    pair.to_string()
                }
                Some((name, _)) => format!("{name}={HIDDEN}"),
                None => HIDDEN.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A `Set-Cookie` line (`a=1; Path=/; HttpOnly`) with its value hidden, its attributes kept.
fn set_cookie(line: &str) -> String {
    let (pair, attributes) = match line.split_once(';') {
        Some((pair, rest)) => (pair, Some(rest)),
        None => (line, None),
    };
    let pair = match pair.split_once('=') {
        Some((name, _)) => format!("{name}={HIDDEN}"),
        None => HIDDEN.to_string(),
    };
    match attributes {
        Some(rest) => format!("{pair};{rest}"),
        None => pair,
    }
}

/// Raw header text (`GET / HTTP/1.1\r\nCookie: …\r\n…`) with its cookie lines' values hidden.
fn headers_text(own: &[(String, String)], text: &str) -> String {
    text.split('\n')
        .map(|line| {
            let (body, cr) = match line.strip_suffix('\r') {
                Some(body) => (body, "\r"),
                None => (line, ""),
            };
            let Some((name, value)) = body.split_once(':') else {
                return line.to_string();
            };
            let value = value.trim_start();
            if name.trim().eq_ignore_ascii_case("cookie") {
                format!("{name}: {}{cr}", cookie_header(own, value))
            } else if name.trim().eq_ignore_ascii_case("set-cookie") {
                format!("{name}: {}{cr}", set_cookie(value))
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::set_cookies::{self, CookieKey};
    use super::*;
    use serde_json::json;

    #[test]
    fn every_cookie_value_but_the_agents_own_is_hidden() {
        let agent = "agent-mask-test";
        set_cookies::record(agent, CookieKey::new("mine", "127.0.0.1", Some("/"), "m1"));
        let mut sent = json!({
            "requestId": "1",
            "headers": {"Cookie": "imported=s3cret; mine=m1", "Accept": "*/*"},
            "associatedCookies": [
                {"blockedReasons": [], "cookie": {"name": "imported", "value": "s3cret", "domain": "127.0.0.1", "path": "/"}},
                {"blockedReasons": [], "cookie": {"name": "mine", "value": "m1", "domain": "127.0.0.1", "path": "/"}}
            ]
        });
        mask(agent, &mut sent);
        let text = sent.to_string();
        assert!(!text.contains("s3cret"), "{text}");
        assert_eq!(
            sent["headers"]["Cookie"],
            "imported=porthole-hidden; mine=m1"
        );
        assert_eq!(sent["headers"]["Accept"], "*/*");
        assert_eq!(sent["associatedCookies"][1]["cookie"]["value"], "m1");

        let mut received = json!({
            "headers": {"set-cookie": "a=s3cret; Path=/; HttpOnly\nb=s3cret2"},
            "headersText": "HTTP/1.1 200 OK\r\nSet-Cookie: a=s3cret; Path=/\r\nX: y\r\n",
            "blockedCookies": [{"cookieLine": "c=s3cret3; Secure", "cookie": {"name": "c", "value": "s3cret3", "domain": "x", "path": "/"}}],
            "exemptedCookies": [{"cookieLine": "d=s3cret4", "cookie": {"name": "d", "value": "s3cret4", "domain": "x", "path": "/"}}],
            "response": {"requestHeaders": {"cookie": "e=s3cret5"}, "requestHeadersText": "GET / HTTP/1.1\r\nCookie: e=s3cret5\r\n"}
        });
        mask(agent, &mut received);
        let text = received.to_string();
        assert!(!text.contains("s3cret"), "{text}");
        assert_eq!(
            received["headers"]["set-cookie"],
            "a=porthole-hidden; Path=/; HttpOnly\nb=porthole-hidden"
        );
        assert_eq!(
            received["headersText"],
            "HTTP/1.1 200 OK\r\nSet-Cookie: a=porthole-hidden; Path=/\r\nX: y\r\n"
        );
        assert_eq!(
            received["blockedCookies"][0]["cookieLine"],
            "c=porthole-hidden; Secure"
        );

        let mut paused = json!({"responseHeaders": [{"name": "Set-Cookie", "value": "f=s3cret6"}]});
        mask(agent, &mut paused);
        assert!(!paused.to_string().contains("s3cret"), "{paused}");
        let mut issue = json!({"issue": {"details": {"cookieIssueDetails": {"rawCookieLine": "g=s3cret7; SameSite=None"}}}});
        mask(agent, &mut issue);
        assert!(!issue.to_string().contains("s3cret"), "{issue}");
        set_cookies::forget_agent(agent);
    }
}
