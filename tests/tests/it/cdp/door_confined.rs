//! The CDP door's confined methods with real Playwright (DESIGN.md §21, "Confined"): a cookie
//! the person put in the browser (as an import does) and one a site set show their names but
//! never their values — in `context.cookies()`, `Network.getAllCookies` and the `Cookie` /
//! `Set-Cookie` headers of `Network.*ExtraInfo` — while a cookie the client set through the
//! door reads back whole; a cookie of a site the agent may not open is absent, and a write
//! for one is refused naming the rule and changes nothing. A download the client starts lands
//! in the agent's downloads (`list_downloads`), never in the directory the client named, and
//! Playwright's `waitForEvent('download')` still sees it. Puppeteer's `uploadFile` (CDP
//! `DOM.setFileInputFiles`) sets only a file the agent uploaded, by name, and a host path is
//! refused and never read.

use std::time::Duration;

use porthole_tests::cdp_clients;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::{PageServer, DOWNLOAD_NAME};
use porthole_tests::TempDir;
use serde_json::{json, Value};

const CHANNEL: &str = "door-confined";
/// What a hidden cookie value reads as.
const HIDDEN: &str = "porthole-hidden";

/// A daemon with the channel's browser running, and an agent allowed only `pages`' site.
async fn agent_of_one_site(pages: &PageServer) -> (TestDaemon, String) {
    let daemon = TestDaemon::start().await;
    daemon.owner_on(CHANNEL).act("page_info", json!({})).await;
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": "scripted", "sites": {"allow": [pages.base()]}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let token = body["token"].as_str().expect("token").to_string();
    (daemon, token)
}

fn cookie<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list.as_array()
        .unwrap_or_else(|| panic!("a cookie list: {list}"))
        .iter()
        .find(|c| c["name"] == name)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_reads_cookie_names_but_only_its_own_values_and_writes_only_its_sites() {
    let pages = PageServer::area("cdp").await;
    pages.set_cookies(vec![vec!["site-set=site-secret-value; Path=/".into()]]);
    let (daemon, token) = agent_of_one_site(&pages).await;
    // The person's cookies, as an import puts them in the browser: one of the agent's site,
    // one of a site it may not open.
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    probe
        .set_cookie("imported", "person-secret-value", "127.0.0.1", true)
        .await;
    probe
        .set_cookie("elsewhere", "refused-site-secret", "refused.example", true)
        .await;

    let door = format!("http://{}/cdp/{token}", daemon.addr);
    let args = json!({
        "setCookies": pages.url("/set/0"),
        "again": pages.url("/door.html?again"),
        "site": pages.base(),
        "refusedDomain": "refused.example",
    });
    let seen = cdp_clients::run("playwright-confined.js", &door, &args).await;

    // The positive control: every secret is in the browser's store.
    assert!(probe.has_cookie("imported", "person-secret-value").await);
    assert!(probe.has_cookie("site-set", "site-secret-value").await);
    assert!(probe.has_cookie("elsewhere", "refused-site-secret").await);
    assert!(probe.has_cookie("mine", "client-set-value").await);
    let text = seen.to_string();
    for secret in [
        "person-secret-value",
        "site-secret-value",
        "refused-site-secret",
    ] {
        assert!(
            !text.contains(secret),
            "{secret} reached the client: {seen}"
        );
    }
    // Names visible, values not; the client's own cookie whole; the refused site's absent.
    for list in [&seen["cookies"], &seen["networkCookies"]["ok"]] {
        for hidden in ["imported", "site-set"] {
            let c = cookie(list, hidden).unwrap_or_else(|| panic!("no {hidden}: {seen}"));
            assert_eq!(c["value"], HIDDEN, "{seen}");
        }
        let mine = cookie(list, "mine").unwrap_or_else(|| panic!("no mine: {seen}"));
        assert_eq!(mine["value"], "client-set-value", "{seen}");
        assert!(cookie(list, "elsewhere").is_none(), "{seen}");
    }
    // The headers Playwright reads from Network.*ExtraInfo.
    assert_eq!(
        seen["setCookieHeaders"],
        json!(["site-set=porthole-hidden; Path=/"]),
        "{seen}"
    );
    let header = seen["cookieHeader"].as_str().unwrap_or_default();
    for part in [
        "imported=porthole-hidden",
        "site-set=porthole-hidden",
        "mine=client-set-value",
    ] {
        assert!(
            header.contains(part),
            "{part} not in the Cookie header: {seen}"
        );
    }
    // A write for a site the agent may not open is refused whole, naming the rule.
    assert!(seen["addOwn"].get("ok").is_some(), "{seen}");
    let refused = seen["addRefused"]["error"].as_str().unwrap_or_default();
    assert!(
        refused.contains("Porthole refused Storage.setCookies")
            && refused.contains("allow only")
            && refused.contains("refused.example"),
        "{seen}"
    );
    assert!(!probe.has_cookie("also-mine", "never-set").await);
    assert!(!probe.has_cookie("refused", "never-set").await);
    // A deletion that names no site would reach every site's cookies.
    let everywhere = seen["deleteEverywhere"]["error"]
        .as_str()
        .unwrap_or_default();
    assert!(everywhere.contains("names its site"), "{seen}");
    assert!(probe.has_cookie("elsewhere", "refused-site-secret").await);
    assert!(
        !daemon.log().contains("person-secret-value"),
        "a cookie value reached the log"
    );
    // The cookie writes are the agent's acts on the timeline, without a value.
    let written = porthole_tests::eventually(
        "the cookie write on the timeline",
        Duration::from_secs(10),
        || async {
            let (_, tools) = daemon.timeline_of(CHANNEL, "tool").await;
            tools
                .iter()
                .any(|e| e["tool"] == "cdp:Storage.setCookies")
                .then_some(tools)
        },
    )
    .await;
    let timeline = serde_json::to_string(&written).unwrap();
    assert!(!timeline.contains("client-set-value"), "{timeline}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_through_the_door_is_the_agents_and_never_in_the_clients_directory() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = agent_of_one_site(&pages).await;
    let client_dir = TempDir::new("client-downloads");
    let door = format!("http://{}/cdp/{token}", daemon.addr);
    let args = json!({
        "downloadPage": pages.url("/download-page.html"),
        "clientDir": client_dir.path(),
    });
    let seen = cdp_clients::run("playwright-confined.js", &door, &args).await;

    // Playwright saw its download begin and end.
    assert!(seen["behavior"].get("ok").is_some(), "{seen}");
    assert_eq!(
        seen["download"]["suggestedFilename"], DOWNLOAD_NAME,
        "{seen}"
    );
    assert_eq!(seen["download"]["failure"], Value::Null, "{seen}");
    // The file is the agent's, listed where its MCP tools find it (the positive control that
    // the download happened) ...
    let listed = porthole_tests::eventually(
        "the download completed in list_downloads",
        Duration::from_secs(20),
        || async {
            let (_, text) = daemon
                .caller(&token)
                .act_text("list_downloads", json!({}))
                .await;
            (text.contains(DOWNLOAD_NAME) && text.contains("completed")).then_some(text)
        },
    )
    .await;
    assert!(listed.contains(DOWNLOAD_NAME), "{listed}");
    // ... and nothing reached the directory the client named.
    let in_client_dir: Vec<_> = std::fs::read_dir(client_dir.path())
        .expect("the client's directory")
        .collect();
    assert!(
        in_client_dir.is_empty(),
        "the client's downloadPath was used: {in_client_dir:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn set_input_files_takes_only_the_agents_uploads_by_name_and_never_reads_a_host_path() {
    let pages = PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = daemon.add_agent(CHANNEL, "uploader", &[]).await;
    let agent = daemon.caller(&token);
    let page = pages.url("/upload.html");
    agent.act_ok("navigate", json!({"url": page})).await;
    let (_, snap) = agent.act_text("read_page", json!({})).await;
    let many = porthole_tests::mcp::ref_of(&snap, "\"Attachments\"");
    // The agent uploads notes.txt ("hello upload", inline as porthole-mcp sends it).
    agent
        .act_ok(
            "upload_file",
            json!({"ref": many, "paths": ["notes.txt"],
                   "files": [{"name": "notes.txt", "data": "aGVsbG8gdXBsb2Fk"}]}),
        )
        .await;
    // On the client's machine: a secret it never uploaded, and a file of the uploaded name
    // with other bytes.
    let local = TempDir::new("door-upload");
    let host_file = local.path().join("host-secret.txt");
    std::fs::write(&host_file, "host-file-secret").expect("write");
    let named = local.path().join("notes.txt");
    std::fs::write(&named, "the client's own bytes, never read").expect("write");

    let door = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let args = json!({ "page": page, "hostFile": host_file, "named": named });
    let seen = cdp_clients::run("puppeteer-upload.js", &door, &args).await;

    let refused = seen["hostPath"]["error"].as_str().unwrap_or_default();
    assert!(
        refused.contains("Porthole refused DOM.setFileInputFiles")
            && refused.contains("host-secret.txt")
            && refused.contains("upload_file"),
        "{seen}"
    );
    assert_eq!(seen["afterHostPath"], Value::Null, "{seen}");
    // The positive control: the same probe sees a file set, with the uploaded bytes.
    assert!(seen["named"].get("ok").is_some(), "{seen}");
    let sum: u32 = "hello upload".bytes().map(u32::from).sum();
    assert_eq!(
        seen["afterNamed"],
        format!("notes.txt:12:{sum}"),
        "the page did not get the agent's upload: {seen}"
    );
}
