//! The context menu the pane offers (DESIGN.md §15), through the pane's WebSocket against the
//! real daemon and Chromium: the person's right click on a link, an image or selected text
//! sends `context_menu` with what is under the point; open in new tab opens the link in a tab
//! the pane shows; copy image answers `image_copy` with PNG bytes, for a same-origin image and
//! for a cross-origin one (whose canvas would be tainted); a page that draws its own menu
//! still gets the event and the pane gets none. The same through `<porthole-pane>` is in
//! `web_panel::context_menu`. The page is `tests/pages/pane_context_menu/menu.html`.

use base64::Engine as _;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// Where things are on the page (CSS px).
pub(crate) const LINK_AT: (f64, f64) = (40.0, 32.0);
const SAME_IMAGE_AT: (f64, f64) = (40.0, 115.0);
const CROSS_IMAGE_AT: (f64, f64) = (120.0, 115.0);
const OWN_MENU_AT: (f64, f64) = (100.0, 220.0);
const TEXT_AT: (f64, f64) = (60.0, 312.0);

/// Serves the menu page (`tests/pages/pane_context_menu/`: its second image, a 40×30 JPEG,
/// from `localhost`, another origin) and a second page on 127.0.0.1; returns the base URL.
pub(crate) async fn serve_menu_pages() -> String {
    PageServer::area("pane_context_menu").await.base()
}

pub(crate) fn right_click(pane: &Pane, (x, y): (f64, f64)) {
    for kind in ["mousedown", "mouseup"] {
        pane.input(
            kind,
            json!({"x": x, "y": y, "button": "right", "click_count": 1}),
        );
    }
}

/// Right-clicks at `at` and returns the `context_menu` the pane gets.
async fn menu_at(pane: &Pane, at: (f64, f64)) -> Value {
    let mark = pane.mark();
    right_click(pane, at);
    pane.next_of("context_menu", mark).await
}

/// Width and height of a PNG, from its header.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[tokio::test]
async fn a_right_click_offers_the_link_image_and_text_under_the_point() {
    let daemon = TestDaemon::start().await;
    let base = serve_menu_pages().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("cm-menu").await;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": format!("{base}/menu")}));
    pane.message_where("the menu page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Menu page"
    })
    .await;
    let probe = Probe::connect(&daemon.profile_dir("cm-menu")).await;
    probe
        .eval_until(
            &tab,
            "[...document.images].every((i) => i.complete && i.naturalWidth === 40)",
            json!(true),
        )
        .await;

    // A page that draws its own menu gets the event; the pane gets no menu for it (the next
    // menu the pane gets is the link's).
    let mark = pane.mark();
    right_click(&pane, OWN_MENU_AT);
    probe.eval_until(&tab, "ownMenus", json!(1)).await;
    right_click(&pane, LINK_AT);
    let menu = pane.next_of("context_menu", mark).await;
    assert_eq!(menu["target_id"], tab.as_str());
    assert_eq!(menu["link"], format!("{base}/second"));
    assert_eq!(menu["link_text"], "A link");
    assert!(menu.get("image").is_none(), "{menu}");
    assert_eq!(
        (menu["x"].clone(), menu["y"].clone()),
        (json!(40.0), json!(32.0))
    );
    assert_eq!(probe.eval(&tab, "menus").await, json!(2));

    // Copy image of a menu with no image, or of no menu: an error, the connection kept.
    for (id, code) in [
        (menu["id"].clone(), "bad_request"),
        (json!("cm_nothing"), "no_context_menu"),
    ] {
        let mark = pane.mark();
        pane.send(json!({"type": "copy_image", "id": id}));
        assert_eq!(pane.next_of("error", mark).await["code"], code, "{id}");
    }

    // Open link in new tab: the pane's new_tab with the link opens it, and the pane shows it.
    let mark = pane.mark();
    pane.send(json!({"type": "new_tab", "url": menu["link"]}));
    let created = pane
        .message_where("the new tab", mark, |m| {
            m["type"] == "tab_created" && m["target_id"] != tab.as_str()
        })
        .await;
    pane.message_where("the second page in the new tab", mark, |m| {
        m["type"] == "page_info"
            && m["target_id"] == created["target_id"]
            && m["title"] == "Second"
            && m["url"] == format!("{base}/second").as_str()
    })
    .await;
    let mark = pane.mark();
    pane.send(json!({"type": "switch_tab", "target_id": tab}));
    pane.message_where("back on the menu page", mark, |m| {
        m["type"] == "tab_switched" && m["target_id"] == tab.as_str()
    })
    .await;

    // Images: same-origin (drawn in the page) and cross-origin (from Chrome's cache) both
    // come back as a 40×30 PNG.
    for (at, address) in [
        (SAME_IMAGE_AT, format!("{base}/pic.jpg")),
        (
            CROSS_IMAGE_AT,
            format!("{}/pic.jpg", base.replace("127.0.0.1", "localhost")),
        ),
    ] {
        let menu = menu_at(&pane, at).await;
        assert_eq!(menu["image"], address.as_str(), "{menu}");
        let mark = pane.mark();
        pane.send(json!({"type": "copy_image", "id": menu["id"]}));
        let copied = pane
            .message_where("image_copy or error", mark, |m| {
                m["type"] == "image_copy" || m["type"] == "error"
            })
            .await;
        assert_eq!(copied["type"], "image_copy", "{address}: {copied}");
        assert_eq!(copied["id"], menu["id"]);
        let png = base64::engine::general_purpose::STANDARD
            .decode(copied["png"].as_str().unwrap())
            .unwrap();
        assert_eq!(png_size(&png), (40, 30), "{address}");
        assert_eq!(
            (copied["width"].clone(), copied["height"].clone()),
            (json!(40), json!(30))
        );
    }

    // Selected text under the point.
    probe
        .eval(
            &tab,
            "getSelection().selectAllChildren(document.getElementById('para'))",
        )
        .await;
    let menu = menu_at(&pane, TEXT_AT).await;
    assert_eq!(menu["selection"], "select these words");
    assert!(menu.get("link").is_none(), "{menu}");
}
