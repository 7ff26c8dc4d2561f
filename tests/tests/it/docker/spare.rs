//! Docker mode's warm spare against the real engine: a daemon whose default mode is docker
//! makes one paused sidecar at start; a new channel takes it over (the same container, renamed
//! and thawed, its profile on the spare's volume) and a new spare is made; the channel finds
//! its profile on that volume again after a killed daemon (whose untaken spare the next
//! daemon removes with its volume) and a reset removes it; shutdown removes an untaken spare.

use std::time::Duration;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::docker::container;
use porthole_tests::docker::{
    self, ensure_image, inspect_container, labelled_containers, unique, volume_exists,
    DockerCleanup,
};
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// The untaken spares labelled with `tag`.
fn spares(tag: &str) -> Vec<String> {
    labelled_containers(tag)
        .into_iter()
        .filter(|name| name.starts_with("porthole-spare-"))
        .collect()
}

/// Waits until the daemon has logged `spare_ready` `count` times; returns the untaken spare.
async fn spare_ready(daemon: &TestDaemon, tag: &str, count: usize) -> Value {
    porthole_tests::eventually("a warm spare", Duration::from_secs(90), || async {
        (daemon.events_logged("spare_ready").len() >= count).then_some(())
    })
    .await;
    let found = spares(tag);
    assert_eq!(found.len(), 1, "one untaken spare: {found:?}");
    inspect_container(&found[0]).expect("the spare exists")
}

fn profile_volume(info: &Value) -> String {
    info["Mounts"]
        .as_array()
        .and_then(|mounts| mounts.iter().find(|m| m["Destination"] == "/profile"))
        .and_then(|m| m["Name"].as_str())
        .expect("a profile volume")
        .to_string()
}

async fn set_cookie(channel: &str) {
    let probe = docker::probe(&container(channel)).await;
    probe.set_cookie("kept", "yes", "spare.example", true).await;
}

async fn has_cookie(channel: &str) -> bool {
    let probe = docker::probe(&container(channel)).await;
    probe.has_cookie("kept", "yes").await
}

#[tokio::test]
async fn a_new_channel_takes_over_the_warm_spare_and_keeps_its_profile_on_the_spares_volume() {
    ensure_image().await;
    let tag = unique("dk-spare");
    let _cleanup = DockerCleanup::new(&tag);
    let with_spare = docker::options(&tag, json!({"warm_spare": true}));
    let mut daemon = TestDaemon::start_with(with_spare.clone()).await;
    let spare = spare_ready(&daemon, &tag, 1).await;
    assert_eq!(spare["State"]["Paused"], true, "the spare waits paused");
    let volume = profile_volume(&spare);
    assert!(volume.starts_with("porthole-spare-profile-"), "{volume}");

    // A new channel takes it over: the same container, renamed and thawed.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    let taken = inspect_container(&container(&tag)).expect("the channel's container");
    assert_eq!(taken["Id"], spare["Id"], "the spare, taken over");
    assert_eq!(taken["State"]["Paused"], false);
    assert_eq!(profile_volume(&taken), volume);
    assert!(daemon.logged("spare_claimed"), "{}", daemon.log());
    assert!(
        !daemon.logged("sidecar_created"),
        "no sidecar of its own: {}",
        daemon.log()
    );
    set_cookie(&tag).await;
    // The next new channel gets a spare too.
    let next = spare_ready(&daemon, &tag, 2).await;
    assert_ne!(next["Id"], spare["Id"]);
    drop(pane);

    // A killed daemon: the next one (without spares) adopts the channel's sidecar, removes
    // the untaken spare with its volume, and finds the profile on the spare's volume.
    daemon.kill_hard().await;
    let data = daemon.stop().await;
    let plain = docker::options(&tag, json!({}));
    let daemon = TestDaemon::start_in(data, plain.clone()).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    assert!(spares(&tag).is_empty(), "{:?}", spares(&tag));
    assert!(!volume_exists(&profile_volume(&next)));
    assert!(has_cookie(&tag).await, "the profile on the spare's volume");
    assert!(daemon.logged("stale_spare_removed"), "{}", daemon.log());
    assert!(daemon.logged("sidecar_adopted"), "{}", daemon.log());

    // Shutdown removes the channel's sidecar; the next start makes one on the same volume.
    drop(pane);
    let data = daemon.stop().await;
    assert!(inspect_container(&container(&tag)).is_none());
    let daemon = TestDaemon::start_in(data, plain).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    assert_eq!(
        profile_volume(&inspect_container(&container(&tag)).unwrap()),
        volume
    );
    assert!(has_cookie(&tag).await, "the profile found again");

    // A reset removes that volume.
    let (status, body) = daemon
        .post("/api/browser/profile/reset", &json!({"channel_id": tag}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["removed"], true);
    assert!(
        !volume_exists(&volume),
        "the spare's volume went with the reset"
    );
    drop(pane);
    let data = daemon.stop().await;

    // Shutdown removes an untaken spare and its volume.
    let daemon = TestDaemon::start_in(data, with_spare).await;
    let spare = spare_ready(&daemon, &tag, 1).await;
    daemon.stop().await;
    assert!(spares(&tag).is_empty(), "{:?}", spares(&tag));
    assert!(!volume_exists(&profile_volume(&spare)));
}
