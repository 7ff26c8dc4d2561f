//! The timeline (DESIGN.md §17) against the real daemon, Chromium and a pane's WebSocket: two
//! agents and a person on one channel are recorded in order with the right actors, tools and
//! URLs; frames are JPEGs that differ where the page changed; typed passwords appear in no
//! answer and no file; the export plays in a real Chromium; agent tokens get 403; the cap
//! holds; a restart keeps it, a reset removes it, and a SIGKILL mid-recording leaves it
//! readable. Frames of watched tabs while they change: [`watched_frames`]; of calls made back
//! to back: [`paced_frames`]; a SIGTERM writes what was queued: [`drain`]; the cap against
//! events without frames and huge fields: [`bounds`]; tokens in URLs: [`url_tokens`]; the frame
//! of a call on a watched tab is the cast's own: [`view_frames`].

mod bounds;
mod drain;
mod paced_frames;
mod url_tokens;
mod view_frames;
mod watched_frames;

use std::path::Path;
use std::time::Duration;

use porthole::cdp::CdpConnection;
use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::eventually;
use porthole_tests::pages::{http_get_bytes, PageServer};
use porthole_tests::pane::Pane;
use porthole_tests::raw_cdp;
use porthole_tests::TempDir;
use serde_json::{json, Value};

/// What the agent types into the password field (must never be stored).
const AGENT_PASSWORD: &str = "Agent-Pw-7c1e9f";
/// What the person types at the pane (must never be stored).
const PERSON_PASSWORD: &str = "Person-Pw-4b2d8a";

/// Paints new noise (works from any world: only the DOM is used).
const REPAINT: &str = "(() => { const c = document.getElementById('c').getContext('2d'); \
    const img = c.createImageData(800, 600); \
    for (let i = 0; i < img.data.length; i++) img.data[i] = Math.random() * 256; \
    c.putImageData(img, 0, 0); return 1; })()";

/// Serves this module's pages (`tests/pages/timeline/`); returns the base URL.
async fn serve_pages() -> String {
    PageServer::area("timeline").await.base()
}

/// Runs one tool with the owner token on `channel`; it must succeed.
async fn owner_act(daemon: &TestDaemon, channel: &str, tool: &str, args: Value) -> Value {
    daemon.owner_on(channel).act_ok(tool, args).await
}

/// A daemon started with `options`, with the owner's `channel` already on `url`.
async fn daemon_on_page(options: DaemonOptions, channel: &str, url: &str) -> TestDaemon {
    let daemon = TestDaemon::start_with(options).await;
    owner_act(&daemon, channel, "navigate", json!({ "url": url })).await;
    daemon
}

/// The channel's events (all pages of them).
async fn events(daemon: &TestDaemon, channel: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut since = 0;
    loop {
        let (status, page) = daemon
            .get(&format!(
                "/api/browser/channels/{channel}/timeline?since_seq={since}&limit=50"
            ))
            .await;
        assert_eq!(status, 200, "{page}");
        let got = page["events"].as_array().unwrap().clone();
        if got.is_empty() {
            return all;
        }
        since = page["next_seq"].as_u64().unwrap();
        all.extend(got);
    }
}

async fn frame(daemon: &TestDaemon, channel: &str, id: &str) -> (u16, Vec<u8>) {
    let auth = format!("Bearer {}", daemon.token);
    let (status, _, body) = http_get_bytes(
        &daemon.addr,
        &format!("/api/browser/channels/{channel}/timeline/frames/{id}"),
        &[("Authorization", &auth)],
    )
    .await;
    (status, body)
}

/// The channel's export: its status and HTML.
async fn export(daemon: &TestDaemon, channel: &str) -> (u16, Vec<u8>) {
    let auth = format!("Bearer {}", daemon.token);
    let (status, _, html) = http_get_bytes(
        &daemon.addr,
        &format!("/api/browser/channels/{channel}/timeline/export"),
        &[("Authorization", &auth)],
    )
    .await;
    (status, html)
}

fn find(events: &[Value], check: impl Fn(&Value) -> bool) -> Option<&Value> {
    events.iter().find(|e| check(e))
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn dir_bytes(dir: &Path) -> u64 {
    files_under(dir)
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

#[tokio::test]
async fn two_agents_and_a_person_share_one_recorded_history() {
    let pages = serve_pages().await;
    let daemon = TestDaemon::start().await;
    let channel = "tl-shared";
    let (alpha_id, alpha) = daemon.add_agent(channel, "alpha", &[]).await;
    let (beta_id, beta) = daemon.add_agent(channel, "beta", &[]).await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane.watch().await;

    daemon
        .caller(&alpha)
        .act_ok("navigate", json!({"url": format!("{pages}/login")}))
        .await;
    daemon
        .caller(&beta)
        .act_ok("navigate", json!({"url": format!("{pages}/blue")}))
        .await;
    daemon
        .caller(&alpha)
        .act_ok(
            "computer",
            json!({"action": "type", "coordinate": [150, 55], "text": AGENT_PASSWORD}),
        )
        .await;
    // The person: to the login page in the pane's own tab, a click in the field, a password.
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": format!("{pages}/login")}));
    pane.message_where("the login page in the pane", mark, |m| {
        m["type"] == "page_info" && m["url"].as_str().is_some_and(|u| u.ends_with("/login"))
    })
    .await;
    pane.input("click", json!({"x": 150, "y": 55}));
    pane.input("typetext", json!({"text": PERSON_PASSWORD}));
    // Live: the pane hears of the person's burst.
    let typed = pane
        .message_where("a timeline_event for the person's typing", mark, |m| {
            m["type"] == "timeline_event" && m["action"] == "keys"
        })
        .await;
    assert_eq!(typed["actor"]["kind"], "human", "{typed}");
    assert_eq!(
        typed["summary"],
        format!("typed {} characters", PERSON_PASSWORD.len())
    );

    let all = eventually(
        "the timeline to hold every step",
        Duration::from_secs(30),
        || async {
            let all = events(&daemon, channel).await;
            let has = |f: &dyn Fn(&Value) -> bool| all.iter().any(f);
            (has(&|e| e["tool"] == "computer" && e["actor"]["agent_id"] == alpha_id.as_str())
                && has(&|e| e["kind"] == "human" && e["action"] == "keys"))
            .then_some(all)
        },
    )
    .await;
    // In order, each with its actor, tool and URL.
    let seqs: Vec<u64> = all.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let tool = |agent: &str, tool: &str| {
        find(&all, |e| {
            e["kind"] == "tool" && e["tool"] == tool && e["actor"]["agent_id"] == agent
        })
        .unwrap_or_else(|| panic!("no {tool} of {agent} in {all:#?}"))
        .clone()
    };
    let alpha_nav = tool(&alpha_id, "navigate");
    let beta_nav = tool(&beta_id, "navigate");
    let alpha_type = tool(&alpha_id, "computer");
    assert_eq!(alpha_nav["actor"]["name"], "alpha");
    assert_eq!(beta_nav["actor"]["name"], "beta");
    assert!(alpha_nav["seq"].as_u64() < beta_nav["seq"].as_u64());
    assert!(beta_nav["seq"].as_u64() < alpha_type["seq"].as_u64());
    assert!(
        alpha_nav["url"].as_str().unwrap().ends_with("/login"),
        "{alpha_nav}"
    );
    assert!(
        beta_nav["url"].as_str().unwrap().ends_with("/blue"),
        "{beta_nav}"
    );
    assert_eq!(alpha_nav["ok"], true);
    assert!(alpha_nav["ms"].as_u64().is_some());
    assert!(alpha_nav["at"].as_str().unwrap().ends_with('Z'));
    assert!(
        alpha_type["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("<{} characters>", AGENT_PASSWORD.len())),
        "{alpha_type}"
    );
    let click = find(&all, |e| e["kind"] == "human" && e["action"] == "click").expect("a click");
    assert!(
        click["url"].as_str().unwrap().ends_with("/login"),
        "{click}"
    );
    assert!(find(&all, |e| e["kind"] == "navigation"
        && e["url"].as_str().is_some_and(|u| u.ends_with("/blue")))
    .is_some());
    // The actor filter.
    let (status, only) = daemon
        .get(&format!(
            "/api/browser/channels/{channel}/timeline?actor={beta_id}"
        ))
        .await;
    assert_eq!(status, 200);
    let only = only["events"].as_array().unwrap();
    assert!(!only.is_empty());
    assert!(
        only.iter()
            .all(|e| e["actor"]["agent_id"] == beta_id.as_str()),
        "{only:?}"
    );

    // Frames: JPEGs, and the login page is not the blue page.
    let (status, login) = frame(&daemon, channel, alpha_nav["frame_id"].as_str().unwrap()).await;
    assert_eq!(status, 200);
    let (status, blue) = frame(&daemon, channel, beta_nav["frame_id"].as_str().unwrap()).await;
    assert_eq!(status, 200);
    assert!(login.starts_with(&[0xFF, 0xD8]) && blue.starts_with(&[0xFF, 0xD8]));
    assert_ne!(login, blue);
    let pixel = |jpeg: &[u8]| {
        let image = image::load_from_memory(jpeg).unwrap().to_rgb8();
        image.get_pixel(image.width() / 2, image.height() - 5).0
    };
    assert!(
        pixel(&blue)[2] > 150 && pixel(&blue)[0] < 80,
        "{:?}",
        pixel(&blue)
    );
    assert!(
        pixel(&login).iter().all(|c| *c > 200),
        "{:?}",
        pixel(&login)
    );

    // Bad input: clear 4xx.
    for (path, want) in [
        (
            format!("/api/browser/channels/{channel}/timeline?since_seq=-1"),
            400,
        ),
        (
            format!("/api/browser/channels/{channel}/timeline?limit=0"),
            400,
        ),
        (
            format!("/api/browser/channels/{channel}/timeline?limit=100000"),
            400,
        ),
        (
            "/api/browser/channels/tl-never-seen/timeline".to_string(),
            404,
        ),
        (
            format!("/api/browser/channels/{channel}/timeline/frames/nope"),
            400,
        ),
        (
            format!(
                "/api/browser/channels/{channel}/timeline/frames/{}",
                "0".repeat(32)
            ),
            404,
        ),
        (
            format!("/api/browser/channels/{channel}/timeline/export?since_seq=5&until_seq=2"),
            400,
        ),
    ] {
        let (status, body) = daemon.get(&path).await;
        assert_eq!(status, want, "{path}: {body}");
        if want == 400 {
            assert!(body["error"]["message"].as_str().is_some(), "{body}");
        }
    }

    // Agent tokens: 403 on every timeline route.
    let frame_path = format!(
        "/api/browser/channels/{channel}/timeline/frames/{}",
        alpha_nav["frame_id"].as_str().unwrap()
    );
    for (method, path) in [
        ("GET", format!("/api/browser/channels/{channel}/timeline")),
        ("GET", frame_path.clone()),
        (
            "GET",
            format!("/api/browser/channels/{channel}/timeline/export"),
        ),
        (
            "DELETE",
            format!("/api/browser/channels/{channel}/timeline"),
        ),
    ] {
        let (status, body) = daemon.request_as(Some(&alpha), method, &path, None).await;
        assert_eq!(status, 403, "{method} {path}: {body}");
    }

    // The export plays in a real Chromium: every event listed, a frame shown.
    // A held event or a frame of the watched page may still be written meanwhile: exported
    // again until the list stood still across the export.
    let auth = format!("Bearer {}", daemon.token);
    let (html, exported) = eventually(
        "an export while the timeline stood still",
        Duration::from_secs(30),
        || async {
            let listed = events(&daemon, channel).await.len();
            let (status, _, html) = http_get_bytes(
                &daemon.addr,
                &format!("/api/browser/channels/{channel}/timeline/export"),
                &[("Authorization", &auth)],
            )
            .await;
            assert_eq!(status, 200);
            (events(&daemon, channel).await.len() == listed).then_some((html, listed))
        },
    )
    .await;
    let export_dir = TempDir::new("timeline-export");
    let export_file = export_dir.path().join("timeline.html");
    std::fs::write(&export_file, &html).unwrap();
    check_export_plays(&export_file, exported).await;

    // No password anywhere: the answers, the export, any file in the data directory.
    let listed = events(&daemon, channel).await;
    let answers = serde_json::to_string(&listed).unwrap();
    for secret in [AGENT_PASSWORD, PERSON_PASSWORD] {
        assert!(
            !answers.contains(secret),
            "{secret} in the timeline's answer"
        );
        assert!(!contains(&html, secret), "{secret} in the export");
        for file in files_under(daemon.data.path()) {
            let bytes = std::fs::read(&file).unwrap_or_default();
            assert!(!contains(&bytes, secret), "{secret} in {}", file.display());
        }
    }

    // DELETE: 204 and nothing left.
    let (status, _) = daemon
        .delete(&format!("/api/browser/channels/{channel}/timeline"))
        .await;
    assert_eq!(status, 204);
    assert!(events(&daemon, channel).await.is_empty());
}

/// Opens the exported file in a headless Chromium: as many rows as events, a frame painted.
async fn check_export_plays(file: &Path, events: usize) {
    let browser = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&browser.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let url = format!("file://{}", file.display());
    let (_, session) = raw_cdp::open(&cdp, &url).await;
    let eval = |expression: &'static str| {
        let (cdp, session) = (cdp.clone(), session.clone());
        async move {
            let params = json!({"expression": expression, "returnByValue": true});
            raw_cdp::evaluate(&cdp, &session, params).await
        }
    };
    let rows = eventually(
        "the export's event rows",
        Duration::from_secs(30),
        || async {
            eval("document.querySelectorAll('#events li').length")
                .await
                .as_u64()
                .filter(|n| *n > 0)
        },
    )
    .await;
    assert_eq!(rows as usize, events);
    // Scrub to the last event: its frame shows.
    eval("(() => { const s = document.getElementById('scrub'); s.value = s.max; s.dispatchEvent(new Event('input')); })()").await;
    let width = eventually("a frame in the export", Duration::from_secs(10), || async {
        eval("(() => { const i = document.querySelector('#view img'); return i && i.complete ? i.naturalWidth : 0; })()")
            .await
            .as_u64()
            .filter(|w| *w > 0)
    })
    .await;
    assert!(width >= 100, "{width}");
    // A screenshot of it is not blank.
    let shot = cdp
        .call_on(
            &session,
            "Page.captureScreenshot",
            json!({"format": "jpeg", "quality": 90}),
        )
        .await
        .unwrap();
    use base64::Engine as _;
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().unwrap())
        .unwrap();
    let image = image::load_from_memory(&jpeg).unwrap().to_rgb8();
    let first = *image.get_pixel(0, 0);
    let distinct = image
        .pixels()
        .filter(|p| p.0.iter().zip(first.0).any(|(a, b)| a.abs_diff(b) > 40))
        .count();
    assert!(distinct > 1000, "the export's screenshot is blank");
}

#[tokio::test]
async fn the_cap_holds_restart_keeps_sigkill_spares_and_reset_removes() {
    let pages = serve_pages().await;
    let options = DaemonOptions {
        config: json!({"timeline": {"max_mb": 2}}),
        ..DaemonOptions::default()
    };
    let channel = "tl-bounds";
    let daemon = daemon_on_page(options.clone(), channel, &format!("{pages}/noise")).await;
    // Each call repaints the noise, so no two frames are alike (identical ones are kept
    // once), and calls back to back get a capture a second (`timeline::pace`). Frames' sizes
    // vary with the machine: call until the first events are gone.
    let mut calls = 0;
    let calling = std::time::Instant::now();
    loop {
        for _ in 0..10 {
            owner_act(&daemon, channel, "evaluate", json!({"expression": REPAINT})).await;
        }
        calls += 10;
        let first = events(&daemon, channel).await[0]["seq"].as_u64();
        if first > Some(1) {
            break;
        }
        assert!(
            calling.elapsed() < Duration::from_secs(120),
            "{calls} calls in two minutes kept every event; the cap never bit"
        );
    }
    // The recorder keeps order: once this last call is in, every one before it is.
    owner_act(
        &daemon,
        channel,
        "navigate",
        json!({"url": format!("{pages}/blue")}),
    )
    .await;
    let dir = daemon.data.path().join("timeline").join(channel);
    let cap = 2 * 1024 * 1024;
    let kept = eventually(
        "the last call recorded",
        Duration::from_secs(90),
        || async {
            let all = events(&daemon, channel).await;
            all.iter()
                .any(|e| {
                    e["tool"] == "navigate"
                        && e["url"].as_str().is_some_and(|u| u.ends_with("/blue"))
                })
                .then_some(all)
        },
    )
    .await;
    // The oldest went first: the first navigate and early page_info calls are gone.
    assert!(
        kept[0]["seq"].as_u64() > Some(1),
        "{:?} {} bytes {} events, {} with frames",
        kept[0],
        dir_bytes(&dir),
        kept.len(),
        kept.iter().filter(|e| e["frame_id"].is_string()).count()
    );
    assert!(kept.iter().filter(|e| e["kind"] == "tool").count() < calls + 2);
    assert!(!kept.iter().any(
        |e| e["tool"] == "navigate" && e["url"].as_str().is_some_and(|u| u.ends_with("/noise"))
    ));
    assert!(dir_bytes(&dir) <= cap, "{} bytes > {cap}", dir_bytes(&dir));
    // Every listed frame is served, unless its event was pruned since the listing (the cap is
    // checked on every append, and the page's own events still arrive): an event never
    // outlives its frame.
    for e in kept.iter().filter(|e| e["frame_id"].is_string()) {
        let (status, jpeg) = frame(&daemon, channel, e["frame_id"].as_str().unwrap()).await;
        if status == 404 {
            let now = events(&daemon, channel).await;
            assert!(
                !now.iter().any(|n| n["seq"] == e["seq"]),
                "an event is listed while its frame is gone: {e}"
            );
            continue;
        }
        assert_eq!(status, 200, "{e}");
        assert!(jpeg.starts_with(&[0xFF, 0xD8]));
    }

    // A restart keeps it.
    let before = events(&daemon, channel).await;
    let data = daemon.stop().await;
    let mut daemon = TestDaemon::start_in(data, options.clone()).await;
    let restarted = events(&daemon, channel).await;
    assert_eq!(restarted[..before.len()], before[..]);

    // SIGKILL while tools run and frames are written: the rest stays readable.
    let owner = daemon.owner_on(channel);
    let busy = tokio::spawn(async move {
        loop {
            let (status, _) = owner.call("page_info", json!({})).await;
            if status != 200 {
                break;
            }
        }
    });
    let last = before.last().unwrap()["seq"].as_u64().unwrap();
    eventually(
        "recording after the restart",
        Duration::from_secs(60),
        || async {
            let all = events(&daemon, channel).await;
            (all.last().unwrap()["seq"].as_u64().unwrap() > last + 3).then_some(())
        },
    )
    .await;
    daemon.kill_hard().await;
    busy.abort();
    let data = std::mem::replace(&mut daemon.data, TempDir(std::path::PathBuf::new()));
    drop(daemon);
    let daemon = TestDaemon::start_in(data, options).await;
    let after = events(&daemon, channel).await;
    assert!(
        after.len() >= before.len(),
        "{} < {}",
        after.len(),
        before.len()
    );
    assert!(after.last().unwrap()["seq"].as_u64().unwrap() > last);
    let seqs: Vec<u64> = after.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    // Every event but the very last has its frame whole.
    for e in after
        .iter()
        .rev()
        .skip(1)
        .filter(|e| e["frame_id"].is_string())
    {
        let (status, jpeg) = frame(&daemon, channel, e["frame_id"].as_str().unwrap()).await;
        assert_eq!(status, 200, "{e}");
        assert!(image::load_from_memory(&jpeg).is_ok());
    }
    // Recording goes on after the kill.
    owner_act(&daemon, channel, "page_info", json!({})).await;
    let newest = after.last().unwrap()["seq"].as_u64().unwrap();
    eventually(
        "a new event after the kill",
        Duration::from_secs(30),
        || async {
            let all = events(&daemon, channel).await;
            (all.last().unwrap()["seq"].as_u64().unwrap() > newest).then_some(())
        },
    )
    .await;

    // Profile reset removes it.
    let (status, body) = daemon
        .post(
            "/api/browser/profile/reset",
            &json!({"channel_id": channel}),
        )
        .await;
    assert!(status < 300, "{status} {body}");
    assert!(
        !dir.exists() || files_under(&dir).is_empty(),
        "{:?}",
        files_under(&dir)
    );
    assert!(events(&daemon, channel).await.is_empty());
}
