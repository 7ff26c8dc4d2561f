//! The door's `json/protocol`: Chrome's own description of the protocol, cut to what the allow
//! table lets a client send. The description is the `devtools-protocol` npm package's JSON
//! (version 0.0.1608973, the one `puppeteer-core` 24.43 pins), kept gzipped beside this file with its licence (a browser on a pipe has no
//! `json/protocol` of its own to ask). Kept: each domain's commands the door forwards, plays
//! (`Target`) or answers, the events of domains with such a command, and every domain's types
//! (a kept command may name another domain's type). Clients that build their API from this
//! listing (chrome-remote-interface) get the methods they may call and no other.

use std::io::Read;
use std::sync::OnceLock;

use serde_json::{json, Value};

use super::allow::{self, Rule};

const BROWSER_PROTOCOL: &[u8] = include_bytes!("protocol/browser_protocol.json.gz");
const JS_PROTOCOL: &[u8] = include_bytes!("protocol/js_protocol.json.gz");

/// The listing as JSON text, made once.
pub(super) fn listing() -> &'static str {
    static LISTING: OnceLock<String> = OnceLock::new();
    LISTING.get_or_init(|| {
        let sources = [unpacked(BROWSER_PROTOCOL), unpacked(JS_PROTOCOL)];
        cut(&sources).to_string()
    })
}

/// A vendored description (gzipped JSON, checked by this module's tests).
fn unpacked(gzipped: &[u8]) -> Value {
    let mut text = String::new();
    flate2::read::GzDecoder::new(gzipped)
        .read_to_string(&mut text)
        .expect("the vendored protocol description is gzipped text");
    serde_json::from_str(&text).expect("the vendored protocol description is JSON")
}

/// Whether a client may send `method` on some socket of the door (its page sessions or its
/// browser socket).
fn passes(method: &str) -> bool {
    [true, false]
        .into_iter()
        .any(|on_page| !matches!(allow::rule(method, on_page), Rule::Refused(_)))
        && method != "Target.sendMessageToTarget"
}

/// `sources` cut to the door's table.
fn cut(sources: &[Value]) -> Value {
    let mut domains = Vec::new();
    for source in sources {
        for domain in source["domains"].as_array().into_iter().flatten() {
            let name = domain["domain"].as_str().unwrap_or_default();
            let commands: Vec<Value> = domain["commands"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| {
                    passes(&format!(
                        "{name}.{}",
                        c["name"].as_str().unwrap_or_default()
                    ))
                })
                .cloned()
                .collect();
            let mut kept = domain.clone();
            if commands.is_empty() {
                kept["events"] = json!([]);
            }
            kept["commands"] = Value::Array(commands);
            domains.push(kept);
        }
    }
    json!({ "version": sources[0]["version"], "domains": domains })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domain<'a>(listing: &'a Value, name: &str) -> &'a Value {
        listing["domains"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["domain"] == name)
            .unwrap_or_else(|| panic!("{name} is listed"))
    }

    fn commands(domain: &Value) -> Vec<&str> {
        domain["commands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn the_listing_has_what_a_client_may_send_and_nothing_the_table_refuses() {
        let listing: Value = serde_json::from_str(listing()).unwrap();
        assert_eq!(listing["version"]["major"], "1");
        let page = commands(domain(&listing, "Page"));
        assert!(
            page.contains(&"navigate") && page.contains(&"captureScreenshot"),
            "{page:?}"
        );
        let runtime = domain(&listing, "Runtime");
        assert!(commands(runtime).contains(&"evaluate"));
        assert!(
            !runtime["events"].as_array().unwrap().is_empty(),
            "a forwarded domain's events"
        );
        let target = commands(domain(&listing, "Target"));
        assert!(target.contains(&"createTarget") && target.contains(&"attachToTarget"));
        assert!(!target.contains(&"exposeDevToolsProtocol"), "{target:?}");
        assert!(!target.contains(&"sendMessageToTarget"), "{target:?}");
        // Browser-wide and host-reaching calls are refused, so not listed.
        let browser = commands(domain(&listing, "Browser"));
        assert!(!browser.contains(&"grantPermissions"), "{browser:?}");
        assert!(!commands(domain(&listing, "SystemInfo")).contains(&"getProcessInfo"));
        // A domain with nothing to send keeps its types, not its events.
        let storage = domain(&listing, "Storage");
        assert!(!commands(storage).contains(&"clearDataForOrigin"));
        // Every listed command passes the table.
        for d in listing["domains"].as_array().unwrap() {
            let name = d["domain"].as_str().unwrap();
            for c in commands(d) {
                assert!(passes(&format!("{name}.{c}")), "{name}.{c}");
            }
        }
    }
}
