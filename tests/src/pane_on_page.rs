//! The setup of the pane tests in local mode: a fresh daemon, one pane that started a channel
//! and watches its screencast, the tab showing a page, and a probe into that Chromium, with
//! the tab laid out at the pane's 800×600.

use serde_json::json;

use crate::daemon::TestDaemon;
use crate::devtools_port::Probe;
use crate::pane::Pane;

pub struct PaneOnPage {
    pub daemon: TestDaemon,
    pub pane: Pane,
    pub probe: Probe,
    /// The pane's tab.
    pub tab: String,
}

impl PaneOnPage {
    /// Starts `channel`, watches it, opens `url` and waits for its `page_info` titled `title`.
    pub async fn open(channel: &str, url: &str, title: &str) -> Self {
        let daemon = TestDaemon::start().await;
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        let tab = pane.start(channel).await;
        pane.watch().await;
        pane.open_page(url, title).await;
        let probe = Probe::connect(&daemon.profile_dir(channel)).await;
        probe
            .eval_until(&tab, "innerWidth + 'x' + innerHeight", json!("800x600"))
            .await;
        Self {
            daemon,
            pane,
            probe,
            tab,
        }
    }
}
