//! Panes on a local-mode channel: start, frames, sharing, tabs, navigation, lifecycle.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::json;

#[tokio::test]
async fn a_pane_gets_jpeg_frames_of_the_viewport_size() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("frames").await;
    let mark = pane.mark();
    pane.send(json!({"type": "screencast", "width": 640, "height": 480, "quality": 60}));
    let viewport = pane
        .message_where("viewport 640x480", mark, |m| {
            m["type"] == "viewport" && m["width"] == 640
        })
        .await;
    assert_eq!(viewport["height"], 480);
    let frame = pane
        .wait("a 640x480 frame", Duration::from_secs(20), |r| {
            r.frames.iter().rev().find_map(|f| {
                let image =
                    image::load_from_memory_with_format(f, image::ImageFormat::Jpeg).ok()?;
                ((image.width(), image.height()) == (640, 480)).then_some(image)
            })
        })
        .await;
    assert_eq!((frame.width(), frame.height()), (640, 480));
}

#[tokio::test]
async fn navigation_history_and_page_info_reach_the_pane() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("nav").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/input")}));
    pane.message_where("page_info of the input page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Input page"
    })
    .await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/second")}));
    pane.message_where("page_info of the second page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    let mark = pane.mark();
    pane.send(json!({"type": "back"}));
    pane.message_where("back to the input page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Input page"
    })
    .await;
    let mark = pane.mark();
    pane.send(json!({"type": "forward"}));
    pane.message_where("forward to the second page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    // Reload is seen for itself: a stamp a probe puts in the page is gone after it.
    let probe = Probe::connect(&daemon.profile_dir("nav")).await;
    let tab = probe
        .pages()
        .await
        .into_iter()
        .find(|p| p["url"].as_str().is_some_and(|u| u.ends_with("/second")))
        .expect("the second page's tab")["targetId"]
        .as_str()
        .unwrap()
        .to_string();
    probe.eval(&tab, "window.stamp = 1").await;
    pane.send(json!({"type": "reload"}));
    probe
        .eval_until(&tab, "typeof window.stamp", json!("undefined"))
        .await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/input")}));
    pane.message_where("the input page again", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Input page"
    })
    .await;
}

#[tokio::test]
async fn bad_urls_fail_at_once_with_a_reason() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("badurl").await;
    let started = std::time::Instant::now();
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": "not a url"}));
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "bad_url");
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": "file:///etc/passwd"}));
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "bad_url");
    // Nothing listens on port 9 of loopback: Chrome's own reason comes back.
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": "http://127.0.0.1:9/"}));
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "navigation_failed");
    assert!(
        error["message"].as_str().unwrap().contains("net::ERR_"),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "bad URLs must not wait for a timeout"
    );
}

#[tokio::test]
async fn tabs_open_switch_and_close_and_the_last_close_leaves_a_blank_tab() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let first = pane.start("tabs").await;
    let mark = pane.mark();
    pane.send(json!({"type": "new_tab", "url": pages.url("/second")}));
    let created = pane.next_of("tab_created", mark).await;
    let second = created["target_id"].as_str().unwrap().to_string();
    let switched = pane.next_of("tab_switched", mark).await;
    assert_eq!(switched["target_id"], second.as_str());
    let tabs = pane
        .message_where("two tabs", mark, |m| {
            m["type"] == "tabs" && m["tabs"].as_array().unwrap().len() == 2
        })
        .await;
    assert_eq!(tabs["tabs"][0]["target_id"], first.as_str());

    let mark = pane.mark();
    pane.send(json!({"type": "switch_tab", "target_id": first}));
    let switched = pane.next_of("tab_switched", mark).await;
    assert_eq!(switched["target_id"], first.as_str());

    let mark = pane.mark();
    pane.send(json!({"type": "close_tab", "target_id": first}));
    let closed = pane.next_of("tab_closed", mark).await;
    assert_eq!(closed["target_id"], first.as_str());
    pane.message_where("the second tab active", mark, |m| {
        m["type"] == "tab_switched" && m["target_id"] == second.as_str()
    })
    .await;

    let mark = pane.mark();
    pane.send(json!({"type": "close_tab", "target_id": second}));
    pane.message_where("the last tab closed", mark, |m| {
        m["type"] == "tab_closed" && m["target_id"] == second.as_str()
    })
    .await;
    let tabs = pane
        .message_where("one blank tab left", mark, |m| {
            m["type"] == "tabs"
                && m["tabs"].as_array().unwrap().len() == 1
                && m["tabs"][0]["target_id"] != second.as_str()
        })
        .await;
    assert_eq!(tabs["tabs"][0]["url"], "about:blank");
    assert_eq!(tabs["active_target_id"], tabs["tabs"][0]["target_id"]);

    let mark = pane.mark();
    pane.send(json!({"type": "switch_tab", "target_id": "NOPE"}));
    assert_eq!(pane.next_of("error", mark).await["code"], "unknown_tab");
    // The probe agrees with what the pane was told.
    let probe = Probe::connect(&daemon.profile_dir("tabs")).await;
    porthole_tests::eventually(
        "one page left in Chromium",
        Duration::from_secs(10),
        || async { (probe.pages().await.len() == 1).then_some(()) },
    )
    .await;
}

#[tokio::test]
async fn two_panes_share_one_screencast_and_see_each_others_changes() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let a = Pane::connect(&daemon.addr, &daemon.token).await;
    let b = Pane::connect(&daemon.addr, &daemon.token).await;
    a.start("shared").await;
    b.start("shared").await;
    a.watch().await;
    b.watch().await;
    let mark = b.mark();
    a.send(json!({"type": "navigate", "url": pages.url("/second")}));
    b.message_where("pane b sees pane a's navigation", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    // Frames after the navigation reach both panes.
    let (fa, fb) = (a.frame_count(), b.frame_count());
    b.send(json!({"type": "navigate", "url": pages.url("/input")}));
    a.frames_at_least(fa + 1).await;
    b.frames_at_least(fb + 1).await;
    let (_, channels) = daemon.get("/api/browser/channels").await;
    assert_eq!(channels["channels"][0]["panes"], 2, "{channels}");
    assert_eq!(channels["channels"][0]["running"], true);
}

#[tokio::test]
async fn a_slow_pane_does_not_slow_the_other() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let fast = Pane::connect(&daemon.addr, &daemon.token).await;
    let slow = Pane::connect(&daemon.addr, &daemon.token).await;
    fast.start("slowfast").await;
    slow.start("slowfast").await;
    fast.send(json!({"type": "navigate", "url": pages.url("/animated")}));
    fast.watch().await;
    slow.watch().await;
    slow.set_reading(false);
    let slow_before = slow.frame_count();
    let fast_before = fast.frame_count();
    // The fast pane keeps receiving a stream of frames while the slow one reads nothing.
    fast.frames_at_least(fast_before + 60).await;
    assert!(slow.frame_count() <= slow_before + 1);
    slow.set_reading(true);
    // The slow pane resumes with current frames, not a backlog.
    let resumed = slow.frame_count();
    slow.frames_at_least(resumed + 1).await;
}

#[tokio::test]
async fn malformed_and_premature_messages_get_errors_and_the_connection_stays() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let cases = [
        ("not json", "bad_message"),
        (r#"{"type":"warp"}"#, "bad_message"),
        (
            r#"{"type":"input","input_type":"click","x":"a","y":1}"#,
            "bad_message",
        ),
        (
            r#"{"type":"input","input_type":"click","x":1,"y":2}"#,
            "not_started",
        ),
        (
            r#"{"type":"navigate","url":"https://example.com"}"#,
            "not_started",
        ),
        (
            r#"{"type":"start","channel_id":"../../etc"}"#,
            "bad_channel_id",
        ),
    ];
    for (text, code) in cases {
        let mark = pane.mark();
        pane.send_raw(tokio_tungstenite::tungstenite::Message::text(text));
        let error = pane.next_of("error", mark).await;
        assert_eq!(error["code"], code, "{text}: {error}");
    }
    let mark = pane.mark();
    pane.send_raw(tokio_tungstenite::tungstenite::Message::text(format!(
        r#"{{"type":"input","input_type":"paste","text":"{}"}}"#,
        "x".repeat(1_100_000)
    )));
    assert_eq!(
        pane.next_of("error", mark).await["code"],
        "message_too_large"
    );
    pane.start("stillworks").await;
    let mark = pane.mark();
    pane.input("click", json!({"x": 1e12, "y": 1}));
    assert_eq!(pane.next_of("error", mark).await["code"], "bad_input");
    assert!(pane.received.lock().unwrap().closed.is_none());
}

#[tokio::test]
async fn an_idle_browser_is_stopped_and_comes_back_on_start() {
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 1,
        ..Default::default()
    })
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("idle").await;
    let profile = daemon.profile_dir("idle");
    let needle = format!("--user-data-dir={}", profile.display());
    assert!(!porthole_tests::processes_with(&needle).is_empty());
    // While a pane watches, nothing stops.
    drop(pane);
    porthole_tests::eventually("the idle browser to stop", Duration::from_secs(20), || {
        let needle = needle.clone();
        async move {
            porthole_tests::processes_with(&needle)
                .is_empty()
                .then_some(())
        }
    })
    .await;
    let (_, channels) = daemon.get("/api/browser/channels").await;
    assert_eq!(channels["channels"][0]["running"], false, "{channels}");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("idle").await;
    pane.watch().await;
}

#[tokio::test]
async fn a_crashed_browser_is_reported_and_the_next_start_recovers() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("crash").await;
    let needle = format!("--user-data-dir={}", daemon.profile_dir("crash").display());
    let mark = pane.mark();
    for pid in porthole_tests::processes_with(&needle) {
        porthole_tests::daemon::unsafe_free_kill(pid, "-KILL");
    }
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "browser_gone");
    pane.next_of("stopped", mark).await;
    pane.start("crash").await;
    pane.watch().await;
}

#[tokio::test]
async fn shutdown_stops_every_browser_and_a_restart_keeps_the_profile() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("keep").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/input")}));
    pane.message_where("input page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Input page"
    })
    .await;
    let probe = Probe::connect(&daemon.profile_dir("keep")).await;
    probe
        .eval(
            &tab,
            "document.cookie = 'remember=me; max-age=86400; path=/'; document.cookie",
        )
        .await;
    drop(probe);
    let needle = format!("--user-data-dir={}", daemon.profile_dir("keep").display());
    let data = daemon.stop().await;
    // The daemon killed them before exiting; give the kernel a moment to finish them off.
    porthole_tests::eventually(
        "no Chromium after the daemon exited",
        Duration::from_secs(10),
        || {
            let needle = needle.clone();
            async move {
                porthole_tests::processes_with(&needle)
                    .is_empty()
                    .then_some(())
            }
        },
    )
    .await;

    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("keep").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/second")}));
    pane.message_where("second page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Second page"
    })
    .await;
    let probe = Probe::connect(&daemon.profile_dir("keep")).await;
    let cookie = probe.eval(&tab, "document.cookie").await;
    assert_eq!(cookie, "remember=me");
}

#[tokio::test]
async fn a_killed_daemon_leaves_no_chromium_behind() {
    let mut daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("orphan").await;
    let needle = format!("--user-data-dir={}", daemon.profile_dir("orphan").display());
    assert!(!porthole_tests::processes_with(&needle).is_empty());
    daemon.kill_hard().await;
    porthole_tests::eventually(
        "Chromium to die with the daemon",
        Duration::from_secs(20),
        || {
            let needle = needle.clone();
            async move {
                porthole_tests::processes_with(&needle)
                    .is_empty()
                    .then_some(())
            }
        },
    )
    .await;
}

#[tokio::test]
async fn reset_profile_signs_the_channel_out() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("reset").await;
    assert!(daemon.profile_dir("reset").exists());
    let mark = pane.mark();
    let (status, body) = daemon
        .post(
            "/api/browser/profile/reset",
            &json!({"channel_id": "reset"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["removed"], true);
    assert!(!daemon.profile_dir("reset").exists());
    pane.next_of("stopped", mark).await;
    let (status, _) = daemon.delete("/api/browser/channels/reset").await;
    assert_eq!(status, 204);
    let (_, channels) = daemon.get("/api/browser/channels").await;
    assert_eq!(channels["channels"], json!([]));
}

#[tokio::test]
async fn a_missing_chromium_is_a_clear_error_not_a_hang() {
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"browser": {"chromium_path": "/nonexistent/chromium"}}),
        ..Default::default()
    })
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let error = pane.start_refused("nochrome").await;
    assert_eq!(error["code"], "browser_unavailable", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/chromium"),
        "{error}"
    );
    assert!(daemon.log().contains("pane_start_failed"));
    // The connection stays up and a later start (after fixing the setup) is accepted.
    pane.start_refused("nochrome").await;
    assert!(pane.received.lock().unwrap().closed.is_none());
}

#[tokio::test]
async fn a_last_tab_closed_from_outside_is_replaced_by_a_blank_one() {
    let daemon = TestDaemon::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let only = pane.start("outside").await;
    let probe = Probe::connect(&daemon.profile_dir("outside")).await;
    let mark = pane.mark();
    probe
        .cdp
        .call("Target.closeTarget", json!({"targetId": only}))
        .await
        .unwrap();
    pane.message_where("the closed tab reported", mark, |m| {
        m["type"] == "tab_closed" && m["target_id"] == only.as_str()
    })
    .await;
    let tabs = pane
        .message_where("a fresh blank tab", mark, |m| {
            m["type"] == "tabs"
                && m["tabs"].as_array().unwrap().len() == 1
                && m["active_target_id"].is_string()
                && m["active_target_id"] != only.as_str()
        })
        .await;
    assert_eq!(tabs["tabs"][0]["url"], "about:blank");
    // The pane can drive it at once.
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": "data:text/html,<title>after</title>"}));
    pane.message_where("the new tab navigated", mark, |m| {
        m["type"] == "page_info" && m["title"] == "after"
    })
    .await;
}

/// A tab's title is its top document's: a same-origin frame that sets its own title (Chrome
/// runs the title observer in such frames too) never becomes the tab's title.
#[tokio::test]
async fn a_frames_own_title_never_becomes_the_tabs() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("framed-title").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": pages.url("/framed-title")}));
    // The top page retitles itself only after the frame has set its title.
    pane.message_where("the top page's new title", mark, |m| {
        m.to_string().contains("Top retitled")
    })
    .await;
    let messages = pane.received.lock().unwrap().messages[mark..].to_vec();
    let leaked: Vec<&serde_json::Value> = messages
        .iter()
        .filter(|m| m.to_string().contains("Frame retitled"))
        .collect();
    assert!(
        leaked.is_empty(),
        "the frame's title reached the pane: {leaked:?}"
    );
}
