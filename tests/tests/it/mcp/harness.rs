//! An rmcp client over a child process, calls with deadlines, and result helpers.

use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

/// A connected MCP client; the child process ends when it is dropped.
pub type Client = RunningService<RoleClient, ()>;

/// Every tool call of these tests must finish within this (the server's own deadlines are
/// shorter).
const CALL_DEADLINE: Duration = Duration::from_secs(45);

/// `porthole-mcp` on `daemon`'s loopback API with the owner token, for `channel`.
pub async fn owner_proxy(
    daemon: &porthole_tests::daemon::TestDaemon,
    channel: &str,
    extra: &[&str],
) -> Client {
    let mut args: Vec<String> = [
        "--api",
        &daemon.base,
        "--channel",
        channel,
        "--token",
        &daemon.token,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    connect("porthole-mcp", &args, &[]).await
}

/// `porthole-mcp` on `daemon`'s agent socket with an agent token (no --channel).
pub async fn agent_proxy(daemon: &porthole_tests::daemon::TestDaemon, token: &str) -> Client {
    let api = format!("unix://{}", daemon.agent_socket().display());
    let args: Vec<String> = ["--api", &api, "--token", token]
        .iter()
        .map(|s| s.to_string())
        .collect();
    connect("porthole-mcp", &args, &[]).await
}

/// Spawns `binary args…` with `env` and completes the MCP handshake.
pub async fn connect(binary: &str, args: &[String], env: &[(&str, String)]) -> Client {
    connect_program(&porthole_tests::workspace_binary(binary), args, env).await
}

/// Spawns any `program args…` (for example `docker run -i …`) and completes the handshake.
pub async fn connect_program(
    path: &std::path::Path,
    args: &[String],
    env: &[(&str, String)],
) -> Client {
    let command = tokio::process::Command::new(path).configure(|c| {
        c.args(args)
            .env_remove("PORTHOLE_TOKEN")
            .env("RUST_LOG", "porthole=debug,info");
        for (k, v) in env {
            c.env(k, v);
        }
    });
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn MCP server");
    tokio::time::timeout(Duration::from_secs(20), ().serve(transport))
        .await
        .expect("MCP handshake within 20 s")
        .expect("MCP handshake")
}

/// Calls `tool` with `args` under the test deadline.
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    tokio::time::timeout(CALL_DEADLINE, client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("{tool} took longer than {CALL_DEADLINE:?}"))
        .expect("tools/call answered")
}

/// Calls and asserts success; returns the text.
pub async fn ok(client: &Client, tool: &str, args: Value) -> String {
    let result = call(client, tool, args.clone()).await;
    let t = text(&result);
    assert!(!is_error(&result), "{tool} {args} failed: {t}");
    t
}

/// Calls and asserts an error result; returns its text.
pub async fn err(client: &Client, tool: &str, args: Value) -> String {
    let result = call(client, tool, args.clone()).await;
    let t = text(&result);
    assert!(is_error(&result), "{tool} {args} should fail but said: {t}");
    t
}

/// All text blocks joined by newlines.
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

/// The first image block's (base64, mime type).
pub fn image(result: &CallToolResult) -> Option<(String, String)> {
    result.content.iter().find_map(|c| match c {
        ContentBlock::Image(i) => Some((i.data.clone(), i.mime_type.clone())),
        _ => None,
    })
}

/// The first embedded resource's (base64 blob, mime type).
pub fn resource_blob(result: &CallToolResult) -> Option<(String, Option<String>)> {
    result.content.iter().find_map(|c| match c {
        ContentBlock::Resource(r) => match &r.resource {
            rmcp::model::ResourceContents::BlobResourceContents {
                blob, mime_type, ..
            } => Some((blob.clone(), mime_type.clone())),
            _ => None,
        },
        _ => None,
    })
}

pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// The ref on the first snapshot line containing `needle`, e.g. `button "Change"` → `e5`.
pub fn ref_of(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{snapshot}"));
    let start = line.find("[ref=").expect("line has a ref") + 5;
    let end = start + line[start..].find(']').expect("ref closes");
    line[start..end].to_string()
}

/// Evaluates through the tool and returns the JSON value it printed.
pub async fn eval(client: &Client, expression: &str) -> Value {
    let t = ok(
        client,
        "evaluate",
        serde_json::json!({"expression": expression}),
    )
    .await;
    serde_json::from_str(&t).unwrap_or(Value::String(t))
}

/// Polls an expression through `evaluate` until it equals `expected` (deadline 10 s).
pub async fn eval_until(client: &Client, expression: &str, expected: Value) {
    let end = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let v = eval(client, expression).await;
        if v == expected {
            return;
        }
        assert!(
            std::time::Instant::now() < end,
            "{expression} never became {expected}; last {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
