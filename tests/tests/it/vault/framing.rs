//! A sign-in form framed by another site gets no fill (DESIGN.md §19a; the vault review's V8):
//! the page around it could move the focus to a field of its own between Porthole's focus
//! check and the typing, and receive the password. So every document from the tab's page down
//! to the field must be of the item's origins. The control: the same form framed by a page of
//! the item's own site takes the fill.

use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::eventually;
use porthole_tests::mcp::ref_of;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::tools::{received, unlocked_forum, wait_for, Unlocked};

/// `read_page` once the framed form's fields are in it.
async fn framed_fields(agent: &Caller) -> (String, String) {
    let page = eventually("the frame's fields", Duration::from_secs(10), || async {
        let (_, text) = agent.act_text("read_page", json!({})).await;
        text.contains("Password").then_some(text)
    })
    .await;
    (ref_of(&page, "User"), ref_of(&page, "Password"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_form_framed_by_another_site_gets_no_fill() {
    let Unlocked {
        site,
        _dir,
        daemon: _daemon,
        agent,
        ..
    } = unlocked_forum("framed").await;
    let other = PageServer::area("vault").await;
    other.set("FRAME", &site.url("/login.html"));
    site.set("FRAME", &site.url("/login.html"));

    agent
        .act_ok("navigate", json!({"url": other.url("/framed.html")}))
        .await;
    let (user, pass) = framed_fields(&agent).await;
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "kp/Web/Forum", "username_ref": user, "password_ref": pass}),
        )
        .await;
    assert!(
        is_error && text.contains(&format!("inside a page of {}", other.base())),
        "{text}"
    );
    assert!(
        received(&site, "/typed").is_empty(),
        "typed into the framed form: {:?}",
        site.requests()
    );

    agent
        .act_ok("navigate", json!({"url": site.url("/framed.html")}))
        .await;
    let (user, pass) = framed_fields(&agent).await;
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "kp/Web/Forum", "username_ref": user, "password_ref": pass}),
        )
        .await;
    assert!(!is_error, "{text}");
    wait_for(&site, "/typed?field=pass").await;
}
