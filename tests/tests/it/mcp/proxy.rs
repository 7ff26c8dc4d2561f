//! `porthole-mcp` → a running daemon's `POST /api/browser/action` → the channel's session, with
//! a pane watching the channel; every tool, refs through iframe and shadow content, stale refs,
//! waits, logs, tabs, aliases and bad input.

use base64::Engine as _;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::harness::{call, connect, err, eval, eval_until, image, ok, ref_of, Client};

const CHANNEL: &str = "mcp-proxy";

/// A daemon, a pane watching [`CHANNEL`] and `porthole-mcp` on it with the aliases on.
struct Proxy {
    daemon: TestDaemon,
    pane: Pane,
    mcp: Client,
    pages: String,
}

impl Proxy {
    async fn start() -> Self {
        let pages = porthole_tests::pages::PageServer::area("mcp").await;
        let daemon = TestDaemon::start().await;
        let pane = Pane::connect(&daemon.addr, &daemon.token).await;
        pane.start(CHANNEL).await;
        let mcp = proxy(&daemon, &daemon.token, &["--playwright-aliases"]).await;
        Self {
            daemon,
            pane,
            mcp,
            pages: pages.to_string(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.pages)
    }
}

async fn proxy(daemon: &TestDaemon, token: &str, extra: &[&str]) -> Client {
    let mut args: Vec<String> = [
        "--api",
        &daemon.base,
        "--channel",
        CHANNEL,
        "--token",
        token,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    connect("porthole-mcp", &args, &[]).await
}

/// One channel through every step in turn (each step works on what the earlier ones left).
#[tokio::test]
async fn proxy_runs_every_tool_on_the_channel_a_pane_watches() {
    let s = Proxy::start().await;
    navigates_and_the_pane_hears_it(&s).await;
    let snap = reads_the_page(&s).await;
    clicks_refs_in_the_document_a_shadow_root_and_a_frame(&s, &snap).await;
    fills_a_form(&s, &snap).await;
    types_into_a_ref_and_presses_keys(&s, &snap).await;
    points_by_coordinate(&s).await;
    finds_reads_text_and_evaluates(&s).await;
    waits(&s, &snap).await;
    takes_screenshots(&s).await;
    reads_console_and_network(&s).await;
    refuses_stale_refs_after_a_link(&s, &snap).await;
    goes_back_and_forward(&s).await;
    opens_switches_and_closes_tabs(&s).await;
    takes_playwright_aliases(&s).await;
    refuses_bad_input(&s).await;
    answers_the_action_endpoint_over_http(&s).await;
    refuses_a_wrong_token(&s).await;
}

/// navigate + wait_for_text; the pane hears the page change.
async fn navigates_and_the_pane_hears_it(s: &Proxy) {
    let (mcp, pane) = (&s.mcp, &s.pane);
    let url = |p: &str| s.url(p);
    let mark = pane.mark();
    let t = ok(
        mcp,
        "navigate",
        json!({"url": url("/form"), "wait_for_text": "Ready"}),
    )
    .await;
    assert!(t.contains("Title: Form page"), "{t}");
    pane.message_where("page_info of the form", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Form page"
    })
    .await;
}

/// read_page: refs across the iframe and the shadow root, truncation with a note.
async fn reads_the_page(s: &Proxy) -> String {
    let mcp = &s.mcp;
    let snap = ok(mcp, "read_page", json!({})).await;
    for needle in [
        "button \"Change\"",
        "textbox \"Name\"",
        "combobox \"Color\"",
        "checkbox \"Agree\"",
        "link \"Second\"",
        "iframe \"Inner frame\"",
        "button \"Frame button\"",
        "button \"Shadow button\"",
    ] {
        assert!(snap.contains(needle), "{needle} missing in:\n{snap}");
    }
    assert!(!snap.contains("[Cut"), "{snap}");
    let all = ok(
        mcp,
        "read_page",
        json!({"filter": "all", "max_bytes": 3000}),
    )
    .await;
    assert!(all.contains("List item number 0"), "{all}");
    assert!(all.contains("[Cut: ") && all.contains("offset="), "{all}");
    let shallow = ok(mcp, "read_page", json!({"depth": 1})).await;
    assert!(!shallow.contains("Frame button"), "{shallow}");
    // Refs are stable within a document.
    let again = ok(mcp, "read_page", json!({})).await;
    assert_eq!(
        ref_of(&snap, "button \"Change\""),
        ref_of(&again, "button \"Change\"")
    );
    snap
}

/// computer on refs: main document, shadow root, same-origin iframe.
async fn clicks_refs_in_the_document_a_shadow_root_and_a_frame(s: &Proxy, snap: &str) {
    let mcp = &s.mcp;
    // (the button's line in the snapshot, what the page shows once it is clicked, its text)
    let cases = [
        (
            "button \"Change\"",
            "document.getElementById('status').textContent",
            "Changed!",
        ),
        (
            "button \"Shadow button\"",
            "document.getElementById('host').shadowRoot.getElementById('ss').textContent",
            "shadow clicked",
        ),
        (
            "button \"Frame button\"",
            "document.getElementById('frame').contentDocument.getElementById('fs').textContent",
            "frame clicked",
        ),
    ];
    for (button, shown, expected) in cases {
        let target = ref_of(snap, button);
        ok(
            mcp,
            "computer",
            json!({"action": "left_click", "ref": target}),
        )
        .await;
        eval_until(mcp, shown, json!(expected)).await;
    }
}

/// form_input: text, select (by visible text), checkbox.
async fn fills_a_form(s: &Proxy, snap: &str) {
    let mcp = &s.mcp;
    // (the field's line in the snapshot, the value given, what the page reads, its value)
    let cases = [
        (
            "textbox \"Name\"",
            json!("Ada"),
            "document.getElementById('name').value",
            json!("Ada"),
        ),
        (
            "combobox \"Color\"",
            json!("Green"),
            "document.getElementById('color').value",
            json!("g"),
        ),
        (
            "checkbox \"Agree\"",
            json!(true),
            "document.getElementById('agree').checked",
            json!(true),
        ),
    ];
    for (field, value, read, expected) in cases {
        let target = ref_of(snap, field);
        ok(mcp, "form_input", json!({"ref": target, "value": value})).await;
        assert_eq!(eval(mcp, read).await, expected, "{field} given {value}");
    }
    let e = err(
        mcp,
        "form_input",
        json!({"ref": ref_of(snap, "combobox \"Color\""), "value": "Purple"}),
    )
    .await;
    assert!(e.contains("no option \"Purple\""), "{e}");
    let after = ok(mcp, "read_page", json!({})).await;
    assert!(
        after.contains("value=\"Ada\"") && after.contains("checked"),
        "{after}"
    );
}

/// type into a ref, keys with modifiers.
async fn types_into_a_ref_and_presses_keys(s: &Proxy, snap: &str) {
    let mcp = &s.mcp;
    let name = ref_of(snap, "textbox \"Name\"");
    ok(
        mcp,
        "computer",
        json!({"action": "triple_click", "ref": name}),
    )
    .await;
    ok(
        mcp,
        "computer",
        json!({"action": "type", "ref": name, "text": " Lovelace"}),
    )
    .await;
    let v = eval(mcp, "document.getElementById('name').value").await;
    assert!(v.as_str().unwrap().ends_with("Lovelace"), "{v}");
    ok(
        mcp,
        "computer",
        json!({"action": "key", "text": "ctrl+b Escape"}),
    )
    .await;
    let keys = eval(mcp, "window.keys.join(',')").await;
    assert!(
        keys.as_str().unwrap().contains("b+ctrl") && keys.as_str().unwrap().contains("Escape"),
        "{keys}"
    );
}

/// Pointer actions by coordinate on the pad (its centre from the page itself).
async fn points_by_coordinate(s: &Proxy) {
    let mcp = &s.mcp;
    let pad = eval(mcp, "(() => { const r = document.getElementById('pad'); r.scrollIntoView({block:'center'}); const b = r.getBoundingClientRect(); return [b.x + b.width/2, b.y + b.height/2]; })()").await;
    let at = json!([pad[0], pad[1]]);
    for action in ["hover", "double_click", "right_click"] {
        ok(mcp, "computer", json!({"action": action, "coordinate": at})).await;
    }
    ok(
        mcp,
        "computer",
        json!({"action": "mouse_move", "coordinate": [1, 1]}),
    )
    .await;
    ok(mcp, "computer", json!({"action": "left_click_drag", "start_coordinate": at, "coordinate": [pad[0].as_f64().unwrap() + 40.0, pad[1].as_f64().unwrap()]})).await;
    let mouse = eval(mcp, "window.mouse.join(',')").await;
    let mouse = mouse.as_str().unwrap();
    for needle in [
        "mouseover",
        "dblclick:0:2",
        "contextmenu:2",
        "mousedown:0:1",
    ] {
        assert!(mouse.contains(needle), "{needle} missing in {mouse}");
    }
    // The hover came first (before any press), and the drag released 40 px from its press.
    assert!(
        mouse.starts_with("mouseover:"),
        "the hover entered the pad: {mouse}"
    );
    assert!(mouse.contains("moved:40"), "the drag moved 40 px: {mouse}");
    ok(
        mcp,
        "computer",
        json!({"action": "scroll", "scroll_direction": "down", "scroll_amount": 5}),
    )
    .await;
    eval_until(mcp, "scrollY > 0", json!(true)).await;
}

/// find, get_page_text, page_info, evaluate, resize_window.
async fn finds_reads_text_and_evaluates(s: &Proxy) {
    let mcp = &s.mcp;
    let found = ok(mcp, "find", json!({"query": "agree"})).await;
    assert!(found.contains("checkbox \"Agree\""), "{found}");
    let text = ok(mcp, "get_page_text", json!({"max_chars": 200})).await;
    assert!(
        text.contains("Ready") && text.contains("[Truncated"),
        "{text}"
    );
    let info = ok(mcp, "page_info", json!({})).await;
    assert!(
        info.contains("Title: Form page") && info.contains("Tab: [1] of 1"),
        "{info}"
    );
    assert_eq!(eval(mcp, "1 + 1").await, json!(2));
    let thrown = err(mcp, "evaluate", json!({"expression": "nope.nope"})).await;
    assert!(thrown.contains("ReferenceError"), "{thrown}");
    ok(mcp, "resize_window", json!({"width": 700, "height": 500})).await;
    assert_eq!(eval(mcp, "innerWidth").await, json!(700));
}

/// Waits: computer wait, wait_for_selector after acting, a timeout is an error.
async fn waits(s: &Proxy, snap: &str) {
    let mcp = &s.mcp;
    ok(mcp, "computer", json!({"action": "wait", "duration": 0.1})).await;
    let later = ref_of(snap, "button \"Later\"");
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": later, "wait_for_selector": "#late"}),
    )
    .await;
    assert!(t.contains("Waited"), "{t}");
    // (the tool, a wait that never ends, what the error says)
    let timeouts = [
        (
            "computer",
            json!({"action": "wait", "wait_for_text": "never there", "wait_timeout_ms": 600}),
            "Timed out after 600 ms",
        ),
        (
            "screenshot",
            json!({"wait_for_selector": "#nope", "wait_timeout_ms": 300}),
            "Timed out",
        ),
    ];
    for (tool, args, expected) in timeouts {
        let e = err(mcp, tool, args.clone()).await;
        assert!(e.contains(expected), "{tool} {args}: {e}");
    }
}

/// Screenshots: image blocks, and a file written by the proxy.
async fn takes_screenshots(s: &Proxy) {
    let mcp = &s.mcp;
    let shot = call(mcp, "screenshot", json!({"format": "png"})).await;
    let (data, mime) = image(&shot).expect("an image block");
    assert_eq!(mime, "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let shot = call(mcp, "computer", json!({"action": "screenshot"})).await;
    assert_eq!(image(&shot).expect("an image block").1, "image/jpeg");
    let dir = porthole_tests::TempDir::new("mcp-shot");
    let file = dir.path().join("sub/shot.png");
    ok(
        mcp,
        "save_screenshot",
        json!({"path": file.to_str().unwrap()}),
    )
    .await;
    assert!(std::fs::read(&file).unwrap().starts_with(b"\x89PNG"));
}

/// Console and network since the tab was attached.
async fn reads_console_and_network(s: &Proxy) {
    let mcp = &s.mcp;
    let console = ok(mcp, "read_console_messages", json!({})).await;
    assert!(
        console.contains("hello from form") && console.contains("data 42"),
        "{console}"
    );
    let errors = ok(mcp, "read_console_messages", json!({"level": "error"})).await;
    assert!(
        errors.contains("form error for tests") && !errors.contains("hello from form"),
        "{errors}"
    );
    let net = ok(
        mcp,
        "read_network_requests",
        json!({"url_pattern": "/api/data"}),
    )
    .await;
    assert!(net.contains("GET") && net.contains("200"), "{net}");
    ok(mcp, "read_network_requests", json!({"clear": true})).await;
    let net = ok(
        mcp,
        "read_network_requests",
        json!({"url_pattern": "/api/data"}),
    )
    .await;
    assert!(net.contains("No network requests"), "{net}");
}

/// Following a link: the result says what changed; old refs are refused, not misapplied.
async fn refuses_stale_refs_after_a_link(s: &Proxy, snap: &str) {
    let mcp = &s.mcp;
    let (change, name) = (
        ref_of(snap, "button \"Change\""),
        ref_of(snap, "textbox \"Name\""),
    );
    let link = ref_of(snap, "link \"Second\"");
    let t = ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": link}),
    )
    .await;
    assert!(t.contains("URL changed") && t.contains("/second"), "{t}");
    let e = err(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": change}),
    )
    .await;
    assert!(
        e.contains("call read_page again") || e.contains("Call read_page again"),
        "{e}"
    );
    let snap2 = ok(mcp, "read_page", json!({})).await;
    let e = err(mcp, "form_input", json!({"ref": name, "value": "x"})).await;
    assert!(e.contains("earlier version"), "{e}");
    assert!(
        !snap2.contains(&format!("[ref={change}]")),
        "refs are never reused: {snap2}"
    );
    let e = err(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": "e99999"}),
    )
    .await;
    assert!(e.contains("Unknown ref e99999"), "{e}");
}

/// History.
async fn goes_back_and_forward(s: &Proxy) {
    let mcp = &s.mcp;
    // (the tool, what its answer names)
    let cases = [
        ("go_back", "/form"),
        ("go_forward", "/second"),
        ("reload", "Second page"),
    ];
    for (tool, expected) in cases {
        let t = ok(mcp, tool, json!({})).await;
        assert!(t.contains(expected), "{tool}: {t}");
    }
}

/// Tabs: numbered from 1, the pane hears every change.
async fn opens_switches_and_closes_tabs(s: &Proxy) {
    let (mcp, pane) = (&s.mcp, &s.pane);
    let url = |p: &str| s.url(p);
    let mark = pane.mark();
    let t = ok(mcp, "new_tab", json!({"url": url("/form")})).await;
    assert!(t.contains("[2]") && t.contains("(active)"), "{t}");
    let created = pane.next_of("tab_created", mark).await;
    let new_id = created["target_id"].as_str().unwrap().to_string();
    // The pane follows the owner onto the new tab; that move is told before the switch back
    // below is looked for (it came after the mark once, in a loaded full run).
    pane.message_where("the pane on the new tab", mark, |m| {
        m["type"] == "tab_switched" && m["target_id"] == json!(new_id)
    })
    .await;
    let list = ok(mcp, "list_tabs", json!({})).await;
    assert!(
        list.contains("[1] Second page")
            && list.contains(&format!(
                "[2] Form page — {} [id={new_id}] (active)",
                url("/form")
            )),
        "{list}"
    );
    let mark = pane.mark();
    ok(mcp, "switch_tab", json!({"tab": 1})).await;
    let switched = pane.next_of("tab_switched", mark).await;
    assert_ne!(switched["target_id"], json!(new_id));
    let e = err(mcp, "switch_tab", json!({"tab": 5})).await;
    assert!(
        e.contains("There is no tab 5") && e.contains("2 tab(s)"),
        "{e}"
    );
    let e = err(mcp, "close_tab", json!({"tab": "no-such-target"})).await;
    assert!(e.contains("no-such-target"), "{e}");
    let mark = pane.mark();
    ok(mcp, "close_tab", json!({"tab": new_id})).await;
    let closed = pane.next_of("tab_closed", mark).await;
    assert_eq!(closed["target_id"], json!(new_id));
}

/// Playwright aliases.
async fn takes_playwright_aliases(s: &Proxy) {
    let mcp = &s.mcp;
    let url = |p: &str| s.url(p);
    ok(mcp, "browser_navigate", json!({"url": url("/form")})).await;
    let snap = ok(mcp, "browser_snapshot", json!({})).await;
    let change = ref_of(&snap, "button \"Change\"");
    ok(
        mcp,
        "browser_click",
        json!({"element": "Change button", "target": change}),
    )
    .await;
    eval_until(
        mcp,
        "document.getElementById('status').textContent",
        json!("Changed!"),
    )
    .await;
    ok(
        mcp,
        "browser_type",
        json!({"ref": ref_of(&snap, "textbox \"Name\""), "text": "Grace"}),
    )
    .await;
    assert_eq!(
        eval(mcp, "document.getElementById('name').value").await,
        json!("Grace")
    );
    ok(
        mcp,
        "browser_select_option",
        json!({"ref": ref_of(&snap, "combobox \"Color\""), "values": ["Blue"]}),
    )
    .await;
    assert_eq!(
        eval(mcp, "document.getElementById('color').value").await,
        json!("b")
    );
    let tabs = ok(mcp, "browser_tabs", json!({"action": "list"})).await;
    assert!(tabs.contains("[1]"), "{tabs}");
    ok(mcp, "browser_wait_for", json!({"text": "Ready"})).await;
}

/// Bad input: an error result saying what to do, never a hang.
async fn refuses_bad_input(s: &Proxy) {
    let closed = format!("http://127.0.0.1:{}/", free_port());
    let cases = [
        ("teleport", json!({}), "Unknown tool `teleport`"),
        ("navigate", json!({}), "missing required argument `url`"),
        ("navigate", json!({"url": 5}), "argument `url`"),
        (
            "computer",
            json!({"action": "left_click"}),
            "needs `coordinate`",
        ),
        ("navigate", json!({"url": closed}), "ERR_CONNECTION_REFUSED"),
        (
            "navigate",
            json!({"url": "file:///etc/passwd"}),
            "agents may open only",
        ),
        (
            "computer",
            json!({"action": "left_click", "coordinate": [5000, 10]}),
            "outside the",
        ),
    ];
    for (tool, args, expected) in cases {
        let e = err(&s.mcp, tool, args.clone()).await;
        assert!(
            e.contains(expected),
            "{tool} {args}: {e:?} should contain {expected:?}"
        );
    }
}

/// The action endpoint answers the same over plain HTTP; the daemon never writes files.
async fn answers_the_action_endpoint_over_http(s: &Proxy) {
    let daemon = &s.daemon;
    // (what is asked, the request, its status, its `isError` when it answers one)
    let cases = [
        (
            "page_info",
            json!({"channel_id": CHANNEL, "tool": "page_info", "args": {}}),
            200,
            Some(false),
        ),
        (
            "a file written by the daemon",
            json!({"channel_id": CHANNEL, "tool": "save_screenshot", "args": {"path": "/tmp/x.png"}}),
            200,
            Some(true),
        ),
        (
            "a bad channel id",
            json!({"channel_id": "../bad", "tool": "page_info", "args": {}}),
            400,
            None,
        ),
    ];
    for (name, request, expected_status, expected_error) in cases {
        let (status, body) = daemon.post("/api/browser/action", &request).await;
        assert_eq!(status, expected_status, "{name}: {body}");
        if let Some(is_error) = expected_error {
            assert_eq!(body["isError"], json!(is_error), "{name}: {body}");
        }
    }
    let (_, doc) = daemon.get("/api/openapi.json").await;
    assert!(doc["paths"]["/api/browser/action"].is_object());
}

/// A wrong token: told what to do.
async fn refuses_a_wrong_token(s: &Proxy) {
    let daemon = &s.daemon;
    let wrong = proxy(daemon, "not-the-token", &[]).await;
    let e = err(&wrong, "page_info", json!({})).await;
    assert!(e.contains("refused the token"), "{e}");
}

#[tokio::test]
async fn proxy_reports_an_unreachable_daemon() {
    let port = free_port();
    let args: Vec<String> = [
        "--api",
        &format!("http://127.0.0.1:{port}"),
        "--channel",
        CHANNEL,
        "--token",
        "t",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mcp = connect("porthole-mcp", &args, &[]).await;
    let e = err(&mcp, "navigate", json!({"url": "http://127.0.0.1:1/"})).await;
    assert!(
        e.contains("not reachable") && e.contains("porthole serve"),
        "{e}"
    );
}

/// A port that was just free: nothing listens there.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
