//! Starting the real `porthole-mcp` binary under an rmcp client, and reading results.

use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use crate::stub::TOKEN;

/// A connected MCP client; the child process ends when it is dropped.
pub type Client = RunningService<RoleClient, ()>;

/// Spawns `porthole-mcp --api <api> --channel <channel> --token TOKEN <extra…>` and connects.
pub async fn connect(api: &str, channel: &str, extra: &[&str]) -> Client {
    let mut args = vec!["--api", api, "--channel", channel, "--token", TOKEN];
    args.extend_from_slice(extra);
    connect_raw(&args, &[]).await
}

/// Spawns `porthole-mcp` with exactly `args` and extra environment variables.
pub async fn connect_raw(args: &[&str], env: &[(&str, &str)]) -> Client {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_porthole-mcp")).configure(|c| {
        c.args(args)
            .env_remove("PORTHOLE_TOKEN")
            .env("RUST_LOG", "warn");
        for (k, v) in env {
            c.env(k, v);
        }
    });
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn porthole-mcp");
    ().serve(transport)
        .await
        .expect("MCP handshake with porthole-mcp")
}

/// Calls `tool` with `args` (a JSON object).
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    client.call_tool(params).await.expect("tools/call answered")
}

/// All text blocks of a result, joined by newlines.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// True when the result is an error result.
pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// Creates `porthole-mcp-test-<pid>-<name>`.
    pub fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("porthole-mcp-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
