//! The approval kinds the first round never tested (issue 52; the test audit's consent rows),
//! through the real daemon and Chromium: `login` (a vault fill waits for the card, which names
//! the item and fields and never a value; declined nothing is typed), `upload` (declined
//! refused, allowed done) and `download` (the browser's own download waits for the card:
//! declined it is cancelled and its file removed, allowed its bytes come without a second
//! card), the config file's `agents.sites` and `agents.confirm`
//! holding an agent with no rules of its own, the timeline's approval events (who closed
//! each, `timed_out` and `unwatched`, never the script they were about), a popup, a meta
//! refresh and a `data:` document never reaching a refused site, and script posts toward a
//! refused site refused with no card (posts to an allowed site wait for the `submit` card).

use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::eventually;
use porthole_tests::mcp::ref_of;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::vault_fixture::{self, KdbxEntry, KdbxFormat};
use porthole_tests::TempDir;
use serde_json::{json, Value};

use super::{agent_with, pane_on};

const CHANNEL: &str = "kinds";
const KP_PASSWORD: &str = "kinds vault passphrase";
const SITE_PASSWORD: &str = "k1nds-S3cret-pw";

/// Calls `tool` with `args` in a task of its own (the call waits for the person); the task's
/// answer is `(isError, text)`.
fn asking(
    agent: &Caller,
    tool: &'static str,
    args: Value,
) -> tokio::task::JoinHandle<(bool, String)> {
    let agent = agent.clone();
    tokio::spawn(async move { agent.act_text(tool, args).await })
}

/// The requests `pages` received that contain `needle`.
fn received(pages: &PageServer, needle: &str) -> Vec<String> {
    pages
        .requests()
        .into_iter()
        .filter(|r| r.contains(needle))
        .collect()
}

/// Has the person answer the next approval after `mark` with `allow`; the approval.
async fn answer_next(pane: &Pane, mark: usize, allow: bool) -> Value {
    let asked = pane.next_of("approval", mark).await;
    pane.send(json!({"type": "approval_answer", "id": asked["id"], "allow": allow}));
    asked
}

#[tokio::test(flavor = "multi_thread")]
async fn a_login_waits_for_the_card_declined_types_nothing_and_allowed_fills() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("kinds-vault");
    let login = format!("{}/login.html", site.base());
    let kp = vault_fixture::write(
        dir.path(),
        "kp",
        KP_PASSWORD,
        &[KdbxEntry {
            title: "Forum",
            username: "alice",
            password: Some(SITE_PASSWORD),
            url: &login,
            otp: None,
            extra: &[],
        }],
        KdbxFormat::default(),
    );
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Forum"]),
        ..Default::default()
    })
    .await;
    let (status, unlocked) = daemon
        .post(
            "/api/browser/vault/kp/unlock",
            &json!({ "password": KP_PASSWORD }),
        )
        .await;
    assert_eq!(status, 200, "{unlocked}");
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["login"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;

    // Declined: the fill waited for the card, answers an error, and nothing was typed.
    agent.act_ok("navigate", json!({"url": login})).await;
    let mark = pane.mark();
    let filling = asking(&agent, "fill_login", json!({"item": "kp/Web/Forum"}));
    let asked = answer_next(&pane, mark, false).await;
    assert_eq!(asked["kind"], "login", "{asked}");
    let card = asked.to_string();
    assert!(
        card.contains("Forum") && card.contains("password"),
        "{card}"
    );
    assert!(
        !card.contains(SITE_PASSWORD) && !card.contains("alice"),
        "the card shows a value: {card}"
    );
    let (is_error, text) = filling.await.unwrap();
    assert!(is_error && text.contains("the person declined"), "{text}");
    assert!(!text.contains(SITE_PASSWORD), "{text}");
    // A fill types before it answers: nothing reached the page.
    assert!(
        received(&site, "/typed").is_empty(),
        "a declined fill typed: {:?}",
        site.requests()
    );

    // Control: allowed, the same fill types (the page's /typed beacon hears it), so the
    // beacon would have heard a declined fill too.
    let mark = pane.mark();
    let filling = asking(&agent, "fill_login", json!({"item": "kp/Web/Forum"}));
    answer_next(&pane, mark, true).await;
    let (is_error, text) = filling.await.unwrap();
    assert!(!is_error, "{text}");
    eventually(
        "the allowed fill typed",
        Duration::from_secs(10),
        || async { (!received(&site, "/typed?field=pass").is_empty()).then_some(()) },
    )
    .await;
}

/// The page's record of the files its `#many` input holds ("" when none).
async fn uploaded(agent: &Caller) -> String {
    let (is_error, text) = agent
        .act_text(
            "evaluate",
            json!({"expression": "JSON.stringify(window.uploaded.many || '')"}),
        )
        .await;
    assert!(!is_error, "{text}");
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upload_waits_for_the_card_declined_hands_nothing_and_allowed_does() {
    let pages = PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["upload"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": pages.url("/upload.html")}))
        .await;
    let (_, snap) = agent.act_text("read_page", json!({})).await;
    let many = ref_of(&snap, "\"Attachments\"");
    // "hello upload", inline (as porthole-mcp sends a file).
    let args = json!({"ref": many, "paths": ["notes.txt"],
        "files": [{"name": "notes.txt", "data": "aGVsbG8gdXBsb2Fk"}]});

    let mark = pane.mark();
    let uploading = asking(&agent, "upload_file", args.clone());
    let asked = answer_next(&pane, mark, false).await;
    assert_eq!(asked["kind"], "upload", "{asked}");
    assert!(
        asked["detail"].as_str().unwrap().contains("notes.txt"),
        "{asked}"
    );
    let (is_error, text) = uploading.await.unwrap();
    assert!(is_error && text.contains("the person declined"), "{text}");
    assert!(
        !uploaded(&agent).await.contains("notes.txt"),
        "a declined upload reached the page"
    );

    // Control: allowed, the page reads the file (so the probe above would have seen it).
    let mark = pane.mark();
    let uploading = asking(&agent, "upload_file", args);
    answer_next(&pane, mark, true).await;
    let (is_error, text) = uploading.await.unwrap();
    assert!(!is_error, "{text}");
    eventually(
        "the page reads the file",
        Duration::from_secs(10),
        || async {
            uploaded(&agent)
                .await
                .contains("notes.txt:12:")
                .then_some(())
        },
    )
    .await;
}

/// The files in the channel's download directory besides the list (`index.json`).
fn downloaded_files(daemon: &TestDaemon) -> Vec<String> {
    let dir = daemon.data.path().join("downloads").join(CHANNEL);
    std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                // The downloads index, whole or being written (its temp file lives a moment).
                .filter(|name| !name.starts_with("index.json") && !name.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

/// Clicks the "Get report" link of `/downloads.html` as `agent`, has the person answer the
/// card it raises with `allow`; the click's answer (it waits for the card when the download
/// began during it) and the card.
async fn click_report(agent: &Caller, pane: &Pane, allow: bool) -> ((bool, String), Value) {
    let (_, snap) = agent.act_text("read_page", json!({})).await;
    let mark = pane.mark();
    let clicking = asking(
        agent,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "link \"Get report\"")}),
    );
    let asked = answer_next(pane, mark, allow).await;
    (clicking.await.unwrap(), asked)
}

/// The id and `list_downloads` line of the `nth` `report.bin` once it is `state`.
async fn report_line(agent: &Caller, state: &str, nth: usize) -> (String, String) {
    let line = eventually("the report's download", Duration::from_secs(30), || async {
        let (_, text) = agent.act_text("list_downloads", json!({})).await;
        let line = text.lines().filter(|l| l.contains("report.bin")).nth(nth)?;
        line.contains(state).then(|| line.to_string())
    })
    .await;
    let id = line
        .strip_prefix('[')
        .and_then(|l| l.split(']').next())
        .unwrap_or_else(|| panic!("no id in {line}"))
        .to_string();
    (id, line)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_waits_for_the_card_declined_is_cancelled_and_allowed_is_kept() {
    let pages = PageServer::area("mcp").await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["download"]})).await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": pages.url("/downloads.html")}))
        .await;

    // The browser's own download waits for the card; declined, it is cancelled and its file
    // removed, and the agent's next answer is an error that says so.
    let mark = pane.mark();
    let ((clicked_error, clicked), asked) = click_report(&agent, &pane, false).await;
    assert_eq!(asked["kind"], "download", "{asked}");
    assert!(
        asked["detail"].as_str().unwrap().contains("report.bin"),
        "{asked}"
    );
    pane.next_of("approval_closed", mark).await;
    // Told as an error: by the click when the download began during it, else by the next call.
    let (is_error, told) = match clicked_error {
        true => (clicked_error, clicked),
        false => agent.act_text("list_downloads", json!({})).await,
    };
    assert!(
        is_error,
        "the agent was not told its download was refused: {told}"
    );
    assert!(told.contains("download was cancelled"), "{told}");
    let (id, line) = report_line(&agent, "canceled", 0).await;
    assert!(line.contains("declined"), "{line}");
    assert!(
        downloaded_files(&daemon).is_empty(),
        "a declined download's file stayed: {:?}",
        downloaded_files(&daemon)
    );
    let declined = agent.act("get_download", json!({ "id": id })).await;
    assert_eq!(declined["isError"], true, "{declined}");
    assert!(
        !declined.to_string().contains("\"blob\""),
        "declined bytes reached the agent: {declined}"
    );

    // Control: allowed as it begins, the file is kept and its bytes come without a second card.
    let ((clicked_error, clicked), _) = click_report(&agent, &pane, true).await;
    assert!(!clicked_error, "{clicked}");
    let after = pane.mark();
    let (id, _) = report_line(&agent, "completed", 1).await;
    assert_eq!(
        downloaded_files(&daemon).len(),
        1,
        "{:?}",
        downloaded_files(&daemon)
    );
    let getting = {
        let agent = agent.clone();
        tokio::spawn(async move { agent.act("get_download", json!({ "id": id })).await })
    };
    let again = pane
        .message_within(Duration::from_secs(3), after, |m| m["type"] == "approval")
        .await;
    assert!(
        again.is_none(),
        "the person was asked twice for one download: {again:?}"
    );
    let allowed = getting.await.unwrap();
    assert_ne!(allowed["isError"], true, "{allowed}");
    assert!(allowed.to_string().contains("\"blob\""), "{allowed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_config_files_sites_and_confirm_hold_an_agent_with_no_rules_of_its_own() {
    let allowed = PageServer::area("approvals").await;
    let refused = PageServer::area("approvals").await;
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {
            "sites": {"deny": [format!("http://127.0.0.1:{}", refused.port())]},
            "confirm": ["evaluate"],
        }}),
        ..Default::default()
    })
    .await;
    // An agent whose own record holds no sites and no confirm.
    let (_, token) = agent_with(&daemon, CHANNEL, json!({})).await;
    let (_, me) = daemon
        .request_as(Some(&token), "GET", "/api/browser/agents/me", None)
        .await;
    // Its own record holds nothing; the config's rules are listed as every agent's.
    assert_eq!(me["sites"]["own"], json!({}), "{me}");
    assert_eq!(me["confirm"]["own"], json!([]), "{me}");
    assert_eq!(me["confirm"]["all_agents"], json!(["evaluate"]), "{me}");
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;

    // The config's deny list: the refused server gets no request; control: the allowed one
    // loads.
    agent
        .act_ok("navigate", json!({"url": allowed.url("/form.html")}))
        .await;
    assert!(!received(&allowed, "GET /form.html").is_empty());
    let (is_error, text) = agent
        .act_text("navigate", json!({"url": refused.url("/form.html")}))
        .await;
    assert!(is_error, "{text}");
    assert!(
        received(&refused, "").is_empty(),
        "{:?}",
        refused.requests()
    );

    // The config's confirm list: evaluate waits for the card; declined it never runs,
    // allowed it does.
    let mark = pane.mark();
    let running = asking(
        &agent,
        "evaluate",
        json!({"expression": "document.title = 'kinds-ran'; 6 * 7"}),
    );
    let asked = answer_next(&pane, mark, false).await;
    assert_eq!(asked["kind"], "evaluate", "{asked}");
    let (is_error, text) = running.await.unwrap();
    assert!(is_error && text.contains("the person declined"), "{text}");
    let mark = pane.mark();
    let running = asking(&agent, "evaluate", json!({"expression": "document.title"}));
    answer_next(&pane, mark, true).await;
    let (is_error, text) = running.await.unwrap();
    assert!(
        !is_error && !text.contains("kinds-ran"),
        "the declined script ran: {text}"
    );
    let mark = pane.mark();
    let running = asking(&agent, "evaluate", json!({"expression": "6 * 7"}));
    answer_next(&pane, mark, true).await;
    let (is_error, text) = running.await.unwrap();
    assert!(!is_error && text.contains("42"), "{text}");
}

/// Everything the channel's timeline holds, as text.
async fn whole_timeline(daemon: &TestDaemon) -> String {
    let (timeline, _) = daemon.timeline_of(CHANNEL, "approval").await;
    timeline.to_string()
}

/// The closing `approval` event whose action is `outcome`.
async fn closed_as(daemon: &TestDaemon, outcome: &str) -> Value {
    eventually(
        &format!("an approval event {outcome}"),
        Duration::from_secs(10),
        || async {
            let (_, events) = daemon.timeline_of(CHANNEL, "approval").await;
            events.into_iter().find(|e| e["action"] == outcome)
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_timelines_approval_events_say_who_closed_them_and_never_the_script() {
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {"approval_timeout_secs": 1}}),
        ..Default::default()
    })
    .await;
    let (_, token) = agent_with(&daemon, CHANNEL, json!({"confirm": ["evaluate"]})).await;
    let agent = daemon.caller(&token);
    // A script only the card may show.
    let marker = "'kinds-marker-5c1f'.length";

    // Nobody can be reached: declined at once, `unwatched`, by Porthole.
    agent.act_ok("new_tab", json!({"url": "about:blank"})).await;
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": marker}))
        .await;
    assert!(is_error && text.contains("nobody is watching"), "{text}");
    let unwatched = closed_as(&daemon, "unwatched").await;
    assert!(
        unwatched["summary"]
            .as_str()
            .unwrap()
            .contains("by porthole"),
        "{unwatched}"
    );

    // A pane that never answers: `timed_out`, by the timeout.
    let pane = pane_on(&daemon, CHANNEL).await;
    let mark = pane.mark();
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": marker}))
        .await;
    assert!(is_error && text.contains("nobody answered"), "{text}");
    let asked = pane.next_of("approval", mark).await;
    // Positive control: the script was the approval's detail, shown on the card.
    assert!(
        asked["detail"]
            .as_str()
            .unwrap()
            .contains("kinds-marker-5c1f"),
        "{asked}"
    );
    let timed_out = closed_as(&daemon, "timed_out").await;
    assert!(
        timed_out["summary"]
            .as_str()
            .unwrap()
            .contains("by timeout"),
        "{timed_out}"
    );

    // The person answers: by the person.
    let mark = pane.mark();
    let running = asking(&agent, "evaluate", json!({"expression": marker}));
    answer_next(&pane, mark, false).await;
    running.await.unwrap();
    let declined = closed_as(&daemon, "declined").await;
    assert!(
        declined["summary"].as_str().unwrap().contains("by person"),
        "{declined}"
    );

    // No approval event, nor anything else on the timeline, carries the script.
    let (_, events) = daemon.timeline_of(CHANNEL, "approval").await;
    assert!(
        events.len() >= 6,
        "asked and closed three times: {events:?}"
    );
    let timeline = whole_timeline(&daemon).await;
    assert!(
        !timeline.contains("kinds-marker-5c1f"),
        "the timeline holds the script: {timeline}"
    );
}

/// The ways an agent's acts can take its tab elsewhere without naming the site to `navigate`:
/// a popup its script opens, a meta refresh its script writes into the page, and a `data:`
/// document whose meta refresh leaves it.
const LEAVING_ROUTES: [&str; 3] = ["open", "meta", "data"];

/// Takes the agent's tab (from a page of `home`) to `target` by `route`; the act's answer.
async fn leave(agent: &Caller, home: &PageServer, route: &str, target: &str) -> String {
    let to = format!("{target}/landing?by={route}");
    let meta = format!("<meta http-equiv=\"refresh\" content=\"0;url={to}\">");
    if route == "data" {
        let page = format!("data:text/html,{meta}");
        return agent.act_text("navigate", json!({ "url": page })).await.1;
    }
    agent
        .act_ok("navigate", json!({"url": home.url("/form.html")}))
        .await;
    let script = match route {
        "open" => format!("window.open('{to}'); 1"),
        _ => format!("document.head.insertAdjacentHTML('beforeend', '{meta}'); 1"),
    };
    agent
        .act_text("evaluate", json!({ "expression": script }))
        .await
        .1
}

/// Whether `first` (the attempt's own answer) mentions `needle`, else calls `page_info` and
/// `list_tabs` until an answer (the notes waiting ride on it, and the tabs name their pages)
/// does.
async fn told(agent: &Caller, first: String, needle: &str) {
    if first.contains(needle) {
        return;
    }
    eventually(
        &format!("an answer naming {needle}"),
        Duration::from_secs(10),
        || async {
            let (_, info) = agent.act_text("page_info", json!({})).await;
            let (_, tabs) = agent.act_text("list_tabs", json!({})).await;
            (info.contains(needle) || tabs.contains(needle)).then_some(())
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_popup_a_meta_refresh_and_a_data_document_never_reach_a_refused_site() {
    let home = PageServer::area("approvals").await;
    let other = PageServer::start().await;
    let refused = PageServer::start().await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(
        &daemon,
        CHANNEL,
        json!({"sites": {"deny": [refused.base()]}}),
    )
    .await;
    let agent = daemon.caller(&token);

    for route in LEAVING_ROUTES {
        // The refused site first, then the same route to an allowed one (the control).
        for target in [refused.base(), other.base()] {
            let first = leave(&agent, &home, route, &target).await;
            // The attempt was made before the next one replaces the page: the agent is told
            // of the refusal (or, were it let through, shown the page).
            told(&agent, first, &format!("by={route}")).await;
        }
        eventually(
            &format!("the allowed site reached by {route}"),
            Duration::from_secs(10),
            || async { (!received(&other, &format!("by={route}")).is_empty()).then_some(()) },
        )
        .await;
    }
    assert!(
        refused.requests().is_empty(),
        "the refused site was asked: {:?}",
        refused.requests()
    );
}

/// Script posts from an agent's page to a refused site are refused outright, with no card
/// (its sites hold every request, `network.rs`; the first version of this test saw them reach
/// the site and only the `submit` card hold them): the agent is told, the person is not asked,
/// and the site gets nothing. The same posts to an allowed site wait for the `submit` card and,
/// allowed, arrive (the control).
#[tokio::test(flavor = "multi_thread")]
async fn script_posts_toward_a_refused_site_never_leave_and_ask_nobody() {
    let home = PageServer::area("approvals").await;
    let other = PageServer::start().await;
    let refused = PageServer::start().await;
    let daemon = TestDaemon::start().await;
    let (_, token) = agent_with(
        &daemon,
        CHANNEL,
        json!({"sites": {"deny": [refused.base()]}, "confirm": ["submit"]}),
    )
    .await;
    let agent = daemon.caller(&token);
    let pane = pane_on(&daemon, CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": home.url("/form.html")}))
        .await;
    let posts = |target: &str| {
        [
            (
                "xhr-post",
                format!(
                    "(() => {{ const x = new XMLHttpRequest(); x.open('POST', \
                     '{target}/r?by=xhr-post'); x.send('a=1'); return 1; }})()"
                ),
            ),
            (
                "beacon",
                format!("navigator.sendBeacon('{target}/r?by=beacon', 'b=2') ? 1 : 0"),
            ),
        ]
    };
    let mark = pane.mark();
    for (by, script) in posts(&refused.base()) {
        let (_, first) = agent
            .act_text("evaluate", json!({ "expression": script }))
            .await;
        // Tried and refused: the agent is told (on this answer or a next one).
        told(&agent, first, "Porthole refused requests of the page").await;
        assert!(received(&refused, &format!("by={by}")).is_empty(), "{by}");
    }
    assert!(
        pane.message_within(Duration::ZERO, mark, |m| m["type"] == "approval")
            .await
            .is_none(),
        "the person was asked about a refused site's post"
    );
    for (by, script) in posts(&other.base()) {
        let mark = pane.mark();
        let running = asking(&agent, "evaluate", json!({ "expression": script }));
        let asked = answer_next(&pane, mark, true).await;
        assert_eq!(asked["kind"], "submit", "{by}: {asked}");
        running.await.unwrap();
        eventually(
            &format!("the allowed {by}"),
            Duration::from_secs(10),
            || async { (!received(&other, &format!("POST /r?by={by}")).is_empty()).then_some(()) },
        )
        .await;
    }
    assert!(
        received(&refused, "POST").is_empty(),
        "a declined post reached the refused site: {:?}",
        refused.requests()
    );
}
