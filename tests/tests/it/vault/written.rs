//! A page written by script counts as scripted (DESIGN.md §19a; the vault review's V3): an
//! agent's `evaluate` on the item's own site makes a sign-in page of that same origin out of a
//! `blob:` URL, with a listener of its own, and moves the tab there. That document is new (its
//! own loader id, so the evaluate's mark on the old one does not reach it) and of the item's
//! origin: the fill is refused there all the same, and nothing reaches the listener. The
//! control: the site's own sign-in page, loaded again, takes the fill.

use std::time::Duration;

use porthole_tests::eventually;
use serde_json::json;

use super::tools::{unlocked_forum, wait_for, Unlocked};

#[tokio::test(flavor = "multi_thread")]
async fn a_page_written_by_script_never_gets_a_fill() {
    let Unlocked {
        site,
        _dir,
        daemon: _daemon,
        agent,
        ..
    } = unlocked_forum("launderer").await;
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let page = "<title>Written</title><form><input id=user name=user autocomplete=username>\
        <input id=pass name=pass type=password></form><script>document.querySelector('#pass')\
        .addEventListener('input', e => { document.title = 'got ' + e.target.value.length; })\
        </script>";
    let expression = format!(
        "location.href = URL.createObjectURL(new Blob([{}], {{type: 'text/html'}})); 'moved'",
        json!(page)
    );
    agent
        .act_ok("evaluate", json!({ "expression": expression }))
        .await;
    eventually(
        "the tab on the written page",
        Duration::from_secs(10),
        || async {
            let (_, info) = agent.act_text("page_info", json!({})).await;
            (info.contains("blob:http://127.0.0.1") && info.contains("Written")).then_some(())
        },
    )
    .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(is_error && text.contains("written by script"), "{text}");
    let (_, info) = agent.act_text("page_info", json!({})).await;
    assert!(!info.contains("got "), "the listener got a value: {info}");

    // The control: the site's own page takes the same fill.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    wait_for(&site, "/typed?field=pass").await;
}
