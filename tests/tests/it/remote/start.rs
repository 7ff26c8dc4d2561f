//! A channel's start on a remote engine (issue 22) reuses its connections to the engine: the
//! daemon reaches the second dockerd (mutual TLS) through a
//! [`DelayProxy`](porthole_tests::delay_proxy::DelayProxy) that counts, on the wire, the
//! connections it accepts and the client's flights on them, and a start makes its Engine API
//! requests on fewer connections than requests (each new one is a TCP connect and a TLS
//! handshake: round trips to an engine far away). An agent's first call there waits on few
//! round trips one after another, read on the wire as the depth of what the proxy relayed
//! ([`depth`](porthole_tests::delay_proxy::depth)). Counts, never times.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::delay_proxy::Link;
use porthole_tests::pages;
use porthole_tests::pane::Pane;
use porthole_tests::remote::RemoteTest;
use porthole_tests::start_log::start_log;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn a_remote_start_makes_its_engine_requests_on_few_connections() {
    let test = RemoteTest::with_image("rm-conns", Some(Link::delay_ms(0))).await;
    let (proxy, tag) = (test.proxy.as_ref().unwrap(), test.tag.clone());
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    // The daemon's first start also checks the image and probes the sandbox: count a second.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&format!("{tag}-first")).await;

    let from = daemon.log().len();
    let (before, flights_before) = (proxy.connections(), proxy.client_flights());
    pane.start(&tag).await;
    let opened = proxy.connections() - before;
    let flights = proxy.client_flights() - flights_before;
    // What crossed the wire: each request is a flight of its own; a new connection's TLS
    // handshake takes at most two more (the CDP traffic over the exec adds flights too).
    let exchanged = flights.saturating_sub(2 * opened);
    // volume ‖ create, start, exec create, exec start: the parallel create may need a second
    // connection, the rest go on kept ones.
    assert!(
        exchanged >= 5,
        "{flights} client flights on the wire, {opened} new connections"
    );
    assert!(
        opened <= 2,
        "the start made {exchanged} or more exchanges with the engine on {opened} new connections"
    );
    // The daemon's own count of its requests agrees with the wire: no more requests than
    // flights (less the handshakes' least).
    let log = start_log(&daemon.log()[from..]);
    let requests = log
        .requests
        .expect("the start's engine requests are logged");
    assert!(requests >= 5, "{log:?}");
    assert!(
        u64::from(requests) <= flights - opened,
        "the daemon counted {requests} requests, the wire saw {flights} flights on {opened} new connections"
    );
    let frame = pane.watch().await;
    assert!(frame.starts_with(&[0xff, 0xd8]), "a JPEG frame");
}

/// An agent's first call on a channel whose remote browser is not running, 25 ms away each
/// way: on the wire, the call's longest chain of sends each after the answer to the one before
/// is 14 deep (the start's requests, the check on the exec's stream, the session's opening and
/// the navigate); in the daemon's own log, the relay says when Chrome answers (a round trip
/// before the daemon's own check when Chrome is up first), the session opens in 3 waits, and
/// the `navigate` waits on 5 CDP replies in sequence: its layout and the tools' world go with
/// the new tab's preparation, its URL is known from discovery.
#[tokio::test]
async fn an_agents_first_call_on_a_remote_channel_waits_on_few_round_trips() {
    let test = RemoteTest::with_image("rm-first", Some(Link::delay_ms(25))).await;
    let (proxy, tag) = (test.proxy.as_ref().unwrap(), test.tag.clone());
    let daemon = TestDaemon::start_with(test.options(json!({}))).await;
    // The daemon's first start (image check, sandbox probe) from a pane, which waits longer.
    // Then that channel goes, so that nothing of it runs on the wire during the call (its
    // relay is asked after every 2 s, and its idle browser talks now and then).
    let warm = format!("{tag}-warm");
    Pane::connect(&daemon.addr, &daemon.token)
        .await
        .start(&warm)
        .await;
    let (status, body) = daemon
        .delete(&format!("/api/browser/channels/{warm}"))
        .await;
    assert_eq!(status, 204, "{body}");

    let (_, token) = daemon.add_agent(&tag, "first", &[]).await;
    let from = daemon.log().len();
    let page = pages::data_url("<title>First</title><p>far away</p>");
    let connections = proxy.connections();
    proxy.open_depth_window();
    let body = daemon
        .caller(&token)
        .over_socket()
        .act_ok("navigate", json!({ "url": page }))
        .await;
    let call = proxy.depths();
    let new_connections = proxy.connections() - connections;
    // The call's chain on the wire (see `delay_proxy::depth`), each step a send after the
    // answer to the one before reached the daemon (in brackets, what a CDP trace of the call
    // showed going in each step):
    // - the start's engine requests: volume ‖ container create, start, exec create, exec
    //   start (4);
    // - on the exec's stream, the daemon's check that Chrome answers, whose answer (or the
    //   relay's word) comes once Chrome is up (1);
    // - the session's opening (3: discovery ‖ download terms ‖ Fetch, the first tab's
    //   activation ‖ attach, its preparation);
    // - the navigate (6: the new tab's layout ‖ create, attach, preparation, the navigation,
    //   the DOM-quiet check ‖ history ‖ location, and Target.getTargetInfo ‖ Runtime.evaluate
    //   after it; the tool's own count below, 5, leaves one of them out).
    // Nothing else adds: the warm channel is gone, its relay no longer asked after, and
    // commands sent together share a step. Seen on correct code: 14 in 12 runs with no new
    // connection (5 of them beside a build, load 15-18 on 2 cores), 15 in 1 with one; one
    // extra awaited Runtime.evaluate in the navigate made 15, two 16 (17 with a new
    // connection), three 17.
    // Allowed on top: one per new connection (a TLS 1.3 handshake is one round trip before
    // its first request), and one per client chunk on another connection than the exec's 2 s
    // or more into the call: the engine is asked whether the new relay still runs every 2 s
    // from the exec's start (`providers::docker::exec`), a round trip that falls in the chain
    // when the call is still waiting then (seen: a page busy for 2.5 s made 14 + 1 poll).
    let deepest = call.deepest().expect("the call sent something on the wire");
    let polls = call.client_chunks_elsewhere(deepest.connection, Duration::from_secs(2));
    let bound = 14 + new_connections as u32 + polls as u32;
    let report = format!(
        "the call's chain on the wire is {} deep (steps depth@ms#connection: {}), \
         {new_connections} new connections, {polls} engine polls, bound {bound}",
        call.max,
        call.describe()
    );
    eprintln!("remote_start: {report}");
    assert!(call.max <= bound, "{report}");
    assert!(body.to_string().contains("Title: First"), "{body}");
    let log = &daemon.log()[from..];
    let line = |event: &str| {
        log.lines()
            .find(|l| l.contains(&format!("event=\"{event}\"")))
            .unwrap_or_else(|| panic!("no {event} line in:\n{log}"))
            .to_string()
    };
    // The relay's word and the daemon's own check race when Chrome boots slower than a round
    // trip (both wait in the pipe for it): that the relay speaks is what is checked here.
    assert!(
        log.contains("line=\"[sidecar] cdp_pipe_ready\""),
        "the relay says when Chrome answers:\n{log}"
    );
    line("cdp_exec_ready");
    let waits = |line: &str, field: &str| -> u64 {
        let at = line.find(&format!("{field}=")).expect(field) + field.len() + 1;
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a number")
    };
    let opened = line("session_started");
    assert!(waits(&opened, "open_sequential_waits") <= 3, "{opened}");
    let navigated = log
        .lines()
        .find(|l| l.contains("event=\"tool_run\"") && l.contains("tool=\"navigate\""))
        .unwrap_or_else(|| panic!("no navigate tool_run in:\n{log}"));
    // The new tab's create, attach and preparation (its layout with it), the navigation, one
    // DOM-quiet check (in the world Chrome made with the new document). 8 before: the layout,
    // the URL check and the world's making each had a round trip of their own.
    assert!(waits(navigated, "sequential_waits") <= 5, "{navigated}");
}
