//! `save_screenshot` in proxy mode: the daemon is asked for a `screenshot`; the proxy writes
//! the file where it runs.

use serde_json::json;

use crate::harness::{call, connect, is_error, text, TempDir};
use crate::stub::{Stub, PNG};

#[tokio::test]
async fn save_screenshot_writes_the_file_locally() {
    let stub = Stub::start().await;
    let dir = TempDir::new("save-screenshot");
    let path = dir.0.join("shots/page.png");
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let r = call(
        &client,
        "save_screenshot",
        json!({"path": path.to_str().unwrap(), "wait_for_selector": "#ready"}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(std::fs::read(&path).unwrap(), PNG);
    let t = text(&r);
    assert!(
        t.contains(&format!("Saved screenshot to {}", path.display())),
        "{t}"
    );
    assert!(t.contains(&format!("PNG, 1x1, {} bytes", PNG.len())), "{t}");
    let bodies = stub.bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["tool"], "screenshot");
    assert_eq!(
        bodies[0]["args"],
        json!({"format": "png", "wait_for_selector": "#ready"})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn save_screenshot_refuses_a_format_the_browser_did_not_produce() {
    let stub = Stub::start().await;
    let dir = TempDir::new("save-screenshot-jpeg");
    let path = dir.0.join("page.jpg");
    let client = connect(&stub.url(), "chan-1", &[]).await;
    // The stub always answers PNG.
    let r = call(
        &client,
        "save_screenshot",
        json!({"path": path.to_str().unwrap()}),
    )
    .await;
    assert!(is_error(&r));
    assert!(text(&r).contains("returned image/png"), "{}", text(&r));
    assert!(!path.exists());
    client.cancel().await.unwrap();
}
