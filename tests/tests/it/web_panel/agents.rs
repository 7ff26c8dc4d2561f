//! What the person sees of agents in the bundled panel, and how they steer them (DESIGN.md §12,
//! "Seeing and stopping agents"), in a real headless Chromium with a real agent token driving
//! `POST /api/browser/action`: the pill, outline and tab badge while an agent acts; Take over
//! refusing an agent's navigate but not its read_page; a `request_human` round trip through the
//! Done button; a page's `confirm()` answered false from the pane.

use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use serde_json::{json, Value};

use super::{PanelPage, PANE};

/// An agent of the test: its token, calling tools over HTTP like `porthole-mcp` does.
#[derive(Clone)]
struct Agent(Caller);

impl Agent {
    async fn new(daemon: &TestDaemon, channel: &str, name: &str) -> Self {
        let (_, token) = daemon.add_agent(channel, name, &[]).await;
        Self(daemon.caller(&token))
    }

    /// Runs `tool`; returns (is_error, text of the result).
    async fn call(&self, tool: &str, args: Value) -> (bool, String) {
        tokio::time::timeout(Duration::from_secs(60), self.0.act_text(tool, args))
            .await
            .unwrap_or_else(|_| panic!("{tool} took longer than 60 s"))
    }

    async fn ok(&self, tool: &str, args: Value) -> String {
        let (error, text) = self.call(tool, args.clone()).await;
        assert!(!error, "{tool} {args} failed: {text}");
        text
    }
}

/// Pages of this module's own (`tests/pages/web_panel/`): `/confirm` asks `confirm()` and
/// shows the answer in its title.
async fn dialog_pages() -> String {
    PageServer::area("web_panel").await.base()
}

/// Is `#id` in the pane's shadow root shown (not hidden, with a box)?
fn shown(id: &str) -> String {
    format!(
        "(() => {{ const e = {PANE}.getElementById('{id}'); return !!e && !e.hidden && e.getBoundingClientRect().height > 0; }})()"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pill_outline_and_badge_show_an_agent_while_it_acts_and_go_after() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "watch").await;
    let agent = Agent::new(&daemon, "watch", "Robo").await;

    // The agent's first action opens a tab of its own: the strip shows it with its name.
    agent
        .ok("navigate", json!({"url": pages.url("/input")}))
        .await;
    panel
        .until(
            "a badge naming the agent on its tab",
            &format!(
                "[...{PANE}.querySelectorAll('.tab-owner')].some(b => b.textContent === 'Robo')"
            ),
        )
        .await;
    // Nothing acts now: no pill, no outline (after the short linger of the last call).
    panel
        .until(
            "the pill to go after the first call",
            &format!("!{}", shown("driver")),
        )
        .await;

    // A call that lasts: the agent waits for text that never comes, for 3 s.
    let long = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .call(
                    "computer",
                    json!({"action": "wait", "wait_for_text": "never shown", "wait_timeout_ms": 3000}),
                )
                .await
        })
    };
    panel
        .until("the pill while the agent acts", &shown("driver"))
        .await;
    let pill = panel
        .eval(&format!("{PANE}.getElementById('driver').textContent"))
        .await;
    assert!(pill.as_str().unwrap_or_default().contains("Robo"), "{pill}");
    assert_eq!(
        panel
            .eval(&format!(
                "{PANE}.getElementById('stage').classList.contains('agent-driving')"
            ))
            .await,
        json!(true),
        "no outline round the view while the agent acts"
    );
    panel
        .until(
            "the agent's badge lit while it acts",
            &format!("[...{PANE}.querySelectorAll('.tab-owner.acting')].some(b => b.textContent === 'Robo')"),
        )
        .await;
    assert_eq!(
        panel.eval("window.porthole.agents.driving").await,
        json!(["Robo"])
    );

    let (_, _) = long.await.unwrap();
    panel
        .until(
            "the pill, outline and lit badge to go once the call ended",
            &format!(
                "!{} && !{PANE}.getElementById('stage').classList.contains('agent-driving') \
                 && {PANE}.querySelectorAll('.tab-owner.acting').length === 0",
                shown("driver")
            ),
        )
        .await;
    // The badge itself stays: the tab is still the agent's.
    assert_eq!(
        panel
            .eval(&format!(
                "[...{PANE}.querySelectorAll('.tab-owner')].map(b => b.textContent)"
            ))
            .await,
        json!(["Robo"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn take_over_in_the_panel_refuses_an_agents_navigate_but_not_its_read_page() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "steer").await;
    let agent = Agent::new(&daemon, "steer", "Robo").await;
    agent
        .ok("navigate", json!({"url": pages.url("/input")}))
        .await;

    panel.click_in_pane("takeover").await;
    panel
        .until(
            "the pane to hear it has control",
            "window.porthole.agents.holder === 'human'",
        )
        .await;
    assert_eq!(
        panel
            .eval(&format!("{PANE}.getElementById('takeover').textContent"))
            .await,
        json!("Release")
    );

    let (refused, text) = agent
        .call("navigate", json!({"url": pages.url("/second")}))
        .await;
    assert!(refused, "navigate went through under takeover: {text}");
    assert!(text.contains("taken control"), "{text}");
    let page = agent.ok("read_page", json!({})).await;
    assert!(page.contains("Press"), "read_page under takeover: {page}");

    // Release gives the agents their turn again.
    panel.click_in_pane("takeover").await;
    panel
        .until(
            "the pane to hear the agents have control",
            "window.porthole.agents.holder === 'agents'",
        )
        .await;
    agent
        .ok("navigate", json!({"url": pages.url("/second")}))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_human_round_trip_through_the_done_button() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "handoff").await;
    let agent = Agent::new(&daemon, "handoff", "Robo").await;
    agent
        .ok("navigate", json!({"url": pages.url("/input")}))
        .await;

    let asking = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .call(
                    "request_human",
                    json!({"reason": "Please log in to the shop", "timeout_ms": 45000}),
                )
                .await
        })
    };
    panel.until("the handoff banner", &shown("handoff")).await;
    let banner = panel
        .eval(&format!("{PANE}.getElementById('handoff').textContent"))
        .await;
    let banner = banner.as_str().unwrap_or_default();
    assert!(
        banner.contains("Robo") && banner.contains("Please log in to the shop"),
        "{banner}"
    );

    // A note typed by the person, then Done.
    panel.click_in_pane("handoff-note").await;
    panel
        .until(
            "the note field focused",
            &format!("({PANE}.activeElement || {{}}).id === 'handoff-note'"),
        )
        .await;
    panel
        .cdp
        .call_on(
            &panel.session,
            "Input.insertText",
            json!({"text": "logged in as test"}),
        )
        .await
        .unwrap();
    panel.click_in_pane("handoff-done").await;

    let (error, text) = asking.await.unwrap();
    assert!(!error, "request_human failed: {text}");
    assert!(text.contains("logged in as test"), "{text}");
    panel
        .until("the banner to close", &format!("!{}", shown("handoff")))
        .await;
    panel
        .until(
            "the agents to have control back",
            "window.porthole.agents.holder === 'agents'",
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pages_confirm_is_answered_false_from_the_pane() {
    let daemon = TestDaemon::start().await;
    let dialogs = dialog_pages().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "ask").await;

    // The person opens the page (URL bar message), which asks confirm().
    panel
        .eval(&format!(
            "window.porthole.send({{type: 'navigate', url: '{dialogs}/confirm'}})"
        ))
        .await;
    panel.until("the dialog card", &shown("dialog")).await;
    let message = panel
        .eval(&format!(
            "{PANE}.getElementById('dialog-message').textContent"
        ))
        .await;
    assert_eq!(message, json!("Proceed with the order?"));
    assert_eq!(
        panel.eval(&shown("dialog-cancel")).await,
        json!(true),
        "a confirm has a Cancel button"
    );

    panel.click_in_pane("dialog-cancel").await;
    let tab = panel.eval("window.porthole.activeTargetId").await;
    let probe = Probe::connect(&daemon.profile_dir("ask")).await;
    probe
        .eval_until(
            tab.as_str().unwrap(),
            "document.title",
            json!("answered no"),
        )
        .await;
    panel
        .until("the card to close", &format!("!{}", shown("dialog")))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_agents_in_the_panel_ends_a_running_wait_and_holds_agents_off() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "halt").await;
    let agent = Agent::new(&daemon, "halt", "Robo").await;
    agent
        .ok("navigate", json!({"url": pages.url("/input")}))
        .await;

    let waiting = {
        let agent = agent.clone();
        tokio::spawn(async move {
            let result = agent
                .call(
                    "computer",
                    json!({"action": "wait", "wait_for_text": "never shown", "wait_timeout_ms": 30000}),
                )
                .await;
            result
        })
    };
    panel
        .until("the pill while the agent waits", &shown("driver"))
        .await;
    panel.click_in_pane("stop-agents").await;
    let (error, text) = waiting.await.unwrap();
    // Cut short by the stop (the answer names it), not ended by its own timeout.
    assert!(error, "the wait was not cut short: {text}");
    assert!(text.contains("Stop agents"), "{text}");
    assert!(!text.contains("Timed out"), "{text}");
    panel
        .until(
            "the pane to show who holds control and until when",
            "window.porthole.agents.holder === 'human' && window.porthole.agents.until > Date.now()",
        )
        .await;
    let (refused, text) = agent
        .call("navigate", json!({"url": pages.url("/second")}))
        .await;
    assert!(refused, "navigate went through after Stop agents: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_agents_moves_the_view_to_the_agents_tab_until_turned_off() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "follow").await;
    let human_tab = panel.eval("window.porthole.activeTargetId").await;
    let agent = Agent::new(&daemon, "follow", "Robo").await;
    assert_eq!(
        panel.eval("window.porthole.agents.follow").await,
        json!(true),
        "Follow agents is on by default"
    );

    // On: the agent's first action moves the view to its tab.
    agent
        .ok("navigate", json!({"url": pages.url("/input")}))
        .await;
    let agent_tab = panel
        .until(
            "the view on the agent's tab",
            "(() => { const p = window.porthole; const t = p.tabs.find(t => t.target_id === p.activeTargetId); return t && t.owner !== 'human' ? t.target_id : null; })()",
        )
        .await;
    assert_ne!(agent_tab, human_tab);

    // Off (the checkbox, as a person would), and back to the person's own tab.
    panel.click_in_pane("follow").await;
    panel
        .until(
            "Follow agents off",
            "window.porthole.agents.follow === false",
        )
        .await;
    panel
        .eval(&format!(
            "window.porthole.send({{type: 'switch_tab', target_id: {human_tab}}})"
        ))
        .await;
    panel
        .until(
            "the view back on the person's tab",
            &format!("window.porthole.activeTargetId === {human_tab}"),
        )
        .await;
    agent
        .ok("navigate", json!({"url": pages.url("/second")}))
        .await;
    // A round trip through the channel's notices after the agent's call: anything that call
    // made the panes see has arrived by the time `control` does.
    panel.click_in_pane("takeover").await;
    panel
        .until("control taken", "window.porthole.agents.holder === 'human'")
        .await;
    assert_eq!(
        panel.eval("window.porthole.activeTargetId").await,
        human_tab,
        "the view followed the agent with Follow agents off"
    );
    panel.click_in_pane("takeover").await;
    panel
        .until(
            "control released",
            "window.porthole.agents.holder === 'agents'",
        )
        .await;

    // On again: the next action moves the view again.
    panel.click_in_pane("follow").await;
    panel
        .until("Follow agents on", "window.porthole.agents.follow === true")
        .await;
    agent
        .ok("navigate", json!({"url": pages.url("/input")}))
        .await;
    panel
        .until(
            "the view on the agent's tab again",
            &format!("window.porthole.activeTargetId === {agent_tab}"),
        )
        .await;
}
