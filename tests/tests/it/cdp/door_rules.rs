//! The CDP door's rules, checked with a raw CDP connection (DESIGN.md §21): `deny_tools` with
//! `cdp` or `evaluate` closes the door (403), an unknown token gets 401, a bearer token works
//! as well as the path's; `json/list`, `Target.getTargets` and attach show only the agent's
//! tabs and a foreign target id answers Chrome's own error; sessions are flat only; the
//! no-effect methods answer success and leave the browser up; while the person holds control,
//! input through the door is refused saying so, reads still work. The token never appears in
//! an answer's error or the log.

use std::time::Duration;

use porthole::cdp::{CdpConnection, CdpError};
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::{http_request, PageServer};
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

const CHANNEL: &str = "door-rules";

async fn get(daemon: &TestDaemon, path: &str, bearer: Option<&str>) -> (u16, Value) {
    let auth = bearer.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth
        .as_deref()
        .map(|a| vec![("Authorization", a)])
        .unwrap_or_default();
    http_request("GET", &daemon.addr, path, &headers, None).await
}

#[tokio::test(flavor = "multi_thread")]
async fn deny_tools_closes_the_door_and_a_bad_token_gets_none() {
    let daemon = TestDaemon::start().await;
    daemon.owner_on(CHANNEL).act("page_info", json!({})).await;
    // The positive control: an agent with nothing denied gets the door, its URL pointing back.
    let (_, open) = daemon.add_agent(CHANNEL, "open", &[]).await;
    let (status, version) = get(&daemon, &format!("/cdp/{open}/json/version"), None).await;
    assert_eq!(status, 200, "{version}");
    let ws = format!("ws://{}/cdp/{open}/devtools/browser", daemon.addr);
    assert_eq!(version["webSocketDebuggerUrl"], ws, "{version}");
    CdpConnection::connect(&ws, Duration::from_secs(10))
        .await
        .expect("the open agent's socket");
    // The same door by bearer token: its URLs carry no token.
    let (status, version) = get(&daemon, "/cdp/json/version", Some(&open)).await;
    assert_eq!(status, 200, "{version}");
    assert_eq!(
        version["webSocketDebuggerUrl"],
        format!("ws://{}/cdp/devtools/browser", daemon.addr)
    );

    for denied in ["cdp", "evaluate"] {
        let (_, token) = daemon.add_agent(CHANNEL, denied, &[denied]).await;
        for path in ["json/version", "json/list"] {
            let (status, body) = get(&daemon, &format!("/cdp/{token}/{path}"), None).await;
            assert_eq!(status, 403, "{denied} {path}: {body}");
            assert_eq!(body["error"]["code"], "agent_forbidden", "{body}");
            assert!(body.to_string().contains(denied), "{body}");
            assert!(!body.to_string().contains(&token), "{body}");
        }
        let socket = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
        let refused = CdpConnection::connect(&socket, Duration::from_secs(10)).await;
        assert!(refused.is_err(), "{denied}: the socket opened");
        assert!(
            !daemon.log().contains(&token),
            "the agent token reached the log"
        );
    }
    let (status, body) = get(&daemon, "/cdp/pha_nobody/json/version", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(!body.to_string().contains("pha_nobody"), "{body}");
    assert!(
        !daemon.log().contains(&open),
        "the agent token reached the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_sees_only_its_tabs_speaks_flat_and_the_person_stays_in_charge() {
    let pages = PageServer::area("cdp").await;
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    daemon
        .owner_on(CHANNEL)
        .act("navigate", json!({"url": pages.url("/door.html?person")}))
        .await;
    let (_, token) = daemon.add_agent(CHANNEL, "scripted", &[]).await;
    daemon
        .act(
            &token,
            "navigate",
            json!({"url": pages.url("/door.html?mine")}),
        )
        .await;
    // The positive control: the person's tab exists in the channel's browser.
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    let all = probe.pages().await;
    let by_url = |needle: &str| {
        all.iter()
            .find(|t| t["url"].as_str().unwrap_or_default().contains(needle))
            .and_then(|t| t["targetId"].as_str())
            .unwrap_or_else(|| panic!("no tab on {needle}: {all:?}"))
            .to_string()
    };
    let person = by_url("?person");
    let mine = by_url("?mine");

    let (status, list) = get(&daemon, &format!("/cdp/{token}/json/list"), None).await;
    assert_eq!(status, 200, "{list}");
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["id"].as_str())
        .collect();
    assert_eq!(ids, vec![mine.as_str()], "{list}");

    let socket = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let cdp = CdpConnection::connect(&socket, Duration::from_secs(10))
        .await
        .expect("the door's socket");
    let targets = cdp.call("Target.getTargets", json!({})).await.unwrap();
    let seen: Vec<&str> = targets["targetInfos"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["targetId"].as_str())
        .collect();
    assert_eq!(seen, vec![mine.as_str()], "{targets}");
    for (method, params) in [
        (
            "Target.attachToTarget",
            json!({"targetId": person, "flatten": true}),
        ),
        ("Target.closeTarget", json!({"targetId": person})),
        ("Target.getTargetInfo", json!({"targetId": person})),
    ] {
        let error = cdp.call(method, params).await.unwrap_err();
        assert!(
            matches!(&error, CdpError::Protocol { message, .. } if message == "No target with given id found"),
            "{method}: {error}"
        );
    }
    for (method, params) in [
        (
            "Target.sendMessageToTarget",
            json!({"message": "{}", "targetId": mine}),
        ),
        ("Target.attachToTarget", json!({"targetId": mine})),
    ] {
        let error = cdp.call(method, params).await.unwrap_err();
        assert!(error.to_string().contains("flatten"), "{method}: {error}");
    }
    for method in [
        "Browser.crash",
        "Browser.crashGpuProcess",
        "Page.bringToFront",
    ] {
        cdp.call(method, json!({}))
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"));
    }
    let attached = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": mine, "flatten": true}),
        )
        .await
        .unwrap();
    let session = attached["sessionId"].as_str().unwrap();
    let title = cdp
        .call_on(
            session,
            "Runtime.evaluate",
            json!({"expression": "document.title"}),
        )
        .await
        .unwrap();
    assert_eq!(
        title["result"]["value"], "Door page",
        "the browser is up: {title}"
    );

    // Panes see the door's acts as the agent's activity in its tab: one start and one end
    // per burst, named by its first act. The script above was a burst of its own; it ends.
    pane.message_where("the script's burst ending", 0, |m| {
        m["type"] == "agent_activity" && m["tool"] == "cdp:Runtime.evaluate" && m["phase"] == "end"
    })
    .await;
    // A burst: a click, then ten keys in a row.
    let burst = pane.mark();
    let tap = json!({"type": "mousePressed", "x": 5, "y": 5, "button": "left", "clickCount": 1});
    cdp.call_on(session, "Input.dispatchMouseEvent", tap)
        .await
        .expect("a click");
    for key in "abcdefghij".chars() {
        let press = json!({"type": "keyDown", "key": key.to_string(), "text": key.to_string()});
        cdp.call_on(session, "Input.dispatchKeyEvent", press)
            .await
            .expect("a key press");
    }
    // Each start has its end once the client is quiet; a machine busy enough to stall a key
    // for the quiet gap splits the burst, so fewer starts than acts is what holds (one start
    // and one end per act before bursts).
    let activity = |r: &porthole_tests::pane::Received| -> Vec<Value> {
        r.messages
            .iter()
            .skip(burst)
            .filter(|m| m["type"] == "agent_activity")
            .cloned()
            .collect()
    };
    let told = pane
        .wait(
            "every burst's end",
            std::time::Duration::from_secs(30),
            |r| {
                let told = activity(r);
                let count = |phase: &str| told.iter().filter(|m| m["phase"] == phase).count();
                (count("start") > 0 && count("start") == count("end")).then_some(told)
            },
        )
        .await;
    let starts = told.iter().filter(|m| m["phase"] == "start").count();
    assert!(
        starts <= 3,
        "a click and ten key presses in a row were {starts} bursts: {told:?}"
    );
    assert_eq!(told[0]["tool"], "cdp:Input.dispatchMouseEvent", "{told:?}");
    for m in &told {
        assert_eq!(m["target_id"], mine.as_str(), "{m}");
    }
    // The timeline records the keys of a burst as one event ("type 10 keys"), and takes a
    // frame with the burst's last act only: the click, followed by the keys, has none.
    let (clicks, typed) = porthole_tests::eventually(
        "the click and the ten keys on the timeline",
        std::time::Duration::from_secs(10),
        || async {
            let (_, tools) = daemon.timeline_of(CHANNEL, "tool").await;
            let of = |tool: &str| -> Vec<Value> {
                tools
                    .iter()
                    .filter(|e| e["tool"] == tool)
                    .cloned()
                    .collect()
            };
            let typed = of("cdp:Input.dispatchKeyEvent");
            let keys: usize = typed
                .iter()
                .map(|e| match e["summary"].as_str().unwrap_or_default() {
                    "type a key" => 1,
                    s => s
                        .trim_start_matches("type ")
                        .trim_end_matches(" keys")
                        .parse()
                        .unwrap_or(0),
                })
                .sum();
            (keys == 10).then(|| (of("cdp:Input.dispatchMouseEvent"), typed))
        },
    )
    .await;
    assert!(
        typed.len() <= 3,
        "ten keys in a row were {} events: {typed:?}",
        typed.len()
    );
    let last = typed.last().expect("the keys");
    assert!(
        last["frame_id"].is_string(),
        "the burst's last act has no frame: {last}"
    );
    if starts == 1 {
        let click = clicks.last().expect("the click");
        assert!(
            click["frame_id"].is_null(),
            "a frame in the middle of the burst: {click}"
        );
    }

    // The person takes over: the door's input is refused saying so, its reads still work.
    let click = json!({"type": "mousePressed", "x": 5, "y": 5, "button": "left", "clickCount": 1});
    let before = pane.mark();
    cdp.call_on(session, "Input.dispatchMouseEvent", click.clone())
        .await
        .expect("input before the takeover");
    for phase in ["start", "end"] {
        let activity = pane
            .message_where("the door's agent_activity", before, |m| {
                m["type"] == "agent_activity"
                    && m["tool"] == "cdp:Input.dispatchMouseEvent"
                    && m["phase"] == phase
            })
            .await;
        assert_eq!(activity["target_id"], mine.as_str(), "{activity}");
        assert_eq!(activity["name"], "scripted", "{activity}");
    }
    let mark = pane.mark();
    pane.send(json!({"type": "takeover"}));
    let control = pane.next_of("control", mark).await;
    assert_eq!(control["holder"], "human", "{control}");
    let refused = cdp
        .call_on(session, "Input.dispatchMouseEvent", click)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("taken control"), "{refused}");
    let error = cdp
        .call_on(
            session,
            "Page.navigate",
            json!({"url": pages.url("/door.html?during-takeover")}),
        )
        .await
        .unwrap_err();
    assert!(error.to_string().contains("taken control"), "{error}");
    cdp.call_on(session, "Runtime.evaluate", json!({"expression": "1"}))
        .await
        .expect("a read while the person holds control");
    assert!(
        !pages
            .requests()
            .iter()
            .any(|r| r.contains("during-takeover")),
        "{:?}",
        pages.requests()
    );
    assert!(
        !daemon.log().contains(&token),
        "the agent token reached the log"
    );
}

#[tokio::test]
async fn agent_add_prints_the_door_and_takes_cdp_in_deny_tools() {
    let data = porthole_tests::TempDir::new("door-cli");
    std::fs::write(data.path().join("config.json"), "{}").unwrap();
    let run = |args: &[&str]| {
        let mut command = porthole_tests::cli::porthole_in(data.path());
        command.args(args);
        async move { command.output().await.expect("porthole runs") }
    };
    let added = run(&["agent", "add", CHANNEL, "--deny", "cdp"]).await;
    assert!(added.status.success(), "{added:?}");
    let said = String::from_utf8_lossy(&added.stdout);
    assert!(
        said.contains("connectOverCDP('http://127.0.0.1:7878/cdp/<token>')")
            && said.contains("ws://127.0.0.1:7878/cdp/<token>/devtools/browser"),
        "{said}"
    );
    let list = run(&["agent", "list"]).await;
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("denied: cdp"), "{listed}");
    let bad = run(&["agent", "add", CHANNEL, "--deny", "cdpp"]).await;
    assert!(!bad.status.success());
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("cdp (the CDP door)"), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_socket_drives_its_tab_and_a_malformed_message_keeps_the_connection() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let pages = PageServer::area("cdp").await;
    let daemon = TestDaemon::start().await;
    daemon
        .owner_on(CHANNEL)
        .act("navigate", json!({"url": pages.url("/door.html?person")}))
        .await;
    let (_, token) = daemon.add_agent(CHANNEL, "scripted", &[]).await;
    daemon
        .act(
            &token,
            "navigate",
            json!({"url": pages.url("/door.html?mine")}),
        )
        .await;
    let (_, list) = get(&daemon, &format!("/cdp/{token}/json/list"), None).await;
    let page_socket = list[0]["webSocketDebuggerUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("{list}"));
    assert!(page_socket.contains("/devtools/page/"), "{list}");
    let (mut socket, _) = tokio_tungstenite::connect_async(page_socket)
        .await
        .expect("the page socket");
    let next_answer = async |socket: &mut tokio_tungstenite::WebSocketStream<_>| loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("an answer within 10 s")
            .expect("the socket open")
            .expect("a message");
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(&text).unwrap();
            if value.get("id").is_some() {
                return value;
            }
        }
    };
    for malformed in ["not json", r#"{"id": 7}"#, r#"[1, 2]"#] {
        socket.send(Message::text(malformed)).await.unwrap();
        let answer = next_answer(&mut socket).await;
        assert_eq!(answer["error"]["code"], -32700, "{malformed}: {answer}");
    }
    // Still up, and a message without a sessionId goes to the page of its own tab.
    let title = json!({"id": 8, "method": "Runtime.evaluate", "params": {"expression": "document.title + location.search"}});
    socket.send(Message::text(title.to_string())).await.unwrap();
    let answer = next_answer(&mut socket).await;
    assert_eq!(answer["id"], 8, "{answer}");
    assert_eq!(
        answer["result"]["result"]["value"], "Door page?mine",
        "{answer}"
    );
    // Another's tab has no page socket.
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    let person = probe
        .pages()
        .await
        .into_iter()
        .find(|t| t["url"].as_str().unwrap_or_default().contains("?person"))
        .expect("the person's tab exists");
    let foreign = format!(
        "ws://{}/cdp/{token}/devtools/page/{}",
        daemon.addr,
        person["targetId"].as_str().unwrap()
    );
    assert!(tokio_tungstenite::connect_async(foreign).await.is_err());
}
