//! `<porthole-pane>` as a whole browser for the person, in the bundled panel in a real headless
//! Chromium: it draws an open `<select>` over the view and chooses by a real click (the test
//! saves a screenshot of the drawn list under target/), IME composition lands in the page, the
//! CSS cursor follows the page's, and a 2× display asks for (and gets) devicePixelRatio 2.

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use serde_json::json;

use super::{PanelPage, PANE};
use crate::pane::view::serve_pages;

/// The panel on `channel`, its pane showing the view page; returns the panel and the tab.
async fn panel_on_view_page(
    browser: &BareChromium,
    daemon: &TestDaemon,
    channel: &str,
) -> (PanelPage, String) {
    let base = serve_pages().await;
    let panel = PanelPage::open_panel(browser, daemon, channel).await;
    let tab = panel.show(&format!("{base}/view"), "Pane view page").await;
    (panel, tab)
}

#[tokio::test]
async fn the_pane_draws_an_open_select_and_a_click_on_the_sixth_option_chooses_it() {
    let daemon = TestDaemon::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let (panel, tab) = panel_on_view_page(&browser, &daemon, "wp-select").await;
    let probe = Probe::connect(&daemon.profile_dir("wp-select")).await;

    panel.click_at(panel.on_screen((100.0, 35.0)).await).await;
    let labels = panel
        .until(
            "the drawn option list",
            &format!(
                "(() => {{ const l = {PANE}.getElementById('select-popup'); if (!l) return null; \
                 const r = l.getBoundingClientRect(); const s = getComputedStyle(l); \
                 if (!r.width || !r.height || s.visibility !== 'visible' || s.display === 'none') return null; \
                 return [...l.querySelectorAll('.select-option')].map((o) => o.textContent); }})()"
            ),
        )
        .await;
    assert_eq!(
        labels,
        json!([
            "Apple",
            "Banana",
            "Cherry",
            "Date",
            "Elderberry",
            "Fig",
            "Grape",
            "Kiwi"
        ])
    );
    // The list sits just under the select, inside the screen.
    let placed = panel
        .eval(&format!(
            "(() => {{ const l = {PANE}.getElementById('select-popup').getBoundingClientRect(); \
             const c = {PANE}.getElementById('screen').getBoundingClientRect(); \
             const v = window.porthole.lastViewport; \
             return [Math.round(l.left - (c.x + 20 * c.width / v.width)), Math.round(l.top - (c.y + 50 * c.height / v.height)), \
                     l.bottom <= c.bottom + 1]; }})()"
        ))
        .await;
    assert_eq!(
        placed,
        json!([0, 0, true]),
        "the list is not under the select"
    );

    panel.save_screenshot("pane-view-select-popup.png").await;

    let sixth = panel
        .center_of(
            "the sixth option",
            "#select-popup .select-option[data-index=\"5\"]",
        )
        .await;
    panel.click_at(sixth).await;
    probe
        .eval_until(
            &tab,
            "[document.getElementById('s').value, document.getElementById('s').matches(':open'), changes.join()]",
            json!(["fig", false, "input:fig,change:fig"]),
        )
        .await;
    panel
        .until(
            "the drawn list gone",
            &format!(
                "!{PANE}.getElementById('select-popup') && window.porthole.selectPopup === null"
            ),
        )
        .await;
    assert!(panel.eval("window.porthole.lastError").await.is_null());
}

#[tokio::test]
async fn a_composition_on_the_pane_lands_in_the_pages_field() {
    let daemon = TestDaemon::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let (panel, tab) = panel_on_view_page(&browser, &daemon, "wp-ime").await;
    let probe = Probe::connect(&daemon.profile_dir("wp-ime")).await;
    panel.click_at(panel.on_screen((400.0, 315.0)).await).await;
    probe
        .eval_until(&tab, "document.activeElement.id", json!("field"))
        .await;
    // Keyboard focus on the screen sits in the IME sink, where an IME composes.
    panel
        .until(
            "the IME sink focused",
            &format!("({PANE}.activeElement || {{}}).id === 'ime-sink'"),
        )
        .await;
    panel
        .eval(&format!(
            "(() => {{ const t = {PANE}.activeElement; \
             const fire = (type, data) => t.dispatchEvent(new CompositionEvent(type, {{data, bubbles: true, composed: true}})); \
             fire('compositionstart', ''); fire('compositionupdate', 'に'); fire('compositionupdate', '日本'); \
             fire('compositionupdate', '日本語'); fire('compositionend', '日本語'); }})()"
        ))
        .await;
    probe
        .eval_until(
            &tab,
            "[document.getElementById('field').value, composed[composed.length - 1]]",
            json!(["日本語", "compositionend:日本語"]),
        )
        .await;
}

#[tokio::test]
async fn the_css_cursor_follows_the_page_and_a_2x_display_gets_2x_frames() {
    let daemon = TestDaemon::start().await;
    let browser =
        BareChromium::launch_with(&["--window-size=1000,800", "--force-device-scale-factor=2"])
            .await;
    let (panel, tab) = panel_on_view_page(&browser, &daemon, "wp-cursor").await;
    let probe = Probe::connect(&daemon.profile_dir("wp-cursor")).await;
    assert_eq!(panel.eval("devicePixelRatio").await, json!(2));
    probe.eval_until(&tab, "devicePixelRatio", json!(2)).await;

    // An 800×600 view on this 2× display: the pane asks 800×600 at scale 2 and draws the
    // 1600×1200 frames into a 1600×1200 backing store shown at 800×600 CSS px.
    panel
        .eval(&format!(
            "(() => {{ const c = {PANE}.getElementById('screen');              Object.assign(c.style, {{flex: 'none', width: '800px', height: '600px'}}); }})()"
        ))
        .await;
    probe
        .eval_until(
            &tab,
            "[devicePixelRatio, innerWidth, innerHeight]",
            json!([2, 800, 600]),
        )
        .await;
    panel
        .until(
            "a 1600×1200 backing store for an 800×600 view",
            &format!(
                "(() => {{ const c = {PANE}.getElementById('screen'); const r = c.getBoundingClientRect();                  const v = window.porthole.lastViewport;                  return c.width === 1600 && c.height === 1200 && r.width === 800 && r.height === 600                  && v && v.width === 800 && v.height === 600; }})()"
            ),
        )
        .await;

    let (x, y) = panel.on_screen((50.0, 312.0)).await;
    panel.mouse("mouseMoved", x, y).await;
    panel
        .until(
            "the pointer cursor",
            &format!("{PANE}.getElementById('screen').style.cursor === 'pointer'"),
        )
        .await;
    let (x, y) = panel.on_screen((400.0, 315.0)).await;
    panel.mouse("mouseMoved", x, y).await;
    panel
        .until(
            "the text cursor",
            &format!("{PANE}.getElementById('screen').style.cursor === 'text' && window.porthole.cursor === 'text'"),
        )
        .await;
}
