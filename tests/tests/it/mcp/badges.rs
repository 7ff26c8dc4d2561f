//! The vision fallback (issue 12), in both MCP binaries: `screenshot {badges: true}` draws a
//! ref on each clickable thing, a canvas the accessibility tree misses included, lists the
//! refs, and leaves the page as it was; the canvas (300×200) is cut into regions of about
//! 100 px, each with a ref, and `computer {ref}` with a region's badge lands at that region's
//! centre. Same-origin and cross-origin frames get badges where they show, and their refs act
//! inside them; a dialog over a cross-origin frame hides its badges. Bad input (an unknown
//! ref) is a clear error result.

use base64::Engine as _;
use serde_json::json;

use super::both::Both;
use super::harness::{call, err, eval, eval_until, image, is_error, ok, text};

/// The badge colour drawn by the daemon (tools/badges.rs).
const INK: [u8; 3] = [224, 0, 122];

fn decode(b64: &str) -> image::RgbImage {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64 image");
    image::load_from_memory(&bytes).expect("an image").to_rgb8()
}

/// Opens `url` with the viewport at 800×600 (the size the pixel checks are written for).
async fn open_at_800x600(mcp: &super::harness::Client, url: String) {
    ok(mcp, "navigate", json!({ "url": url })).await;
    ok(mcp, "resize_window", json!({"width": 800, "height": 600})).await;
}

/// The ref of the badge whose line in a badged screenshot's listing ends with `what`.
fn badge_ref(name: &str, listing: &str, what: &str) -> String {
    listing
        .lines()
        .find(|l| l.ends_with(what))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("{name}: no badge for {what:?} in\n{listing}"))
        .to_string()
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (i16::from(*x) - i16::from(y)).abs() < 48)
}

#[tokio::test]
async fn badges_name_a_canvas_and_a_click_by_its_ref_lands_on_it() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let both = Both::start(pages.addr, "mcp-badges").await;
    for (name, mcp) in &both.clients {
        open_at_800x600(mcp, format!("http://{pages}/canvas")).await;
        // The tree does not show the canvas.
        let snap = ok(mcp, "read_page", json!({})).await;
        assert!(
            !snap.lines().skip(1).any(|l| l.contains("canvas")),
            "{name}: {snap}"
        );
        let dom_before = eval(mcp, "document.documentElement.outerHTML").await;

        let shot = call(mcp, "screenshot", json!({"badges": true})).await;
        let listing = text(&shot);
        assert!(!is_error(&shot), "{name}: {listing}");
        let region = |row: u32, col: u32| {
            badge_ref(
                name,
                &listing,
                &format!(" canvas region row {row} col {col}"),
            )
        };
        let regions = listing.matches(" canvas region ").count();
        assert_eq!(regions, 6, "{name}: 3 × 2 regions\n{listing}");
        assert!(
            listing.contains("button \"Real button\""),
            "{name}: {listing}"
        );
        let (data, mime) = image(&shot).expect("an image block");
        assert_eq!(mime, "image/jpeg");
        let img = decode(&data);
        let scale = f64::from(img.width()) / 800.0;
        let at = |x: f64, y: f64| img.get_pixel((x * scale) as u32, (y * scale) as u32).0;
        // The canvas's label sits at its top-left corner (100, 150) in the badge colour; the
        // canvas's own green shows further in.
        assert!(
            near(at(101.0, 151.0), INK),
            "{name}: {:?}",
            at(101.0, 151.0)
        );
        assert!(
            near(at(250.0, 300.0), [0x22, 0xaa, 0x77]),
            "{name}: {:?}",
            at(250.0, 300.0)
        );
        // A plain screenshot has no badge there: the page itself was not drawn on.
        let plain = call(mcp, "screenshot", json!({})).await;
        let plain = decode(&image(&plain).expect("an image block").0);
        let p = plain
            .get_pixel((101.0 * scale) as u32, (151.0 * scale) as u32)
            .0;
        assert!(!near(p, INK), "{name}: {p:?}");
        assert_eq!(
            eval(mcp, "document.documentElement.outerHTML").await,
            dom_before,
            "{name}: the page changed"
        );

        // A click by a region's badge ref lands at that region's centre (canvas pixels).
        for (row, col) in [(1, 2), (2, 3)] {
            ok(
                mcp,
                "computer",
                json!({"action": "left_click", "ref": region(row, col)}),
            )
            .await;
        }
        eval_until(
            mcp,
            "JSON.stringify(window.hits)",
            json!("[[150,50],[250,150]]"),
        )
        .await;

        // Bad input: a ref no page issued.
        let e = err(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": "e99999"}),
        )
        .await;
        assert!(e.contains("Unknown ref e99999"), "{name}: {e}");
    }
}

#[tokio::test]
async fn badges_reach_into_same_origin_iframes_and_their_refs_act_there() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let both = Both::start(pages.addr, "mcp-badges-frames").await;
    for (name, mcp) in &both.clients {
        open_at_800x600(mcp, format!("http://{pages}/complex")).await;
        let shot = call(mcp, "screenshot", json!({"badges": true})).await;
        let listing = text(&shot);
        assert!(!is_error(&shot), "{name}: {listing}");
        let email = badge_ref(name, &listing, "textbox \"Email\"");
        assert!(
            listing.contains("button \"Subscribe\""),
            "{name}: {listing}"
        );
        // The ref types into the field inside the frame.
        ok(
            mcp,
            "computer",
            json!({"action": "type", "ref": email, "text": "me@example.com"}),
        )
        .await;
        eval_until(
            mcp,
            "document.getElementById('frame').contentDocument.getElementById('email').value",
            json!("me@example.com"),
        )
        .await;
    }
}

#[tokio::test]
async fn badges_reach_into_cross_origin_frames_and_their_refs_act_there() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let port = pages.port();
    let both = Both::start(pages.addr, "mcp-badges-xframes").await;
    for (name, mcp) in &both.clients {
        open_at_800x600(mcp, format!("http://127.0.0.1:{port}/xsite")).await;
        eval_until(mcp, "window.frameLoads.join(',')", json!("1")).await;
        let shot = call(mcp, "screenshot", json!({"badges": true})).await;
        let listing = text(&shot);
        assert!(!is_error(&shot), "{name}: {listing}");
        let badge = |what: &str| badge_ref(name, &listing, what);
        badge("button \"Top button\"");
        let cross = badge("button \"Cross button\"");
        badge("textbox \"Cross name\"");
        // The frame's badges are drawn where the frame shows (its content box starts at
        // x = 8 + 140 + 4 + 6 = 158), not at the frame's own origin in the top-left corner.
        let img = decode(&image(&shot).expect("an image block").0);
        let scale = f64::from(img.width()) / 800.0;
        let ink_in = |x0: f64, x1: f64, y0: f64, y1: f64| {
            let (x0, x1) = ((x0 * scale) as u32, (x1 * scale) as u32);
            let (y0, y1) = ((y0 * scale) as u32, (y1 * scale) as u32);
            (y0..y1).any(|y| (x0..x1).any(|x| near(img.get_pixel(x, y).0, INK)))
        };
        assert!(
            ink_in(160.0, 470.0, 60.0, 220.0),
            "{name}: no badge in the frame"
        );
        // The ref clicks inside the frame.
        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": cross}),
        )
        .await;
        // The button's own line, not the query echoed by a "Nothing on the page matches" answer.
        let found = ok(mcp, "find", json!({"query": "Clicked inside"})).await;
        assert!(
            found.contains("button \"Clicked inside\""),
            "{name}: {found}"
        );

        // A dialog drawn over the frame hides the frame's badges.
        ok(
            mcp,
            "evaluate",
            json!({"expression": "const d = document.createElement('div'); d.style.cssText = 'position:fixed;inset:0;background:#fff'; d.textContent = 'Cover'; document.body.append(d); 1"}),
        )
        .await;
        let covered = call(mcp, "screenshot", json!({"badges": true})).await;
        assert!(!is_error(&covered), "{name}: {}", text(&covered));
        assert!(image(&covered).is_some(), "{name}: a screenshot came back");
        assert!(
            !text(&covered).contains("Cross"),
            "{name}: {}",
            text(&covered)
        );
    }
}

#[tokio::test]
async fn a_cross_origin_frame_inside_a_same_origin_frame_gets_badges_that_click_there() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let port = pages.port();
    let both = Both::start(pages.addr, "mcp-badges-wrapped").await;
    for (name, mcp) in &both.clients {
        open_at_800x600(mcp, format!("http://127.0.0.1:{port}/wrapped-xsite")).await;
        eval_until(
            mcp,
            "document.getElementById('w').contentWindow.frameLoads.join(',')",
            json!("1"),
        )
        .await;
        let shot = call(mcp, "screenshot", json!({"badges": true})).await;
        let listing = text(&shot);
        assert!(!is_error(&shot), "{name}: {listing}");
        let cross = badge_ref(name, &listing, "button \"Cross button\"");
        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": cross}),
        )
        .await;
        // The button's own line, not the query echoed by a "Nothing on the page matches" answer.
        let found = ok(mcp, "find", json!({"query": "Clicked inside"})).await;
        assert!(
            found.contains("button \"Clicked inside\""),
            "{name}: {found}"
        );
    }
}
