//! The bundled web panel, driven in a real headless Chromium as a user would: it shows the
//! channel's frames, its URL bar navigates, and a click on the canvas reaches the page.
//! `embed`: `<porthole-pane>` in a page of the test's own, on another origin. `agents`: what the
//! person sees of agents in the pane and how they steer them.

mod agents;
mod approvals;
mod context_menu;
mod docker;
mod downloads;
mod embed;
mod files;
mod pane_view;
mod pickers;
mod timeline;
mod vault;

use std::time::Duration;

use porthole::cdp::CdpConnection;
use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::raw_cdp;
use porthole_tests::Poll;
use serde_json::{json, Value};

/// The pane's shadow root, in page script.
const PANE: &str = "document.querySelector('porthole-pane').shadowRoot";

/// The panel page open in the "user's" browser.
struct PanelPage {
    cdp: CdpConnection,
    session: String,
}

impl PanelPage {
    async fn open(browser: &BareChromium, url: &str) -> Self {
        let cdp = CdpConnection::connect(&browser.ws_url, Duration::from_secs(10))
            .await
            .unwrap();
        let (target, session) = raw_cdp::open(&cdp, url).await;
        cdp.call("Target.activateTarget", json!({"targetId": target}))
            .await
            .unwrap();
        Self { cdp, session }
    }

    async fn eval(&self, expression: &str) -> Value {
        raw_cdp::evaluate(&self.cdp, &self.session, raw_cdp::by_value(expression)).await
    }

    /// Polls `expression` until it is truthy; returns its value. On timeout the panic says
    /// what the panel showed (its address, load state, connection and overlay).
    async fn until(&self, what: &str, expression: &str) -> Value {
        // Generous: a start under a loaded `make test` (four tests starting Chromiums at once,
        // plus the panel's own browser) has been seen to take over 30 s.
        Poll::new(what, Duration::from_secs(90))
            .every(Duration::from_millis(100))
            .explained(
                || async {
                    let value = self.eval(expression).await;
                    let truthy = !matches!(value, Value::Null | Value::Bool(false))
                        && value != json!(0)
                        && value != json!("");
                    truthy.then_some(value)
                },
                || async {
                    let shown = self
                        .eval(&format!(
                            "JSON.stringify({{ href: location.href.replace(/token=[^&]*/, 'token=…'),                          ready: document.readyState, state: window.porthole && window.porthole.state,                          overlay: (() => {{ try {{ return {PANE}.getElementById('overlay-text').textContent; }}                          catch (e) {{ return String(e); }} }})() }})"
                        ))
                        .await;
                    Some(format!("the panel showed {shown}"))
                },
            )
            .await
    }

    /// Opens the bundled panel on `channel` and waits for its first frame.
    async fn open_panel(browser: &BareChromium, daemon: &TestDaemon, channel: &str) -> Self {
        let panel = Self::open(
            browser,
            &format!("{}/#token={}&channel={channel}", daemon.base, daemon.token),
        )
        .await;
        panel
            .until(
                "the panel to start the channel",
                "window.porthole && window.porthole.started",
            )
            .await;
        panel
            .until("frames drawn on the canvas", "window.porthole.framesShown")
            .await;
        panel
    }

    /// Navigates the pane to `url` and waits until it shows the page titled `title`; returns
    /// the pane's active tab.
    async fn show(&self, url: &str, title: &str) -> String {
        self.eval(&format!(
            "window.porthole.send({{type: 'navigate', url: {}}})",
            json!(url)
        ))
        .await;
        self.until(
            &format!("the page {title:?} in the pane"),
            &format!(
                "window.porthole.pageInfo && window.porthole.pageInfo.title === {}",
                json!(title)
            ),
        )
        .await;
        let tab = self.eval("window.porthole.activeTargetId").await;
        tab.as_str().expect("an active tab").to_string()
    }

    /// Where page point (x, y) is on the pane's canvas, in the panel page's CSS px.
    async fn on_screen(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let point = self
            .until(
                "the canvas geometry",
                &format!(
                    "(() => {{ const c = {PANE}.getElementById('screen').getBoundingClientRect(); \
                     const v = window.porthole.lastViewport; if (!v) return null; \
                     return [c.x + {x} * c.width / v.width, c.y + {y} * c.height / v.height]; }})()"
                ),
            )
            .await;
        (point[0].as_f64().unwrap(), point[1].as_f64().unwrap())
    }

    /// A left click at (x, y) of the panel page (CSS px), the pointer moved there first.
    async fn click_at(&self, (x, y): (f64, f64)) {
        self.mouse("mouseMoved", x, y).await;
        self.mouse("mousePressed", x, y).await;
        self.mouse("mouseReleased", x, y).await;
    }

    /// The centre of the first element matching `selector` in the pane's shadow root, once it
    /// is there with a box (panel page CSS px).
    async fn center_of(&self, what: &str, selector: &str) -> (f64, f64) {
        self.center_of_element(what, &format!("{PANE}.querySelector({})", json!(selector)))
            .await
    }

    /// The centre of the element that page script `element` gives, once it is there with a
    /// box (panel page CSS px).
    async fn center_of_element(&self, what: &str, element: &str) -> (f64, f64) {
        let at = self
            .until(
                what,
                &format!(
                    "(() => {{ const e = {element}; if (!e) return null; \
                     const r = e.getBoundingClientRect(); if (!r.width || !r.height) return null; \
                     return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
                ),
            )
            .await;
        (at[0].as_f64().unwrap(), at[1].as_f64().unwrap())
    }

    /// The panel page's screenshot in `format` (`png`, `jpeg`), decoded from base64.
    async fn screenshot(&self, format: &str) -> Vec<u8> {
        let shot = self
            .cdp
            .call_on(
                &self.session,
                "Page.captureScreenshot",
                if format == "jpeg" {
                    json!({"format": format, "quality": 90})
                } else {
                    json!({"format": format})
                },
            )
            .await
            .unwrap();
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            shot["data"].as_str().unwrap(),
        )
        .unwrap()
    }

    /// Saves a PNG of the panel page as `target/<name>` (to look at after the run).
    async fn save_screenshot(&self, name: &str) {
        let png = self.screenshot("png").await;
        let path = porthole_tests::workspace_root().join("target").join(name);
        std::fs::write(path, png).unwrap();
    }

    /// Has the person's browser (the panel's) save what it downloads in a fresh directory,
    /// under the names the pane gives; returns the directory.
    async fn saves_downloads(&self, prefix: &str) -> porthole_tests::TempDir {
        let saves = porthole_tests::TempDir::new(prefix);
        self.cdp
            .call(
                "Browser.setDownloadBehavior",
                json!({"behavior": "allowAndName", "downloadPath": saves.path(), "eventsEnabled": true}),
            )
            .await
            .unwrap();
        saves
    }

    /// The person picks `file` in the open file-chooser card's own input (set as the OS
    /// chooser would) and presses Send.
    async fn send_file_through_card(&self, file: &std::path::Path) {
        let input = self
            .cdp
            .call_on(
                &self.session,
                "Runtime.evaluate",
                json!({"expression": format!("{PANE}.getElementById('file-chooser-input')")}),
            )
            .await
            .unwrap();
        self.cdp
            .call_on(
                &self.session,
                "DOM.setFileInputFiles",
                json!({"objectId": input["result"]["objectId"], "files": [file.display().to_string()]}),
            )
            .await
            .unwrap();
        self.until(
            "Send enabled",
            &format!("!{PANE}.getElementById('file-chooser-send').disabled"),
        )
        .await;
        self.click_in_pane("file-chooser-send").await;
    }

    /// Clicks the element `#id` of the pane's shadow root with the mouse, as a user would.
    async fn click_in_pane(&self, id: &str) {
        let at = self
            .center_of(&format!("#{id} to be shown"), &format!("#{id}"))
            .await;
        self.click_at(at).await;
    }

    async fn mouse(&self, kind: &str, x: f64, y: f64) {
        self.cdp
            .call_on(
                &self.session,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": if kind == "mousePressed" { 1 } else { 0 }, "clickCount": 1}),
            )
            .await
            .unwrap();
    }

    async fn key(&self, key: &str, code: &str, vk: u32, text: Option<&str>) {
        let mut down =
            json!({"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk});
        if let Some(text) = text {
            down["text"] = json!(text);
        }
        self.cdp
            .call_on(&self.session, "Input.dispatchKeyEvent", down)
            .await
            .unwrap();
        self.cdp
            .call_on(
                &self.session,
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}),
            )
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn the_panel_shows_frames_navigates_and_forwards_a_canvas_click() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let user_browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open(
        &user_browser,
        &format!("{}/#token={}&channel=panel", daemon.base, daemon.token),
    )
    .await;

    panel
        .until(
            "the panel to start the channel",
            "window.porthole && window.porthole.started",
        )
        .await;
    panel
        .until("frames drawn on the canvas", "window.porthole.framesShown")
        .await;

    // Type a URL into the URL bar and press Enter, as a user would.
    let url_bar = panel.center_of("the URL bar", "#url").await;
    panel.click_at(url_bar).await;
    panel
        .until(
            "the URL bar focused",
            "(document.querySelector('porthole-pane').shadowRoot.activeElement || {}).id === 'url'",
        )
        .await;
    panel
        .eval("document.querySelector('porthole-pane').shadowRoot.getElementById('url').select()")
        .await;
    panel
        .cdp
        .call_on(
            &panel.session,
            "Input.insertText",
            json!({"text": pages.url("/input")}),
        )
        .await
        .unwrap();
    // A static page paints once: count from before Enter, not from when the title shows.
    let frames_before = panel
        .eval("window.porthole.framesShown")
        .await
        .as_u64()
        .unwrap();
    panel.key("Enter", "Enter", 13, Some("\r")).await;
    panel
        .until(
            "the panel to show the input page",
            "window.porthole.pageInfo && window.porthole.pageInfo.title === 'Input page'",
        )
        .await;
    panel
        .until(
            "a frame of the new page",
            &format!("window.porthole.framesShown > {frames_before}"),
        )
        .await;

    // Click the page's button through the canvas: page (100, 40) in canvas coordinates.
    panel.click_at(panel.on_screen((100.0, 40.0)).await).await;

    let tab = panel.eval("window.porthole.activeTargetId").await;
    let probe = Probe::connect(&daemon.profile_dir("panel")).await;
    probe
        .eval_until(
            tab.as_str().unwrap(),
            "document.getElementById('out').textContent",
            json!("clicked 1"),
        )
        .await;
    assert!(
        panel.eval("window.porthole.lastError").await.is_null(),
        "the panel showed an error"
    );
}
