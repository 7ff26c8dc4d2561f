//! The vault's rule through the CDP door (DESIGN.md §21 "Vault", §19a): script and secrets
//! never share a document. A door client's script makes its document scripted, so a login is
//! not filled there; after a fill in a fresh document, the client's script and value reads
//! there are refused naming the rule (a screenshot still works), and once that document is
//! gone its script runs again. The password never reaches the client. Real keepassxc-cli
//! database, real Chromium, a raw CDP connection through the door.

use std::time::Duration;

use porthole::cdp::CdpConnection;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::raw_cdp;
use porthole_tests::vault_fixture::{self, KdbxEntry, KdbxFormat};
use porthole_tests::TempDir;
use serde_json::{json, Value};

const CHANNEL: &str = "door-vault";
const DB_PASSWORD: &str = "door vault db";
const SITE_PASSWORD: &str = "door-site-s3cret";

/// The client's flat session on the agent's only tab.
async fn attach(cdp: &CdpConnection) -> String {
    raw_cdp::attach(cdp, &raw_cdp::only_tab(cdp).await).await
}

/// The client's `Runtime.evaluate` of `expression`: its value, or the error it read.
async fn evaluate(cdp: &CdpConnection, session: &str, expression: &str) -> Result<Value, String> {
    cdp.call_on(
        session,
        "Runtime.evaluate",
        json!({"expression": expression, "returnByValue": true}),
    )
    .await
    .map(|answer| answer["result"]["value"].clone())
    .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_door_clients_script_and_a_filled_login_never_share_a_document() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("door-vault-db");
    let login = site.url("/login.html");
    let entries = [KdbxEntry {
        title: "Forum",
        username: "alice",
        password: Some(SITE_PASSWORD),
        url: &login,
        otp: None,
        extra: &[],
    }];
    let kp = vault_fixture::write(
        dir.path(),
        "kp",
        DB_PASSWORD,
        &entries,
        KdbxFormat::default(),
    );
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Forum"]),
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "scripted", &[]).await;
    let agent = daemon.caller(&token);
    let (status, answer) = daemon
        .post(
            "/api/browser/vault/kp/unlock",
            &json!({ "password": DB_PASSWORD }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    agent.act_ok("navigate", json!({"url": login})).await;

    let socket = format!("ws://{}/cdp/{token}/devtools/browser", daemon.addr);
    let cdp = CdpConnection::connect(&socket, Duration::from_secs(10))
        .await
        .expect("the door's socket");
    let session = attach(&cdp).await;

    // The client's script makes the document scripted: no login is filled into it.
    assert_eq!(
        evaluate(&cdp, &session, "document.title").await,
        Ok(json!("Sign in"))
    );
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(is_error && text.contains("evaluate"), "{text}");

    // A fresh document: the fill goes through, and the client's script and value reads there
    // are refused, naming the rule; a screenshot still works.
    agent.act_ok("navigate", json!({"url": login})).await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    let read = evaluate(&cdp, &session, "document.querySelector('#pass').value").await;
    let refused = read.clone().expect_err("the filled page's script ran");
    assert!(
        refused.contains("Porthole refused Runtime.evaluate") && refused.contains("filled"),
        "{refused}"
    );
    let snapshot = cdp
        .call_on(
            &session,
            "DOMSnapshot.captureSnapshot",
            json!({"computedStyles": []}),
        )
        .await;
    assert!(
        snapshot
            .as_ref()
            .is_err_and(|e| e.to_string().contains("Porthole refused")),
        "{snapshot:?}"
    );
    let shot = cdp
        .call_on(&session, "Page.captureScreenshot", json!({}))
        .await
        .expect("a screenshot of the filled page");
    assert!(shot["data"].is_string());

    // Once that document is gone, the client's script runs again (the positive control that
    // the refusal above was the seal's).
    agent
        .act_ok("navigate", json!({"url": site.url("/otp.html")}))
        .await;
    let title = evaluate(&cdp, &session, "document.title").await;
    assert!(title.is_ok(), "{title:?}");
    assert!(
        !format!("{read:?}{snapshot:?}").contains(SITE_PASSWORD),
        "the password reached the client"
    );
}
