//! [`HttpProxyBackend`]: runs every tool by posting `{channel_id, tool, args}` to the daemon's
//! `POST {api}/api/browser/action` with the owner token, for `porthole-mcp` in agent
//! containers.
//!
//! Owns the HTTP exchange and turning each failure (daemon down, token refused, daemon error
//! body) into an error result that says what to do. `save_screenshot` is special: the proxy
//! asks the daemon for a `screenshot` and writes the file itself, where the agent runs. Plain
//! http only (the daemon listens on loopback); no TLS.

use std::error::Error as _;

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::Value;
use url::Url;

use crate::backend::ToolBackend;
use crate::screenshot_file::save_screenshot;
use crate::upload::with_inline_files;
use crate::vocabulary::{ToolCall, ToolName};
use crate::wire::{ActionRequest, ApiErrorBody, ToolOutput};

/// The proxy could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The API URL is not `http://…`.
    #[error(
        "the daemon URL {0} must start with http:// (the daemon serves plain HTTP on loopback)"
    )]
    NotHttp(Url),
    /// The token is empty.
    #[error("the token is empty: pass --token, set PORTHOLE_TOKEN or point --token-file at the daemon's token file")]
    EmptyToken,
    /// The channel id is empty.
    #[error("the channel id is empty: pass --channel <id>")]
    EmptyChannel,
    /// The HTTP client could not be built.
    #[error("could not build the HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

/// Forwards tool calls to a running Porthole daemon.
pub struct HttpProxyBackend {
    api: Url,
    endpoint: Url,
    channel_id: String,
    token: String,
    client: reqwest::Client,
}

impl HttpProxyBackend {
    /// A proxy to the daemon at `api` (e.g. `http://127.0.0.1:7878`) for `channel_id`.
    pub fn new(api: Url, channel_id: String, token: String) -> Result<Self, ProxyError> {
        if api.scheme() != "http" {
            return Err(ProxyError::NotHttp(api));
        }
        if token.trim().is_empty() {
            return Err(ProxyError::EmptyToken);
        }
        if channel_id.trim().is_empty() {
            return Err(ProxyError::EmptyChannel);
        }
        let mut base = api.clone();
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let endpoint = base
            .join("api/browser/action")
            .map_err(|_| ProxyError::NotHttp(api.clone()))?;
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(std::time::Duration::from_secs(5))
            .build()?;
        Ok(Self {
            api,
            endpoint,
            channel_id,
            token: token.trim().to_owned(),
            client,
        })
    }

    /// One `POST /api/browser/action`.
    async fn action(&self, tool: &str, args: Value) -> ToolOutput {
        let body = ActionRequest {
            channel_id: self.channel_id.clone(),
            tool: tool.to_owned(),
            args,
        };
        let response = self
            .client
            .post(self.endpoint.clone())
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await;
        let response = match response {
            Ok(r) => r,
            Err(e) => {
                return ToolOutput::error(format!(
                    "Porthole daemon at {} is not reachable: {}. Is it running? (Start it with \
                     `porthole serve`; check --api.)",
                    self.api,
                    chain(&e)
                ))
            }
        };
        let status = response.status();
        let text = match response.text().await {
            Ok(t) => t,
            Err(e) => {
                return ToolOutput::error(format!(
                    "Porthole daemon at {} stopped answering mid-reply: {}. Try again.",
                    self.api,
                    chain(&e)
                ))
            }
        };
        if status.is_success() {
            return serde_json::from_str::<ToolOutput>(&text).unwrap_or_else(|e| {
                ToolOutput::error(format!(
                    "Porthole daemon at {} answered `{tool}` with something that is not a tool \
                     result ({e}); is --api pointing at a Porthole daemon?",
                    self.api
                ))
            });
        }
        let detail = serde_json::from_str::<ApiErrorBody>(&text).ok();
        let said = detail
            .as_ref()
            .map(|d| format!(" ({}: {})", d.error.code, d.error.message))
            .unwrap_or_default();
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return ToolOutput::error(format!(
                "Porthole daemon at {} refused the token (HTTP {}){said}. Pass the daemon's \
                 owner token (its data dir's `token` file) with --token, PORTHOLE_TOKEN or \
                 --token-file.",
                self.api,
                status.as_u16()
            ));
        }
        match detail {
            Some(d) => ToolOutput::error(format!(
                "Porthole daemon error {}: {}",
                d.error.code, d.error.message
            )),
            None => ToolOutput::error(format!(
                "Porthole daemon at {} answered HTTP {} to `{tool}`: {}",
                self.api,
                status.as_u16(),
                snippet(&text)
            )),
        }
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
                    Err(e) => ToolOutput::error(e),
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

/// An error and its causes, `: `-joined (reqwest's own message hides the cause).
fn chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
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
