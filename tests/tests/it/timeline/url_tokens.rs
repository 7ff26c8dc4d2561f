//! Tokens in URLs are not kept (issue 38, item 5): after an agent's navigation to an OAuth
//! callback with a `code=` value and an `#access_token=` fragment, neither value is in the
//! timeline's listing, its export or any file of the channel's timeline; the URL keeps its
//! origin, path and the query's names.

use std::time::Duration;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::eventually;
use serde_json::json;

use super::{contains, events, export, files_under, serve_pages};

const CODE: &str = "Code-Secret-5d0c71";
const ACCESS_TOKEN: &str = "Access-Token-Secret-93ab2e";

#[tokio::test]
async fn query_values_and_fragments_are_not_kept_or_exported() {
    let pages = serve_pages().await;
    let daemon = TestDaemon::start().await;
    let channel = "tl-url-tokens";
    let (_, agent) = daemon.add_agent(channel, "oauth", &[]).await;
    let callback = format!("{pages}/blue?code={CODE}&state=s1#access_token={ACCESS_TOKEN}");
    daemon
        .caller(&agent)
        .act_ok("navigate", json!({ "url": callback }))
        .await;
    daemon.caller(&agent).act_ok("page_info", json!({})).await;
    let kept = format!("{pages}/blue?code=&state=");
    let all = eventually(
        "the navigation and the next call recorded",
        Duration::from_secs(30),
        || async {
            let all = events(&daemon, channel).await;
            let navigated = all.iter().any(|e| {
                e["kind"] == "navigation" && e["url"].as_str().is_some_and(|u| u.contains("/blue"))
            });
            let called = all.iter().any(|e| e["tool"] == "page_info");
            (navigated && called).then_some(all)
        },
    )
    .await;
    let listed = serde_json::to_string(&all).unwrap();
    let (status, html) = export(&daemon, channel).await;
    assert_eq!(status, 200);
    for secret in [CODE, ACCESS_TOKEN] {
        assert!(
            !listed.contains(secret),
            "{secret} in the listing: {listed}"
        );
        assert!(!contains(&html, secret), "{secret} in the export");
        for file in files_under(&daemon.data.path().join("timeline").join(channel)) {
            let bytes = std::fs::read(&file).unwrap_or_default();
            assert!(!contains(&bytes, secret), "{secret} in {}", file.display());
        }
    }
    // What is kept: origin, path and the query's names.
    let navigation = all
        .iter()
        .find(|e| {
            e["kind"] == "navigation" && e["url"].as_str().is_some_and(|u| u.contains("/blue"))
        })
        .unwrap();
    assert_eq!(navigation["url"], kept.as_str(), "{navigation}");
    let call = all.iter().find(|e| e["tool"] == "navigate").unwrap();
    assert_eq!(
        call["summary"],
        format!("navigate url={kept:?}").as_str(),
        "{call}"
    );
}
