//! Issue 17's "done when" list in docker mode, through the pane's WebSocket, for what had only
//! local tests: a `<select>`'s sixth option chosen by the pane, pointer and text cursors, an
//! IME composition landing "日本語", drag-select then copy, find in page, an OAuth-style popup
//! round trip, and a Basic-auth login. One container serves them all (a docker start is the
//! slow part); no probe reaches it, so the page says what it holds in its title. Files, drops
//! and downloads in docker mode are in `pane::files` and `pane::downloads`; popups of inputs in
//! `pane::pickers`.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::docker;
use porthole_tests::pages::{PageServer, BASIC_USER};
use porthole_tests::pane::Pane;
use serde_json::json;

/// Serves this module's page (`tests/pages/pane_docker/browser.html`) on 127.0.0.1; returns
/// the base URL.
async fn serve_page() -> String {
    PageServer::area("pane_docker").await.base()
}

#[tokio::test]
async fn docker_mode_the_pane_is_a_whole_browser() {
    docker::ensure_image().await;
    let tag = docker::unique("dk-pane");
    let _cleanup = docker::DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(&tag).await;
    pane.watch().await;
    let base = serve_page().await;
    pane.open_page(&format!("{base}/browser"), "Docker pane page")
        .await;

    // The sixth option of a <select>, chosen by the pane.
    let mark = pane.mark();
    pane.hover((100.0, 35.0));
    pane.click((100.0, 35.0));
    let popup = pane.next_of("select_popup", mark).await;
    assert_eq!(popup["options"].as_array().unwrap().len(), 8, "{popup}");
    assert_eq!(popup["options"][5]["label"], "Fig");
    let mark = pane.mark();
    pane.send(json!({"type": "select_answer", "id": popup["id"], "index": 5}));
    pane.title_is(mark, "s=fig f=").await;

    // Pointer over the link, text over the field.
    for (x, y, want) in [(50.0, 312.0, "pointer"), (400.0, 315.0, "text")] {
        let mark = pane.mark();
        pane.hover((x, y));
        pane.message_where(&format!("cursor {want}"), mark, |m| {
            m["type"] == "cursor" && m["target_id"] == tab.as_str() && m["cursor"] == want
        })
        .await;
    }

    // An IME composition lands 日本語 in the field.
    pane.hover((400.0, 315.0));
    pane.click((400.0, 315.0));
    let mark = pane.mark();
    for draft in ["に", "日本", "日本語"] {
        pane.input("composition", json!({"text": draft}));
    }
    pane.input("typetext", json!({"text": "日本語"}));
    pane.title_is(mark, "s=fig f=日本語").await;

    // Drag-select then copy.
    let mark = pane.mark();
    pane.input(
        "mousedown",
        json!({"x": 21, "y": 512, "button": "left", "click_count": 1}),
    );
    for x in [40.0, 60.0, 90.0] {
        pane.input("mousemove", json!({"x": x, "y": 512, "button": "left"}));
    }
    pane.input(
        "mouseup",
        json!({"x": 90, "y": 512, "button": "left", "click_count": 1}),
    );
    pane.input("copy", json!({}));
    assert_eq!(pane.next_of("clipboard", mark).await["text"], "select");

    // Find in page.
    let mark = pane.mark();
    pane.send(json!({"type": "find", "query": "SE"}));
    let found = pane.next_of("find_result", mark).await;
    assert_eq!(
        (found["index"].clone(), found["count"].clone()),
        (json!(1), json!(2))
    );

    // An OAuth-style popup round trip: the pane shows the popup, window.opener works, and the
    // pane is back on its opener when it closes.
    let views = crate::pane::view::serve_pages().await;
    pane.open_page(&format!("{views}/oauth-start"), "Sign in")
        .await;
    let mark = pane.mark();
    pane.hover((120.0, 45.0));
    pane.click((120.0, 45.0));
    let created = pane
        .message_where("the popup tab", mark, |m| {
            m["type"] == "tab_created" && m["opener_id"] == tab.as_str()
        })
        .await;
    let popup = created["target_id"].as_str().unwrap().to_string();
    pane.message_where("the consent page in the pane", mark, |m| {
        m["type"] == "page_info" && m["target_id"] == popup.as_str() && m["title"] == "Consent"
    })
    .await;
    let mark = pane.mark();
    pane.hover((120.0, 45.0));
    pane.click((120.0, 45.0));
    pane.message_where("the popup closed", mark, |m| {
        m["type"] == "tab_closed" && m["target_id"] == popup.as_str()
    })
    .await;
    pane.message_where("the pane back on its opener", mark, |m| {
        m["type"] == "tab_switched" && m["target_id"] == tab.as_str()
    })
    .await;
    pane.title_is(mark, "Signed in: tok-42").await;

    // A Basic-auth login.
    let pages = PageServer::start().await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/basic")}));
    let prompt = pane.next_of("auth_prompt", mark).await;
    assert_eq!(prompt["scheme"], "basic");
    let mark = pane.mark();
    pane.send(json!({"type": "auth_answer", "id": prompt["id"],
        "username": BASIC_USER.0, "password": BASIC_USER.1}));
    pane.title_is(mark, &format!("hello {}", BASIC_USER.0))
        .await;
    assert!(!daemon.log().contains(BASIC_USER.1));
}
