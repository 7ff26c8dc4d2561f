//! The tab a tool acts on ([`Tab`]: the session plus the active tab's target and flat CDP
//! session) and calls into the in-page helper `page.js`, in the tab's main frame or in an
//! out-of-process iframe's own session — always in Porthole's isolated world, never the
//! page's own.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::browser::{Actor, BrowserSession, TabInfo};
use crate::cdp::CdpConnection;
use crate::tools::error::ToolError;
use crate::tools::tab::redact::Redact;

/// The document's own URL and title.
const LOCATION: &str = include_str!("js/location.js");

/// Deadline of one helper call (a snapshot of a huge page included).
const JS_DEADLINE: Duration = Duration::from_secs(10);

/// The tab one tool call acts in, and who is acting.
#[derive(Clone)]
pub struct Tab {
    pub browser: Arc<BrowserSession>,
    pub target_id: String,
    /// Flat CDP session of the tab's main frame.
    pub session_id: String,
    /// Who runs the call (decides which tabs it sees).
    pub actor: Actor,
    /// What a tool's filters and waits see instead of a filled secret (set by the call
    /// pipeline's secrets layer; nothing by default).
    pub redact: Redact,
}

impl Tab {
    /// The tab `actor` acts in (an agent's first call opens one of its own); panes that follow
    /// agents move there on the call's `agent_activity`.
    pub async fn for_actor(
        browser: &Arc<BrowserSession>,
        actor: &Actor,
    ) -> Result<Self, ToolError> {
        let (target_id, session_id) = browser.agent_tabs().tab_for(actor).await?;
        Ok(Self {
            browser: browser.clone(),
            target_id,
            session_id,
            actor: actor.clone(),
            redact: Redact::none(),
        })
    }

    /// The tab the actor acts in now (it may have navigated to a new process or been
    /// replaced); itself when there is none.
    pub fn current(&self) -> Self {
        let Some(target_id) = self.browser.agent_tabs().current(&self.actor) else {
            return self.clone();
        };
        match self.browser.tab_session(&target_id) {
            Some(session_id) => Self {
                target_id,
                session_id,
                ..self.clone()
            },
            None => self.clone(),
        }
    }

    /// The tabs this call's actor may see, in display order.
    pub fn visible_tabs(&self) -> Vec<TabInfo> {
        self.browser.agent_tabs().visible(&self.actor)
    }

    pub fn cdp(&self) -> &CdpConnection {
        self.browser.cdp()
    }

    /// Calls `page.js`'s `function(args…)` in the main frame.
    pub async fn helper(&self, function: &str, args: &[Value]) -> Result<Value, ToolError> {
        helper_on(&self.browser, &self.session_id, function, args).await
    }

    /// Evaluates `expression` in the main frame with a deadline; exceptions become errors.
    pub async fn eval(&self, expression: &str, deadline: Duration) -> Result<Value, ToolError> {
        eval_on(&self.browser, &self.session_id, expression, deadline).await
    }

    /// `(url, title)` as the document itself reports them.
    pub async fn location(&self) -> Result<(String, String), ToolError> {
        let v = self.eval(LOCATION, Duration::from_secs(5)).await?;
        Ok((
            v["url"].as_str().unwrap_or_default().to_string(),
            v["title"].as_str().unwrap_or_default().to_string(),
        ))
    }
}

/// Calls `page.js`'s `function(args…)` in the frame behind `session`, in Porthole's isolated
/// world (see [`crate::tools::tab::world`]): page scripts cannot reach or replace what it uses.
pub async fn helper_on(
    browser: &BrowserSession,
    session: &str,
    function: &str,
    args: &[Value],
) -> Result<Value, ToolError> {
    eval_on(browser, session, &helper_call(function, args), JS_DEADLINE).await
}

/// The expression that calls `page.js`'s `function(args…)` in the tools' world.
pub fn helper_call(function: &str, args: &[Value]) -> String {
    let args: Vec<String> = args.iter().map(to_js).collect();
    format!(
        "{}.{function}({})",
        crate::tools::tab::world::HELPER,
        args.join(", ")
    )
}

fn to_js<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// Evaluates `expression` (value returned by JSON, promises awaited) with a deadline in
/// Porthole's isolated world of the frame behind `session`, where the helper is installed;
/// exceptions become errors. Not for the agent's own code: `evaluate` runs in the page's
/// main world.
pub async fn eval_on(
    browser: &BrowserSession,
    session: &str,
    expression: &str,
    deadline: Duration,
) -> Result<Value, ToolError> {
    crate::tools::tab::world::evaluate(browser, session, expression, deadline).await
}
