//! The tab a tool acts on ([`Tab`]: the session plus the active tab's target and flat CDP
//! session) and calls into the in-page helper `page.js`, in the tab's main frame or in an
//! out-of-process iframe's own session.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use super::error::ToolError;
use crate::browser::BrowserSession;
use crate::cdp::CdpConnection;

/// The in-page helper: refs, snapshot, hit testing, form filling, text, quiet-DOM waits.
pub const PAGE_JS: &str = include_str!("page.js");

/// Deadline of one helper call (a snapshot of a huge page included).
const JS_DEADLINE: Duration = Duration::from_secs(10);

/// The active tab of a session, as one tool call sees it.
#[derive(Clone)]
pub struct Tab {
    pub browser: Arc<BrowserSession>,
    pub target_id: String,
    /// Flat CDP session of the tab's main frame.
    pub session_id: String,
}

impl Tab {
    /// The session's active tab.
    pub fn active(browser: &Arc<BrowserSession>) -> Result<Self, ToolError> {
        let (target_id, session_id) = browser.active_tab()?;
        Ok(Self {
            browser: browser.clone(),
            target_id,
            session_id,
        })
    }

    pub fn cdp(&self) -> &CdpConnection {
        self.browser.cdp()
    }

    /// Calls `page.js`'s `function(args…)` in the main frame.
    pub async fn helper(&self, function: &str, args: &[Value]) -> Result<Value, ToolError> {
        helper_on(self.cdp(), &self.session_id, function, args).await
    }

    /// Evaluates `expression` in the main frame with a deadline; exceptions become errors.
    pub async fn eval(&self, expression: &str, deadline: Duration) -> Result<Value, ToolError> {
        eval_on(self.cdp(), &self.session_id, expression, deadline).await
    }

    /// `(url, title)` as the document itself reports them.
    pub async fn location(&self) -> Result<(String, String), ToolError> {
        let v = self
            .eval(
                "({url: location.href, title: document.title})",
                Duration::from_secs(5),
            )
            .await?;
        Ok((
            v["url"].as_str().unwrap_or_default().to_string(),
            v["title"].as_str().unwrap_or_default().to_string(),
        ))
    }
}

/// Calls `page.js`'s `function(args…)` in the frame behind `session`.
pub async fn helper_on(
    cdp: &CdpConnection,
    session: &str,
    function: &str,
    args: &[Value],
) -> Result<Value, ToolError> {
    let args: Vec<String> = args.iter().map(to_js).collect();
    let expression = format!("({PAGE_JS}).{function}({})", args.join(", "));
    eval_on(cdp, session, &expression, JS_DEADLINE).await
}

/// Calls `page.js`'s `function(args…)` in the frame behind `session` and returns the remote
/// object it answers (its `objectId`; release it with `Runtime.releaseObject`), or `None` when
/// it answered `null`. For CDP commands that take a node, such as `DOM.setFileInputFiles`.
pub async fn helper_object_on(
    cdp: &CdpConnection,
    session: &str,
    function: &str,
    args: &[Value],
) -> Result<Option<String>, ToolError> {
    let args: Vec<String> = args.iter().map(to_js).collect();
    let expression = format!("({PAGE_JS}).{function}({})", args.join(", "));
    let reply = cdp
        .call_with(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": false}),
            Some(session),
            JS_DEADLINE,
        )
        .await?;
    if let Some(text) = crate::cdp::thrown(&reply) {
        return Err(ToolError::msg(format!("JavaScript error: {text}")));
    }
    Ok(reply["result"]["objectId"].as_str().map(str::to_string))
}

fn to_js<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// `Runtime.evaluate` (value returned by JSON, promises awaited) with a deadline.
pub async fn eval_on(
    cdp: &CdpConnection,
    session: &str,
    expression: &str,
    deadline: Duration,
) -> Result<Value, ToolError> {
    let reply = cdp
        .call_with(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            Some(session),
            deadline,
        )
        .await?;
    if let Some(text) = crate::cdp::thrown(&reply) {
        return Err(ToolError::msg(format!("JavaScript error: {text}")));
    }
    Ok(reply["result"]["value"].clone())
}
