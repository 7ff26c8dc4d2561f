//! The TypeScript declarations shipped beside `<porthole-pane>` (`web-panel/js/protocol.d.ts`)
//! say what the live daemon's OpenAPI document says about the pane WebSocket messages.

use std::path::PathBuf;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::typescript::{render, PROTOCOL_DTS};

const REGENERATE: &str =
    "PORTHOLE_UPDATE_TYPES=1 cargo test -p porthole-tests --test it -- pane_types";

#[tokio::test]
async fn pane_types_match_the_openapi_document() {
    let daemon = TestDaemon::start().await;
    let (status, document) = daemon.get("/api/openapi.json").await;
    assert_eq!(status, 200, "{document}");
    let generated = render(&document).unwrap_or_else(|e| panic!("cannot render types: {e}"));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(PROTOCOL_DTS);
    if std::env::var("PORTHOLE_UPDATE_TYPES").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write protocol.d.ts");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in != generated {
        let line = checked_in
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || checked_in.lines().count().min(generated.lines().count()) + 1,
                |i| i + 1,
            );
        panic!(
            "{PROTOCOL_DTS} is out of date with the daemon's OpenAPI document (PaneMessage / \
             ClientMessage); first difference at line {line}. Regenerate it with:\n    \
             {REGENERATE}\nand commit the result."
        );
    }
}
