//! Downloads to the person (DESIGN.md §15, §16): a download clicked in a pane is announced
//! with `download` messages and its bytes come back byte-exact from
//! `GET /api/browser/channels/{channel}/downloads/{id}` (local, docker, remote engine); the
//! endpoint's refusals; `browser.downloads_max_mb` stopping an endless download with nothing
//! left on disk; `print` kept as a PDF download.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::docker::{self, ensure_image, unique, DockerCleanup};
use porthole_tests::pages::{
    blob_download_page, data_url, download_payload, http_get_bytes, PageServer, DOWNLOAD_NAME,
};
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// The `download` messages so far, in order.
fn download_messages(pane: &Pane, since: usize) -> Vec<Value> {
    let received = pane.received.lock().unwrap();
    received.messages[since..]
        .iter()
        .filter(|m| m["type"] == "download")
        .cloned()
        .collect()
}

/// Clicks the download page's link in the pane, waits for `completed`, checks the messages
/// and fetches the bytes from the API; returns the download's id.
async fn download_in_pane(daemon: &TestDaemon, pane: &Pane, channel: &str, page: &str) -> String {
    let tab = pane.start(channel).await;
    pane.watch().await;
    pane.open_page(page, "Download page").await;
    let mark = pane.mark();
    pane.input("click", json!({"x": 100, "y": 40}));
    let done = pane
        .message_where("the download completed", mark, |m| {
            m["type"] == "download" && m["state"] == "completed"
        })
        .await;
    let id = done["id"].as_str().expect("an id").to_string();
    let payload = download_payload();
    assert_eq!(done["received_bytes"], payload.len(), "{done}");
    assert_eq!(done["name"], DOWNLOAD_NAME, "{done}");
    assert_eq!(done["target_id"], tab.as_str(), "{done}");
    let mine: Vec<Value> = download_messages(pane, mark)
        .into_iter()
        .filter(|m| m["id"] == id.as_str())
        .collect();
    assert_eq!(mine[0]["state"], "started", "{mine:?}");
    assert_eq!(mine.last().unwrap()["state"], "completed", "{mine:?}");
    assert!(
        mine[1..mine.len() - 1]
            .iter()
            .all(|m| m["state"] == "progress"),
        "{mine:?}"
    );

    let path = format!("/api/browser/channels/{channel}/downloads/{id}");
    let auth = format!("Bearer {}", daemon.token);
    let (status, headers, body) =
        http_get_bytes(&daemon.addr, &path, &[("Authorization", &auth)]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(body == payload, "the bytes differ ({} bytes)", body.len());
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        header("content-disposition"),
        "attachment; filename=\"r_sum_ 100k.bin\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20100k.bin"
    );
    assert_eq!(header("content-type"), "application/octet-stream");
    id
}

#[tokio::test]
async fn a_download_in_a_pane_is_announced_and_fetched_byte_exact_and_refusals_hold() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let id = download_in_pane(&daemon, &pane, "dl-local", &pages.url("/download-page")).await;

    // An unknown id: 404 with a JSON error.
    let (status, body) = daemon
        .get("/api/browser/channels/dl-local/downloads/d99")
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "download_not_found", "{body}");
    // A channel with no browser: 404 too.
    let (status, body) = daemon
        .get(&format!(
            "/api/browser/channels/nothing-here/downloads/{id}"
        ))
        .await;
    assert_eq!(status, 404, "{body}");
    // An agent's token (even of this channel) may not fetch the person's files.
    let (_, agent_token) = daemon.add_agent("dl-local", "reader", &[]).await;
    let (status, body) = daemon
        .request_as(
            Some(&agent_token),
            "GET",
            &format!("/api/browser/channels/dl-local/downloads/{id}"),
            None,
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "agent_forbidden", "{body}");
}

#[tokio::test]
async fn an_endless_download_is_stopped_at_the_cap_with_nothing_left_on_disk() {
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"browser": {"downloads_max_mb": 1}}),
        ..Default::default()
    })
    .await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("dl-cap").await;
    pane.watch().await;
    pane.open_page(&pages.url("/endless-page"), "Endless page")
        .await;
    // Watched from before the click: the partial file the download writes as it goes.
    let dir = daemon.data.path().join("downloads").join("dl-cap");
    let partials = PartialFiles::watch(&dir);
    let mark = pane.mark();
    pane.input("click", json!({"x": 100, "y": 40}));
    let canceled = pane
        .message_where("the download canceled", mark, |m| {
            m["type"] == "download" && m["state"] == "canceled"
        })
        .await;
    assert_eq!(canceled["name"], "endless.bin", "{canceled}");
    let seen = partials.stop();
    assert!(
        seen.values().any(|&size| size > 0),
        "no partial file was ever written in {}: {seen:?}",
        dir.display()
    );

    // The browser let go of the download...
    porthole_tests::eventually(
        "the endless response to be dropped",
        Duration::from_secs(20),
        || async { (pages.endless_downloads_open() == 0).then_some(()) },
    )
    .await;
    // ...and nothing but the list is left in the channel's downloads directory.
    porthole_tests::eventually(
        "the partial file to be removed",
        Duration::from_secs(20),
        || {
            let dir = dir.clone();
            async move {
                let left: Vec<String> = std::fs::read_dir(&dir)
                    .ok()?
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .filter(|name| name != "index.json")
                    .collect();
                left.is_empty().then_some(())
            }
        },
    )
    .await;

    // list_downloads says why, naming the setting.
    let result = daemon
        .owner_on("dl-cap")
        .act("list_downloads", json!({}))
        .await;
    let text = result.to_string();
    assert!(text.contains("endless.bin"), "{text}");
    assert!(text.contains("canceled"), "{text}");
    assert!(text.contains("browser.downloads_max_mb"), "{text}");
}

#[tokio::test]
async fn print_keeps_a_pdf_download_of_the_watched_tab() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("dl-print").await;
    pane.open_page(&pages.url("/second"), "Second page").await;
    let mark = pane.mark();
    pane.send(json!({"type": "print"}));
    let done = pane
        .message_where("the print completed", mark, |m| {
            m["type"] == "download" && m["state"] == "completed"
        })
        .await;
    assert_eq!(done["name"], "Second page.pdf", "{done}");
    assert_eq!(done["target_id"], tab.as_str(), "{done}");
    let id = done["id"].as_str().unwrap();
    let auth = format!("Bearer {}", daemon.token);
    let (status, headers, body) = http_get_bytes(
        &daemon.addr,
        &format!("/api/browser/channels/dl-print/downloads/{id}"),
        &[("Authorization", &auth)],
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        body.starts_with(b"%PDF"),
        "not a PDF: {:?}",
        &body[..16.min(body.len())]
    );
    assert_eq!(done["received_bytes"], body.len());
    assert!(headers
        .iter()
        .any(|(n, v)| n == "content-type" && v == "application/pdf"));
}

#[tokio::test]
async fn a_download_in_a_docker_pane_is_fetched_byte_exact() {
    ensure_image().await;
    let tag = unique("dk-dl");
    let _cleanup = DockerCleanup::new(&tag);
    let pages = PageServer::start().await;
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    download_in_pane(&daemon, &pane, &tag, &pages.url("/download-page")).await;
}

#[tokio::test]
async fn a_download_in_a_remote_engine_pane_is_fetched_byte_exact() {
    let test = porthole_tests::remote::RemoteTest::with_image("rm-dl", None).await;
    let tag = test.tag.clone();
    // The remote engine's containers cannot reach this machine's page server: the page
    // travels in the URL and makes the bytes itself.
    let page = data_url(&blob_download_page());
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    download_in_pane(&daemon, &pane, &tag, &page).await;
}

/// The files other than `index.json` seen in a downloads directory while it is watched, each
/// with the largest size seen. Polls until stopped (a partial lives a fraction of a second).
struct PartialFiles {
    seen: std::sync::Arc<std::sync::Mutex<std::collections::BTreeMap<String, u64>>>,
    task: tokio::task::JoinHandle<()>,
}

impl PartialFiles {
    fn watch(dir: &std::path::Path) -> Self {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::new()));
        let (dir, found) = (dir.to_path_buf(), seen.clone());
        let task = tokio::spawn(async move {
            loop {
                for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    let name = entry.file_name().to_string_lossy().to_string();
                    if name == "index.json" {
                        continue;
                    }
                    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    let mut found = found.lock().unwrap();
                    let largest = found.entry(name).or_insert(0);
                    *largest = (*largest).max(size);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        Self { seen, task }
    }

    /// Stops watching; returns what was seen.
    fn stop(self) -> std::collections::BTreeMap<String, u64> {
        self.task.abort();
        self.seen.lock().unwrap().clone()
    }
}
