//! `<porthole-pane>` on a channel whose browser runs in a docker sidecar (the WebSocket tests
//! of docker mode are `pane::docker`; this is the same person through the bundled panel in a
//! real headless Chromium): the drawn `<select>` list chooses the sixth option, the cursor
//! follows the page, and the file-chooser card hands the page a file. No probe reaches a
//! browser in a container: the pages say what they hold in their titles.

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::docker;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::{PanelPage, PANE};

/// Waits until the pane's page is titled `title`.
async fn titled(panel: &PanelPage, title: &str) {
    panel
        .until(
            &format!("the page titled {title:?}"),
            &format!(
                "window.porthole.pageInfo && window.porthole.pageInfo.title === {}",
                json!(title)
            ),
        )
        .await;
}

#[tokio::test]
async fn the_panel_chooses_a_select_option_shows_cursors_and_hands_a_file_in_docker_mode() {
    docker::ensure_image().await;
    let tag = docker::unique("dk-panel");
    let _cleanup = docker::DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let pages = PageServer::area("pane_docker").await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, &tag).await;
    panel.show(&pages.url("/browser"), "Docker pane page").await;

    // The select's list drawn by the pane; a click on its sixth option chooses it.
    panel.click_at(panel.on_screen((100.0, 35.0)).await).await;
    let sixth = panel
        .center_of(
            "the drawn sixth option",
            "#select-popup .select-option:nth-child(6)",
        )
        .await;
    assert_eq!(
        panel
            .eval(&format!(
                "{PANE}.querySelector('#select-popup .select-option:nth-child(6)').textContent"
            ))
            .await,
        json!("Fig")
    );
    panel.click_at(sixth).await;
    titled(&panel, "s=fig f=").await;

    // The CSS cursor follows the page: a hand over the link, text over the field.
    for ((x, y), cursor) in [((40.0, 310.0), "pointer"), ((350.0, 315.0), "text")] {
        let (sx, sy) = panel.on_screen((x, y)).await;
        panel.mouse("mouseMoved", sx, sy).await;
        panel
            .until(
                &format!("the {cursor} cursor"),
                &format!(
                    "{PANE}.getElementById('screen').style.cursor === {}",
                    json!(cursor)
                ),
            )
            .await;
    }

    // A file from the person through the card, built in the container's page.
    let shared = PageServer::start().await;
    panel.show(&shared.url("/upload"), "Upload page").await;
    panel.click_at(panel.on_screen((100.0, 40.0)).await).await;
    panel
        .until(
            "the file-chooser card",
            &format!("!{PANE}.getElementById('file-chooser').hidden"),
        )
        .await;
    let dir = porthole_tests::TempDir::new("panel-docker-pick");
    let file = dir.path().join("scan.txt");
    std::fs::write(&file, "docker scan").unwrap();
    panel.send_file_through_card(&file).await;
    titled(&panel, "got scan.txt:docker scan").await;
    assert!(
        panel.eval("window.porthole.lastError").await.is_null(),
        "the panel showed an error"
    );
}
