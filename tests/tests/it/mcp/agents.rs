//! Agents as first-class clients (DESIGN.md §12): agent tokens and what they may not do, the
//! agent Unix socket, tabs per agent, tool policy through both MCP servers, revocation, and
//! liveness (idle stop never under an active agent; the agent hears when its tabs went away).

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

use super::harness::{call, connect, err, is_error, ok, text, Client};

/// `porthole-mcp` over the daemon's agent socket with an agent token (no --channel).
async fn agent_mcp(daemon: &TestDaemon, token: &str) -> Client {
    super::harness::agent_proxy(daemon, token).await
}

fn tool_names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

/// The `[id=…]` target ids a `list_tabs` text shows.
fn tab_ids(listing: &str) -> Vec<String> {
    listing
        .split("[id=")
        .skip(1)
        .filter_map(|rest| rest.split(']').next())
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn agent_tokens_may_only_run_their_own_channels_tools() {
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = daemon.add_agent("agents-a", "alpha", &[]).await;
    assert!(token.starts_with("pha_"), "{token}");

    // The list never shows a token.
    let (status, list) = daemon.get("/api/browser/agents").await;
    assert_eq!(status, 200, "{list}");
    let listed = &list["agents"][0];
    assert_eq!(listed["agent_id"], agent_id.as_str());
    assert_eq!(listed["channel_id"], "agents-a");
    assert!(!list.to_string().contains(&token), "{list}");
    assert!(listed.get("token").is_none(), "{list}");

    // Unknown tools in deny_tools: 400 naming the valid ones.
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": "agents-a", "deny_tools": ["fly"]}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("read_page"), "{body}");

    let me = |via_socket: bool, token: Option<String>| {
        let daemon = &daemon;
        async move {
            if via_socket {
                daemon
                    .socket_request(token.as_deref(), "GET", "/api/browser/agents/me", None)
                    .await
            } else {
                daemon
                    .request_as(token.as_deref(), "GET", "/api/browser/agents/me", None)
                    .await
            }
        }
    };
    for via_socket in [false, true] {
        let (status, body) = me(via_socket, Some(token.clone())).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["agent_id"], agent_id.as_str());
        assert_eq!(body["channel_id"], "agents-a");
        assert_eq!(body["name"], "alpha");
        // No token, or one nobody holds: 401, and the socket says how to get one.
        let (status, body) = me(via_socket, None).await;
        assert_eq!(status, 401, "{body}");
        if via_socket {
            assert!(body.to_string().contains("porthole agent add"), "{body}");
        }
        let (status, _) = me(via_socket, Some("pha_0000".into())).await;
        assert_eq!(status, 401);
    }

    // Every owner endpoint: 403 agent_forbidden, and nothing changes.
    let owner_only: [(&str, &str, Option<Value>); 8] = [
        ("GET", "/api/browser/channels", None),
        (
            "POST",
            "/api/browser/mode",
            Some(json!({"channel_id": "agents-a", "mode": "host"})),
        ),
        (
            "POST",
            "/api/browser/profile/reset",
            Some(json!({"channel_id": "agents-a"})),
        ),
        ("DELETE", "/api/browser/channels/other", None),
        ("GET", "/api/browser/agents", None),
        (
            "POST",
            "/api/browser/agents",
            Some(json!({"channel_id": "agents-a"})),
        ),
        ("GET", "/api/browser/cookies/sources", None),
        ("GET", "/api/ws/browser", None),
    ];
    for (method, path, body) in &owner_only {
        for via_socket in [false, true] {
            let (status, answer) = if via_socket {
                daemon
                    .socket_request(Some(&token), method, path, body.as_ref())
                    .await
            } else {
                daemon
                    .request_as(Some(&token), method, path, body.as_ref())
                    .await
            };
            assert_eq!(status, 403, "{method} {path}: {answer}");
            assert_eq!(
                answer["error"]["code"], "agent_forbidden",
                "{method} {path}"
            );
        }
    }
    let (status, _) = daemon
        .request_as(Some(&token), "GET", "/api/health", None)
        .await;
    assert_eq!(status, 200);
    // Another channel: 403 and no browser started for it.
    let (status, body) = daemon
        .caller(&token)
        .on("agents-b")
        .over_socket()
        .call("page_info", json!({}))
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "agent_forbidden");
    let (_, channels) = daemon.get("/api/browser/channels").await;
    assert!(!channels.to_string().contains("agents-b"), "{channels}");
    let (_, agents) = daemon.get("/api/browser/agents").await;
    assert_eq!(
        agents["agents"].as_array().map(Vec::len),
        Some(1),
        "{agents}"
    );

    // Revoked: the next call is 401; removing again is 404.
    let (status, _) = daemon
        .delete(&format!("/api/browser/agents/{agent_id}"))
        .await;
    assert_eq!(status, 204);
    let (status, _) = me(true, Some(token.clone())).await;
    assert_eq!(status, 401);
    let (status, _) = daemon
        .delete(&format!("/api/browser/agents/{agent_id}"))
        .await;
    assert_eq!(status, 404);
}

const TWO_CHANNEL: &str = "agents-two";

/// A daemon with a pane on [`TWO_CHANNEL`] and two agents on it: alpha, and beta whose
/// `deny_tools` holds `evaluate`.
struct Two {
    pages: PageServer,
    daemon: TestDaemon,
    pane: Pane,
    alpha_id: String,
    beta_id: String,
    beta_token: String,
    alpha: Client,
    beta: Client,
}

impl Two {
    async fn start() -> Self {
        let pages = PageServer::area("mcp").await;
        let daemon = TestDaemon::start().await;
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        pane.start(TWO_CHANNEL).await;
        let (alpha_id, alpha_token) = daemon.add_agent(TWO_CHANNEL, "alpha", &[]).await;
        let (beta_id, beta_token) = daemon.add_agent(TWO_CHANNEL, "beta", &["evaluate"]).await;
        let alpha = agent_mcp(&daemon, &alpha_token).await;
        let beta = agent_mcp(&daemon, &beta_token).await;
        Self {
            pages,
            daemon,
            pane,
            alpha_id,
            beta_id,
            beta_token,
            alpha,
            beta,
        }
    }

    fn url(&self, path: &str) -> String {
        self.pages.url(path)
    }
}

/// One channel through every step in turn (each step works on what the earlier ones left).
#[tokio::test]
async fn two_agents_on_one_channel_each_get_their_own_tabs_and_the_owner_sees_both() {
    let s = Two::start().await;
    deny_tools_hides_and_refuses_a_tool(&s).await;
    let human = first_actions_open_a_tab_each(&s).await;
    let (alpha_tab, beta_tab) = each_lists_and_reads_only_its_own_tab(&s).await;
    another_owners_tab_is_refused(&s, &alpha_tab, &beta_tab, &human).await;
    the_owner_sees_every_tab(&s).await;
    new_tabs_and_popups_belong_to_their_agent(&s).await;
    racing_first_calls_open_one_tab(&s).await;
    a_revoked_agent_is_refused_and_the_other_goes_on(&s).await;
}

/// deny_tools: beta's server does not list evaluate; calling it names the setting.
async fn deny_tools_hides_and_refuses_a_tool(s: &Two) {
    let (alpha, beta, daemon) = (&s.alpha, &s.beta, &s.daemon);
    let beta_token = &s.beta_token;
    let alpha_tools = tool_names(&alpha.list_all_tools().await.expect("tools/list"));
    let beta_tools = tool_names(&beta.list_all_tools().await.expect("tools/list"));
    assert!(alpha_tools.contains(&"evaluate".to_string()));
    assert!(
        !beta_tools.contains(&"evaluate".to_string()),
        "{beta_tools:?}"
    );
    let refused = err(beta, "evaluate", json!({"expression": "1"})).await;
    assert!(refused.contains("deny_tools"), "{refused}");
    // Straight to the daemon as well (a client that ignores tools/list).
    let (_, out) = daemon
        .caller(beta_token)
        .over_socket()
        .call("evaluate", json!({"expression": "1"}))
        .await;
    assert_eq!(out["isError"], true, "{out}");
    assert!(out.to_string().contains("deny_tools"), "{out}");
}

/// Each agent's first action opens a tab of its own; the pane hears who owns it. Returns the
/// pane's own tab.
async fn first_actions_open_a_tab_each(s: &Two) -> Value {
    let (alpha, beta, pane) = (&s.alpha, &s.beta, &s.pane);
    let (alpha_id, beta_id) = (&s.alpha_id, &s.beta_id);
    let url = |p: &str| s.url(p);
    let mark = pane.mark();
    let (a, b) = tokio::join!(
        ok(alpha, "navigate", json!({"url": url("/form")})),
        ok(beta, "navigate", json!({"url": url("/second")})),
    );
    assert!(a.contains("Form page"), "{a}");
    assert!(b.contains("Second page"), "{b}");
    let tabs = pane
        .message_where("tabs with both agents' tabs", mark, |m| {
            m["type"] == "tabs"
                && m["tabs"].as_array().is_some_and(|tabs| {
                    tabs.iter().any(|t| t["owner"] == alpha_id.as_str())
                        && tabs.iter().any(|t| t["owner"] == beta_id.as_str())
                })
        })
        .await;
    let human = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["owner"] == "human")
        .expect("the pane's own tab stays the human's")
        .clone();
    assert!(
        tabs.to_string().contains("\"owner_name\":\"alpha\""),
        "{tabs}"
    );

    human
}

/// Isolation both ways: each lists only its own tab, and reads its own page. Returns alpha's
/// and beta's tabs.
async fn each_lists_and_reads_only_its_own_tab(s: &Two) -> (String, String) {
    let (alpha, beta) = (&s.alpha, &s.beta);
    let alpha_list = ok(alpha, "list_tabs", json!({})).await;
    let beta_list = ok(beta, "list_tabs", json!({})).await;
    assert!(
        alpha_list.contains("Form page") && !alpha_list.contains("Second page"),
        "{alpha_list}"
    );
    assert!(
        beta_list.contains("Second page") && !beta_list.contains("Form page"),
        "{beta_list}"
    );
    let alpha_tab = tab_ids(&alpha_list).remove(0);
    let beta_tab = tab_ids(&beta_list).remove(0);
    assert_ne!(alpha_tab, beta_tab);
    // Reading is per tab: each agent reads its own page.
    let a_text = ok(alpha, "get_page_text", json!({})).await;
    assert!(
        a_text.contains("Ready") && !a_text.contains("Back to form"),
        "{a_text}"
    );
    let b_text = ok(beta, "get_page_text", json!({})).await;
    assert!(b_text.contains("Back to form"), "{b_text}");

    (alpha_tab, beta_tab)
}

/// Touching another owner's tab: an error result naming the owner.
async fn another_owners_tab_is_refused(s: &Two, alpha_tab: &str, beta_tab: &str, human: &Value) {
    let (alpha, beta) = (&s.alpha, &s.beta);
    let refused = err(alpha, "switch_tab", json!({"tab": beta_tab})).await;
    assert!(refused.contains("beta"), "{refused}");
    let refused = err(beta, "close_tab", json!({"tab": alpha_tab})).await;
    assert!(refused.contains("alpha"), "{refused}");
    let human_tab = human["target_id"].as_str().unwrap();
    let refused = err(alpha, "switch_tab", json!({"tab": human_tab})).await;
    assert!(refused.contains("person at the browser pane"), "{refused}");
    // Index 2 does not exist for alpha (it has one tab), whatever the channel has.
    let refused = err(alpha, "switch_tab", json!({"tab": 2})).await;
    assert!(refused.contains("list_tabs"), "{refused}");
}

/// The owner token sees every tab, with its owner.
async fn the_owner_sees_every_tab(s: &Two) {
    let daemon = &s.daemon;
    let owner_args: Vec<String> = [
        "--api",
        &daemon.base,
        "--channel",
        TWO_CHANNEL,
        "--token",
        &daemon.token,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let owner = connect("porthole-mcp", &owner_args, &[]).await;
    let all = ok(&owner, "list_tabs", json!({})).await;
    assert!(
        all.contains("(agent alpha)") && all.contains("(agent beta)"),
        "{all}"
    );
    assert_eq!(tab_ids(&all).len(), 3, "{all}");
}

/// A new tab of alpha's is alpha's; a popup its page opens is alpha's too.
async fn new_tabs_and_popups_belong_to_their_agent(s: &Two) {
    let (alpha, beta) = (&s.alpha, &s.beta);
    let url = |p: &str| s.url(p);
    ok(alpha, "new_tab", json!({"url": url("/second")})).await;
    ok(
        alpha,
        "evaluate",
        json!({"expression": format!("window.open({:?}); 1", url("/form"))}),
    )
    .await;
    let alpha_list = eventually(
        "alpha's popup to be listed",
        Duration::from_secs(10),
        || async move {
            let list = ok(alpha, "list_tabs", json!({})).await;
            (tab_ids(&list).len() == 3).then_some(list)
        },
    )
    .await;
    let beta_list = ok(beta, "list_tabs", json!({})).await;
    assert_eq!(
        tab_ids(&beta_list).len(),
        1,
        "{beta_list}\nalpha: {alpha_list}"
    );
}

/// Racing first calls: one agent racing itself opens one tab; a fresh agent gets its own.
async fn racing_first_calls_open_one_tab(s: &Two) {
    let daemon = &s.daemon;
    let (_, gamma_token) = daemon.add_agent(TWO_CHANNEL, "gamma", &[]).await;
    let gamma = daemon.caller(&gamma_token).over_socket();
    let action = |tool: &'static str| gamma.call(tool, json!({}));
    let (r1, r2, r3) = tokio::join!(
        action("page_info"),
        action("page_info"),
        action("read_page")
    );
    for (status, out) in [r1, r2, r3] {
        assert_eq!(status, 200, "{out}");
        assert_eq!(out["isError"], false, "{out}");
    }
    let (_, listed) = action("list_tabs").await;
    let listing = listed["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(tab_ids(&listing).len(), 1, "{listing}");
}

/// Revoked mid-session: alpha's next call is refused with what to do; beta goes on.
async fn a_revoked_agent_is_refused_and_the_other_goes_on(s: &Two) {
    let (alpha, beta, daemon) = (&s.alpha, &s.beta, &s.daemon);
    let alpha_id = &s.alpha_id;
    let (status, _) = daemon
        .delete(&format!("/api/browser/agents/{alpha_id}"))
        .await;
    assert_eq!(status, 204);
    let refused = call(alpha, "page_info", json!({})).await;
    assert!(is_error(&refused));
    assert!(text(&refused).contains("HTTP 401"), "{}", text(&refused));
    // Beta goes on.
    ok(beta, "page_info", json!({})).await;
}

#[tokio::test]
async fn a_pane_gives_its_tab_to_an_agent() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    const CHANNEL: &str = "agents-give";
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let human_tab = pane.start(CHANNEL).await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": format!("http://{pages}/second")}));
    pane.message_where("the pane's page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    let (agent_id, token) = daemon.add_agent(CHANNEL, "helper", &[]).await;
    let (other_id, _) = daemon.add_agent("agents-elsewhere", "other", &[]).await;

    // Bad input: unknown agent, another channel's agent, unknown tab — an error, no change.
    for (target, agent, code) in [
        (human_tab.as_str(), "ag_nobody", "unknown_agent"),
        (human_tab.as_str(), other_id.as_str(), "unknown_agent"),
        ("NO-SUCH-TAB", agent_id.as_str(), "unknown_tab"),
    ] {
        let mark = pane.mark();
        pane.send(json!({"type": "give_tab", "target_id": target, "agent_id": agent}));
        let error = pane.next_of("error", mark).await;
        assert_eq!(error["code"], code, "{error}");
    }

    let mark = pane.mark();
    pane.send(json!({"type": "give_tab", "target_id": human_tab, "agent_id": agent_id}));
    pane.message_where("the tab now the agent's", mark, |m| {
        m["type"] == "tabs"
            && m["tabs"].as_array().is_some_and(|t| {
                t.iter().any(|t| {
                    t["target_id"] == human_tab.as_str() && t["owner"] == agent_id.as_str()
                })
            })
    })
    .await;
    // The agent goes on there: same page, no new tab.
    let agent = agent_mcp(&daemon, &token).await;
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("Second page"), "{info}");
    let list = ok(&agent, "list_tabs", json!({})).await;
    assert_eq!(tab_ids(&list), vec![human_tab.clone()], "{list}");
    // Giving an agent's tab again is refused.
    let mark = pane.mark();
    pane.send(json!({"type": "give_tab", "target_id": human_tab, "agent_id": agent_id}));
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "not_your_tab", "{error}");
}

#[tokio::test]
async fn an_active_agent_keeps_its_channel_alive_and_hears_when_its_tabs_are_gone() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        // Short, yet longer than the test's own stalls on a loaded machine: a full run once
        // sent no call for 5 s (2 s and then 4 s ran out).
        idle_timeout_secs: 8,
        ..Default::default()
    })
    .await;
    const CHANNEL: &str = "agents-idle";
    let (_, token) = daemon.add_agent(CHANNEL, "busy", &[]).await;
    let agent = agent_mcp(&daemon, &token).await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    // Calls every 500 ms for two idle timeouts: the browser is never stopped under it.
    let until = std::time::Instant::now() + Duration::from_secs(16);
    while std::time::Instant::now() < until {
        let info = ok(&agent, "page_info", json!({})).await;
        assert!(
            info.contains("Second page"),
            "the agent lost its page: {info}"
        );
        assert!(!info.contains("are gone"), "{info}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // Quiet now: the idle stop comes, and the next call says why the page is gone.
    eventually("the idle stop", Duration::from_secs(40), || async {
        let (_, list) = daemon.get("/api/browser/channels").await;
        let running = list["channels"]
            .as_array()?
            .iter()
            .find(|c| c["channel_id"] == CHANNEL)?["running"]
            .as_bool()?;
        (!running).then_some(())
    })
    .await;
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(
        info.contains("your tabs in this channel are gone"),
        "{info}"
    );
    assert!(info.contains("(idle)"), "{info}");
    // Said once.
    let again = ok(&agent, "page_info", json!({})).await;
    assert!(!again.contains("are gone"), "{again}");

    // A daemon restart under the agent: told on the first call after it.
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;
    drop(agent);
    let data = daemon.stop().await;
    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let agent = agent_mcp(&daemon, &token).await;
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("daemon was restarted"), "{info}");
}

#[tokio::test]
async fn mcp_host_browser_hides_and_refuses_denied_tools() {
    // No Chrome is needed: the tool list and a refusal come before any browser is looked for.
    let args: Vec<String> = [
        "mcp-host-browser",
        "--deny",
        "evaluate,navigate",
        "--port",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let server = connect("porthole", &args, &[]).await;
    let names = tool_names(&server.list_all_tools().await.expect("tools/list"));
    assert!(!names.contains(&"evaluate".to_string()), "{names:?}");
    assert!(!names.contains(&"navigate".to_string()), "{names:?}");
    assert!(names.contains(&"read_page".to_string()), "{names:?}");
    let refused = err(&server, "navigate", json!({"url": "http://127.0.0.1:1/"})).await;
    assert!(refused.contains("--deny"), "{refused}");
    // An unknown name is an error at start, naming the valid ones.
    let output = porthole_tests::cli::porthole_bare()
        .args(["mcp-host-browser", "--deny", "fly"])
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run porthole");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("read_page"), "{stderr}");
}

#[tokio::test]
async fn porthole_mcp_in_a_container_on_the_default_bridge_drives_its_channel() {
    use porthole_tests::docker::{docker, unique, DockerCleanup};
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    const CHANNEL: &str = "agents-container";
    let (_, token) = daemon.add_agent(CHANNEL, "boxed", &[]).await;
    let tag = unique("agent-container");
    let name = format!("porthole-test-{tag}");
    let mut cleanup = DockerCleanup::new(&tag);
    cleanup.names.push(name.clone());
    let socket_dir = daemon
        .agent_socket()
        .parent()
        .unwrap()
        .display()
        .to_string();
    let binary = porthole_tests::workspace_binary("porthole-mcp")
        .display()
        .to_string();
    // The base image the setup builds; default bridge network; only the socket's directory,
    // the binary and the token go in. The daemon listens on no address the container has.
    let args: Vec<String> = [
        "run",
        "-i",
        "--rm",
        "--name",
        &name,
        "--label",
        &format!("porthole.test={tag}"),
        "--network",
        "bridge",
        "-v",
        &format!("{socket_dir}:/run/porthole:ro"),
        "-v",
        &format!("{binary}:/usr/local/bin/porthole-mcp:ro"),
        "-e",
        "PORTHOLE_TOKEN",
        "porthole-base:bookworm",
        "porthole-mcp",
        "--api",
        "unix:///run/porthole/agents.sock",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let docker_cli = std::path::PathBuf::from("docker");
    let agent =
        super::harness::connect_program(&docker_cli, &args, &[("PORTHOLE_TOKEN", token.clone())])
            .await;
    let (_, inspect) = docker(&["inspect", "-f", "{{.HostConfig.NetworkMode}}", &name]);
    assert_eq!(inspect, "bridge");
    let loaded = ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form"), "wait_for_text": "Ready"}),
    )
    .await;
    assert!(loaded.contains("Form page"), "{loaded}");
    let snapshot = ok(&agent, "read_page", json!({})).await;
    assert!(snapshot.contains("button \"Change\""), "{snapshot}");
    let (_, channels) = daemon.get("/api/browser/channels").await;
    assert!(channels.to_string().contains(CHANNEL), "{channels}");
    agent.cancel().await.ok();
}

#[tokio::test]
async fn a_crash_and_a_reset_under_an_agent_are_told_with_their_reason() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    const CHANNEL: &str = "agents-crash";
    let (_, token) = daemon.add_agent(CHANNEL, "victim", &[]).await;
    let agent = agent_mcp(&daemon, &token).await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    // Kill the channel's Chromium under the agent.
    let needle = format!("--user-data-dir={}", daemon.profile_dir(CHANNEL).display());
    let pids = porthole_tests::processes_with(&needle);
    assert!(!pids.is_empty(), "no Chromium with {needle}");
    for pid in pids {
        porthole_tests::daemon::unsafe_free_kill(pid, "-KILL");
    }
    let info = eventually("the crash to be noticed", Duration::from_secs(20), || {
        let agent = &agent;
        async move {
            let result = call(agent, "page_info", json!({})).await;
            let t = text(&result);
            t.contains("are gone").then_some(t)
        }
    })
    .await;
    assert!(info.contains("crashed or was killed"), "{info}");
    // A profile reset by the owner: told as such.
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    let (status, body) = daemon
        .post(
            "/api/browser/profile/reset",
            &json!({"channel_id": CHANNEL}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("profile was reset"), "{info}");
}

#[tokio::test]
async fn the_agent_tcp_listener_accepts_host_docker_internal_and_agent_tokens() {
    // A free port for server.agent_listen (bound and released; the daemon binds it next).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"server": {"agent_listen": format!("127.0.0.1:{port}")}}),
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent("agents-tcp", "tcp", &[]).await;
    let agent_addr = format!("127.0.0.1:{port}");
    let auth = format!("Bearer {token}");
    let me = |host: &'static str, addr: String, auth: String| async move {
        porthole_tests::pages::http_request(
            "GET",
            &addr,
            "/api/browser/agents/me",
            &[("Host", host), ("Authorization", &auth)],
            None,
        )
        .await
    };
    let (status, body) = me(
        "host.docker.internal:7879",
        agent_addr.clone(),
        auth.clone(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["channel_id"], "agents-tcp");
    let (status, body) = me("evil.example", agent_addr.clone(), auth.clone()).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "bad_host");
    // The owner's loopback listener still refuses that name (no DNS rebinding there).
    let (status, _) = me("host.docker.internal", daemon.addr.clone(), auth.clone()).await;
    assert_eq!(status, 403);
    // No token on the agent listener: 401 that says how to get one.
    let (status, body) = porthole_tests::pages::http_request(
        "GET",
        &agent_addr,
        "/api/browser/agents/me",
        &[("Host", "host.docker.internal")],
        None,
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(body.to_string().contains("porthole agent add"), "{body}");
    // porthole-mcp over TCP with the agent token (no --channel) runs a tool.
    let args: Vec<String> = ["--api", &format!("http://{agent_addr}"), "--token", &token]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let agent = connect("porthole-mcp", &args, &[]).await;
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("about:blank"), "{info}");
}
