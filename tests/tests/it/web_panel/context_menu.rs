//! `<porthole-pane>`'s context menu, in the bundled panel in a real headless Chromium: a right
//! click on a link through the canvas draws the menu; "Copy link address" puts the link on the
//! person's clipboard, "Copy image" puts the image there as PNG, and "Open link in new tab"
//! opens it in a tab the pane shows.

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use serde_json::json;

use super::{PanelPage, PANE};
use crate::pane::context_menu::{serve_menu_pages, LINK_AT};

async fn right_click(panel: &PanelPage, (x, y): (f64, f64)) {
    panel.mouse("mouseMoved", x, y).await;
    for (kind, buttons) in [("mousePressed", 2), ("mouseReleased", 0)] {
        panel
            .cdp
            .call_on(
                &panel.session,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "right", "buttons": buttons, "clickCount": 1}),
            )
            .await
            .unwrap();
    }
}

/// Right-clicks page point `at` and waits for the drawn menu; returns its items.
async fn open_menu(panel: &PanelPage, at: (f64, f64)) -> serde_json::Value {
    panel.eval("window.porthole.contextMenu = null").await;
    right_click(panel, panel.on_screen(at).await).await;
    panel
        .until(
            "the drawn context menu",
            &format!(
                "(() => {{ const m = {PANE}.getElementById('context-menu'); if (!m) return null; \
                 const r = m.getBoundingClientRect(); if (!r.width || !r.height) return null; \
                 return [...m.querySelectorAll('.menu-item')].map((i) => i.textContent); }})()"
            ),
        )
        .await
}

/// Clicks the menu item whose action is `action`.
async fn choose(panel: &PanelPage, action: &str) {
    let at = panel
        .center_of(
            &format!("the {action} item"),
            &format!("#context-menu [data-action=\"{action}\"]"),
        )
        .await;
    panel.click_at(at).await;
}

#[tokio::test]
async fn the_pane_offers_a_context_menu_that_copies_and_opens_a_link() {
    let daemon = TestDaemon::start().await;
    let base = serve_menu_pages().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "wp-menu").await;
    panel
        .cdp
        .call(
            "Browser.grantPermissions",
            json!({"origin": daemon.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await
        .unwrap();
    let tab = panel.show(&format!("{base}/menu"), "Menu page").await;
    let probe = Probe::connect(&daemon.profile_dir("wp-menu")).await;
    probe
        .eval_until(
            &tab,
            "[...document.images].every((i) => i.complete && i.naturalWidth === 40)",
            json!(true),
        )
        .await;
    let link = format!("{base}/second");

    let items = open_menu(&panel, LINK_AT).await;
    assert_eq!(
        items,
        json!([
            "Open link in new tab",
            "Copy link address",
            "Back",
            "Forward",
            "Reload",
            "Print to PDF"
        ])
    );
    // The page got its contextmenu event too.
    assert_eq!(probe.eval(&tab, "menus").await, json!(1));
    choose(&panel, "copy-link").await;
    panel
        .until(
            "the link on the clipboard",
            &format!("window.porthole.lastClipboard === '{link}'"),
        )
        .await;
    assert_eq!(
        panel.eval("navigator.clipboard.readText()").await,
        json!(link)
    );
    assert!(panel
        .eval(&format!("{PANE}.getElementById('context-menu')"))
        .await
        .is_null());

    // Copy image: the PNG lands on the clipboard.
    open_menu(&panel, (40.0, 115.0)).await;
    choose(&panel, "copy-image").await;
    panel
        .until(
            "the image on the clipboard",
            "window.porthole.lastClipboardImage && window.porthole.lastClipboardImage.width === 40",
        )
        .await;
    let types = panel
        .eval("navigator.clipboard.read().then((items) => items.flatMap((i) => i.types))")
        .await;
    assert_eq!(types, json!(["image/png"]));

    // Open link in new tab: the pane shows the new tab with the link.
    open_menu(&panel, LINK_AT).await;
    choose(&panel, "open-link").await;
    panel
        .until(
            "the pane on the new tab",
            &format!(
                "window.porthole.activeTargetId !== '{tab}' && window.porthole.pageInfo \
                 && window.porthole.pageInfo.url === '{link}' && window.porthole.tabs.length === 2"
            ),
        )
        .await;
    assert!(panel.eval("window.porthole.lastError").await.is_null());
}
