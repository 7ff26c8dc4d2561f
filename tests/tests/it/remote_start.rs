//! A channel's start on a remote engine (issue 22) reuses its connections to the engine: the
//! daemon reaches the second dockerd (mutual TLS) through a [`DelayProxy`] that counts the
//! connections it accepts, and a start makes its Engine API requests on fewer connections
//! than requests (each new one is a TCP connect and a TLS handshake: round trips to an engine
//! far away). Counts, never times.

use porthole_tests::bench_docker::start_log;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::delay_proxy::{self, DelayProxy, Link};
use porthole_tests::docker::unique;
use porthole_tests::pane::Pane;
use porthole_tests::remote::{self, RemoteCleanup};
use serde_json::json;

#[tokio::test]
async fn a_remote_start_makes_its_engine_requests_on_few_connections() {
    let engine = remote::engine().await;
    remote::ensure_image(&engine).await;
    let proxy = DelayProxy::start(delay_proxy::tcp_addr(&engine.host), Link::delay_ms(0)).await;
    let reach = delay_proxy::via(&engine, &proxy);
    let tag = unique("rm-conns");
    let _cleanup = RemoteCleanup {
        engine: engine.clone(),
        tag: tag.clone(),
    };
    let daemon = TestDaemon::start_with(remote::options(&reach, &tag, json!({}))).await;
    // The daemon's first start also checks the image and probes the sandbox: count a second.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&format!("{tag}-first")).await;

    let from = daemon.log().len();
    let before = proxy.connections();
    pane.start(&tag).await;
    let opened = proxy.connections() - before;
    let log = start_log(&daemon.log()[from..]);
    let requests = log
        .requests
        .expect("the start's engine requests are logged");
    // volume ‖ create, start, exec create, exec start: the parallel create may need a second
    // connection, the rest go on kept ones.
    assert!(requests >= 5, "{log:?}");
    assert!(
        opened <= 2,
        "the start made {requests} Engine API requests on {opened} new connections"
    );
    let frame = pane.watch().await;
    assert!(frame.starts_with(&[0xff, 0xd8]), "a JPEG frame");
}
