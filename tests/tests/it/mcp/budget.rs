//! The token budget (issue 12, DESIGN.md §7), measured through `porthole-mcp` against a real
//! daemon on fixed local pages (sizes are deterministic): `read_page` of a complex page (an
//! iframe, an open shadow root, 100 list rows) stays within the smallest peer's snapshot and
//! keeps the frame and shadow content; paging with `offset` / `max_bytes` returns the rest,
//! each answer within `max_bytes` with its cut note;
//! action results stay under 1 KB; generated complex pages (seeds the compaction was not tuned
//! on) stay within a budget derived from their content with a ref for every control, and
//! every `max_bytes` window of one stays within `max_bytes`, note included.

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

/// What a snapshot may spend on each actionable element beyond its name and values: dash,
/// indentation, role, quotes, ref and a state word. Peers spend 25–40 (agent-browser's
/// `- link "…" [ref=e123]` is 20 plus the role).
const PER_ELEMENT_BYTES: usize = 26;
/// What a snapshot may spend on the rest of a generated page: the header line, headings,
/// named sections, frames and off-screen marks.
const PAGE_BYTES: usize = 700;

/// The snapshot line holding `"name"` (quoted, so `Pick 1` is not `Pick 12`).
fn line_of<'a>(snap: &'a str, name: &str) -> Option<(usize, &'a str)> {
    let quoted = format!("\"{name}\"");
    snap.lines().enumerate().find(|(_, l)| l.contains(&quoted))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Loads generated page `seed` (its nested frame too) and reads all of its snapshot.
async fn read_family_page(mcp: &Client, pages: &str, seed: u64) -> String {
    let page = porthole_tests::page_family::page(seed);
    let nested = page
        .actionable
        .iter()
        .find(|n| n.starts_with("Nested "))
        .expect("a nested frame's link");
    ok(
        mcp,
        "navigate",
        json!({"url": format!("http://{pages}/family/{seed}"), "wait_for_text": nested}),
    )
    .await;
    ok(mcp, "read_page", json!({"max_bytes": 50_000})).await
}

/// Generated complex pages (tests/src/page_family.rs) with seeds the compaction was not tuned
/// on (the bench measures seeds 0..8): every actionable element has a line with its name and
/// a ref, hidden parts are left out, frame content sits under its frame, off-screen runs are
/// said, and the whole snapshot stays within a budget derived from the page's content.
#[tokio::test]
async fn generated_pages_fit_a_content_budget_and_every_control_has_a_ref() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let mcp = proxy(&daemon).await;
    for seed in porthole_tests::page_family::TEST_SEEDS {
        let page = porthole_tests::page_family::page(seed);
        let snap = read_family_page(&mcp, &pages.to_string(), seed).await;
        assert!(!snap.contains("[Cut:"), "seed {seed}: cut:\n{snap}");
        for name in &page.actionable {
            let (_, line) = line_of(&snap, name)
                .unwrap_or_else(|| panic!("seed {seed}: no line for {name:?} in:\n{snap}"));
            assert!(line.contains("[ref=e"), "seed {seed}: no ref on {line:?}");
        }
        for name in &page.hidden {
            assert!(
                !snap.contains(name.as_str()),
                "seed {seed}: hidden {name:?} shown:\n{snap}"
            );
        }
        let budget = PAGE_BYTES + page.content_bytes() + PER_ELEMENT_BYTES * page.actionable.len();
        eprintln!(
            "seed {seed}: {} bytes for {} actionable elements, budget {budget}",
            snap.len(),
            page.actionable.len()
        );
        assert!(
            snap.len() <= budget,
            "seed {seed}: {} bytes > budget {budget}:\n{snap}",
            snap.len()
        );
        // Which frame: the nested frame's link is under the frame inside the frame.
        let (outer, outer_line) = line_of(&snap, "Newsletter").expect("the frame");
        let (inner, inner_line) = line_of(&snap, "Inner").expect("the nested frame");
        let nested = page
            .actionable
            .iter()
            .find(|n| n.starts_with("Nested "))
            .unwrap();
        let (link, link_line) = line_of(&snap, nested).expect("the nested link");
        assert!(
            outer < inner
                && inner < link
                && indent(outer_line) < indent(inner_line)
                && indent(inner_line) < indent(link_line),
            "seed {seed}: frames out of place:\n{snap}"
        );
        // The long list or table runs below the viewport: said once, not on every row.
        assert!(
            snap.contains("[↓ below the viewport:]"),
            "seed {seed}:\n{snap}"
        );
        assert!(
            !snap.contains("] ↓\n"),
            "seed {seed}: marked per row:\n{snap}"
        );
    }
}

/// `read_page {max_bytes}` on a generated page: every answer, header and cut note included, is
/// at most `max_bytes`, and following the offsets gives back the whole snapshot.
#[tokio::test]
async fn every_window_with_its_note_stays_within_max_bytes() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let mcp = proxy(&daemon).await;
    let seed = porthole_tests::page_family::TEST_SEEDS[0];
    let whole = read_family_page(&mcp, &pages.to_string(), seed).await;
    let body = whole.split_once('\n').unwrap().1;
    for max in [500, 777, 1000, 2048] {
        let mut offset = 0;
        let mut seen: Vec<String> = Vec::new();
        for _ in 0..200 {
            let part = ok(
                &mcp,
                "read_page",
                json!({"offset": offset, "max_bytes": max}),
            )
            .await;
            assert!(
                part.len() <= max,
                "max_bytes {max} answered {} bytes:\n{part}",
                part.len()
            );
            let mut rows: Vec<&str> = part.lines().skip(1).collect();
            let note = rows.last().filter(|l| l.starts_with("[Cut:")).copied();
            if note.is_some() {
                rows.pop();
            }
            seen.extend(rows.into_iter().map(str::to_string));
            let Some(next) = note.and_then(|n| n.split("offset=").nth(1)) else {
                break;
            };
            offset = next[..next.find(|c: char| !c.is_ascii_digit()).unwrap()]
                .parse::<u64>()
                .unwrap();
        }
        assert_eq!(
            seen.join("\n"),
            body,
            "windows of {max} add up to the snapshot"
        );
    }
}
