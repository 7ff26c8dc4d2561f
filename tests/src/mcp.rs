//! The one MCP client of the tests and the benches: rmcp over the stdio of a real binary
//! (`porthole-mcp`, `porthole mcp-host-browser`, or any program such as `docker run -i`),
//! calls with a deadline, and helpers that read results. [`Server`] says how to start the
//! binary; the free functions are the short forms the tests use.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ResourceContents};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use crate::daemon::TestDaemon;

/// A connected MCP client; the child process ends when it is dropped.
pub type Client = RunningService<RoleClient, ()>;

/// Every tool call must finish within this (the servers' own deadlines are shorter).
pub const CALL_DEADLINE: Duration = Duration::from_secs(45);
/// The MCP handshake must finish within this.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(20);

/// How to start an MCP server over stdio (a builder; [`Server::connect`] starts it).
pub struct Server {
    program: PathBuf,
    args: Vec<OsString>,
    env: Vec<(String, String)>,
    quiet: bool,
}

impl Server {
    /// A binary of this workspace (`porthole-mcp`, `porthole`).
    pub fn binary(name: &str) -> Self {
        Self::program(&crate::workspace_binary(name))
    }

    /// Any program.
    pub fn program(path: &Path) -> Self {
        Self {
            program: path.to_path_buf(),
            args: Vec::new(),
            env: Vec::new(),
            quiet: false,
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: &[S]) -> Self {
        self.args.extend(args.iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, key: &str, value: impl Into<String>) -> Self {
        self.env.push((key.to_string(), value.into()));
        self
    }

    /// Its stderr goes nowhere and it logs warnings only (the benches); by default it logs
    /// `porthole=debug` to the test's stderr.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// Spawns it (without `PORTHOLE_TOKEN` from the test's environment unless set here) and
    /// completes the MCP handshake.
    pub async fn connect(self) -> Client {
        let Server {
            program,
            args,
            env,
            quiet,
        } = self;
        let command = tokio::process::Command::new(&program).configure(|c| {
            c.args(&args).env_remove("PORTHOLE_TOKEN").env(
                "RUST_LOG",
                if quiet { "warn" } else { "porthole=debug,info" },
            );
            for (k, v) in &env {
                c.env(k, v);
            }
        });
        let stderr = if quiet {
            Stdio::null()
        } else {
            Stdio::inherit()
        };
        let (transport, _stderr) = TokioChildProcess::builder(command)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn MCP server {}: {e}", program.display()));
        tokio::time::timeout(HANDSHAKE_DEADLINE, ().serve(transport))
            .await
            .expect("MCP handshake within 20 s")
            .expect("MCP handshake")
    }
}

/// `porthole-mcp` on `daemon`'s loopback API with the owner token, for `channel`.
pub async fn owner_proxy(daemon: &TestDaemon, channel: &str, extra: &[&str]) -> Client {
    Server::binary("porthole-mcp")
        .args(&["--api", &daemon.base, "--channel", channel])
        .args(&["--token", &daemon.token])
        .args(extra)
        .connect()
        .await
}

/// `porthole-mcp` on `daemon`'s agent socket with an agent token (no --channel).
pub async fn agent_proxy(daemon: &TestDaemon, token: &str) -> Client {
    let api = format!("unix://{}", daemon.agent_socket().display());
    Server::binary("porthole-mcp")
        .args(&["--api", &api, "--token", token])
        .connect()
        .await
}

/// Spawns `binary args…` with `env` and completes the MCP handshake.
pub async fn connect(binary: &str, args: &[String], env: &[(&str, String)]) -> Client {
    connect_program(&crate::workspace_binary(binary), args, env).await
}

/// Spawns any `program args…` (for example `docker run -i …`) and completes the handshake.
pub async fn connect_program(path: &Path, args: &[String], env: &[(&str, String)]) -> Client {
    env.iter()
        .fold(Server::program(path).args(args), |server, (k, v)| {
            server.env(k, v.clone())
        })
        .connect()
        .await
}

/// Calls `tool` with `args` under [`CALL_DEADLINE`].
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    call_within(client, tool, args, CALL_DEADLINE).await
}

/// Calls `tool` with `args`, failing the test past `deadline`.
pub async fn call_within(
    client: &Client,
    tool: &str,
    args: Value,
    deadline: Duration,
) -> CallToolResult {
    tokio::time::timeout(deadline, request(client, tool, args))
        .await
        .unwrap_or_else(|_| panic!("{tool} took longer than {deadline:?}"))
        .expect("tools/call answered")
}

/// Calls `tool` with `args` and hands back whatever came, without a deadline of its own (for
/// the benches, which print a failed call instead of failing).
pub async fn request(
    client: &Client,
    tool: &str,
    args: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    client.call_tool(params).await
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
            ResourceContents::BlobResourceContents {
                blob, mime_type, ..
            } => Some((blob.clone(), mime_type.clone())),
            _ => None,
        },
        _ => None,
    })
}

/// True when the result is an error result.
pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// The ref on the first snapshot line containing `needle` and a ref (a snapshot's or
/// `read_page`'s), e.g. `button "Change"` → `e5`.
pub fn ref_of(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle) && l.contains("[ref="))
        .unwrap_or_else(|| panic!("no line with {needle:?} and a ref in:\n{snapshot}"));
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
    let what = format!("{expression} to become {expected}");
    crate::eventually(&what, Duration::from_secs(10), || async {
        (eval(client, expression).await == expected).then_some(())
    })
    .await
}
