//! The HTTP surface: health, token, Origin and Host checks, the OpenAPI document, the panel.

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::{http_request, http_request_raw};
use serde_json::json;

/// A daemon that finds no Docker engine (docker mode off), whether or not one runs here.
async fn without_docker() -> TestDaemon {
    TestDaemon::start_with(DaemonOptions {
        env: vec![(
            "DOCKER_HOST".to_string(),
            "unix:///nonexistent/docker.sock".to_string(),
        )],
        ..Default::default()
    })
    .await
}

#[tokio::test]
async fn health_needs_no_token_and_reports_the_mode() {
    let daemon = without_docker().await;
    let (status, body) = http_request("GET", &daemon.addr, "/api/health", &[], None).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["default_mode"], "local");
    assert_eq!(body["docker"], false);
}

#[tokio::test]
async fn every_other_endpoint_refuses_a_missing_or_wrong_token() {
    let daemon = TestDaemon::start().await;
    let (status, body) =
        http_request("GET", &daemon.addr, "/api/browser/channels", &[], None).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "bad_token");
    let wrong = [("Authorization", "Bearer 0000")];
    let (status, _) =
        http_request("GET", &daemon.addr, "/api/browser/channels", &wrong, None).await;
    assert_eq!(status, 401);
    let (status, _) = http_request("GET", &daemon.addr, "/api/ws/browser", &wrong, None).await;
    assert_eq!(status, 401);
    let (status, body) = daemon.get("/api/browser/channels").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["channels"], json!([]));
    let token_file = std::fs::read_to_string(daemon.data.path().join("token")).unwrap();
    assert_eq!(token_file.trim(), daemon.token);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(daemon.data.path().join("token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[tokio::test]
async fn foreign_origins_and_foreign_host_names_are_refused() {
    let daemon = TestDaemon::start().await;
    let auth = format!("Bearer {}", daemon.token);
    let foreign = [
        ("Authorization", auth.as_str()),
        ("Origin", "http://evil.example"),
    ];
    let (status, body) =
        http_request("GET", &daemon.addr, "/api/browser/channels", &foreign, None).await;
    assert_eq!(status, 403);
    assert_eq!(body["error"]["code"], "foreign_origin");
    // The health check too: a foreign page learns nothing.
    let (status, _) = http_request("GET", &daemon.addr, "/api/health", &foreign[1..], None).await;
    assert_eq!(status, 403);
    let own = format!("http://{}", daemon.addr);
    let same = [("Authorization", auth.as_str()), ("Origin", own.as_str())];
    let (status, _) = http_request("GET", &daemon.addr, "/api/browser/channels", &same, None).await;
    assert_eq!(status, 200);
    // DNS rebinding: the right token under a foreign host name is still refused.
    let rebound = [
        ("Authorization", auth.as_str()),
        ("Host", "attacker.example:7878"),
    ];
    let (status, body) =
        http_request("GET", &daemon.addr, "/api/browser/channels", &rebound, None).await;
    assert_eq!(status, 403);
    assert_eq!(body["error"]["code"], "bad_host");
}

#[tokio::test]
async fn the_openapi_document_lists_the_endpoints() {
    let daemon = TestDaemon::start().await;
    let (status, doc) = daemon.get("/api/openapi.json").await;
    assert_eq!(status, 200);
    for path in [
        "/api/health",
        "/api/browser/channels",
        "/api/browser/mode",
        "/api/browser/profile/reset",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} missing from {doc}");
    }
}

#[tokio::test]
async fn the_panel_is_served_with_its_assets() {
    let daemon = TestDaemon::start().await;
    let (status, html) = http_request_raw("GET", &daemon.addr, "/", &[], None).await;
    assert_eq!(status, 200);
    assert!(html.contains("<porthole-pane"), "{html}");
    let (status, js) = http_request_raw("GET", &daemon.addr, "/panel/js/main.js", &[], None).await;
    assert_eq!(status, 200);
    assert!(js.contains("import"), "{js}");
    let (status, js) =
        http_request_raw("GET", &daemon.addr, "/panel/js/porthole-pane.js", &[], None).await;
    assert_eq!(status, 200);
    assert!(js.contains("customElements.define"), "{js}");
    let (status, _) = http_request_raw("GET", &daemon.addr, "/panel/../token", &[], None).await;
    assert_ne!(status, 200);
}

#[tokio::test]
async fn bad_requests_get_json_errors_and_change_nothing() {
    let daemon = without_docker().await;
    let (status, body) = daemon
        .post(
            "/api/browser/profile/reset",
            &json!({"channel_id": "../etc"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "bad_channel_id");
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "a", "mode": "warp"}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["code"], "bad_request");
    let (status, body) = daemon
        .post(
            "/api/browser/mode",
            &json!({"channel_id": "a", "mode": "docker"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "mode_unavailable");
    let (status, body) = daemon.get("/api/browser/nothing").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    let (_, body) = daemon.get("/api/browser/channels").await;
    assert_eq!(body["channels"], json!([]));
}
