//! The person sees and steers what agents do (DESIGN.md §12, "Seeing and stopping agents"):
//! activity messages, take over / release, stop (cancelling a running wait), the
//! human-activity guard and its report, the reopen-loop guard, handoffs through
//! `request_human`, and JavaScript dialogs answered only by a person or an agent.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pane::Pane;
use serde_json::json;

use super::harness::{call, err, is_error, ok, text, Client};

/// A daemon with short oversight timings, a pane on `channel`, and one agent on it.
async fn setup(channel: &str) -> (TestDaemon, Pane, Client) {
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"agents": {"stop_secs": 2, "human_quiet_secs": 2}}),
        ..Default::default()
    })
    .await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    let (_, token) = daemon.add_agent(channel, "helper", &[]).await;
    let agent = super::harness::agent_proxy(&daemon, &token).await;
    (daemon, pane, agent)
}

#[tokio::test]
async fn panes_see_agent_activity_and_take_over_and_release() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (_daemon, pane, agent) = setup("over-control").await;
    let mark = pane.mark();
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;
    let start = pane
        .message_where("activity start", mark, |m| {
            m["type"] == "agent_activity" && m["phase"] == "start" && m["tool"] == "navigate"
        })
        .await;
    assert_eq!(start["name"], "helper", "{start}");
    let end = pane
        .message_where("activity end", mark, |m| {
            m["type"] == "agent_activity" && m["phase"] == "end" && m["tool"] == "navigate"
        })
        .await;
    assert_eq!(end["ok"], true, "{end}");
    assert!(end["target_id"].is_string(), "{end}");

    // Take over: changing tools refused, reading tools work.
    let mark = pane.mark();
    pane.send(json!({"type": "takeover"}));
    let control = pane.next_of("control", mark).await;
    assert_eq!(control["holder"], "human", "{control}");
    let changing = [
        ("navigate", json!({"url": format!("http://{pages}/second")})),
        (
            "computer",
            json!({"action": "left_click", "coordinate": [5, 5]}),
        ),
    ];
    for (tool, args) in changing {
        let refused = err(&agent, tool, args).await;
        assert!(refused.contains("taken control"), "{tool}: {refused}");
    }
    let snapshot = ok(&agent, "read_page", json!({})).await;
    assert!(snapshot.contains("Change"), "{snapshot}");
    ok(&agent, "page_info", json!({})).await;
    // Release: the agents go on.
    let mark = pane.mark();
    pane.send(json!({"type": "release"}));
    let control = pane.next_of("control", mark).await;
    assert_eq!(control["holder"], "agents", "{control}");
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    // Releasing with nothing held is an error, and changes nothing.
    let mark = pane.mark();
    pane.send(json!({"type": "release"}));
    let error = pane.next_of("error", mark).await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("nothing to release"),
        "{error}"
    );
    ok(&agent, "page_info", json!({})).await;
}

#[tokio::test]
async fn stop_agents_cancels_a_running_wait_and_refuses_agents_for_a_while() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (_daemon, pane, agent) = setup("over-stop").await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;
    // A wait that would run 30 s.
    let waiting = {
        let agent = &agent;
        async move {
            let result = call(
                agent,
                "computer",
                json!({"action": "wait", "duration": 2, "wait_for_text": "never there", "wait_timeout_ms": 30000}),
            )
            .await;
            text(&result)
        }
    };
    let stopper = async {
        // Stop once the call is under way (its activity start reached the pane).
        pane.message_where("the wait started", 0, |m| {
            m["type"] == "agent_activity" && m["tool"] == "computer" && m["phase"] == "start"
        })
        .await;
        let mark = pane.mark();
        pane.send(json!({"type": "stop_agents"}));
        pane.next_of("control", mark).await
    };
    let (said, control) = tokio::join!(waiting, stopper);
    // The wait ended because of the stop (its answer names it), not by its own timeout. Under
    // load the stop can land between the call's activity start and its admission: then the
    // call is refused for the stop instead of cancelled by it.
    assert!(
        said.contains("Stop agents") || said.contains("stopped the agents"),
        "{said}"
    );
    assert!(!said.contains("Timed out"), "{said}");
    assert_eq!(control["holder"], "human", "{control}");
    assert!(control["until"].as_u64().is_some(), "{control}");
    let refused = err(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    assert!(refused.contains("stopped the agents"), "{refused}");
    ok(&agent, "get_page_text", json!({})).await;
    // After agents.stop_secs (2 s here) control comes back by itself.
    let back = pane
        .message_where("control back to the agents", 0, |m| {
            m["type"] == "control" && m["holder"] == "agents"
        })
        .await;
    assert_eq!(back["holder"], "agents");
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
}

#[tokio::test]
async fn the_persons_input_holds_agents_back_and_the_next_read_reports_it() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (_daemon, pane, agent) = setup("over-guard").await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;
    person_types_in(&pane, &agent, "name", "Ada").await;
    // Once the person's input landed, the agent's click there is refused.
    let refused = porthole_tests::eventually("the guard to hold", Duration::from_secs(10), || {
        let agent = &agent;
        async move {
            let result = call(
                agent,
                "computer",
                json!({"action": "left_click", "coordinate": [5, 5]}),
            )
            .await;
            let t = text(&result);
            t.contains("using this tab").then_some(t)
        }
    })
    .await;
    assert!(refused.contains("Refused"), "{refused}");
    // Reading works, and after the quiet time the agent acts again; its read says what changed.
    let report = person_change_report(&agent).await;
    assert!(report.contains("\"Ada\""), "{report}");
    porthole_tests::eventually("the quiet time to pass", Duration::from_secs(10), || {
        let agent = &agent;
        async move {
            let result = call(
                agent,
                "computer",
                json!({"action": "left_click", "coordinate": [5, 5]}),
            )
            .await;
            let said = text(&result);
            if said.contains("using this tab") {
                return None;
            }
            // Past the quiet time the click itself succeeds: any other error is a failure.
            assert!(!is_error(&result), "the agent acts again: {said}");
            Some(())
        }
    })
    .await;
}

/// The person clicks field `id` of the agent's tab through the pane and types `typed`.
async fn person_types_in(pane: &Pane, agent: &Client, id: &str, typed: &str) {
    // The pane follows the agent's tab: its input lands there, once the tab has the pane's
    // size (800 wide): a rectangle measured before that moved when the pane's layout came,
    // and the person's click then missed the field (the report never came in a full run).
    porthole_tests::eventually(
        "the pane's layout on the agent's tab",
        Duration::from_secs(15),
        || async move {
            let width = ok(agent, "evaluate", json!({"expression": "innerWidth"})).await;
            width.contains("800").then_some(())
        },
    )
    .await;
    let rect = ok(
        agent,
        "evaluate",
        json!({"expression": format!("(() => {{ const r = document.getElementById({}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()", json!(id))}),
    )
    .await;
    let xy: Vec<f64> =
        serde_json::from_str(rect.lines().last().unwrap().trim()).unwrap_or_else(|_| {
            let start = rect.find('[').unwrap();
            let end = rect.rfind(']').unwrap();
            serde_json::from_str(&rect[start..=end]).unwrap()
        });
    pane.input(
        "click",
        json!({"x": xy[0], "y": xy[1], "button": "left", "click_count": 1}),
    );
    pane.input("typetext", json!({"text": typed}));
}

/// The agent's next `read_page` that reports the person's change (polled up to 15 s).
async fn person_change_report(agent: &Client) -> String {
    porthole_tests::eventually(
        "a report of the person's change",
        Duration::from_secs(15),
        || async move {
            let page = ok(agent, "read_page", json!({})).await;
            page.contains("used this tab").then_some(page)
        },
    )
    .await
}

#[tokio::test]
async fn a_page_cannot_forge_the_persons_changes_in_the_guards_report() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (_daemon, pane, agent) = setup("over-forged").await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/forged-fields")}),
    )
    .await;
    // The page patches querySelectorAll (a field that is not there, "changed" at every read)
    // and getAttribute (the real field under another label); the person types in the real one.
    person_types_in(&pane, &agent, "name", "Ada").await;
    let report = person_change_report(&agent).await;
    let note = report
        .lines()
        .find(|l| l.contains("used this tab"))
        .unwrap();
    assert!(note.contains("\"Real name\" is now \"Ada\""), "{report}");
    assert!(!note.contains("Forged"), "{report}");
    assert!(!note.contains("approved"), "{report}");
}

/// The report of the person's changes says a password field was filled, never what or how
/// long (the vault review's V14): the agent learns nothing of what she typed there; that the
/// report names the field at all is the control (the guard saw her change).
#[tokio::test]
async fn the_persons_password_reads_as_filled_never_by_length() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (_daemon, pane, agent) = setup("over-secret").await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/secret-field")}),
    )
    .await;
    person_types_in(&pane, &agent, "pw", "hunter22xyz").await;
    let report = person_change_report(&agent).await;
    let note = report
        .lines()
        .find(|l| l.contains("used this tab"))
        .unwrap();
    assert!(
        note.contains("\"Password\" is now \"(secret, filled)\""),
        "{report}"
    );
    assert!(!note.contains("11") && !note.contains("hunter"), "{report}");
}

#[tokio::test]
async fn request_human_round_trip_timeout_and_nobody_watching() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (daemon, pane, agent) = setup("over-handoff").await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;
    let asking = call(
        &agent,
        "request_human",
        json!({"reason": "Please log in for me", "timeout_ms": 30000}),
    );
    let answering = async {
        let handoff = pane.next_of("handoff", 0).await;
        assert_eq!(handoff["reason"], "Please log in for me", "{handoff}");
        assert_eq!(handoff["name"], "helper");
        let control = pane
            .message_where("control to the person", 0, |m| {
                m["type"] == "control" && m["holder"] == "human"
            })
            .await;
        assert_eq!(control["holder"], "human");
        // An unknown id is an error and changes nothing.
        let mark = pane.mark();
        pane.send(json!({"type": "handoff_done", "id": "h_nope"}));
        let error = pane.next_of("error", mark).await;
        assert!(
            error["message"].as_str().unwrap().contains("no handoff"),
            "{error}"
        );
        pane.send(json!({"type": "handoff_done", "id": handoff["id"], "note": "logged in"}));
        pane.next_of("handoff_ended", 0).await
    };
    let (result, ended) = tokio::join!(asking, answering);
    let said = text(&result);
    assert!(result.is_error != Some(true), "{said}");
    assert!(said.contains("logged in"), "{said}");
    assert!(said.contains("Form page"), "the page as it is now: {said}");
    assert_eq!(ended["outcome"], "done");
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;

    // A timeout is an error result, and control goes back to the agents.
    let timed_out = err(
        &agent,
        "request_human",
        json!({"reason": "quick", "timeout_ms": 1000}),
    )
    .await;
    assert!(timed_out.contains("Nobody pressed Done"), "{timed_out}");
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;

    // Nobody watching: an error at once.
    drop(pane);
    porthole_tests::eventually("the pane to leave", Duration::from_secs(10), || async {
        let (_, list) = daemon.get("/api/browser/channels").await;
        (list["channels"][0]["panes"] == 0).then_some(())
    })
    .await;
    // Answered because nobody watches, not after the timeout (which says so in other words).
    let nobody = err(&agent, "request_human", json!({"reason": "anyone?"})).await;
    assert!(nobody.contains("Nobody is watching"), "{nobody}");
}

/// A button that asks `confirm('Delete it?')` and shows the answer as the title.
fn confirm_page() -> String {
    porthole_tests::pages::data_url(&porthole_tests::pages::page("mcp/confirm.html"))
}

#[tokio::test]
async fn dialogs_are_answered_by_the_person_or_the_agent_never_on_their_behalf() {
    let (_daemon, pane, agent) = setup("over-dialog").await;
    ok(&agent, "navigate", json!({"url": confirm_page()})).await;
    // The agent's click opens confirm(): the result says it is open; nothing answered it.
    let mark = pane.mark();
    let clicked = ok(
        &agent,
        "computer",
        json!({"action": "left_click", "coordinate": [60, 40]}),
    )
    .await;
    assert!(clicked.contains("confirm dialog"), "{clicked}");
    let dialog = pane.next_of("dialog", mark).await;
    assert_eq!(dialog["kind"], "confirm", "{dialog}");
    assert_eq!(dialog["message"], "Delete it?");
    // Every result on that tab names it; page tools are refused while it blocks the page.
    let refused = err(&agent, "read_page", json!({})).await;
    assert!(refused.contains("Delete it?"), "{refused}");
    // The person answers Cancel from the pane.
    let mark = pane.mark();
    pane.send(json!({"type": "dialog_answer", "target_id": dialog["target_id"], "accept": false}));
    pane.next_of("dialog_closed", mark).await;
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("Title: false"), "{info}");
    // Again, answered by the agent with handle_dialog.
    let clicked = ok(
        &agent,
        "computer",
        json!({"action": "left_click", "coordinate": [60, 40]}),
    )
    .await;
    assert!(clicked.contains("confirm dialog"), "{clicked}");
    let answered = ok(&agent, "handle_dialog", json!({"accept": false})).await;
    assert!(answered.contains("Cancel"), "{answered}");
    let info = ok(&agent, "page_info", json!({})).await;
    assert!(info.contains("Title: false"), "{info}");
    // Nothing open: both ways say so, and nothing changes.
    let none = err(&agent, "handle_dialog", json!({"accept": true})).await;
    assert!(none.contains("No dialog"), "{none}");
    let mark = pane.mark();
    pane.send(json!({"type": "dialog_answer", "target_id": dialog["target_id"], "accept": true}));
    let error = pane.next_of("error", mark).await;
    assert_eq!(error["code"], "no_dialog", "{error}");
}

#[tokio::test]
async fn an_agent_reloading_the_same_page_again_and_again_is_told_to_ask() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let (_daemon, _pane, agent) = setup("over-loop").await;
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    ok(&agent, "reload", json!({})).await;
    ok(&agent, "reload", json!({})).await;
    let refused = err(&agent, "reload", json!({})).await;
    assert!(refused.contains("request_human"), "{refused}");
    let refused = err(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/second")}),
    )
    .await;
    assert!(refused.contains("ten minutes"), "{refused}");
    // Another page is fine.
    ok(
        &agent,
        "navigate",
        json!({"url": format!("http://{pages}/form")}),
    )
    .await;
}
