//! Issue 18, "litter in the user's Chrome": a tab a pane opens in host mode and the channel
//! stopped a moment later. The exact black-box sequence: `start` host → `new_tab` → the tab
//! shows in Chrome's target list → `POST /api/browser/profile/reset` (409) → `stop` →
//! `stopped`. Once `stopped` arrives, none of Porthole's tabs may be left in the user's Chrome.
//! Repeated, since it was a race.

use std::time::Duration;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::{eventually, TempDir};
use serde_json::json;

use super::chrome::UserChrome;
use super::{host_options, start_in, tab_ids};

#[tokio::test]
async fn host_stop_right_after_new_tab_leaves_nothing_in_the_users_chrome() {
    let pages = PageServer::start().await;
    let profile = TempDir::new("host-litter");
    let chrome = UserChrome::start(profile.path()).await;
    let user_ids = chrome.page_ids().await;
    let daemon = TestDaemon::start_with(host_options(&profile)).await;
    for round in 0..5 {
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        let tabs = start_in(&pane, "litter", Some("host"))
            .await
            .expect("host start");
        let first = tab_ids(&tabs);
        let url = pages.url(&format!("/second?round={round}"));
        pane.send(json!({"type": "new_tab", "url": url}));
        // The new tab shows in Chrome's own target list (the user can see it).
        let new_tab = eventually("the new tab in Chrome", Duration::from_secs(20), || async {
            chrome
                .pages()
                .await
                .into_iter()
                .find(|t| t["url"] == url.as_str())
                .and_then(|t| t["targetId"].as_str().map(str::to_string))
        })
        .await;
        let (status, body) = daemon
            .post(
                "/api/browser/profile/reset",
                &json!({"channel_id": "litter"}),
            )
            .await;
        assert_eq!(status, 409, "{body}");
        let mark = pane.mark();
        pane.send(json!({"type": "stop", "channel_id": "litter"}));
        pane.message_where("stopped", mark, |m| m["type"] == "stopped")
            .await;
        // `stopped` means gone: Porthole's tabs are out of Chrome's list already.
        let left = chrome.page_ids().await;
        let ours_left: Vec<&String> = left
            .iter()
            .filter(|id| **id == new_tab || first.contains(id))
            .collect();
        if !ours_left.is_empty() {
            // Say whether they go later (slow) or stay (litter).
            let end = std::time::Instant::now() + Duration::from_secs(10);
            let mut later = chrome.page_ids().await;
            while std::time::Instant::now() < end && later != user_ids {
                tokio::time::sleep(Duration::from_millis(200)).await;
                later = chrome.page_ids().await;
            }
            panic!(
                "round {round}: Porthole's tabs {ours_left:?} (new tab {new_tab}) still in the user's Chrome after stopped; 10 s later Chrome lists {later:?} (the user's: {user_ids:?})"
            );
        }
        assert_eq!(
            left, user_ids,
            "round {round}: only the user's tabs are left"
        );
    }
}
