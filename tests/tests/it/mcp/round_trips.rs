//! Round trips a tool call waits on (issue 22): the tools' world, helper installed, is made by
//! Chrome in every new document of a tab the tools have used, so after a navigation no tool
//! makes one (`Page.createIsolatedWorld` and the helper's install are two round trips to a
//! browser far away). The world Chrome made reads the page and clicks by ref like one the
//! tools made, in the main frame and not in a frame inside it. Run on
//! `porthole mcp-host-browser` and a test Chromium; the server's debug log tells each world
//! it made (`tools_world_created`).

use serde_json::json;

use super::harness::{ok, ref_of};
use super::host::LoggedHost;

#[tokio::test]
async fn after_a_navigation_the_tools_find_their_world_made_by_chrome() {
    let host = LoggedHost::start().await;
    let (mcp, url) = (&host.mcp, |p: &str| host.url(p));
    let worlds_made = || host.log().matches("event=\"tools_world_created\"").count();

    let t = ok(mcp, "navigate", json!({"url": url("/second")})).await;
    assert!(t.contains("Title: Second page"), "{t}");
    // The first call in a tab has Chrome make the world in the tab's new documents before it
    // navigates: the new page has it already.
    assert_eq!(
        worlds_made(),
        0,
        "the first navigate found its world made by Chrome"
    );

    // The form page has a same-origin frame: Chrome makes the world there too, and the tools
    // still read and act in the main frame's.
    let t = ok(mcp, "navigate", json!({"url": url("/form")})).await;
    assert!(t.contains("Title: Form page"), "{t}");
    let snap = ok(mcp, "read_page", json!({"filter": "interactive"})).await;
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Change\"")}),
    )
    .await;
    assert!(t.contains("left_click"), "{t}");
    let status = ok(
        mcp,
        "evaluate",
        json!({"expression": "document.getElementById('status').textContent"}),
    )
    .await;
    assert!(status.contains("Changed!"), "{status}");

    let t = ok(mcp, "navigate", json!({"url": url("/second")})).await;
    assert!(t.contains("Title: Second page"), "{t}");
    let text = ok(mcp, "get_page_text", json!({})).await;
    assert!(text.contains("Second"), "{text}");
    assert_eq!(
        worlds_made(),
        0,
        "no tool made a world after a navigation:\n{}",
        host.log()
    );
}

/// The bench's 8-step script (issues 21, 22) on `data:` pages: each step's tool call waits on
/// at most a couple of CDP replies one after another — `navigate` on its commit and one
/// settle, a click on its aim and its settle, `go_back` on the history step and its settle
/// (the URL guard's look at the entry costs nothing of its own), `screenshot` on the capture.
/// Each bound is a count of replies waited on in turn (round trips to a browser far away),
/// read from the server's `tool_run` lines, not a time.
#[tokio::test]
async fn the_bench_script_waits_on_few_round_trips_per_call() {
    use porthole_tests::pages::{data_url, page};
    let host = LoggedHost::start().await;
    let mcp = &host.mcp;
    let (form, page2) = (
        data_url(&page("bench/form.html")),
        data_url(&page("bench/page2.html")),
    );
    let script = || async {
        let t = ok(mcp, "navigate", json!({ "url": form })).await;
        assert!(t.contains("Title: Bench form"), "{t}");
        let snap = ok(mcp, "read_page", json!({})).await;
        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": ref_of(&snap, "button \"Change\"")}),
        )
        .await;
        ok(
            mcp,
            "computer",
            json!({"action": "type", "ref": ref_of(&snap, "textbox \"Name\""), "text": "hello"}),
        )
        .await;
        ok(
            mcp,
            "form_input",
            json!({"ref": ref_of(&snap, "combobox \"Color\""), "value": "Green"}),
        )
        .await;
        let done = ok(
            mcp,
            "evaluate",
            json!({"expression": "['status', 'name', 'color'].map((id) => { const e = document.getElementById(id); return e.value || e.textContent; }).join('|')"}),
        )
        .await;
        assert!(done.contains("Changed!|hello|g"), "{done}");
        let t = ok(mcp, "navigate", json!({ "url": page2 })).await;
        assert!(t.contains("Title:"), "{t}");
        let t = ok(mcp, "go_back", json!({})).await;
        assert!(t.contains("Title: Bench form"), "{t}");
        ok(mcp, "screenshot", json!({})).await;
    };
    // The first run makes the tools' world; the second is counted.
    script().await;
    let seen = host.log().len();
    script().await;
    let counted = porthole_tests::tool_runs::cdp_counts(&host.log()[seen..]);
    // Most replies each call may wait on one after another (the check `evaluate` is the
    // agent's code: compiled, then run).
    let most = [
        ("navigate", 2),
        ("read_page", 1),
        ("computer", 2),
        ("computer", 2),
        ("form_input", 2),
        ("evaluate", 2),
        ("navigate", 2),
        ("go_back", 2),
        ("screenshot", 1),
    ];
    let tools: Vec<&str> = counted.iter().map(|(t, _, _)| t.as_str()).collect();
    let expected: Vec<&str> = most.iter().map(|(t, _)| *t).collect();
    assert_eq!(tools, expected, "{counted:?}");
    for (step, ((tool, commands, waits), (_, bound))) in counted.iter().zip(most).enumerate() {
        assert!(
            *waits <= bound,
            "step {step} ({tool}, {commands} commands) waited on {waits} replies in turn, \
             more than {bound}: {counted:?}"
        );
    }
}

/// `go_back` takes its entry from the history read beside the last navigation's settle (no
/// round trip of its own) only while no navigation happened since: after the page navigates
/// by itself, it still goes back one step from where the page is.
#[tokio::test]
async fn go_back_after_the_pages_own_navigation_goes_back_from_where_it_is() {
    let host = LoggedHost::start().await;
    let (mcp, url) = (&host.mcp, |p: &str| host.url(p));

    ok(mcp, "navigate", json!({"url": url("/second")})).await;
    let t = ok(mcp, "navigate", json!({"url": url("/form")})).await;
    assert!(t.contains("Title: Form page"), "{t}");
    // Straight back and forth: both steps as asked.
    let t = ok(mcp, "go_back", json!({})).await;
    assert!(t.contains("Title: Second page"), "{t}");
    let t = ok(mcp, "go_forward", json!({})).await;
    assert!(t.contains("Title: Form page"), "{t}");

    // The page goes on to another page by itself, after the tool's settle.
    ok(
        mcp,
        "evaluate",
        json!({"expression": format!("setTimeout(() => location.href = {:?}, 50); 1", url("/settle"))}),
    )
    .await;
    porthole_tests::eventually(
        "the page's own navigation",
        std::time::Duration::from_secs(20),
        || async {
            let info = ok(mcp, "page_info", json!({})).await;
            info.contains("Settle page").then_some(())
        },
    )
    .await;
    let t = ok(mcp, "go_back", json!({})).await;
    assert!(
        t.contains("Title: Form page"),
        "went back from the settle page: {t}"
    );
}
