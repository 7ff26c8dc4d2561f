//! The token budget (issue 12, DESIGN.md §7), measured through `porthole-mcp` against a real
//! daemon on fixed local pages (sizes are deterministic): `read_page` of a complex page (an
//! iframe, an open shadow root, 100 list rows) stays within the smallest peer's snapshot and
//! keeps the frame and shadow content; paging with `offset` / `max_bytes` returns the rest,
//! each answer within `max_bytes` with its cut note;
//! action results stay under 1 KB.

use porthole_tests::daemon::TestDaemon;
use serde_json::json;

use super::harness::{err, ok, ref_of, Client};

const CHANNEL: &str = "mcp-budget";

/// The smallest peer's snapshot of the complex page (issue 12), in bytes.
const PEER_SNAPSHOT_BYTES: usize = 5_900;
/// An action's result when it was not asked for page content.
const ACTION_RESULT_BYTES: usize = 1_024;

async fn proxy(daemon: &TestDaemon) -> Client {
    super::harness::owner_proxy(daemon, CHANNEL, &[]).await
}

#[tokio::test]
async fn complex_page_snapshot_fits_the_budget_and_pages_through_the_rest() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let mcp = proxy(&daemon).await;
    let nav = ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/complex"), "wait_for_text": "Product 100"}),
    )
    .await;
    assert!(
        nav.len() <= ACTION_RESULT_BYTES,
        "navigate said {} bytes:\n{nav}",
        nav.len()
    );

    let snap = ok(&mcp, "read_page", json!({})).await;
    eprintln!(
        "read_page (interactive) of the complex page: {} bytes\n{snap}",
        snap.len()
    );
    for needle in [
        "Product 1: oak desk lamp\"",
        "Product 100: oak desk lamp\"",
        "Subscribe",
        "Checkout",
        "View cart",
        "Search",
    ] {
        assert!(snap.contains(needle), "{needle} missing in:\n{snap}");
    }
    assert!(
        snap.len() <= PEER_SNAPSHOT_BYTES,
        "read_page is {} bytes; the smallest peer's is {PEER_SNAPSHOT_BYTES}",
        snap.len()
    );
    let all = ok(&mcp, "read_page", json!({"filter": "all"})).await;
    eprintln!(
        "read_page (all) of the complex page: {} bytes\n{all}",
        all.len()
    );
    for needle in [
        "Get our newsletter",
        "Cart total: 0 items",
        "In stock",
        "href=\"/products/1\"",
    ] {
        assert!(all.contains(needle), "{needle} missing in:\n{all}");
    }

    // Paging: a small window ends with a note naming the offset that continues; following the
    // offsets visits every line once and ends without a note.
    let mut offset = 0;
    let mut seen = String::new();
    for _ in 0..50 {
        let part = ok(
            &mcp,
            "read_page",
            json!({"offset": offset, "max_bytes": 1000}),
        )
        .await;
        assert!(
            part.len() <= 1000,
            "read_page {{max_bytes: 1000}} answered {} bytes (the cut note counts):\n{part}",
            part.len()
        );
        let (body, note) = match part.rfind("\n[Cut:") {
            Some(i) => (&part[..i], Some(&part[i..])),
            None => (part.as_str(), None),
        };
        let body = body.split_once('\n').map(|(_, b)| b).unwrap_or_default();
        assert!(body.len() <= 1000, "window of {} bytes", body.len());
        seen.push_str(body);
        seen.push('\n');
        let Some(next) = note.and_then(|n| n.split("offset=").nth(1)) else {
            break;
        };
        offset = next
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse::<u64>()
            .unwrap();
    }
    let body = snap.split_once('\n').unwrap().1;
    assert_eq!(
        seen.trim_end(),
        body.trim_end(),
        "the windows add up to the whole tree"
    );

    // max_bytes out of range names the range.
    let e = err(&mcp, "read_page", json!({"max_bytes": 100})).await;
    assert!(e.contains("between 500 and 50000"), "{e}");

    // Action results stay small.
    let search = ref_of(&snap, "Search");
    let typed = ok(
        &mcp,
        "computer",
        json!({"action": "type", "ref": search, "text": "lamp"}),
    )
    .await;
    assert!(
        typed.len() <= ACTION_RESULT_BYTES,
        "type said {} bytes:\n{typed}",
        typed.len()
    );
    let filled = ok(&mcp, "form_input", json!({"ref": search, "value": "desk"})).await;
    assert!(
        filled.len() <= ACTION_RESULT_BYTES,
        "form_input said {} bytes:\n{filled}",
        filled.len()
    );
    let row = ref_of(&snap, "Product 50:");
    let click = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": row}),
    )
    .await;
    assert!(
        click.len() <= ACTION_RESULT_BYTES,
        "click said {} bytes:\n{click}",
        click.len()
    );
}
