//! `porthole-mcp cdp --listen` (DESIGN.md §21, "Addresses"): a tool that takes only a port
//! reaches the agent's CDP door at the listener's root. Real Puppeteer with
//! `browserURL: 'http://127.0.0.1:<port>'` (it asks `/json/version` there and dials the
//! `webSocketDebuggerUrl` it is given) opens a page, reads its title and sees only the agent's
//! own tabs while the person's tab exists; the forwarder reaches the daemon over its loopback
//! port (`--api` with `--token-file`) and over the agent socket; a non-loopback `--listen` is
//! refused with a clear error; the token is in neither the forwarder's output nor its answers.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use porthole_tests::cdp_clients;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::workspace_binary;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

const CHANNEL: &str = "forwarded";

/// A running `porthole-mcp cdp --listen 127.0.0.1:0 --api <api> --token-file <file>`: its
/// bound address (from its first line of output), the process, and everything else it writes
/// (read as it comes, so a full pipe never stalls it).
struct Forwarder {
    addr: String,
    child: Child,
    written: Arc<Mutex<String>>,
    drains: Vec<tokio::task::JoinHandle<()>>,
}

/// Appends everything `from` yields to `to` until it ends.
fn drain(
    mut from: impl AsyncRead + Unpin + Send + 'static,
    to: Arc<Mutex<String>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 8192];
        while let Ok(n @ 1..) = from.read(&mut chunk).await {
            to.lock()
                .expect("output")
                .push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    })
}

impl Forwarder {
    async fn start(api: &str, token_file: &std::path::Path) -> Self {
        let mut child = Command::new(workspace_binary("porthole-mcp"))
            .args([
                "cdp",
                "--listen",
                "127.0.0.1:0",
                "--api",
                api,
                "--token-file",
            ])
            .arg(token_file)
            .env("RUST_LOG", "debug")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn porthole-mcp cdp");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(20), stdout.read_line(&mut line))
            .await
            .expect("the forwarder says where it listens within 20 s")
            .expect("read the forwarder's stdout");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in the forwarder's first line: {line:?}"))
            .to_string();
        let written = Arc::new(Mutex::new(line.clone()));
        let drains = vec![
            drain(stdout, written.clone()),
            drain(child.stderr.take().expect("stderr"), written.clone()),
        ];
        Self {
            addr,
            child,
            written,
            drains,
        }
    }

    /// Everything it wrote (stdout and stderr), after ending it.
    async fn output(mut self) -> String {
        self.child.start_kill().expect("end the forwarder");
        let _ = self.child.wait().await;
        // The drains end when the ended process's pipes close.
        for drain in self.drains.drain(..) {
            drain.await.expect("drain the forwarder's output");
        }
        let written = self.written.lock().expect("output").clone();
        written
    }
}

/// A daemon whose channel holds the person's tab on `?person` (seen by the owner: the
/// positive control that it exists), and an agent allowed `pages`' site, with its token.
async fn channel_with_the_person(pages: &PageServer) -> (TestDaemon, String) {
    let daemon = TestDaemon::start().await;
    let owner = daemon.owner_on(CHANNEL);
    owner
        .act("navigate", json!({"url": pages.url("/door.html?person")}))
        .await;
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": CHANNEL, "name": "port-only", "sites": {"allow": [pages.base()]}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let token = body["token"].as_str().expect("token").to_string();
    let (_, tabs) = owner.act_text("list_tabs", json!({})).await;
    assert!(
        tabs.contains("?person"),
        "the person's tab is not open: {tabs}"
    );
    (daemon, token)
}

fn urls(seen: &Value, key: &str) -> Vec<String> {
    seen[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} in {seen}"))
        .iter()
        .map(|u| u.as_str().unwrap_or_default().to_string())
        .collect()
}

/// Puppeteer through the forwarder at `forwarder`'s root: a page of its own, its title, and
/// no tab but its own.
async fn puppeteer_through(forwarder: &Forwarder, pages: &PageServer, mark: &str) {
    let root = format!("http://{}", forwarder.addr);
    let args = json!({ "page": pages.url(&format!("/door.html?{mark}")) });
    let seen = cdp_clients::run("puppeteer-drive.js", &root, &args).await;
    assert_eq!(seen["title"], "Door page", "{seen}");
    assert_eq!(seen["clicked"], format!("clicked ?{mark}"), "{seen}");
    assert!(
        urls(&seen, "pages").iter().any(|u| u.ends_with(mark)),
        "{seen}"
    );
    for url in urls(&seen, "pagesAtStart")
        .iter()
        .chain(&urls(&seen, "pages"))
        .chain(&urls(&seen, "targets"))
    {
        assert!(
            !url.contains("?person"),
            "the person's tab showed through the forwarder: {seen}"
        );
    }
    let refused = seen["refused"]["error"].as_str().unwrap_or_default();
    assert!(refused.contains("Porthole refused Tracing.start"), "{seen}");
}

/// `GET http://<addr>/json/version` at the forwarder, as a port-only tool asks it.
async fn json_version(addr: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let request =
        format!("GET /json/version HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    tokio::io::AsyncWriteExt::write_all(&mut stream, request.as_bytes())
        .await
        .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

#[tokio::test(flavor = "multi_thread")]
async fn puppeteer_with_only_a_port_drives_its_own_tabs_through_the_forwarder() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_the_person(&pages).await;
    let token_file = daemon.data.path().join("agent-token");
    std::fs::write(&token_file, format!("{token}\n")).expect("write the token file");

    let forwarder = Forwarder::start(&daemon.base, &token_file).await;
    let (status, version) = json_version(&forwarder.addr).await;
    assert_eq!(status, 200, "{version}");
    assert!(
        version.contains(&format!("ws://{}/devtools/browser", forwarder.addr)),
        "json/version's webSocketDebuggerUrl does not point at the forwarder: {version}"
    );
    assert!(!version.contains(&token), "the token is in an answer");
    puppeteer_through(&forwarder, &pages, "forwarded").await;
    assert!(
        pages.requests().iter().any(|r| r.contains("?forwarded")),
        "the page was not loaded through the forwarder"
    );
    let output = forwarder.output().await;
    // The positive control: the forwarder's output does show the traffic it forwarded.
    assert!(output.contains("cdp_forward_request"), "{output}");
    assert!(
        !output.contains(&token),
        "the token is in the forwarder's output"
    );
    assert!(
        !daemon.log().contains(&token),
        "the token reached the daemon's log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_forwarder_reaches_the_door_over_the_agent_socket() {
    let pages = PageServer::area("cdp").await;
    let (daemon, token) = channel_with_the_person(&pages).await;
    let token_file = daemon.data.path().join("agent-token");
    std::fs::write(&token_file, &token).expect("write the token file");
    let api = format!("unix://{}", daemon.agent_socket().display());

    let forwarder = Forwarder::start(&api, &token_file).await;
    puppeteer_through(&forwarder, &pages, "via-socket").await;
    let output = forwarder.output().await;
    assert!(output.contains("cdp_forward_request"), "{output}");
    assert!(
        !output.contains(&token),
        "the token is in the forwarder's output"
    );
}

#[tokio::test]
async fn a_listen_address_off_loopback_is_refused_and_nothing_listens() {
    let token_file = porthole_tests::TempDir::new("forwarder");
    let token_path = token_file.path().join("agent-token");
    let secret = "agent-token-that-must-not-show";
    std::fs::write(&token_path, secret).expect("write the token file");
    for listen in ["0.0.0.0:0", "192.0.2.1:9222", "localhost:9222"] {
        let output = tokio::time::timeout(
            Duration::from_secs(20),
            Command::new(workspace_binary("porthole-mcp"))
                .args(["cdp", "--listen", listen, "--api", "http://127.0.0.1:9"])
                .arg("--token-file")
                .arg(&token_path)
                .kill_on_drop(true)
                .output(),
        )
        .await
        .unwrap_or_else(|_| panic!("--listen {listen} was not refused: it kept running"))
        .expect("run porthole-mcp cdp");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!output.status.success(), "--listen {listen}: {said}");
        assert!(
            said.contains(&format!("--listen {listen} is not")) && said.contains("127.0.0.1:9222"),
            "--listen {listen}: no clear error: {said}"
        );
        assert!(!said.contains("listening"), "--listen {listen}: {said}");
        assert!(!said.contains(secret), "the token is in the error");
    }
}
