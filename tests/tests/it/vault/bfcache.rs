//! The back/forward cache (DESIGN.md §19a; the vault review's V5): a filled page that comes
//! back from the cache is the same document, still sealed. Proven here first: headless
//! Chromium does restore it (`pageshow` with `persisted`, the password still in its field; an
//! `evaluate` read its 14 characters before the ledger kept departed documents).

use std::time::Duration;

use porthole_tests::eventually;
use serde_json::json;

use super::tools::{unlocked_forum, Unlocked};

#[tokio::test(flavor = "multi_thread")]
async fn a_filled_page_back_from_the_cache_stays_sealed() {
    let Unlocked {
        site,
        _dir,
        daemon: _daemon,
        agent,
        ..
    } = unlocked_forum("returner").await;
    agent
        .act_ok("navigate", json!({"url": site.url("/bfcache.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    agent
        .act_ok(
            "navigate",
            json!({"url": site.url("/elsewhere-plain.html")}),
        )
        .await;
    // Away from it, evaluate runs on the site again (the filled page is gone from the tab).
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": "document.title"}))
        .await;
    assert!(!is_error && text.contains("Elsewhere"), "{text}");
    agent.act_ok("go_back", json!({})).await;
    let title = eventually("the page back", Duration::from_secs(10), || async {
        let (_, info) = agent.act_text("page_info", json!({})).await;
        ["Restored", "Loaded"]
            .into_iter()
            .find(|t| info.contains(&format!("Title: {t}")) || info.contains(&format!("\"{t}\"")))
            .map(str::to_string)
    })
    .await;
    assert_eq!(
        title, "Restored",
        "this Chromium restores the filled page from its back/forward cache (the case this \
         test is about); if it now loads it anew, the field is empty and this test needs \
         another look"
    );
    let (is_error, text) = agent
        .act_text(
            "evaluate",
            json!({"expression": "document.querySelector('#pass').value.length"}),
        )
        .await;
    assert!(
        is_error && text.contains("Refused") && text.contains("filled"),
        "evaluate ran in the restored filled page: {text}"
    );
    // Away again, script runs on the site again.
    agent
        .act_ok(
            "navigate",
            json!({"url": site.url("/elsewhere-plain.html")}),
        )
        .await;
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": "document.title"}))
        .await;
    assert!(!is_error && text.contains("Elsewhere"), "{text}");
}
