//! A site rule matches every spelling of its host (finding 1): a deny of `localhost` covers
//! `localhost.`, `x.localhost`, `127.0.0.1`, `0x7f.1` and `[::ffff:127.0.0.1]`, up front and at
//! the network layer, and a pattern written with a trailing dot means the same host.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::agent_with;

const CHANNEL: &str = "spellings";

#[tokio::test(flavor = "multi_thread")]
async fn a_deny_of_localhost_refuses_every_spelling_of_it() {
    let target = PageServer::start().await;
    let port = target.port();
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"sites": {"deny": ["localhost"]}})).await;
    let agent = daemon.caller(&token);
    for (n, host) in [
        "localhost.",
        "LOCALHOST",
        "x.localhost",
        "127.0.0.1",
        "0x7f.1",
        "[::ffff:127.0.0.1]",
    ]
    .iter()
    .enumerate()
    {
        let url = format!("http://{host}:{port}/spelling-{n}");
        let (is_error, text) = agent.act_text("navigate", json!({"url": url})).await;
        assert!(is_error, "{url} loaded: {text}");
        assert!(text.contains("deny \"localhost\""), "{url}: {text}");
    }
    assert!(
        target.requests().is_empty(),
        "a spelling reached the server: {:?}",
        target.requests()
    );

    // Control: an agent without the rule reaches the same server by the trailing-dot name, so
    // the server would have logged a refused spelling that got through.
    let (_, free) = agent_with(&daemon, CHANNEL, json!({})).await;
    daemon
        .caller(&free)
        .act_ok(
            "navigate",
            json!({"url": format!("http://localhost.:{port}/control")}),
        )
        .await;
    assert!(
        target.requests().iter().any(|r| r.contains("/control")),
        "{:?}",
        target.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trailing_dot_pattern_holds_a_page_link_to_another_spelling_at_the_network_layer() {
    let allowed = PageServer::area("sites").await;
    let refused = PageServer::start().await;
    // The page links to the refused server by a name the pattern does not spell that way.
    allowed.set(
        "REFUSED",
        &format!("http://[::ffff:127.0.0.1]:{}", refused.port()),
    );
    let daemon = TestDaemon::start().await;
    let pattern = format!("http://localhost.:{}", refused.port());
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"sites": {"deny": [pattern]}})).await;
    let agent = daemon.caller(&token);
    let click = json!({"action": "left_click", "coordinate": [200, 200]});

    agent
        .act_ok("navigate", json!({"url": allowed.url("/link.html")}))
        .await;
    let (_, clicked) = agent.act_text("computer", click.clone()).await;
    let (_, next) = agent.act_text("page_info", json!({})).await;
    let told = format!("{clicked}\n{next}");
    assert!(told.contains("Porthole refused"), "{told}");
    assert!(next.contains("/link.html"), "the tab stayed: {next}");
    assert!(refused.requests().is_empty(), "{:?}", refused.requests());

    // Control: the same link, clicked by an agent without the rule, reaches the server.
    let (_, free) = agent_with(&daemon, CHANNEL, json!({})).await;
    let free = daemon.caller(&free);
    free.act_ok("navigate", json!({"url": allowed.url("/link.html")}))
        .await;
    free.act_text("computer", click).await;
    porthole_tests::eventually(
        "the free agent's click reaches the server",
        std::time::Duration::from_secs(10),
        || async {
            refused
                .requests()
                .iter()
                .any(|r| r.contains("by=link"))
                .then_some(())
        },
    )
    .await;
}
