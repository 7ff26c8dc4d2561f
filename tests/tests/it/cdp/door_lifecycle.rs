//! The door's life (DESIGN.md §21, "Bad input"): deleting an agent closes its open door
//! sockets with a close frame saying why, and its token opens nothing after (401); deleting a
//! channel ends its door connections; and the door over `server.agent_listen` takes the token
//! as `Authorization: Bearer` (real Playwright, the token never in a URL).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use porthole_tests::cdp_clients;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::{http_request, PageServer};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the agent's browser socket and checks it answers a command (the positive control
/// that the socket is up before anything is deleted).
async fn open_door(daemon: &TestDaemon, token: &str) -> Socket {
    let url = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the door's socket");
    let command = json!({"id": 1, "method": "Target.getTargets"}).to_string();
    socket
        .send(Message::Text(command.into()))
        .await
        .expect("send");
    let answer = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(Ok(message)) = socket.next().await {
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).expect("JSON");
                if value["id"] == 1 {
                    return value;
                }
            }
        }
        panic!("the socket ended before its answer");
    })
    .await
    .expect("an answer within 20 s");
    assert!(answer["result"]["targetInfos"].is_array(), "{answer}");
    socket
}

/// The close frame's reason the socket ends with (it must end within 20 s).
async fn closed_with(socket: &mut Socket) -> String {
    tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(message) = socket.next().await {
            match message {
                Ok(Message::Close(frame)) => {
                    return frame.map(|f| f.reason.to_string()).unwrap_or_default()
                }
                Ok(_) => continue,
                Err(error) => return format!("no close frame: {error}"),
            }
        }
        "no close frame: the stream ended".to_string()
    })
    .await
    .expect("the door's socket stayed open")
}

#[tokio::test(flavor = "multi_thread")]
async fn deleting_an_agent_closes_its_door_and_deleting_a_channel_ends_its_connections() {
    let daemon = TestDaemon::start().await;
    let (agent_id, token) = daemon.add_agent("door-life", "doomed", &[]).await;
    let (_, survivor) = daemon.add_agent("door-life", "survivor", &[]).await;
    let mut doomed = open_door(&daemon, &token).await;
    let mut other = open_door(&daemon, &survivor).await;

    let (status, body) = daemon
        .delete(&format!("/api/browser/agents/{agent_id}"))
        .await;
    assert_eq!(status, 204, "{body}");
    let reason = closed_with(&mut doomed).await;
    assert!(reason.contains("agent was deleted"), "{reason}");
    let (status, body) = http_request(
        "GET",
        &daemon.addr,
        &format!("/cdp/{token}/json/version"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(!body.to_string().contains(&token), "{body}");

    // Another agent's connection on the channel lives on (a command still answers) until the
    // channel is deleted.
    let command = json!({"id": 2, "method": "Browser.getVersion"}).to_string();
    other
        .send(Message::Text(command.into()))
        .await
        .expect("the other agent's socket is still open");
    let (status, body) = daemon.delete("/api/browser/channels/door-life").await;
    assert!(status == 200 || status == 204, "{status} {body}");
    let reason = closed_with(&mut other).await;
    assert!(reason.contains("browser ended"), "{reason}");
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn playwright_reaches_the_door_over_agent_listen_with_a_bearer_token() {
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
    let pages = PageServer::area("cdp").await;
    let (_, token) = daemon.add_agent("door-listen", "bearer", &[]).await;
    // The positive control for the header: without it the same root answers 401.
    let (status, body) = http_request(
        "GET",
        &format!("127.0.0.1:{port}"),
        "/cdp/json/version",
        &[],
        None,
    )
    .await;
    assert_eq!(status, 401, "{body}");

    let root = format!("http://127.0.0.1:{port}/cdp");
    let args = json!({
        "headers": {"Authorization": format!("Bearer {token}")},
        "page": pages.url("/door.html?bearer"),
    });
    let seen = cdp_clients::run("playwright-bearer.js", &root, &args).await;
    assert_eq!(seen["title"], "Door page", "{seen}");
    let endpoint = seen["wsEndpoint"].as_str().unwrap_or_default();
    assert!(!endpoint.contains(&token), "the token is in a URL: {seen}");
    assert!(
        pages.requests().iter().any(|r| r.contains("?bearer")),
        "the page was not loaded through the door"
    );
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}
