//! Downloads per channel and per agent (issue 12), through `porthole-mcp`: a download lands in
//! the channel's own directory under the data dir, an agent lists only the downloads from its
//! own tabs (the owner lists all), a download from a frame of the agent's page (same-origin or
//! cross-site) is the agent's too and stays listed after the agent closed the tab, and after
//! the daemon and its browser stop and start again the download is still listed and fetched
//! byte-exact.

use base64::Engine as _;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use serde_json::json;

use super::harness::{agent_proxy, call, err, ok, owner_proxy, ref_of, resource_blob, Client};
use porthole_tests::pages::{self, report_bytes};

const CHANNEL: &str = "mcp-downloads-kept";

/// Polls list_downloads until `needle` shows (deadline 20 s).
async fn listed(mcp: &Client, needle: &str) -> String {
    porthole_tests::eventually(
        &format!("list_downloads showing {needle:?}"),
        std::time::Duration::from_secs(20),
        || async {
            let t = ok(mcp, "list_downloads", json!({})).await;
            t.contains(needle).then_some(t)
        },
    )
    .await
}

/// Polls list_downloads until `count` downloads of report.bin show completed (deadline 20 s):
/// Chrome says a download completed a moment after its last bytes, so a download listed at
/// once may still be running.
async fn reports_completed(mcp: &Client, count: usize) -> String {
    const DONE: &str = "report.bin — 3008 bytes, application/octet-stream, completed";
    porthole_tests::eventually(
        &format!("list_downloads showing {count} completed report.bin"),
        std::time::Duration::from_secs(20),
        || async {
            let t = ok(mcp, "list_downloads", json!({})).await;
            (t.matches(DONE).count() == count).then_some(t)
        },
    )
    .await
}

async fn bytes_of(mcp: &Client, id: &str) -> Vec<u8> {
    let result = call(mcp, "get_download", json!({ "id": id })).await;
    let (blob, _) = resource_blob(&result)
        .unwrap_or_else(|| panic!("no bytes: {}", super::harness::text(&result)));
    base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap()
}

/// Opens `url` and clicks its "Get report" link (which downloads report.bin).
async fn download_report(mcp: &Client, url: &str) {
    ok(
        mcp,
        "navigate",
        json!({"url": url, "wait_for_selector": "#att"}),
    )
    .await;
    let snap = ok(mcp, "read_page", json!({})).await;
    let link = ref_of(&snap, "link \"Get report\"");
    ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": link}),
    )
    .await;
}

#[tokio::test]
async fn downloads_are_per_agent_and_survive_a_restart() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let (alpha_id, alpha_token) = daemon.add_agent(CHANNEL, "alpha", &[]).await;
    let (_, beta_token) = daemon.add_agent(CHANNEL, "beta", &[]).await;
    let alpha = agent_proxy(&daemon, &alpha_token).await;
    let beta = agent_proxy(&daemon, &beta_token).await;
    download_report(&alpha, &format!("http://{pages}/downloads")).await;
    let list = listed(&alpha, "report.bin — 3008 bytes").await;
    assert!(list.contains("[d1]"), "{list}");
    // Another agent does not see it, and cannot fetch it.
    let t = ok(&beta, "list_downloads", json!({})).await;
    assert!(t.contains("No downloads yet"), "{t}");
    let e = err(&beta, "get_download", json!({"id": "d1"})).await;
    assert!(e.contains("No download d1"), "{e}");
    // The owner sees every download.
    let owner = owner_proxy(&daemon, CHANNEL, &[]).await;
    listed(&owner, "report.bin").await;
    // The file is in the channel's directory under the data dir.
    let dir = daemon.data.path().join("downloads").join(CHANNEL);
    // The list names it, owned by alpha, and the file beside the list holds its bytes.
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).expect("index.json"))
            .expect("index.json is JSON");
    let entry = index
        .as_array()
        .and_then(|all| all.iter().find(|d| d["name"] == "report.bin"))
        .unwrap_or_else(|| panic!("report.bin in {index}"));
    assert_eq!(entry["state"], "Completed", "{entry}");
    assert_eq!(entry["owner"], alpha_id.as_str(), "{entry}");
    let file = dir.join(entry["guid"].as_str().expect("a guid"));
    assert_eq!(
        std::fs::metadata(&file).map(|m| m.len()).ok(),
        Some(3008),
        "{}",
        file.display()
    );
    drop((alpha, beta, owner));

    // Stop the daemon (and with it the browser); start again on the same data dir.
    let data = daemon.stop().await;
    let daemon = TestDaemon::start_in(data, DaemonOptions::default()).await;
    let alpha = agent_proxy(&daemon, &alpha_token).await;
    let list = listed(
        &alpha,
        "report.bin — 3008 bytes, application/octet-stream, completed",
    )
    .await;
    assert!(list.contains("[d1]"), "{list}");
    assert_eq!(bytes_of(&alpha, "d1").await, report_bytes());
    let owner = owner_proxy(&daemon, CHANNEL, &[]).await;
    assert_eq!(bytes_of(&owner, "d1").await, report_bytes());
}

#[tokio::test]
async fn downloads_from_frames_are_the_agents_and_outlive_its_tab() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let channel = "mcp-downloads-framed";
    let (_, alpha_token) = daemon.add_agent(channel, "alpha", &[]).await;
    let (_, beta_token) = daemon.add_agent(channel, "beta", &[]).await;
    let alpha = agent_proxy(&daemon, &alpha_token).await;
    let beta = agent_proxy(&daemon, &beta_token).await;
    ok(
        &alpha,
        "navigate",
        json!({"url": format!("http://127.0.0.1:{}/framed-downloads", pages.port())}),
    )
    .await;
    // Both frames' links, from one read (the cross-site frame's through its own session).
    let links = porthole_tests::eventually(
        "both frames' download links",
        std::time::Duration::from_secs(20),
        || async {
            let snap = ok(&alpha, "read_page", json!({"filter": "interactive"})).await;
            let found: Vec<String> = snap
                .lines()
                .filter(|l| l.contains("link \"Get report\""))
                .map(|l| ref_of(l, "Get report"))
                .collect();
            (found.len() == 2).then_some(found)
        },
    )
    .await;
    for link in &links {
        ok(
            &alpha,
            "computer",
            json!({"action": "left_click", "ref": link}),
        )
        .await;
    }
    let list = reports_completed(&alpha, 2).await;
    assert!(list.contains("[d1]") && list.contains("[d2]"), "{list}");
    // The agent closes its tab; the downloads stay its own.
    ok(&alpha, "close_tab", json!({})).await;
    let list = ok(&alpha, "list_downloads", json!({})).await;
    assert!(list.contains("[d1]") && list.contains("[d2]"), "{list}");
    assert_eq!(bytes_of(&alpha, "d2").await, report_bytes());
    let t = ok(&beta, "list_downloads", json!({})).await;
    assert!(t.contains("No downloads yet"), "{t}");
}

/// Docker mode: the browser saves into its profile volume, inside the container; the daemon
/// lists the download and reads it back through the engine's archive API, byte-exact, also
/// from the same container after an idle stop, and from a new one after an outside stop.
#[tokio::test]
async fn docker_mode_downloads_are_read_back_from_the_container_across_an_idle_stop() {
    use porthole_tests::docker::{self, ensure_image, inspect_container, unique, DockerCleanup};
    ensure_image().await;
    let tag = unique("dk-downloads");
    let _cleanup = DockerCleanup::new(&tag);
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        idle_timeout_secs: 1,
        ..docker::options(&tag, json!({"network": "host", "idle_pause_secs": 0}))
    })
    .await;
    let owner = owner_proxy(&daemon, &tag, &[]).await;
    download_report(&owner, &format!("http://{pages}/downloads")).await;
    listed(
        &owner,
        "report.bin — 3008 bytes, application/octet-stream, completed",
    )
    .await;
    let fetched = call(&owner, "get_download", json!({"id": "d1"})).await;
    let text = super::harness::text(&fetched);
    assert!(
        text.contains("in the browser's container at /profile/downloads/"),
        "{text}"
    );
    assert_eq!(bytes_of(&owner, "d1").await, report_bytes());
    // Nothing of the daemon's disk holds the file: only the list is kept on this side.
    let dir = daemon.data.path().join("downloads").join(&tag);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["index.json".to_string()], "{}", dir.display());

    // Idle stop stops the container and keeps it; started again, it still has the file.
    let container = format!("porthole-chrome-{tag}");
    let first = inspect_container(&container).unwrap()["Id"].clone();
    drop(owner);
    porthole_tests::eventually(
        "the idle container stopped",
        std::time::Duration::from_secs(30),
        || {
            let container = container.clone();
            async move {
                let state = inspect_container(&container)?;
                (state["State"]["Running"] == false).then_some(())
            }
        },
    )
    .await;
    let owner = owner_proxy(&daemon, &tag, &[]).await;
    ok(&owner, "page_info", json!({})).await;
    assert_eq!(inspect_container(&container).unwrap()["Id"], first);
    assert_eq!(bytes_of(&owner, "d1").await, report_bytes());

    // Stopped from outside the daemon, the container is replaced: the new one has the file in
    // the same volume.
    drop(owner);
    assert!(docker::docker(&["stop", "-t", "2", &container]).0);
    let owner = owner_proxy(&daemon, &tag, &[]).await;
    porthole_tests::eventually(
        "a new container after the outside stop",
        std::time::Duration::from_secs(60),
        || {
            let (owner, container, first) = (&owner, container.clone(), first.clone());
            async move {
                let _ = call(owner, "page_info", json!({})).await;
                let now = inspect_container(&container)?;
                (now["Id"] != first && now["State"]["Running"] == true).then_some(())
            }
        },
    )
    .await;
    assert_eq!(bytes_of(&owner, "d1").await, report_bytes());
    let e = err(&owner, "get_download", json!({"id": "d9"})).await;
    assert!(e.contains("No download d9"), "{e}");

    // A profile reset takes the downloads and their list with it.
    drop(owner);
    let (status, body) = daemon
        .post("/api/browser/profile/reset", &json!({"channel_id": tag}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(!dir.exists(), "{}", dir.display());
    let owner = owner_proxy(&daemon, &tag, &[]).await;
    let t = ok(&owner, "list_downloads", json!({})).await;
    assert!(t.contains("No downloads yet"), "{t}");
}

/// A remote engine (the second dockerd, mutual TLS, CDP through exec): the download is read
/// back through that engine's archive API, byte-exact.
#[tokio::test]
async fn remote_engine_downloads_are_read_back_through_that_engine() {
    let test = porthole_tests::remote::RemoteTest::with_image("rm-downloads", None).await;
    let tag = test.tag.clone();
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    // The sidecar starts on the remote engine first, through the daemon's own route: a start
    // there beside a loaded full run outlasted the proxy's 40 s `navigate` deadline.
    daemon.owner_on(&tag).act("page_info", json!({})).await;
    let owner = owner_proxy(&daemon, &tag, &[]).await;
    // No network between the remote container and this machine: the file is in the page.
    let bytes = report_bytes();
    let report = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let url = pages::data_url(&pages::page_with(
        "mcp/remote-file.html",
        &[("REPORT", &report)],
    ));
    download_report(&owner, &url).await;
    listed(&owner, "report.bin — 3008 bytes").await;
    assert_eq!(bytes_of(&owner, "d1").await, bytes);
    assert!(
        porthole_tests::docker::inspect_container(&format!("porthole-chrome-{tag}")).is_none(),
        "the browser runs on the remote engine only"
    );
}
