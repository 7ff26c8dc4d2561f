//! Tool calls on `POST /api/browser/action`, made as an agent (or the owner) makes them: the
//! one place in the harness that builds that request, so a test says only who calls which tool
//! with what, and what it expects back.

use std::path::PathBuf;

use serde_json::{json, Value};

/// Who calls tools, and how: a token, the channel named in the body (the owner's calls need
/// one; an agent's may leave it out), over TCP or the agent Unix socket. Cheap to clone, and
/// `'static`, so a spawned task can own one.
#[derive(Debug, Clone)]
pub struct Caller {
    addr: String,
    socket: PathBuf,
    token: Option<String>,
    channel: Option<String>,
    over_socket: bool,
}

impl Caller {
    pub(crate) fn new(addr: &str, socket: PathBuf, token: Option<&str>) -> Self {
        Self {
            addr: addr.to_string(),
            socket,
            token: token.map(str::to_string),
            channel: None,
            over_socket: false,
        }
    }

    /// Names `channel` in every call's body (`channel_id`).
    pub fn on(mut self, channel: &str) -> Self {
        self.channel = Some(channel.to_string());
        self
    }

    /// Calls over the daemon's agent Unix socket instead of the loopback listener.
    pub fn over_socket(mut self) -> Self {
        self.over_socket = true;
        self
    }

    /// The body of a call of `tool` with `args`.
    fn body(&self, tool: &str, args: Value) -> Value {
        let mut body = json!({"tool": tool, "args": args});
        if let Some(channel) = &self.channel {
            body["channel_id"] = json!(channel);
        }
        body
    }

    /// One call, whatever it answers: `(status, body)`.
    pub async fn call(&self, tool: &str, args: Value) -> (u16, Value) {
        let body = self.body(tool, args);
        let auth = self.token.as_ref().map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = auth
            .as_deref()
            .map(|a| vec![("Authorization", a)])
            .unwrap_or_default();
        let path = "/api/browser/action";
        if self.over_socket {
            crate::http::unix_http_request(
                &self.socket,
                "POST",
                path,
                &headers,
                Some(body.to_string()),
            )
            .await
        } else {
            crate::http::http_request("POST", &self.addr, path, &headers, Some(body.to_string()))
                .await
        }
    }

    /// A call that reaches the tool (status 200); returns the tool's result, whose `isError`
    /// is the test's to check.
    pub async fn act(&self, tool: &str, args: Value) -> Value {
        let (status, out) = self.call(tool, args).await;
        assert_eq!(status, 200, "{tool}: {out}");
        out
    }

    /// A call that must succeed: status 200 and a result that is no error.
    pub async fn act_ok(&self, tool: &str, args: Value) -> Value {
        let out = self.act(tool, args).await;
        assert_ne!(out["isError"], true, "{tool}: {out}");
        out
    }

    /// A call that reaches the tool; returns `(isError, the text blocks joined by newlines)`.
    pub async fn act_text(&self, tool: &str, args: Value) -> (bool, String) {
        let out = self.act(tool, args).await;
        (out["isError"] == true, result_text(&out))
    }
}

/// The text blocks of a tool result, joined by newlines (empty when it has none).
pub fn result_text(out: &Value) -> String {
    out["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}
