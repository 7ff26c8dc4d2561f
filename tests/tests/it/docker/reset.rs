//! A profile reset clears the channel's profiles in every mode of ours (issue 38 item 3): a
//! mode switch keeps the other mode's browser and profile, so a reset made in docker mode must
//! also clear the local profile, and one made in local mode the docker sidecar and its volume.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::docker::container;
use porthole_tests::docker::{
    self, ensure_image, inspect_container, unique, volume_exists, DockerCleanup,
};
use porthole_tests::pages::PageServer;
use serde_json::{json, Value};

fn volume(channel: &str) -> String {
    format!("porthole-chrome-profile-{channel}")
}

/// A tool call with the owner token that must succeed; returns its text.
async fn owner_act(daemon: &TestDaemon, channel: &str, tool: &str, args: Value) -> String {
    let body = daemon.owner_on(channel).act_ok(tool, args).await;
    body["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

async fn switch(daemon: &TestDaemon, channel: &str, mode: &str) {
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": channel, "mode": mode}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

/// The channel's cookies on the test page, in its current mode.
async fn cookies(daemon: &TestDaemon, channel: &str, pages: &PageServer) -> String {
    owner_act(
        daemon,
        channel,
        "navigate",
        json!({"url": pages.url("/input")}),
    )
    .await;
    owner_act(
        daemon,
        channel,
        "evaluate",
        json!({"expression": "document.cookie"}),
    )
    .await
}

/// Sets a persistent cookie in the channel's current mode.
async fn set_cookie(daemon: &TestDaemon, channel: &str, pages: &PageServer) {
    owner_act(
        daemon,
        channel,
        "navigate",
        json!({"url": pages.url("/input")}),
    )
    .await;
    owner_act(
        daemon,
        channel,
        "evaluate",
        json!({"expression": "document.cookie = 'kept=yes; max-age=86400; path=/'; document.cookie"}),
    )
    .await;
    assert!(cookies(daemon, channel, pages).await.contains("kept=yes"));
}

async fn reset(daemon: &TestDaemon, channel: &str) {
    let (status, body) = daemon
        .post(
            "/api/browser/profile/reset",
            &json!({"channel_id": channel}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["removed"], true, "{body}");
}

#[tokio::test]
async fn a_reset_in_either_mode_clears_the_other_modes_profile_too() {
    ensure_image().await;
    let tag = unique("dk-reset");
    let _cleanup = DockerCleanup::new(&tag);
    let pages = PageServer::start().await;
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;

    // A cookie in each mode; both browsers and profiles are kept across the switches.
    switch(&daemon, &tag, "local").await;
    set_cookie(&daemon, &tag, &pages).await;
    assert!(daemon.profile_dir(&tag).exists());
    switch(&daemon, &tag, "docker").await;
    set_cookie(&daemon, &tag, &pages).await;
    assert!(volume_exists(&volume(&tag)));

    // Reset in docker mode: the local profile goes too, and switching back finds no cookie.
    reset(&daemon, &tag).await;
    assert!(inspect_container(&container(&tag)).is_none());
    assert!(!volume_exists(&volume(&tag)));
    assert!(
        !daemon.profile_dir(&tag).exists(),
        "the local profile survived a reset made in docker mode"
    );
    switch(&daemon, &tag, "local").await;
    assert!(!cookies(&daemon, &tag, &pages).await.contains("kept=yes"));

    // And the reverse: a reset in local mode removes the docker sidecar and its volume.
    switch(&daemon, &tag, "docker").await;
    set_cookie(&daemon, &tag, &pages).await;
    switch(&daemon, &tag, "local").await;
    reset(&daemon, &tag).await;
    assert!(
        inspect_container(&container(&tag)).is_none(),
        "the sidecar survived a reset made in local mode"
    );
    assert!(!volume_exists(&volume(&tag)));
    switch(&daemon, &tag, "docker").await;
    assert!(!cookies(&daemon, &tag, &pages).await.contains("kept=yes"));
}
