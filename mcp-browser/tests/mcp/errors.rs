//! Bad input and failures become error results that say what to do — never a protocol error or
//! a hang.

use serde_json::json;

use crate::harness::{call, connect, is_error, text};
use crate::stub::{Stub, MISSING_CHANNEL};

#[tokio::test]
async fn unknown_tool_lists_the_tools() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let r = call(&client, "click_everything", json!({})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(t.contains("Unknown tool `click_everything`"), "{t}");
    assert!(t.contains("navigate, read_page, computer"), "{t}");
    assert!(stub.requests().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn missing_mistyped_and_out_of_range_arguments_are_named() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
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
        let r = call(&client, tool, args.clone()).await;
        assert!(is_error(&r), "{tool} {args} is an error");
        let t = text(&r);
        assert!(
            t.contains(expected),
            "{tool} {args}: {t:?} should contain {expected:?}"
        );
        assert!(
            t.contains(&format!("Invalid arguments for `{tool}`")),
            "{t}"
        );
    }
    assert!(
        stub.requests().is_empty(),
        "nothing invalid reaches the daemon"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn daemon_unreachable_says_so() {
    // A port that was just free: nothing listens there.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let api = format!("http://127.0.0.1:{port}");
    let client = connect(&api, "chan-1", &[]).await;
    let r = call(&client, "page_info", json!({})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(
        t.contains(&format!("Porthole daemon at {api}/ is not reachable")),
        "{t}"
    );
    assert!(t.contains("Is it running?"), "{t}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn wrong_token_is_refused_with_advice() {
    let stub = Stub::start().await;
    let url = stub.url();
    let client = crate::harness::connect_raw(
        &["--api", &url, "--channel", "chan-1", "--token", "wrong"],
        &[],
    )
    .await;
    let r = call(&client, "page_info", json!({})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(t.contains("refused the token (HTTP 401)"), "{t}");
    assert!(t.contains("--token-file"), "{t}");
    assert_eq!(stub.requests()[0].auth.as_deref(), Some("Bearer wrong"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn daemon_error_bodies_are_surfaced() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), MISSING_CHANNEL, &[]).await;
    let r = call(&client, "list_tabs", json!({})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        "Porthole daemon refused `list_tabs` (HTTP 404, unknown_channel): no channel named \
         no-such-channel"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_past_its_deadline_is_an_error_result() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &["--call-timeout-ms", "300"]).await;
    // The stub never answers `reload`.
    let r = call(&client, "reload", json!({})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(
        t.contains("`reload` did not finish within its deadline of 0.3 s"),
        "{t}"
    );
    // The server still answers afterwards.
    let r = call(&client, "page_info", json!({})).await;
    assert!(!is_error(&r), "{}", text(&r));
    client.cancel().await.unwrap();
}
