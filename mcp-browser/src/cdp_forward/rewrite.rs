//! The door's URLs in a JSON answer pointed back at the listener: `webSocketDebuggerUrl`
//! (`ws://<daemon>/cdp/devtools/page/<id>` → `ws://<listen>/devtools/page/<id>`) and the
//! `ws=` of `devtoolsFrontendUrl`, wherever they are (`json/version` is an object,
//! `json/list` an array). Nothing else in the answer changes.

use std::net::SocketAddr;

use serde_json::Value;

/// `body` with its WebSocket URLs pointed at `listen`; `None` when it is not JSON.
pub(super) fn point_at_listener(body: &[u8], listen: SocketAddr) -> Option<Vec<u8>> {
    let mut value: Value = serde_json::from_slice(body).ok()?;
    rewrite(&mut value, &listen.to_string());
    serde_json::to_vec(&value).ok()
}

fn rewrite(value: &mut Value, listen: &str) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite(item, listen)),
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match (key.as_str(), field) {
                    ("webSocketDebuggerUrl", Value::String(url)) => {
                        if let Some(at) = url.find("/devtools/") {
                            *url = format!("ws://{listen}{}", &url[at..]);
                        }
                    }
                    ("devtoolsFrontendUrl", Value::String(url)) => {
                        *url = frontend(url, listen);
                    }
                    (_, field) => rewrite(field, listen),
                }
            }
        }
        _ => {}
    }
}

/// `…?ws=<daemon>/cdp/devtools/page/<id>` → `…?ws=<listen>/devtools/page/<id>`.
fn frontend(url: &str, listen: &str) -> String {
    let Some(start) = url.find("ws=").map(|at| at + 3) else {
        return url.to_string();
    };
    let end = url[start..].find('&').map_or(url.len(), |at| start + at);
    match url[start..end].find("/devtools/") {
        Some(at) => format!(
            "{}{listen}{}{}",
            &url[..start],
            &url[start + at..end],
            &url[end..]
        ),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn door_urls_point_at_the_listener() {
        let listen: SocketAddr = "127.0.0.1:9222".parse().unwrap();
        let list = json!([{
            "id": "ABC",
            "title": "ws://127.0.0.1:7878/cdp/devtools/page/ABC stays in a title",
            "webSocketDebuggerUrl": "ws://127.0.0.1:7878/cdp/devtools/page/ABC",
            "devtoolsFrontendUrl": "/devtools/inspector.html?ws=127.0.0.1:7878/cdp/devtools/page/ABC&x=1",
        }]);
        let out = point_at_listener(list.to_string().as_bytes(), listen).unwrap();
        let out: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            out[0]["webSocketDebuggerUrl"],
            "ws://127.0.0.1:9222/devtools/page/ABC"
        );
        assert_eq!(
            out[0]["devtoolsFrontendUrl"],
            "/devtools/inspector.html?ws=127.0.0.1:9222/devtools/page/ABC&x=1"
        );
        assert_eq!(out[0]["title"], list[0]["title"]);
        let version = json!({"webSocketDebuggerUrl": "ws://localhost/cdp/devtools/browser"});
        let out = point_at_listener(version.to_string().as_bytes(), listen).unwrap();
        let out: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            out["webSocketDebuggerUrl"],
            "ws://127.0.0.1:9222/devtools/browser"
        );
        assert!(point_at_listener(b"not json", listen).is_none());
    }
}
