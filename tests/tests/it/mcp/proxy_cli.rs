//! `porthole-mcp` itself against the real daemon (these ran against a stub in
//! `mcp-browser/tests` before the daemon had the tools): the listed tools and their budget,
//! aliases only when asked for, bad arguments named before anything is sent, the daemon's
//! refusals passed through, the call deadline, and the token from the environment or a file.
//! What `proxy.rs` already proves (every tool, aliases translated, save_screenshot, a wrong
//! token, an unreachable daemon) is not repeated here.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::mcp::{err, ok, owner_proxy, Server};
use porthole_tests::pane::Pane;
use porthole_tests::TempDir;
use serde_json::json;

const CHANNEL: &str = "mcp-proxy-cli";

/// The canonical tools in their listed order, written out here (not read from `ToolName::ALL`,
/// which the listing is built from).
const TOOLS: &[&str] = &[
    "navigate",
    "read_page",
    "computer",
    "form_input",
    "screenshot",
    "save_screenshot",
    "go_back",
    "go_forward",
    "reload",
    "evaluate",
    "list_tabs",
    "new_tab",
    "switch_tab",
    "close_tab",
    "page_info",
    "get_page_text",
    "find",
    "read_console_messages",
    "read_network_requests",
    "resize_window",
    "upload_file",
    "list_downloads",
    "get_download",
    "handle_dialog",
    "request_human",
    "list_logins",
    "fill_login",
    "fill_totp",
];

#[tokio::test]
async fn tools_list_is_the_documented_set_within_the_budget() {
    let daemon = TestDaemon::start().await;
    let mcp = owner_proxy(&daemon, CHANNEL, &[]).await;
    let tools = mcp.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    // The token budget (DESIGN.md §7): the whole tools/list result, as the client gets it.
    let bytes = serde_json::to_string(&json!({ "tools": tools }))
        .unwrap()
        .len();
    assert!(
        bytes <= 12_000,
        "tools/list is {bytes} bytes; the budget is 12000"
    );
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 20),
            "{} has a description",
            tool.name
        );
    }
    let navigate = tools.iter().find(|t| t.name == "navigate").unwrap();
    let props = navigate.input_schema["properties"].as_object().unwrap();
    for arg in [
        "url",
        "wait_for_selector",
        "wait_for_text",
        "wait_timeout_ms",
    ] {
        assert!(props.contains_key(arg), "navigate has {arg}");
    }
    assert_eq!(props["wait_timeout_ms"]["maximum"], 60000);
    assert_eq!(navigate.input_schema["required"], json!(["url"]));
    let computer = tools.iter().find(|t| t.name == "computer").unwrap();
    let actions = computer.input_schema["properties"]["action"].to_string();
    for action in [
        "left_click",
        "left_click_drag",
        "triple_click",
        "scroll",
        "key",
        "wait",
    ] {
        assert!(actions.contains(action), "computer offers {action}");
    }

    // Aliases: unknown without the option (saying which option), listed with it.
    let e = err(&mcp, "browser_click", json!({"ref": "e7"})).await;
    assert!(
        e.contains("Unknown tool `browser_click`") && e.contains("--playwright-aliases"),
        "{e}"
    );
    let aliased = owner_proxy(&daemon, CHANNEL, &["--playwright-aliases"]).await;
    let tools = aliased.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), TOOLS.len() + 14);
    let click = tools.iter().find(|t| t.name == "browser_click").unwrap();
    let props = click.input_schema["properties"].as_object().unwrap();
    for arg in ["element", "ref", "target"] {
        assert!(props.contains_key(arg), "browser_click has {arg}");
    }
}

#[tokio::test]
async fn bad_arguments_are_named_and_never_reach_the_daemon() {
    let daemon = TestDaemon::start().await;
    let mcp = owner_proxy(&daemon, CHANNEL, &[]).await;
    let e = err(&mcp, "click_everything", json!({})).await;
    assert!(
        e.contains("Unknown tool `click_everything`")
            && e.contains("navigate, read_page, computer"),
        "{e}"
    );
    let cases = [
        ("navigate", json!({}), "missing required argument `url`"),
        (
            "navigate",
            json!({"url": 5}),
            "argument `url`: invalid type",
        ),
        (
            "navigate",
            json!({"url": "http://x/", "wait_for_text": "a", "wait_timeout_ms": 90000}),
            "`wait_timeout_ms` must be between 1 and 60000",
        ),
        (
            "screenshot",
            json!({"wait_timeout_ms": "soon"}),
            "argument `wait_timeout_ms`: invalid type",
        ),
        (
            "computer",
            json!({"action": "left_click"}),
            "needs `coordinate`",
        ),
        (
            "computer",
            json!({"action": "fly"}),
            "unknown variant `fly`",
        ),
        (
            "form_input",
            json!({"ref": "e1"}),
            "missing required argument `value`",
        ),
        ("switch_tab", json!({"tab": 0}), "tab numbers start at 1"),
        (
            "navigate",
            json!({"url": "http://x/", "wait_for": "a"}),
            "unknown argument `wait_for`",
        ),
    ];
    for (tool, args, expected) in cases {
        let e = err(&mcp, tool, args.clone()).await;
        assert!(
            e.contains(expected),
            "{tool} {args}: {e:?} should contain {expected:?}"
        );
        assert!(
            e.contains(&format!("Invalid arguments for `{tool}`")),
            "{e}"
        );
    }
    // None of them reached the daemon: an owner's call would have started the channel.
    let (_, list) = daemon.get("/api/browser/channels").await;
    assert!(
        !list.to_string().contains(CHANNEL),
        "a bad call reached the daemon: {list}"
    );

    // A call the daemon refuses comes back with its status, code and message.
    let bad = owner_proxy(&daemon, "../bad", &[]).await;
    let e = err(&bad, "list_tabs", json!({})).await;
    assert!(
        e.starts_with("Porthole daemon refused `list_tabs` (HTTP 400, "),
        "{e}"
    );
}

#[tokio::test]
async fn a_call_past_its_deadline_is_an_error_and_the_token_comes_from_env_or_file() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;

    // The proxy gives up after 0.3 s on a 3 s promise, and answers the next call.
    let mcp = owner_proxy(&daemon, CHANNEL, &["--call-timeout-ms", "300"]).await;
    let slow = "new Promise(done => setTimeout(() => done(1), 3000))";
    let e = err(&mcp, "evaluate", json!({"expression": slow})).await;
    assert!(
        e.contains("`evaluate` did not finish within its deadline of 0.3 s"),
        "{e}"
    );
    ok(&mcp, "page_info", json!({})).await;

    let from_env = Server::binary("porthole-mcp")
        .args(&["--api", &daemon.base, "--channel", CHANNEL])
        .env("PORTHOLE_TOKEN", daemon.token.clone())
        .connect()
        .await;
    ok(&from_env, "page_info", json!({})).await;

    let dir = TempDir::new("token-file");
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{}\n", daemon.token)).unwrap();
    let from_file = Server::binary("porthole-mcp")
        .args(&["--api", &daemon.base, "--channel", CHANNEL, "--token-file"])
        .arg(&file)
        .connect()
        .await;
    ok(&from_file, "page_info", json!({})).await;
}
