//! Both real MCP binaries on the same local pages: `porthole-mcp` (owner token) on a daemon's
//! channel, and `porthole mcp-host-browser` on a Chromium the test starts for the user's.
//! Tests that must hold for both run their cases over [`Both::clients`].

use std::net::SocketAddr;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::TempDir;

use super::harness::{connect, Client};
use super::host::{host_args, UserChrome};

/// A daemon and a "user's" Chromium, each with an MCP client on it; all stopped when dropped.
pub(super) struct Both {
    pub clients: Vec<(&'static str, Client)>,
    _daemon: TestDaemon,
    _chrome: UserChrome,
    _home: TempDir,
}

impl Both {
    pub async fn start(pages: SocketAddr, channel: &str) -> Self {
        let daemon = TestDaemon::start().await;
        let proxy = super::harness::owner_proxy(&daemon, channel, &[]).await;
        let chrome = UserChrome::start(&format!("http://{pages}/user")).await;
        chrome.user_tab().await;
        let home = TempDir::new("mcp-both");
        let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
        let host = connect("porthole", &args, &env).await;
        Self {
            clients: vec![("porthole-mcp", proxy), ("mcp-host-browser", host)],
            _daemon: daemon,
            _chrome: chrome,
            _home: home,
        }
    }
}
