//! The person hands pages files and logins through the pane's WebSocket (DESIGN.md §15):
//! file choosers (`file_chooser` → `file_chooser_answer`), files dropped on the pane
//! (`drop_files`), HTTP authentication (`auth_prompt` → `auth_answer`), and what an agent is
//! told while a login waits. Local mode, real Chromium, real daemon.

use std::time::Duration;

use base64::Engine as _;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::{PageServer, BASIC_USER};
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Clicks at (x, y) in the pane and returns the `file_chooser` that opens.
async fn click_for_chooser(pane: &Pane, x: u32, y: u32) -> Value {
    let mark = pane.mark();
    pane.input(
        "click",
        json!({"x": x, "y": y, "button": "left", "click_count": 1}),
    );
    pane.next_of("file_chooser", mark).await
}

async fn error_after(pane: &Pane, mark: usize, code: &str) -> Value {
    pane.message_where(&format!("error {code}"), mark, |m| {
        m["type"] == "error" && m["code"] == code
    })
    .await
}

#[tokio::test]
async fn a_person_hands_a_page_a_file_and_cancels_another_chooser() {
    let options = DaemonOptions {
        config: json!({"browser": {"pane_upload_max_mb": 1}}),
        ..DaemonOptions::default()
    };
    let daemon = TestDaemon::start_with(options).await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("pfiles").await;
    pane.open_page(&pages.url("/upload"), "Upload page").await;

    // The single-file input: the chooser names its tab; an oversize answer sets nothing.
    let chooser = click_for_chooser(&pane, 100, 40).await;
    assert_eq!(chooser["target_id"], tab.as_str());
    assert_eq!(chooser["multiple"], false);
    assert_eq!(chooser["accept"], "");
    let id = chooser["id"].as_str().unwrap().to_string();
    let mark = pane.mark();
    let big = vec![b'x'; 1536 * 1024];
    pane.send(json!({"type": "file_chooser_answer", "id": id,
        "files": [{"name": "big.bin", "type": "application/octet-stream", "data": b64(&big)}]}));
    let refused = error_after(&pane, mark, "upload_too_large").await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("browser.pane_upload_max_mb"),
        "{refused}"
    );
    // The connection is kept and the chooser still open: the right answer lands.
    let mark = pane.mark();
    pane.send(json!({"type": "file_chooser_answer", "id": id,
        "files": [{"name": "hello.txt", "type": "text/plain", "data": b64(b"hello pane")}]}));
    pane.title_is(mark, "got hello.txt:hello pane").await;
    pane.message_where("file_chooser_closed", mark, |m| {
        m["type"] == "file_chooser_closed" && m["id"] == id.as_str()
    })
    .await;

    // An answer to a chooser that is no longer open, or never was: an error, nothing else.
    for stale in [id.as_str(), "f999"] {
        let mark = pane.mark();
        pane.send(json!({"type": "file_chooser_answer", "id": stale,
            "files": [{"name": "late.txt", "data": b64(b"late")}]}));
        let error = error_after(&pane, mark, "no_file_chooser").await;
        assert!(error["message"].as_str().unwrap().contains(stale));
    }

    // The multiple input: its accept list reaches the pane; cancelling leaves it empty.
    let chooser = click_for_chooser(&pane, 100, 120).await;
    assert_eq!(chooser["multiple"], true);
    assert_eq!(chooser["accept"], ".txt,image/*");
    let id = chooser["id"].as_str().unwrap().to_string();
    let mark = pane.mark();
    pane.send(json!({"type": "file_chooser_answer", "id": id, "cancel": true}));
    pane.message_where("the cancelled chooser closes", mark, |m| {
        m["type"] == "file_chooser_closed" && m["id"] == id.as_str()
    })
    .await;
    // Nothing was set: the page saw one change (the first input's) in all. A click on the
    // first input again proves the page and pane still work after the cancel.
    let chooser = click_for_chooser(&pane, 100, 40).await;
    let mark = pane.mark();
    pane.send(json!({"type": "file_chooser_answer", "id": chooser["id"],
        "files": [{"name": "second.txt", "data": b64(b"two")}]}));
    pane.title_is(mark, "got second.txt:two").await;
    let probe = porthole_tests::devtools_port::Probe::connect(&daemon.profile_dir("pfiles")).await;
    assert_eq!(probe.eval(&tab, "window.changes").await, json!(2));
    assert_eq!(
        probe
            .eval(&tab, "document.getElementById('multi').files.length")
            .await,
        json!(0)
    );
}

#[tokio::test]
async fn files_dropped_on_the_pane_reach_the_pages_drop_zone() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("pdrop").await;
    pane.open_page(&pages.url("/drop"), "Drop page").await;
    let mark = pane.mark();
    pane.send(json!({"type": "drop_files", "x": 200, "y": 150, "files": [
        {"name": "notes.txt", "type": "text/plain", "data": b64(b"dropped bytes")}]}));
    pane.title_is(mark, "dropped notes.txt:dropped bytes").await;
    // Bad drops are refused and the pane goes on.
    let mark = pane.mark();
    pane.send(json!({"type": "drop_files", "x": 10, "y": 10, "files": []}));
    error_after(&pane, mark, "bad_request").await;
    let mark = pane.mark();
    pane.send(
        json!({"type": "drop_files", "x": 10, "y": 10, "files": [{"name": "a", "data": "%%%"}]}),
    );
    error_after(&pane, mark, "bad_request").await;
}

#[tokio::test]
async fn a_person_logs_in_to_a_basic_auth_page_and_cancel_shows_the_401_page() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("pauth").await;

    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/basic")}));
    let prompt = pane.next_of("auth_prompt", mark).await;
    assert_eq!(prompt["target_id"], tab.as_str());
    assert_eq!(prompt["realm"], "Porthole test");
    assert_eq!(prompt["scheme"], "basic");
    assert_eq!(prompt["origin"], pages.url("").trim_end_matches('/'));
    assert!(prompt["url"].as_str().unwrap().ends_with("/basic"));
    let mark = pane.mark();
    pane.send(json!({"type": "auth_answer", "id": prompt["id"],
        "username": BASIC_USER.0, "password": BASIC_USER.1}));
    pane.title_is(mark, &format!("hello {}", BASIC_USER.0))
        .await;

    // Cancelling (in a fresh channel, with no credentials cached) shows the server's 401 page.
    let pane2 = Pane::connect(&daemon.addr, &daemon.token).await;
    pane2.start("pauth2").await;
    let mark = pane2.mark();
    pane2.send(json!({"type": "navigate", "url": pages.url("/basic")}));
    let prompt = pane2.next_of("auth_prompt", mark).await;
    let mark = pane2.mark();
    pane2.send(json!({"type": "auth_answer", "id": prompt["id"], "cancel": true}));
    pane2.title_is(mark, "denied").await;
    // An answer to it now: an error, and the connection stays.
    let mark = pane2.mark();
    pane2.send(json!({"type": "auth_answer", "id": prompt["id"], "cancel": true}));
    error_after(&pane2, mark, "no_auth_prompt").await;
    // The password never reaches the log.
    assert!(!daemon.log().contains(BASIC_USER.1));
}

#[tokio::test]
async fn an_agent_on_a_tab_with_a_login_prompt_is_told_to_call_request_human() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("pagent").await;
    let (_agent, token) = daemon.add_agent("pagent", "helper", &[]).await;
    let agent = daemon.caller(&token).on("pagent");
    let mark = pane.mark();
    // The navigation is held by the login: the agent is told of the login while it is open,
    // not that the browser gave up waiting (a navigation's deadline).
    let result = agent
        .act("navigate", json!({"url": pages.url("/basic")}))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("request_human") && text.contains("login"),
        "{text}"
    );
    assert!(
        !text.contains("did not answer") && !text.contains("timed out"),
        "the agent was told of a deadline, not of the login: {text}"
    );
    let prompt = pane.next_of("auth_prompt", mark).await;
    assert!(
        pane.received.lock().unwrap().messages[mark..]
            .iter()
            .all(|m| m["type"] != "auth_prompt_closed"),
        "the login was still open when the agent was told"
    );
    // Any later call on that tab says the same until the person answers.
    let result = agent.act("get_page_text", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("request_human"));
    let mark = pane.mark();
    pane.send(json!({"type": "auth_answer", "id": prompt["id"],
        "username": BASIC_USER.0, "password": BASIC_USER.1}));
    pane.next_of("auth_prompt_closed", mark).await;
    let text =
        porthole_tests::eventually("the agent reads the page", Duration::from_secs(20), || {
            let agent = &agent;
            async move {
                let result = agent.act("get_page_text", json!({})).await;
                let text = result["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                (result["isError"] == false && text.contains("Hello")).then_some(text)
            }
        })
        .await;
    assert!(text.contains(&format!("Hello {}", BASIC_USER.0)), "{text}");
}

/// Docker mode: the browser cannot read the daemon's disk, so the files are built in the page
/// from their bytes; the page reads the same name and bytes, and a drop arrives too.
#[tokio::test]
async fn docker_mode_hands_the_page_a_file_and_a_drop() {
    use porthole_tests::docker;
    docker::ensure_image().await;
    let tag = docker::unique("dk-pfiles");
    let _cleanup = docker::DockerCleanup::new(&tag);
    let pages = PageServer::start().await;
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.open_page(&pages.url("/upload"), "Upload page").await;
    let chooser = click_for_chooser(&pane, 100, 120).await;
    assert_eq!(chooser["multiple"], true);
    let mark = pane.mark();
    pane.send(
        json!({"type": "file_chooser_answer", "id": chooser["id"], "files": [
        {"name": "a.txt", "type": "text/plain", "data": b64(b"first")},
        {"name": "b.txt", "type": "text/plain", "data": b64("zweite ü".as_bytes())}]}),
    );
    pane.title_is(mark, "got a.txt:first,b.txt:zweite ü").await;
    pane.open_page(&pages.url("/drop"), "Drop page").await;
    let mark = pane.mark();
    pane.send(json!({"type": "drop_files", "x": 300, "y": 200, "files": [
        {"name": "d.txt", "type": "text/plain", "data": b64(b"in the box")}]}));
    pane.title_is(mark, "dropped d.txt:in the box").await;
}
