//! Calls are forwarded to the daemon with the right body and token; results come back whole.

use base64::Engine as _;
use rmcp::model::ContentBlock;
use serde_json::json;

use crate::harness::{call, connect, connect_raw, is_error, text, TempDir};
use crate::stub::{Stub, PNG, TOKEN};

#[tokio::test]
async fn a_call_is_forwarded_with_body_and_token() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let result = call(
        &client,
        "navigate",
        json!({"url": "http://127.0.0.1:1/page", "wait_for_text": "Hello", "wait_timeout_ms": 5000}),
    )
    .await;
    assert!(!is_error(&result), "{}", text(&result));
    assert!(text(&result).starts_with("stub ran navigate"));
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].auth.as_deref(),
        Some(&*format!("Bearer {TOKEN}"))
    );
    assert_eq!(
        requests[0].body,
        json!({
            "channel_id": "chan-1",
            "tool": "navigate",
            "args": {"url": "http://127.0.0.1:1/page", "wait_for_text": "Hello", "wait_timeout_ms": 5000}
        })
    );
    // Arguments arrive normalised: a tab given as "[2]" is the number 2.
    let result = call(&client, "switch_tab", json!({"tab": "[2]"})).await;
    assert!(!is_error(&result), "{}", text(&result));
    assert_eq!(stub.bodies()[1]["args"], json!({"tab": 2}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn image_results_come_back_as_image_content() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let result = call(&client, "screenshot", json!({})).await;
    assert!(!is_error(&result));
    let ContentBlock::Image(image) = &result.content[0] else {
        panic!("first block is an image: {:?}", result.content);
    };
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(&image.data)
            .unwrap(),
        PNG
    );
    assert_eq!(text(&result), "viewport 1x1");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn backend_error_results_pass_through() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let result = call(&client, "find", json!({"query": "nothing"})).await;
    assert!(is_error(&result));
    assert_eq!(text(&result), "No element matches \"nothing\".");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn token_from_env_and_from_file() {
    let stub = Stub::start().await;
    let url = stub.url();
    let client = connect_raw(
        &["--api", &url, "--channel", "env-chan"],
        &[("PORTHOLE_TOKEN", TOKEN)],
    )
    .await;
    assert!(!is_error(&call(&client, "page_info", json!({})).await));
    client.cancel().await.unwrap();

    let dir = TempDir::new("token-file");
    let file = dir.0.join("token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    let client = connect_raw(
        &[
            "--api",
            &url,
            "--channel",
            "file-chan",
            "--token-file",
            file.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert!(!is_error(&call(&client, "page_info", json!({})).await));
    client.cancel().await.unwrap();

    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests
        .iter()
        .all(|r| r.auth.as_deref() == Some(&*format!("Bearer {TOKEN}"))));
    assert_eq!(requests[0].body["channel_id"], "env-chan");
    assert_eq!(requests[1].body["channel_id"], "file-chan");
}
