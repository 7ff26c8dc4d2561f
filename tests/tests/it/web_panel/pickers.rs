//! `<porthole-pane>` draws an `<input>`'s popup for the person, in the bundled panel in a real
//! headless Chromium: a datalist's suggestions as a list chosen by a real click, and a date or
//! colour picker as a real `<input>` of that kind (whose native picker the person's browser
//! opens; here its value is set as that picker would). Each test saves a screenshot of the
//! drawn popup under target/ and checks the popup's area changed on it.

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use serde_json::{json, Value};

use super::{PanelPage, PANE};
use crate::pane::pickers::{serve_pickers, COLOR_AT, DATALIST_AT, DATE_AT};

/// The panel on `channel`, its pane showing the pickers page; returns it, the tab and a probe.
async fn panel_on_pickers(
    browser: &BareChromium,
    daemon: &TestDaemon,
    channel: &str,
) -> (PanelPage, String, Probe) {
    let base = serve_pickers().await;
    let panel = PanelPage::open_panel(browser, daemon, channel).await;
    let tab = panel.show(&format!("{base}/pickers"), "Pickers page").await;
    let probe = Probe::connect(&daemon.profile_dir(channel)).await;
    probe
        .eval_until(
            &tab,
            "innerWidth > 0 && document.readyState",
            json!("complete"),
        )
        .await;
    (panel, tab, probe)
}

/// The panel as a decoded screenshot.
pub(super) async fn screenshot(panel: &PanelPage) -> image::RgbImage {
    let jpeg = panel.screenshot("jpeg").await;
    image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg)
        .unwrap()
        .to_rgb8()
}

/// The mean difference (0–255) between two screenshots inside `rect` [x, y, w, h] (CSS px of
/// the panel page, which is at device scale 1).
pub(super) fn difference_in(a: &image::RgbImage, b: &image::RgbImage, rect: &Value) -> f64 {
    let n = |i: usize| rect[i].as_f64().unwrap().max(0.0) as u32;
    let (x0, y0) = (n(0), n(1));
    let (x1, y1) = ((x0 + n(2)).min(a.width()), (y0 + n(3)).min(a.height()));
    let (mut sum, mut count) = (0u64, 0u64);
    for y in y0..y1 {
        for x in x0..x1 {
            let (p, q) = (a.get_pixel(x, y), b.get_pixel(x, y));
            sum += (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>();
            count += 3;
        }
    }
    assert!(count > 0, "empty rect {rect}");
    sum as f64 / count as f64
}

/// Saves `shot` under target/ and checks the element `#id` of the pane shows on it (its
/// area differs from `before`).
pub(super) async fn shows_on_screenshot(
    panel: &PanelPage,
    before: &image::RgbImage,
    id: &str,
    file: &str,
) {
    let shot = screenshot(panel).await;
    shot.save(porthole_tests::workspace_root().join("target").join(file))
        .unwrap();
    let rect = panel
        .eval(&format!(
            "(() => {{ const r = {PANE}.getElementById('{id}').getBoundingClientRect(); \
             return [r.x, r.y, r.width, r.height]; }})()"
        ))
        .await;
    let changed = difference_in(before, &shot, &rect);
    assert!(
        changed > 8.0,
        "#{id} does not show on {file}: mean difference {changed:.1} in {rect}"
    );
}

#[tokio::test]
async fn the_pane_draws_a_datalists_suggestions_and_a_click_chooses_one() {
    let daemon = TestDaemon::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let (panel, tab, probe) = panel_on_pickers(&browser, &daemon, "wp-datalist").await;
    let before = screenshot(&panel).await;

    panel.click_at(panel.on_screen(DATALIST_AT).await).await;
    let labels = panel
        .until(
            "the drawn suggestions",
            &format!(
                "(() => {{ const l = {PANE}.getElementById('select-popup'); if (!l) return null; \
                 const r = l.getBoundingClientRect(); if (!r.width || !r.height) return null; \
                 return [...l.querySelectorAll('.select-option')].map((o) => o.firstChild.textContent); }})()"
            ),
        )
        .await;
    assert_eq!(
        labels,
        json!(["Apple", "Dried apricot", "Banana", "Cherry"])
    );
    assert_eq!(
        panel.eval("window.porthole.selectPopup.kind").await,
        json!("datalist")
    );
    shows_on_screenshot(&panel, &before, "select-popup", "pane-datalist-popup.jpg").await;

    let third = panel
        .center_of(
            "the third suggestion",
            "#select-popup .select-option[data-index=\"2\"]",
        )
        .await;
    panel.click_at(third).await;
    probe
        .eval_until(
            &tab,
            "[dl.value, events.join()]",
            json!(["Banana", "dl:input:Banana,dl:change:Banana"]),
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
async fn the_pane_draws_a_real_date_and_colour_input_and_their_values_reach_the_page() {
    let daemon = TestDaemon::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let (panel, tab, probe) = panel_on_pickers(&browser, &daemon, "wp-date").await;
    let before = screenshot(&panel).await;

    for (at, kind, value, next, file) in [
        (
            DATE_AT,
            "date",
            "2026-12-01",
            "2027-01-15",
            "pane-date-popup.jpg",
        ),
        (
            COLOR_AT,
            "color",
            "#ff0000",
            "#00ff00",
            "pane-color-popup.jpg",
        ),
    ] {
        panel.click_at(panel.on_screen(at).await).await;
        let shown = panel
            .until(
                &format!("the drawn {kind} input"),
                &format!(
                    "(() => {{ const i = {PANE}.getElementById('picker-input'); if (!i) return null; \
                     const r = i.getBoundingClientRect(); if (!r.width || !r.height) return null; \
                     return [i.type, i.value, i.min, i.max]; }})()"
                ),
            )
            .await;
        let (min, max) = if kind == "date" {
            ("2026-01-01", "2027-12-31")
        } else {
            ("", "")
        };
        assert_eq!(shown, json!([kind, value, min, max]));
        if kind == "date" {
            shows_on_screenshot(&panel, &before, "select-popup", file).await;
        }
        // The person picks in their browser's own picker: it sets the input and fires change.
        panel
            .eval(&format!(
                "(() => {{ const i = {PANE}.getElementById('picker-input'); i.value = '{next}'; \
                 i.dispatchEvent(new Event('input', {{bubbles: true}})); \
                 i.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"
            ))
            .await;
        let field = if kind == "date" { "d" } else { "c" };
        probe
            .eval_until(
                &tab,
                &format!("[{field}.value, events.at(-1)]"),
                json!([next, format!("{field}:change:{next}")]),
            )
            .await;
        panel
            .until(
                "the drawn input gone",
                &format!("!{PANE}.getElementById('picker-input') && window.porthole.selectPopup === null"),
            )
            .await;
    }
    assert!(panel.eval("window.porthole.lastError").await.is_null());
}
