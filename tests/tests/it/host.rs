//! Host mode on "the user's own Chrome" (a real Chromium the test starts with its own
//! user-data dir and `--remote-debugging-port=0`): discovery, only Porthole's tabs shown and
//! closed, switching modes keeps both tab sets, the mode survives a restart, 409s for profile
//! changes, and Chrome going away mid-session.

pub(crate) mod chrome;
mod stop_litter;

use std::time::Duration;

use chrome::{UserChrome, VirtualDisplay};
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

fn host_options(profile: &TempDir) -> DaemonOptions {
    DaemonOptions {
        config: json!({"browser": {"host": {"user_data_dirs": [profile.path()]}}}),
        ..DaemonOptions::default()
    }
}

/// Sends `start` (with `mode` when given); `Ok(tabs message)` after `started`, or
/// `Err(error message)`.
async fn start_in(pane: &Pane, channel: &str, mode: Option<&str>) -> Result<Value, Value> {
    let mark = pane.mark();
    let mut start = json!({"type": "start", "channel_id": channel, "width": 800, "height": 600});
    if let Some(mode) = mode {
        start["mode"] = json!(mode);
    }
    pane.send(start);
    pane.wait(
        &format!("started or error for {channel} in {mode:?}"),
        Duration::from_secs(60),
        |r| {
            let after = &r.messages[mark..];
            if let Some(error) = after.iter().find(|m| m["type"] == "error") {
                return Some(Err(error.clone()));
            }
            let started = after.iter().position(|m| m["type"] == "started")?;
            if let Some(wanted) = mode {
                assert_eq!(after[started]["mode"], wanted, "started in the wrong mode");
            }
            let tabs = after[started..].iter().find(|m| m["type"] == "tabs")?;
            Some(Ok(tabs.clone()))
        },
    )
    .await
}

fn tab_ids(tabs: &Value) -> Vec<String> {
    tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target_id"].as_str().unwrap().to_string())
        .collect()
}

async fn mode_in_list(daemon: &TestDaemon, channel: &str) -> Value {
    let (status, list) = daemon.get("/api/browser/channels").await;
    assert_eq!(status, 200, "{list}");
    list["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel_id"] == channel)
        .map(|c| c["mode"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn host_mode_shows_and_closes_only_porthole_tabs() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("host-chrome");
    let chrome = UserChrome::start(profile.path()).await;
    let user_tab = chrome.open_user_tab(&pages.url("/second")).await;
    let user_ids = chrome.page_ids().await;
    let user_window = chrome.window_of(&user_tab).await;
    let user_visible = "document.visibilityState";
    assert_eq!(chrome.eval(&user_tab, user_visible).await, "visible");

    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tabs = start_in(&pane, "mine", Some("host"))
        .await
        .expect("host start");
    let ours = tab_ids(&tabs);
    assert_eq!(ours.len(), 1, "only Porthole's own tab is shown: {tabs}");
    assert!(!user_ids.contains(&ours[0]), "the user's tabs stay hidden");
    let all = chrome.page_ids().await;
    for id in &user_ids {
        assert!(all.contains(id), "the user's tab {id} is still open");
    }

    // What the user sees when Porthole opens its first tab: a new window of Porthole's own;
    // their window keeps its bounds and state, their tab stays the visible one.
    let our_window = chrome.window_of(&ours[0]).await;
    assert_ne!(
        our_window["windowId"], user_window["windowId"],
        "Porthole's tab lives in a window of its own"
    );
    assert_eq!(chrome.window_of(&user_tab).await, user_window);
    assert_eq!(chrome.eval(&user_tab, user_visible).await, "visible");
    assert_eq!(chrome.eval(&ours[0], user_visible).await, "visible");
    assert_eq!(
        chrome.eval(&user_tab, "document.hasFocus()").await,
        true,
        "the user's tab keeps focus"
    );
    eprintln!("measured: user window {user_window} unchanged, its tab visible and focused; Porthole window {our_window}");
    // It paints there, so the pane gets frames without activating anything of the user's.
    pane.watch().await;

    // A tab the user opens now stays hidden; a tab the pane opens and a popup of ours show.
    let later_user_tab = chrome.open_user_tab("about:blank").await;
    let mark = pane.mark();
    pane.send(json!({"type": "new_tab", "url": pages.url("/input")}));
    let second = pane.next_of("tab_created", mark).await;
    let second = second["target_id"].as_str().unwrap().to_string();
    let mark = pane.mark();
    chrome
        .eval(
            &second,
            &format!("window.open({:?}), true", pages.url("/second")),
        )
        .await;
    let popup = pane.next_of("tab_created", mark).await;
    let popup = popup["target_id"].as_str().unwrap().to_string();
    let tabs = pane
        .message_where("three tabs", mark, |m| {
            m["type"] == "tabs" && m["tabs"].as_array().unwrap().len() == 3
        })
        .await;
    let shown = tab_ids(&tabs);
    assert!(shown.contains(&second) && shown.contains(&popup), "{tabs}");
    assert!(!shown.contains(&later_user_tab) && !shown.contains(&user_tab));

    // Stop: Porthole's tabs close, the user's stay, Chrome keeps running.
    let mark = pane.mark();
    pane.send(json!({"type": "stop", "channel_id": "mine"}));
    pane.next_of("stopped", mark).await;
    let left = eventually(
        "Porthole's tabs closed",
        Duration::from_secs(10),
        || async {
            let ids = chrome.page_ids().await;
            shown.iter().all(|id| !ids.contains(id)).then_some(ids)
        },
    )
    .await;
    for id in user_ids.iter().chain([&later_user_tab]) {
        assert!(left.contains(id), "the user's tab {id} survived stop");
    }
    assert!(!chrome.cdp.is_lost(), "Chrome still runs");
}

#[tokio::test]
async fn switching_modes_keeps_both_tab_sets() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("host-chrome");
    let _chrome = UserChrome::start(profile.path()).await;
    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;

    let local = start_in(&pane, "sw", None).await.expect("local start");
    let local_tab = tab_ids(&local)[0].clone();
    pane.open_page(&pages.url("/input"), "Input page").await;

    let switch = json!({"channel_id": "sw", "mode": "host"});
    let (status, body) = daemon.post("/api/browser/mode", &switch).await;
    assert_eq!((status, &body), (200, &switch));
    let host = start_in(&pane, "sw", Some("host"))
        .await
        .expect("host start");
    let host_tab = tab_ids(&host)[0].clone();
    pane.open_page(&pages.url("/second"), "Second page").await;
    assert_eq!(mode_in_list(&daemon, "sw").await, "host");

    for _ in 0..2 {
        let (status, _) = daemon
            .post(
                "/api/browser/mode",
                &json!({"channel_id": "sw", "mode": "local"}),
            )
            .await;
        assert_eq!(status, 200);
        let back = start_in(&pane, "sw", Some("local"))
            .await
            .expect("local again");
        assert_eq!(tab_ids(&back), vec![local_tab.clone()]);
        assert_eq!(back["tabs"][0]["title"], "Input page");

        let (status, _) = daemon.post("/api/browser/mode", &switch).await;
        assert_eq!(status, 200);
        let again = start_in(&pane, "sw", Some("host"))
            .await
            .expect("host again");
        assert_eq!(tab_ids(&again), vec![host_tab.clone()]);
        assert_eq!(again["tabs"][0]["title"], "Second page");
    }
}

#[tokio::test]
async fn host_mode_survives_a_restart_and_refuses_profile_changes() {
    let profile = TempDir::new("host-chrome");
    let chrome = UserChrome::start(profile.path()).await;
    let user_ids = chrome.page_ids().await;
    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tabs = start_in(&pane, "keep", Some("host"))
        .await
        .expect("host start");
    let ours = tab_ids(&tabs);

    let (status, body) = daemon
        .post("/api/browser/profile/reset", &json!({"channel_id": "keep"}))
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "host_mode");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("your own Chrome"));
    let (status, body) = daemon.delete("/api/browser/channels/keep").await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "host_mode");
    assert!(
        chrome.page_ids().await.contains(&ours[0]),
        "a refused reset changes nothing"
    );

    drop(pane);
    let data = daemon.stop().await;
    // The daemon's shutdown closed its own tab in the user's Chrome, and nothing else
    // (Chrome drops a closed target from its list a moment after it answers closeTarget).
    let left = porthole_tests::eventually(
        "Porthole's tab closed at shutdown",
        std::time::Duration::from_secs(10),
        || async {
            let left = chrome.page_ids().await;
            (!left.contains(&ours[0])).then_some(left)
        },
    )
    .await;
    assert_eq!(left, user_ids);

    let daemon = TestDaemon::start_in(data, host_options(&profile)).await;
    assert_eq!(mode_in_list(&daemon, "keep").await, "host");
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tabs = start_in(&pane, "keep", None).await.expect("restored start");
    assert_eq!(tab_ids(&tabs).len(), 1);
    let started = pane.next_of("started", 0).await;
    assert_eq!(started["mode"], "host");
}

#[tokio::test]
async fn chrome_going_away_is_a_clear_error_and_the_pane_recovers() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("host-chrome");
    let mut chrome = UserChrome::start(profile.path()).await;
    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;

    let local = start_in(&pane, "gone", None).await.expect("local start");
    pane.open_page(&pages.url("/input"), "Input page").await;
    start_in(&pane, "gone", Some("host"))
        .await
        .expect("host start");

    let mark = pane.mark();
    chrome.kill().await;
    let error = pane
        .message_where("browser_gone", mark, |m| {
            m["type"] == "error" && m["code"] == "browser_gone"
        })
        .await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("chrome://inspect/#remote-debugging"),
        "{message}"
    );
    pane.next_of("stopped", mark).await;

    // Host mode cannot come back while Chrome is away: a clear error, nothing changes.
    let error = start_in(&pane, "gone", Some("host")).await.unwrap_err();
    assert_eq!(error["code"], "host_browser_not_found", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("chrome://inspect/#remote-debugging")
            && message.contains("remote debugging"),
        "{message}"
    );
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "gone", "mode": "host"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "host_browser_not_found", "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("chrome://inspect/#remote-debugging"));

    // The pane switches back and finds its local tab as it was.
    let (status, _) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "gone", "mode": "local"}),
        )
        .await;
    assert_eq!(status, 200);
    let back = start_in(&pane, "gone", Some("local"))
        .await
        .expect("local again");
    assert_eq!(tab_ids(&back), tab_ids(&local));
    assert_eq!(back["tabs"][0]["title"], "Input page");
    assert_eq!(mode_in_list(&daemon, "gone").await, "local");

    // A failed switch leaves the pane attached where it was.
    start_in(&pane, "gone", Some("host")).await.unwrap_err();
    pane.open_page(&pages.url("/second"), "Second page").await;
    assert_eq!(mode_in_list(&daemon, "gone").await, "local");

    // Chrome comes back (same user-data dir): host mode works again.
    let _chrome = UserChrome::start(profile.path()).await;
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "gone", "mode": "host"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let tabs = start_in(&pane, "gone", Some("host"))
        .await
        .expect("host after restart");
    assert_eq!(tab_ids(&tabs).len(), 1);
}

/// The user's own Chrome is a visible window on a (virtual) screen with the keyboard focus:
/// Porthole opening tabs, navigating them and streaming them never takes the focus or raises
/// its window over theirs.
#[tokio::test]
async fn host_mode_never_takes_the_users_focus() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("host-visible");
    let screen = VirtualDisplay::start().await;
    let chrome = UserChrome::start_visible(
        profile.path(),
        &screen,
        &porthole_tests::pages::data_url(&porthole_tests::pages::page("mcp/user.html")),
    )
    .await;
    // Give the user's window the focus, as a window manager does for the window you use.
    let window = eventually("the user's window", Duration::from_secs(20), || async {
        let found = screen.xdotool(&["search", "--name", "User tab"]);
        found.lines().next().map(str::to_string)
    })
    .await;
    screen.xdotool(&["windowfocus", "--sync", &window]);
    // The window's name can show the title before Chrome's target list does: wait for it.
    let user_tab = eventually("the user's tab listed", Duration::from_secs(20), || async {
        chrome
            .pages()
            .await
            .into_iter()
            .find(|t| t["title"] == "User tab")
            .and_then(|t| t["targetId"].as_str().map(str::to_string))
    })
    .await;
    let focused = || async {
        (
            screen.focused_window_name(),
            chrome.eval(&user_tab, "document.hasFocus()").await,
        )
    };
    let (name, has_focus) = focused().await;
    assert!(name.contains("User tab"), "before: focus is on {name:?}");
    assert_eq!(has_focus, true, "before: the user's tab has the focus");

    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    start_in(&pane, "visible", Some("host"))
        .await
        .expect("host start");
    pane.watch().await;
    let frames = pane.frame_count();
    pane.open_page(&pages.url("/second"), "Second page").await;
    pane.frames_at_least(frames + 1).await;
    let mark = pane.mark();
    pane.send(json!({"type": "new_tab", "url": pages.url("/")}));
    pane.next_of("tab_created", mark).await;
    let frames = pane.frame_count();
    pane.open_page(&pages.url("/second"), "Second page").await;
    pane.frames_at_least(frames + 1).await;
    // And an agent's first tab (its own window) with a navigation.
    let out = daemon
        .owner_on("visible")
        .act("navigate", json!({"url": pages.url("/second")}))
        .await;
    assert_eq!(out["isError"], false, "{out}");

    let (name, has_focus) = focused().await;
    assert!(
        name.contains("User tab"),
        "Porthole took the focus: it is on {name:?}"
    );
    assert_eq!(has_focus, true, "the user's tab lost the focus");
    assert_eq!(
        chrome.eval(&user_tab, "document.visibilityState").await,
        "visible"
    );
}

/// `stop` right after `new_tab`: the tab Chrome was still opening is closed too, and
/// `stopped` comes only once it is.
#[tokio::test]
async fn host_stop_closes_a_tab_still_opening() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("host-race");
    let chrome = UserChrome::start(profile.path()).await;
    let user_ids = chrome.page_ids().await;
    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    for round in 0..3 {
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        start_in(&pane, "race", Some("host"))
            .await
            .expect("host start");
        let mark = pane.mark();
        pane.send(json!({"type": "new_tab", "url": pages.url("/second")}));
        pane.send(json!({"type": "stop", "channel_id": "race"}));
        pane.message_where("stopped", mark, |m| m["type"] == "stopped")
            .await;
        // Once stopped, none of Porthole's tabs is left in the user's Chrome.
        let left = eventually("only the user's tabs", Duration::from_secs(10), || async {
            let left = chrome.page_ids().await;
            (left == user_ids).then_some(left)
        })
        .await;
        assert_eq!(left, user_ids, "round {round}");
    }
}
