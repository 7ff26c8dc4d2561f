//! Looks inside a local-mode channel's Chromium through its own DevTools port (from the
//! profile's `DevToolsActivePort`), independent of the daemon, to read back what a user's
//! input did to the page. The daemon talks to Chromium over a pipe and opens no port; the test
//! harness adds one (`DaemonOptions::probe_port`) so this probe has something to dial.

use std::path::Path;
use std::time::Duration;

use porthole::cdp::CdpConnection;
use serde_json::{json, Value};

use crate::raw_cdp;

/// A second CDP connection to a channel's browser.
pub struct Probe {
    pub cdp: CdpConnection,
}

impl Probe {
    /// Connects to the browser whose profile is `profile`.
    pub async fn connect(profile: &Path) -> Self {
        let url = crate::chromium::devtools_url(profile, Duration::from_secs(20)).await;
        let cdp = CdpConnection::connect(&url, Duration::from_secs(10))
            .await
            .expect("probe connects");
        Self { cdp }
    }

    /// Evaluates `expression` in the page `target_id` and returns its value.
    pub async fn eval(&self, target_id: &str, expression: &str) -> Value {
        raw_cdp::evaluate_in(&self.cdp, target_id, raw_cdp::by_value(expression)).await
    }

    /// Polls `expression` until it equals `expected` (deadline 20 s).
    pub async fn eval_until(&self, target_id: &str, expression: &str, expected: Value) -> Value {
        let what = format!("{expression} to become {expected}");
        crate::eventually(&what, Duration::from_secs(20), || async {
            let value = self.eval(target_id, expression).await;
            (value == expected).then_some(value)
        })
        .await
    }

    /// Sets the cookie `name=value` on `domain` in the browser's store: persistent (it
    /// outlives the browser, on the profile) with `persistent`, else a session cookie.
    pub async fn set_cookie(&self, name: &str, value: &str, domain: &str, persistent: bool) {
        let mut cookie = json!({"name": name, "value": value, "domain": domain, "path": "/"});
        if persistent {
            cookie["expires"] = json!(4_102_444_800i64);
        }
        self.cdp
            .call("Storage.setCookies", json!({ "cookies": [cookie] }))
            .await
            .expect("set a cookie");
    }

    /// Whether the browser's store has the cookie `name=value`.
    pub async fn has_cookie(&self, name: &str, value: &str) -> bool {
        let cookies = self
            .cdp
            .call("Storage.getCookies", json!({}))
            .await
            .expect("read cookies");
        cookies["cookies"]
            .as_array()
            .expect("a cookie list")
            .iter()
            .any(|c| c["name"] == name && c["value"] == value)
    }

    /// Page targets of the browser.
    pub async fn pages(&self) -> Vec<Value> {
        let targets = self
            .cdp
            .call("Target.getTargets", json!({}))
            .await
            .expect("targets");
        targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["type"] == "page")
            .cloned()
            .collect()
    }
}
