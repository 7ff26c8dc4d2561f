//! [`HttpProxyBackend`]: runs every tool by posting `{channel_id, tool, args}` to the daemon's
//! `POST /api/browser/action` with the agent's (or owner's) token, for `porthole-mcp` in agent
//! containers, over TCP (`http://…`) or the agent Unix socket (`unix:///…`).
//!
//! Owns the exchange's meaning: turning each failure (daemon down, token refused, daemon error
//! body) into an error result that says what to do, and asking `GET /api/browser/agents/me`
//! who the token belongs to. `save_screenshot` is special: the proxy asks the daemon for a
//! `screenshot` and writes the file itself, where the agent runs.

use serde::Deserialize;
use serde_json::Value;
use url::Url;

use crate::backend::ToolBackend;
use crate::screenshot_file::save_screenshot;
use crate::transport::{ApiTransport, SendError, TransportError};
use crate::upload::with_inline_files;
use crate::vocabulary::{ToolCall, ToolName};
use crate::wire::{ActionRequest, ApiErrorBody, ToolOutput};
use async_trait::async_trait;

/// The proxy could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The API URL is neither `http://…` nor `unix:///…`.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The token is empty.
    #[error("the token is empty: pass --token, set PORTHOLE_TOKEN or point --token-file at a file holding it (an agent token from `porthole agent add <channel>`)")]
    EmptyToken,
}

/// The daemon could not answer, or answered with a refusal; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// Nothing answered at the API URL.
    #[error(
        "Porthole daemon at {api} is not reachable: {cause}. Is it running? (Start it with \
         `porthole serve`; check --api, and that the socket's directory is mounted into \
         this container.)"
    )]
    Unreachable { api: Url, cause: SendError },
    /// HTTP 401: the token is not an agent's or the owner's; `said` is the daemon's
    /// ` (code: message)`, when it sent one.
    #[error(
        "Porthole daemon at {api} refused the token (HTTP {status}){said}. Pass an agent \
         token (from `porthole agent add <channel>` on the host) or the owner token \
         with --token, PORTHOLE_TOKEN or --token-file."
    )]
    TokenRefused { api: Url, status: u16, said: String },
    /// The daemon refused `what` with its own error body.
    #[error("Porthole daemon refused `{what}` (HTTP {status}, {code}): {message}")]
    Refused {
        what: String,
        status: u16,
        code: String,
        message: String,
    },
    /// Something answered `what` with an error status and a body that is not the daemon's.
    #[error("Porthole daemon at {api} answered HTTP {status} to `{what}`: {body}")]
    Answered {
        api: Url,
        what: String,
        status: u16,
        body: String,
    },
    /// `agents/me` answered 200 with something that is not an identity.
    #[error("Porthole daemon at {api} answered agents/me with something unexpected ({source})")]
    UnexpectedIdentity { api: Url, source: serde_json::Error },
}

/// Who the token belongs to (`GET /api/browser/agents/me`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Identity {
    /// The agent's id (`owner` for the owner token).
    pub agent_id: String,
    /// Its channel (none for the owner token).
    pub channel_id: Option<String>,
    pub name: String,
    /// Tools refused to this token.
    #[serde(default)]
    pub deny_tools: Vec<String>,
}

/// Forwards tool calls to a running Porthole daemon.
pub struct HttpProxyBackend {
    api: Url,
    transport: ApiTransport,
    /// The channel to act on; `None` lets an agent token act on its own.
    channel_id: Option<String>,
    token: String,
}

impl HttpProxyBackend {
    /// A proxy to the daemon at `api` (`http://127.0.0.1:7878` or
    /// `unix:///run/porthole/agents.sock`), acting on `channel_id` (or, with an agent token,
    /// on the agent's own channel when `None`).
    pub fn new(api: Url, channel_id: Option<String>, token: String) -> Result<Self, ProxyError> {
        if token.trim().is_empty() {
            return Err(ProxyError::EmptyToken);
        }
        let transport = ApiTransport::new(&api)?;
        Ok(Self {
            api,
            transport,
            channel_id: channel_id.filter(|c| !c.trim().is_empty()),
            token: token.trim().to_owned(),
        })
    }

    /// Asks the daemon who the token belongs to; the error says what is wrong otherwise.
    pub async fn identity(&self) -> Result<Identity, DaemonError> {
        let (status, text) = self
            .transport
            .send("GET", "/api/browser/agents/me", &self.token, None)
            .await
            .map_err(|e| self.unreachable(e))?;
        if status == 200 {
            return serde_json::from_str(&text).map_err(|source| DaemonError::UnexpectedIdentity {
                api: self.api.clone(),
                source,
            });
        }
        Err(self.refusal(status, &text, "agents/me"))
    }

    fn unreachable(&self, cause: SendError) -> DaemonError {
        DaemonError::Unreachable {
            api: self.api.clone(),
            cause,
        }
    }

    fn refusal(&self, status: u16, text: &str, what: &str) -> DaemonError {
        let detail = serde_json::from_str::<ApiErrorBody>(text).ok();
        if status == 401 {
            return DaemonError::TokenRefused {
                api: self.api.clone(),
                status,
                said: detail
                    .map(|d| format!(" ({}: {})", d.error.code, d.error.message))
                    .unwrap_or_default(),
            };
        }
        match detail {
            Some(d) => DaemonError::Refused {
                what: what.to_owned(),
                status,
                code: d.error.code,
                message: d.error.message,
            },
            None => DaemonError::Answered {
                api: self.api.clone(),
                what: what.to_owned(),
                status,
                body: snippet(text),
            },
        }
    }

    /// One `POST /api/browser/action`.
    async fn action(&self, tool: &str, args: Value) -> ToolOutput {
        let body = ActionRequest {
            channel_id: self.channel_id.clone(),
            tool: tool.to_owned(),
            args,
        };
        let body = serde_json::to_vec(&body).expect("action requests serialize");
        let (status, text) = match self
            .transport
            .send("POST", "/api/browser/action", &self.token, Some(body))
            .await
        {
            Ok(answer) => answer,
            Err(e) => return ToolOutput::error(self.unreachable(e).to_string()),
        };
        if (200..300).contains(&status) {
            return serde_json::from_str::<ToolOutput>(&text).unwrap_or_else(|e| {
                ToolOutput::error(format!(
                    "Porthole daemon at {} answered `{tool}` with something that is not a tool \
                     result ({e}); is --api pointing at a Porthole daemon?",
                    self.api
                ))
            });
        }
        ToolOutput::error(self.refusal(status, &text, tool).to_string())
    }
}

#[async_trait]
impl ToolBackend for HttpProxyBackend {
    async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        if tool == ToolName::SaveScreenshot.as_str() {
            return match ToolCall::from_name(tool, &args) {
                Ok(ToolCall::SaveScreenshot(a)) => save_screenshot(self, &a).await,
                Ok(_) => unreachable_call(tool),
                Err(e) => ToolOutput::error(e.to_string()),
            };
        }
        if tool == ToolName::UploadFile.as_str() {
            // The files are read here, where the agent runs, and travel in the request.
            return match ToolCall::from_name(tool, &args) {
                Ok(ToolCall::UploadFile(a)) => match with_inline_files(a).await {
                    Ok(a) => self.action(tool, ToolCall::UploadFile(a).args_json()).await,
                    Err(e) => ToolOutput::error(e.to_string()),
                },
                Ok(_) => unreachable_call(tool),
                Err(e) => ToolOutput::error(e.to_string()),
            };
        }
        self.action(tool, args).await
    }
}

fn unreachable_call(tool: &str) -> ToolOutput {
    ToolOutput::error(format!("internal error: `{tool}` parsed as another tool"))
}

fn snippet(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() {
        return "(empty body)".into();
    }
    let cut: String = t.chars().take(300).collect();
    if cut.len() < t.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
