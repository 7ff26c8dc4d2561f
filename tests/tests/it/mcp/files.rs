//! Files in and out through `porthole-mcp` → daemon (local mode): `upload_file` sets files the
//! page reads back, with bad input named; downloads (an attachment, a `blob:` link, one still
//! running) are listed and fetched byte-exact, and the session carries on.

use base64::Engine as _;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::TempDir;
use serde_json::json;

use super::harness::{call, connect, err, eval_until, ok, ref_of, resource_blob, Client};
use porthole_tests::pages::report_bytes;

const CHANNEL: &str = "mcp-files";

async fn proxy(daemon: &TestDaemon) -> Client {
    super::harness::owner_proxy(daemon, CHANNEL, &[]).await
}

fn sum(bytes: &[u8]) -> u64 {
    bytes.iter().map(|&b| u64::from(b)).sum()
}

#[tokio::test]
async fn upload_sets_files_the_page_reads_back_and_bad_input_is_named() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let mcp = proxy(&daemon).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/upload"), "wait_for_selector": "#many"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    let many = ref_of(&snap, "\"Attachments\"");
    let one = ref_of(&snap, "\"Avatar\"");
    let button = ref_of(&snap, "button \"Pick avatar\"");

    let dir = TempDir::new("mcp-upload");
    let a = dir.path().join("notes.txt");
    std::fs::write(&a, b"hello upload").unwrap();
    let b = dir.path().join("bytes.bin");
    let b_bytes: Vec<u8> = (0..=255u8).collect();
    std::fs::write(&b, &b_bytes).unwrap();
    let (a, b) = (a.display().to_string(), b.display().to_string());

    let t = ok(&mcp, "upload_file", json!({"ref": many, "paths": [a, b]})).await;
    assert!(
        t.contains("notes.txt (12 bytes)") && t.contains("bytes.bin (256 bytes)"),
        "{t}"
    );
    let expected = format!(
        "notes.txt:12:{},bytes.bin:256:{}",
        sum(b"hello upload"),
        sum(&b_bytes)
    );
    eval_until(&mcp, "window.uploaded.many || ''", json!(expected)).await;

    // The page opening a file chooser shows no dialog; upload_file then fills that input.
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": button}),
    )
    .await;
    assert!(t.contains("opened a file chooser"), "{t}");
    ok(&mcp, "upload_file", json!({"ref": one, "paths": [a]})).await;
    eval_until(
        &mcp,
        "window.uploaded.one || ''",
        json!(format!("notes.txt:12:{}", sum(b"hello upload"))),
    )
    .await;

    // A hidden input behind a styled button has no ref: its chooser is answered without one.
    let e = err(&mcp, "upload_file", json!({"paths": [a]})).await;
    assert!(e.contains("needs `ref`"), "{e}");
    let t = ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Upload documents\"")}),
    )
    .await;
    assert!(t.contains("opened a file chooser"), "{t}");
    let t = ok(&mcp, "upload_file", json!({"paths": [a, b]})).await;
    assert!(t.contains("bytes.bin (256 bytes)"), "{t}");
    eval_until(&mcp, "window.uploaded.hidden || ''", json!(expected)).await;

    // Bad input, each named.
    let missing = dir.path().join("missing.pdf").display().to_string();
    let big = dir.path().join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(10 * 1024 * 1024 + 1)
        .unwrap();
    let cases = [
        (
            "a missing file",
            json!({"ref": many, "paths": [missing]}),
            missing.as_str(),
        ),
        (
            "a button",
            json!({"ref": button, "paths": [a]}),
            "is not a file input",
        ),
        (
            "two files for one",
            json!({"ref": one, "paths": [a, b]}),
            "takes one file",
        ),
        (
            "a file over the cap",
            json!({"ref": many, "paths": [big.display().to_string()]}),
            "over the cap",
        ),
    ];
    for (name, args, expected) in cases {
        let e = err(&mcp, "upload_file", args).await;
        assert!(e.contains(expected), "{name}: {e}");
    }
    // The daemon reads no paths of its own machine: a bare action call naming one is refused.
    let body = daemon
        .owner_on(CHANNEL)
        .act(
            "upload_file",
            json!({"ref": one, "paths": ["/etc/hostname"]}),
        )
        .await;
    assert_eq!(body["isError"], true, "{body}");
    assert!(body.to_string().contains("without its files"), "{body}");
    // Two files of the same name from different folders both arrive.
    let other = dir.path().join("sub");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), b"second").unwrap();
    let t = ok(
        &mcp,
        "upload_file",
        json!({"ref": many, "paths": [a, other.join("notes.txt").display().to_string()]}),
    )
    .await;
    assert!(
        t.contains("notes.txt (12 bytes), notes.txt (6 bytes)"),
        "{t}"
    );
    // Just under the cap travels whole through the daemon's body limit.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(10 * 1024 * 1024 - 64)
        .unwrap();
    let t = ok(
        &mcp,
        "upload_file",
        json!({"ref": one, "paths": [big.display().to_string()]}),
    )
    .await;
    assert!(
        t.contains(&format!("big.bin ({} bytes)", 10 * 1024 * 1024 - 64)),
        "{t}"
    );
}

/// Polls list_downloads until `needle` shows (deadline 20 s).
async fn listed(mcp: &Client, needle: &str) -> String {
    let what = format!("list_downloads to show {needle:?}");
    porthole_tests::eventually(&what, std::time::Duration::from_secs(20), || async {
        let t = ok(mcp, "list_downloads", json!({})).await;
        t.contains(needle).then_some(t)
    })
    .await
}

async fn fetched(mcp: &Client, id: &str) -> (Vec<u8>, Option<String>, String) {
    let result = call(mcp, "get_download", json!({ "id": id })).await;
    let text = super::harness::text(&result);
    assert!(
        !super::harness::is_error(&result),
        "get_download {id}: {text}"
    );
    let (blob, mime) = resource_blob(&result).expect("the bytes as a resource");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap();
    (bytes, mime, text)
}

/// The id of download `name` in a `list_downloads` answer (its line starts `[id]`).
fn download_id(list: &str, name: &str) -> String {
    list.lines()
        .find(|l| l.contains(name))
        .and_then(|l| l.strip_prefix('['))
        .and_then(|l| l.split(']').next())
        .unwrap_or_else(|| panic!("no {name} in {list}"))
        .to_string()
}

#[tokio::test]
async fn downloads_are_listed_and_fetched_byte_exact() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let mcp = proxy(&daemon).await;
    let t = ok(&mcp, "list_downloads", json!({})).await;
    assert!(t.contains("No downloads yet"), "{t}");
    ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/downloads"), "wait_for_selector": "#att"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;

    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "link \"Get report\"")}),
    )
    .await;
    let list = listed(&mcp, "report.bin").await;
    let id = download_id(&list, "report.bin");
    listed(&mcp, "completed").await;
    let (bytes, mime, text) = fetched(&mcp, &id).await;
    assert_eq!(bytes, report_bytes(), "{text}");
    assert_eq!(mime.as_deref(), Some("application/octet-stream"));
    assert!(
        text.contains(&format!("{} bytes", report_bytes().len())),
        "{text}"
    );

    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Make blob\"")}),
    )
    .await;
    let list = listed(&mcp, "bytes.bin — 1024 bytes").await;
    let blob_id = download_id(&list, "bytes.bin");
    let (bytes, _, _) = fetched(&mcp, &blob_id).await;
    let expected: Vec<u8> = (0..1024u32).map(|i| (i % 256) as u8).collect();
    assert_eq!(bytes, expected);

    // A download still running is refused with a clear error, then fetched once done.
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "link \"Get slow file\"")}),
    )
    .await;
    let list = listed(&mcp, "slow.bin").await;
    let slow_id = download_id(&list, "slow.bin");
    let e = err(&mcp, "get_download", json!({ "id": slow_id })).await;
    assert!(e.contains("still running"), "{e}");
    pages.release_slow_download();
    listed(&mcp, "slow.bin — 2000 bytes").await;
    let (bytes, _, _) = fetched(&mcp, &slow_id).await;
    assert_eq!(bytes.len(), 2000);
    assert!(bytes[..1000].iter().all(|&b| b == 1) && bytes[1000..].iter().all(|&b| b == 2));

    let e = err(&mcp, "get_download", json!({"id": "d99"})).await;
    assert!(e.contains("No download d99") && e.contains(&id), "{e}");
    // Downloads never tore the session down.
    let info = ok(&mcp, "page_info", json!({})).await;
    assert!(info.contains("Download page"), "{info}");
}

#[tokio::test]
async fn upload_through_mcp_host_browser_reads_the_paths_itself() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let chrome = super::host::UserChrome::start(&format!("http://{pages}/user")).await;
    let home = TempDir::new("mcp-home");
    let (args, env) = super::host::host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/upload"), "wait_for_selector": "#many"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    let dir = TempDir::new("mcp-host-upload");
    let a = dir.path().join("host.txt");
    std::fs::write(&a, b"from the host").unwrap();
    ok(
        &mcp,
        "upload_file",
        json!({"ref": ref_of(&snap, "\"Attachments\""), "paths": [a.display().to_string()]}),
    )
    .await;
    eval_until(
        &mcp,
        "window.uploaded.many || ''",
        json!(format!("host.txt:13:{}", sum(b"from the host"))),
    )
    .await;
    // The user's Chrome keeps its own download folder; only our tabs' downloads are listed
    // (mcp::host tests that), and there are none yet.
    let t = ok(&mcp, "list_downloads", json!({})).await;
    assert!(t.contains("No downloads yet"), "{t}");
}

#[tokio::test]
async fn upload_in_docker_mode_builds_the_files_in_the_page() {
    use porthole_tests::docker::{self, ensure_image, unique, DockerCleanup};
    ensure_image().await;
    let tag = unique("dk-upload");
    let _cleanup = DockerCleanup::new(&tag);
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let args: Vec<String> = [
        "--api",
        &daemon.base,
        "--channel",
        &tag,
        "--token",
        &daemon.token,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mcp = connect("porthole-mcp", &args, &[]).await;
    ok(
        &mcp,
        "navigate",
        json!({"url": format!("http://{pages}/upload"), "wait_for_selector": "#many"}),
    )
    .await;
    let snap = ok(&mcp, "read_page", json!({})).await;
    let dir = TempDir::new("mcp-docker-upload");
    let a = dir.path().join("notes.txt");
    std::fs::write(&a, b"hello upload").unwrap();
    let b = dir.path().join("bytes.bin");
    let b_bytes: Vec<u8> = (0..=255u8).collect();
    std::fs::write(&b, &b_bytes).unwrap();
    let t = ok(
        &mcp,
        "upload_file",
        json!({"ref": ref_of(&snap, "\"Attachments\""), "paths": [a.display().to_string(), b.display().to_string()]}),
    )
    .await;
    assert!(t.contains("bytes.bin (256 bytes)"), "{t}");
    let expected = format!(
        "notes.txt:12:{},bytes.bin:256:{}",
        sum(b"hello upload"),
        sum(&b_bytes)
    );
    eval_until(&mcp, "window.uploaded.many || ''", json!(expected)).await;
    let e = err(
        &mcp,
        "upload_file",
        json!({"ref": ref_of(&snap, "button \"Pick avatar\""), "paths": [a.display().to_string()]}),
    )
    .await;
    assert!(e.contains("is not a file input"), "{e}");
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Upload documents\"")}),
    )
    .await;
    ok(
        &mcp,
        "upload_file",
        json!({"paths": [a.display().to_string()]}),
    )
    .await;
    eval_until(
        &mcp,
        "window.uploaded.hidden || ''",
        json!(format!("notes.txt:12:{}", sum(b"hello upload"))),
    )
    .await;
    // Downloads are followed in docker mode too (see downloads_kept.rs): none yet here.
    let t = ok(&mcp, "list_downloads", json!({})).await;
    assert!(t.contains("No downloads yet"), "{t}");
}
