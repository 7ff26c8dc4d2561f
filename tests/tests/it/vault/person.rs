//! The person's side of the vault (issue 37, DESIGN.md §19), with real parts: a `.kdbx` written
//! by the real `keepassxc-cli`, real Chromium pages whose server logs what they receive, a
//! pane on the WebSocket. The pane's `vault_fill` types an item of the person's own vault into
//! the tab it watches (trusted input; no share and no approval asked of her), only into frames
//! of the item's origins; every fill is answered by a `vault_result` that never holds a value;
//! a locked source gives `vault_locked`; where an agent ran `evaluate` nothing is typed, and
//! after her fill into an agent's tab the agent's `evaluate` is refused there.

use std::time::Duration;

use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::vault_fixture;
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

const CHANNEL: &str = "vault-person";
const KP_PASSWORD: &str = "a person's own passphrase";
/// The site password (URL-encoded in the form's query: `%40`).
const SITE_PASSWORD: &str = "p3rs0n-P@ss-77";

/// The requests of `server` whose path starts with `prefix`.
fn received(server: &PageServer, prefix: &str) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.starts_with(&format!("GET {prefix}")))
        .collect()
}

/// Sends `vault_fill` with `fields`; the `vault_result` that answers it, and the mark before.
async fn fill(pane: &Pane, fields: Value) -> (Value, usize) {
    let mark = pane.mark();
    let mut message = fields;
    message["type"] = json!("vault_fill");
    pane.send(message);
    (pane.next_of("vault_result", mark).await, mark)
}

fn text(result: &Value) -> String {
    result["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pane_fills_the_persons_item_into_its_own_site_only() {
    let site = PageServer::area("vault").await;
    let lookalike = PageServer::area("vault").await;
    let dir = TempDir::new("vault-person");
    let daemon = vault_fixture::daemon_with_forum(
        dir.path(),
        KP_PASSWORD,
        SITE_PASSWORD,
        &site.url("/login.html"),
    )
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    // The pane stays on its own tab while the agent works in its own.
    pane.send(json!({"type": "follow_agents", "on": false}));
    pane.open_page(&site.url("/login.html"), "Sign in").await;

    // Locked: the pane is told (vault_locked) and the fill says so; nothing typed.
    let (result, mark) = fill(&pane, json!({"item": "kp/Web/Forum"})).await;
    let locked = pane.next_of("vault_locked", mark).await;
    assert_eq!(locked["source"], "kp", "{locked}");
    assert_eq!(result["ok"], false, "{result}");
    assert!(text(&result).contains("locked"), "{result}");
    assert_eq!(result["item"], "kp/Web/Forum");
    let (status, answer) = daemon
        .post(
            "/api/browser/vault/kp/unlock",
            &json!({"password": KP_PASSWORD}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");

    // Bad input: a clear answer, nothing typed.
    let (result, _) = fill(&pane, json!({"item": ""})).await;
    assert!(
        result["ok"] == false && text(&result).contains("not an item name"),
        "{result}"
    );
    let (result, _) = fill(&pane, json!({"item": "kp/Web/Nope"})).await;
    assert!(
        result["ok"] == false && text(&result).contains("no item \"kp/Web/Nope\""),
        "{result}"
    );
    assert!(
        text(&result).contains("kp/Web/Forum"),
        "lists the items: {result}"
    );
    let (result, _) = fill(
        &pane,
        json!({"item": "kp/Web/Forum", "target_id": "T-none"}),
    )
    .await;
    assert!(
        result["ok"] == false && text(&result).contains("no tab"),
        "{result}"
    );
    let mark = pane.mark();
    pane.send(json!({"type": "vault_fill"}));
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "bad_message", "{error}");
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );

    // The look-alike (same page, another origin): refused, naming both; nothing typed there.
    pane.open_page(&lookalike.url("/login.html"), "Sign in")
        .await;
    let (result, _) = fill(&pane, json!({"item": "kp/Web/Forum"})).await;
    assert_eq!(result["ok"], false, "{result}");
    assert!(
        text(&result).contains(&lookalike.base()) && text(&result).contains(&site.base()),
        "names both origins: {result}"
    );
    assert!(
        received(&lookalike, "/typed").is_empty(),
        "the look-alike received typing: {:?}",
        lookalike.requests()
    );

    // The right site: found, typed with trusted input; the person submits; the server has it.
    pane.open_page(&site.url("/login.html"), "Sign in").await;
    let (result, _) = fill(&pane, json!({"item": "kp/Web/Forum"})).await;
    assert_eq!(result["ok"], true, "{result}");
    assert!(
        text(&result).contains("username and password of 'Forum'")
            && text(&result).contains(&site.base()),
        "{result}"
    );
    pane.input(
        "keypress",
        json!({"key": "Enter", "code": "Enter", "modifiers": 0}),
    );
    let sent = eventually("the form at the site", Duration::from_secs(10), || async {
        received(&site, "/welcome").into_iter().next()
    })
    .await;
    let encoded = SITE_PASSWORD.replace('@', "%40");
    assert_eq!(sent, format!("GET /welcome?user=alice&pass={encoded}"));
    let typed = received(&site, "/typed");
    assert!(
        !typed.is_empty() && typed.iter().all(|t| t.ends_with("trusted=true")),
        "{typed:?}"
    );

    // An agent's tab where it ran evaluate: the person's fill is refused there, nothing typed.
    let (_, token) = daemon.add_agent(CHANNEL, "scripter", &[]).await;
    let agent = daemon.caller(&token);
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let mark = pane.mark();
    agent
        .act_ok("evaluate", json!({"expression": "document.title"}))
        .await;
    let activity = pane
        .message_where("the agent's evaluate", mark, |m| {
            m["type"] == "agent_activity" && m["tool"] == "evaluate"
        })
        .await;
    let agent_tab = activity["target_id"].as_str().unwrap().to_string();
    let typed_before = received(&site, "/typed").len();
    let (result, _) = fill(
        &pane,
        json!({"item": "kp/Web/Forum", "target_id": agent_tab}),
    )
    .await;
    assert_eq!(result["ok"], false, "{result}");
    assert!(text(&result).contains("evaluate"), "{result}");
    assert_eq!(received(&site, "/typed").len(), typed_before);

    // A fresh document of that tab: her fill goes through; then the agent's evaluate there
    // is refused.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (result, _) = fill(
        &pane,
        json!({"item": "kp/Web/Forum", "target_id": agent_tab}),
    )
    .await;
    assert_eq!(result["ok"], true, "{result}");
    let (is_error, answer) = agent
        .act_text(
            "evaluate",
            json!({"expression": "document.querySelector('#pass').value"}),
        )
        .await;
    assert!(is_error && answer.contains("filled"), "{answer}");
    assert!(!answer.contains(SITE_PASSWORD), "{answer}");

    // No value in any vault message, the timeline (the fills are the person's) or the log.
    // (The pane's tabs and page_info do show the site's own /welcome?…&pass=… address: the
    // test page sends its form with GET, and the person sees her own page's URL.)
    let vault_messages = pane
        .wait("the messages so far", Duration::from_secs(1), |r| {
            let vault: Vec<&Value> = r
                .messages
                .iter()
                .filter(|m| m["type"].as_str().is_some_and(|t| t.starts_with("vault")))
                .collect();
            Some(format!("{vault:?}"))
        })
        .await;
    assert!(vault_messages.contains("vault_result"), "{vault_messages}");
    for secret in [SITE_PASSWORD, encoded.as_str()] {
        assert!(!vault_messages.contains(secret), "{vault_messages}");
    }
    let timeline = eventually(
        "the person's fills in the timeline",
        Duration::from_secs(10),
        || {
            let daemon = &daemon;
            async move {
                let (timeline, fills) = daemon.timeline_of(CHANNEL, "vault").await;
                let human = |ok: bool| {
                    fills
                        .iter()
                        .filter(|e| e["actor"]["kind"] == "human" && e["ok"] == ok)
                        .count()
                };
                (human(true) == 2 && human(false) >= 3).then_some(timeline)
            }
        },
    )
    .await;
    let all = timeline.to_string();
    for secret in [SITE_PASSWORD, encoded.as_str()] {
        assert!(!all.contains(secret), "{secret} in the timeline");
    }
    let log = daemon.log();
    for secret in [SITE_PASSWORD, KP_PASSWORD] {
        assert!(!log.contains(secret), "{secret} in the daemon's log");
    }
}
