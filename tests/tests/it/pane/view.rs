//! The pane as a whole browser for the person (DESIGN.md §15), through the pane's WebSocket
//! against the real daemon and Chromium: `<select>` popups answered by the pane, IME
//! composition, pixel density, the cursor, and an OAuth-style popup round trip. The same
//! through `<porthole-pane>` is in `web_panel::pane_view`. Pages are in `tests/pages/pane_view/`.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::pane_on_page::PaneOnPage;
use serde_json::{json, Value};

/// Serves this module's pages (`tests/pages/pane_view/`) on 127.0.0.1; returns the base URL.
pub(crate) async fn serve_pages() -> String {
    PageServer::area("pane_view").await.base()
}

/// A pane watching `path` of this module's pages on a fresh channel, with a probe into its
/// Chromium.
async fn setup(channel: &str, path: &str, title: &str) -> PaneOnPage {
    let url = format!("{}{path}", serve_pages().await);
    PaneOnPage::open(channel, &url, title).await
}

/// The next `error` after `mark`.
async fn error_after(pane: &Pane, mark: usize) -> Value {
    pane.next_of("error", mark).await
}

/// Opens the page's select with a click and returns the `select_popup` the pane got.
async fn open_select(s: &PaneOnPage) -> Value {
    let mark = s.pane.mark();
    s.pane.click((100.0, 35.0));
    s.pane.next_of("select_popup", mark).await
}

#[tokio::test]
async fn a_select_popup_reaches_the_pane_and_its_answer_chooses_the_sixth_option() {
    let s = setup("pv-select", "/view", "Pane view page").await;
    let popup = open_select(&s).await;
    assert_eq!(popup["target_id"], s.tab.as_str());
    assert_eq!(popup["multiple"], false);
    assert_eq!(popup["selected"], json!([0]));
    let labels: Vec<&str> = popup["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "Apple",
            "Banana",
            "Cherry",
            "Date",
            "Elderberry",
            "Fig",
            "Grape",
            "Kiwi"
        ]
    );
    assert_eq!(popup["options"][0]["group"], "Fruit");
    assert_eq!(popup["options"][2]["disabled"], true);
    assert!(popup["options"][3].get("group").is_none(), "{popup}");
    assert_eq!(popup["options"][5]["value"], "fig");
    assert_eq!(
        popup["rect"],
        json!({"x": 20.0, "y": 20.0, "width": 200.0, "height": 30.0})
    );
    let id = popup["id"].as_str().unwrap().to_string();

    // Bad answers: an error each, the popup stays open and answerable.
    for (bad, code) in [
        (json!({"id": id, "index": 2}), "bad_request"),
        (json!({"id": id, "index": 99}), "bad_request"),
        (json!({"id": id}), "bad_request"),
        (json!({"id": "sel_nothing", "index": 1}), "no_select_popup"),
    ] {
        let mark = s.pane.mark();
        let mut answer = bad.clone();
        answer["type"] = json!("select_answer");
        s.pane.send(answer);
        let error = error_after(&s.pane, mark).await;
        assert_eq!(error["code"], code, "{bad} → {error}");
    }
    assert_eq!(
        s.probe
            .eval(&s.tab, "document.getElementById('s').matches(':open')")
            .await,
        json!(true),
        "a refused answer left Chrome's popup open"
    );

    let mark = s.pane.mark();
    s.pane
        .send(json!({"type": "select_answer", "id": id, "index": 5}));
    let closed = s
        .pane
        .message_where("select_popup_closed", mark, |m| {
            m["type"] == "select_popup_closed" && m["id"] == id.as_str()
        })
        .await;
    assert_eq!(closed["target_id"], s.tab.as_str());
    s.probe
        .eval_until(
            &s.tab,
            "(() => { const s = document.getElementById('s'); return [s.value, s.matches(':open'), changes.join()]; })()",
            json!(["fig", false, "input:fig,change:fig"]),
        )
        .await;

    // Answered once: a second answer is refused, nothing changes.
    let mark = s.pane.mark();
    s.pane
        .send(json!({"type": "select_answer", "id": id, "index": 1}));
    assert_eq!(error_after(&s.pane, mark).await["code"], "no_select_popup");
    assert_eq!(
        s.probe
            .eval(&s.tab, "document.getElementById('s').value")
            .await,
        json!("fig")
    );
}

#[tokio::test]
async fn keys_on_an_open_select_still_choose_and_close_it_for_the_pane() {
    let s = setup("pv-select-keys", "/view", "Pane view page").await;
    let popup = open_select(&s).await;
    let id = popup["id"].as_str().unwrap().to_string();
    let mark = s.pane.mark();
    s.pane.key("ArrowDown", "ArrowDown", 0);
    s.pane.key("Enter", "Enter", 0);
    s.pane
        .message_where("select_popup_closed", mark, |m| {
            m["type"] == "select_popup_closed" && m["id"] == id.as_str()
        })
        .await;
    s.probe
        .eval_until(
            &s.tab,
            "[document.getElementById('s').value, changes.join()]",
            json!(["banana", "input:banana,change:banana"]),
        )
        .await;

    // Cancel closes without a change.
    let popup = open_select(&s).await;
    let mark = s.pane.mark();
    s.pane
        .send(json!({"type": "select_answer", "id": popup["id"], "cancel": true}));
    s.pane.next_of("select_popup_closed", mark).await;
    s.probe
        .eval_until(
            &s.tab,
            "[document.getElementById('s').matches(':open'), document.getElementById('s').value, changes.length]",
            json!([false, "banana", 2]),
        )
        .await;
}

#[tokio::test]
async fn an_ime_composition_shows_its_draft_and_commits_into_the_field() {
    let s = setup("pv-ime", "/view", "Pane view page").await;
    s.pane.click((400.0, 315.0));
    s.probe
        .eval_until(&s.tab, "document.activeElement.id", json!("field"))
        .await;
    let mark = s.pane.mark();
    s.pane.input(
        "composition",
        json!({"text": "日本", "selection_start": 0, "selection_end": 9}),
    );
    assert_eq!(error_after(&s.pane, mark).await["code"], "bad_input");
    for draft in ["に", "日本", "日本語"] {
        s.pane.input("composition", json!({"text": draft}));
    }
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('field').value",
            json!("日本語"),
        )
        .await;
    s.pane.input("typetext", json!({"text": "日本語"}));
    s.probe
        .eval_until(
            &s.tab,
            "[document.getElementById('field').value, composed[0], composed[composed.length - 1]]",
            json!(["日本語", "compositionstart:", "compositionend:日本語"]),
        )
        .await;
}

/// Width and height of a JPEG frame.
fn frame_size(jpeg: &[u8]) -> (u32, u32) {
    let image = image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg).unwrap();
    (image.width(), image.height())
}

/// Where a pane's stream stood: frames and messages received so far.
#[derive(Clone, Copy)]
struct Mark {
    frames: usize,
    messages: usize,
}

fn mark_of(pane: &Pane) -> Mark {
    Mark {
        frames: pane.frame_count(),
        messages: pane.mark(),
    }
}

/// Waits for a frame of `size` pixels after `mark`, then checks that the `viewport` the pane
/// had been told when that frame came says 800×600 CSS px. With `told_since`, that viewport
/// must have come after `mark` (a pane that asked for a cast is told its size again).
async fn frame_of(pane: &Pane, mark: Mark, size: (u32, u32), told_since: bool) {
    let (viewport, at) = pane
        .wait(
            &format!("a {}×{} frame", size.0, size.1),
            std::time::Duration::from_secs(30),
            |r| {
                // `frames` keeps the latest few of `frame_count`.
                let kept = r.frames.len().saturating_sub(r.frame_count - mark.frames);
                let index = kept
                    + r.frames[kept..]
                        .iter()
                        .position(|f| frame_size(f) == size)?;
                let before = r.frame_after_messages[index];
                let at = r.messages[..before]
                    .iter()
                    .rposition(|m| m["type"] == "viewport");
                Some((at.map(|i| r.messages[i].clone()), at))
            },
        )
        .await;
    let viewport = viewport.expect("a viewport before the frame");
    assert_eq!(
        (viewport["width"].as_u64(), viewport["height"].as_u64()),
        (Some(800), Some(600)),
        "{viewport}"
    );
    if told_since {
        assert!(
            at.is_some_and(|i| i >= mark.messages),
            "the viewport {viewport} was told before the cast was asked for"
        );
    }
}

/// On the scale page (a still page): frames at scale× the pixels through 2 → 1 → 2, the page
/// at 800×600 CSS px with devicePixelRatio = scale, and clicks landing in CSS px.
pub(crate) async fn frames_follow_the_scale(pane: &Pane) {
    for (scale, size) in [(2, (1600, 1200)), (1, (800, 600)), (2, (1600, 1200))] {
        let mark = mark_of(pane);
        pane.send(
            json!({"type": "screencast", "width": 800, "height": 600, "quality": 60, "scale": scale}),
        );
        frame_of(pane, mark, size, true).await;
        pane.newest_title_is(&format!("{scale} 800x600")).await;
    }
    // The button at CSS (500..600, 400..450) gets a click at CSS (550, 425); (280, 215) is
    // the body (a doubled coordinate would be the button).
    pane.input("click", json!({"x": 550, "y": 425}));
    pane.click((280.0, 215.0));
    pane.newest_title_is("2 800x600 550,425,btn;280,215,").await;
}

#[tokio::test]
async fn scale_two_gives_1600_by_1200_frames_for_an_800_by_600_pane() {
    let s = setup("pv-scale-frames", "/scale", "1 800x600").await;
    frames_follow_the_scale(&s.pane).await;
}

/// Two panes on one tab share its frames: the scale asked last wins (DESIGN.md §15; see
/// daemon/src/browser/layouts.rs), and both are told the same CSS size.
#[tokio::test]
async fn two_panes_at_different_scales_get_the_scale_asked_last() {
    let s = setup("pv-scale-two", "/scale", "1 800x600").await;
    let other = Pane::connect(&s.daemon.addr, &s.daemon.token).await;
    other.start("pv-scale-two").await;
    other.watch().await;
    let (mark, other_mark) = (mark_of(&s.pane), mark_of(&other));
    s.pane
        .send(json!({"type": "screencast", "width": 800, "height": 600, "scale": 2}));
    frame_of(&s.pane, mark, (1600, 1200), true).await;
    frame_of(&other, other_mark, (1600, 1200), false).await;
    other.newest_title_is("2 800x600").await;
    let (mark, other_mark) = (mark_of(&s.pane), mark_of(&other));
    other.send(json!({"type": "screencast", "width": 800, "height": 600, "scale": 1}));
    frame_of(&s.pane, mark, (800, 600), false).await;
    frame_of(&other, other_mark, (800, 600), true).await;
    s.pane.newest_title_is("1 800x600").await;
}

/// `zoom {factor}` zooms like Chrome's Ctrl +/-: the page lays out at pane size / factor
/// with devicePixelRatio × factor (text larger), frames and clicks stay in pane px; a bad
/// factor is an error with nothing changed and the connection kept.
#[tokio::test]
async fn zoom_lays_the_page_out_smaller_with_a_larger_pixel_ratio() {
    let s = setup("pv-zoom", "/scale", "1 800x600").await;
    let mark = mark_of(&s.pane);
    s.pane.send(json!({"type": "zoom", "factor": 2}));
    s.pane.newest_title_is("2 400x300").await;
    // Frames keep the pane's size; pane (560, 430) is CSS (280, 215) of the zoomed page.
    frame_of(&s.pane, mark, (800, 600), false).await;
    s.pane.click((560.0, 430.0));
    s.pane.newest_title_is("2 400x300 280,215,").await;
    for bad in [json!(0), json!(10), json!(-1), json!(0.1)] {
        let mark = s.pane.mark();
        s.pane.send(json!({"type": "zoom", "factor": bad}));
        let error = error_after(&s.pane, mark).await;
        assert_eq!(error["code"], "bad_zoom", "{bad}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains("0.25 to 5"),
            "{error}"
        );
    }
    s.pane.send(json!({"type": "zoom", "factor": 0.5}));
    s.pane.newest_title_is("0.5 1600x1200 280,215,").await;
    // With a pixel scale: both multiply the ratio, frames are the pane's size × scale.
    let mark = mark_of(&s.pane);
    s.pane
        .send(json!({"type": "screencast", "width": 800, "height": 600, "scale": 2}));
    s.pane.send(json!({"type": "zoom", "factor": 1.5}));
    s.pane.newest_title_is("3 533x400 280,215,").await;
    frame_of(&s.pane, mark, (1600, 1200), true).await;
    s.pane.click((300.0, 150.0));
    s.pane.newest_title_is("3 533x400 280,215,;200,100,").await;
}

/// The same in docker mode (Chromium in the sidecar image).
#[tokio::test]
async fn docker_mode_scale_two_gives_1600_by_1200_frames_with_css_clicks() {
    use porthole_tests::docker;
    docker::ensure_image().await;
    let tag = docker::unique("dk-scale");
    let _cleanup = docker::DockerCleanup::new(&tag);
    let daemon = TestDaemon::start_with(docker::options(&tag, json!({"network": "host"}))).await;
    let base = serve_pages().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(&tag).await;
    pane.watch().await;
    pane.send(json!({"type": "navigate", "url": format!("{base}/scale")}));
    pane.newest_title_is("1 800x600").await;
    frames_follow_the_scale(&pane).await;
}

#[tokio::test]
async fn scale_two_gives_device_pixel_ratio_two_with_css_coordinates() {
    let s = setup("pv-scale", "/view", "Pane view page").await;
    let mark = s.pane.mark();
    s.pane.send(
        json!({"type": "screencast", "width": 800, "height": 600, "quality": 60, "scale": 2}),
    );
    s.probe
        .eval_until(
            &s.tab,
            "[devicePixelRatio, innerWidth, innerHeight]",
            json!([2, 800, 600]),
        )
        .await;
    let viewport = s.pane.next_of("viewport", mark).await;
    assert_eq!(
        (viewport["width"].clone(), viewport["height"].clone()),
        (json!(800), json!(600))
    );

    // Input stays in CSS px: the button at (500..600, 400..450) gets the click.
    s.pane.input("click", json!({"x": 550, "y": 425}));
    s.probe.eval_until(&s.tab, "clicks", json!(1)).await;

    // Bad scales: an error each, nothing changed, the connection kept.
    for bad in [json!(0), json!(10), json!(-1), json!(3.5)] {
        let mark = s.pane.mark();
        s.pane
            .send(json!({"type": "screencast", "width": 640, "height": 480, "scale": bad}));
        let error = error_after(&s.pane, mark).await;
        assert_eq!(error["code"], "bad_scale", "{bad}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains("1 to 3"),
            "{error}"
        );
    }
    assert_eq!(
        s.probe.eval(&s.tab, "[devicePixelRatio, innerWidth]").await,
        json!([2, 800])
    );
    s.pane.send(json!({"type": "screencast", "scale": 1}));
    s.probe
        .eval_until(&s.tab, "[devicePixelRatio, innerWidth]", json!([1, 800]))
        .await;
}

#[tokio::test]
async fn the_cursor_follows_the_pointer_over_a_link_and_a_text_field() {
    let s = setup("pv-cursor", "/view", "Pane view page").await;
    let cursor_after = |mark: usize, want: &'static str| {
        let tab = s.tab.clone();
        let pane = &s.pane;
        async move {
            pane.message_where(&format!("cursor {want}"), mark, |m| {
                m["type"] == "cursor" && m["target_id"] == tab.as_str() && m["cursor"] == want
            })
            .await
        }
    };
    for (x, y, want) in [
        (50.0, 312.0, "pointer"),
        (400.0, 315.0, "text"),
        (700.0, 200.0, "default"),
        (60.0, 312.0, "pointer"),
    ] {
        let mark = s.pane.mark();
        s.pane.hover((x, y));
        cursor_after(mark, want).await;
    }
}

#[tokio::test]
async fn an_oauth_popup_round_trip_shows_the_popup_and_returns_to_its_opener() {
    let s = setup("pv-oauth", "/oauth-start", "Sign in").await;
    let mark = s.pane.mark();
    s.pane.input("click", json!({"x": 120, "y": 45}));
    let created = s
        .pane
        .message_where("the popup tab", mark, |m| {
            m["type"] == "tab_created" && m["opener_id"] == s.tab.as_str()
        })
        .await;
    let popup = created["target_id"].as_str().unwrap().to_string();
    s.pane
        .message_where("the pane on the popup", mark, |m| {
            m["type"] == "tab_switched" && m["target_id"] == popup.as_str()
        })
        .await;
    s.pane
        .message_where("the consent page", mark, |m| {
            m["type"] == "page_info" && m["target_id"] == popup.as_str() && m["title"] == "Consent"
        })
        .await;
    assert_eq!(
        s.probe.eval(&popup, "!!window.opener").await,
        json!(true),
        "the popup lost window.opener"
    );
    // The pane's frames are the popup's now (it is laid out at the pane's size).
    s.probe
        .eval_until(&popup, "innerWidth + 'x' + innerHeight", json!("800x600"))
        .await;

    let mark = s.pane.mark();
    s.pane.input("click", json!({"x": 120, "y": 45}));
    s.pane
        .message_where("the popup closed", mark, |m| {
            m["type"] == "tab_closed" && m["target_id"] == popup.as_str()
        })
        .await;
    s.pane
        .message_where("the pane back on its opener", mark, |m| {
            m["type"] == "tab_switched" && m["target_id"] == s.tab.as_str()
        })
        .await;
    s.pane
        .message_where("the opener signed in", mark, |m| {
            m["type"] == "page_info"
                && m["target_id"] == s.tab.as_str()
                && m["title"] == "Signed in: tok-42"
        })
        .await;
    // The pane's input goes to the opener again: its button opens a second popup.
    let mark = s.pane.mark();
    s.pane.input("click", json!({"x": 120, "y": 45}));
    s.pane
        .message_where("a second popup", mark, |m| {
            m["type"] == "tab_created" && m["opener_id"] == s.tab.as_str()
        })
        .await;
}

#[tokio::test]
async fn find_in_page_counts_steps_through_and_clears_matches() {
    let s = setup("pv-find", "/view", "Pane view page").await;
    let pane = &s.pane;
    let find = |query: &str, backwards: bool| {
        let mark = pane.mark();
        pane.send(json!({"type": "find", "query": query, "backwards": backwards}));
        async move { pane.next_of("find_result", mark).await }
    };
    let first = find("SE", false).await;
    assert_eq!(
        (first["target_id"].as_str(), first["query"].as_str()),
        (Some(s.tab.as_str()), Some("SE"))
    );
    assert_eq!(
        (first["index"].clone(), first["count"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(
        s.probe
            .eval(&s.tab, "[getSelection().toString(), getSelection().anchorNode.parentElement.id, CSS.highlights.has('porthole-find')]")
            .await,
        json!(["se", "para", true])
    );
    for (backwards, index) in [(false, 2), (false, 1), (true, 2)] {
        assert_eq!(find("SE", backwards).await["index"], index);
    }
    let none = find("zzz", false).await;
    assert_eq!(
        (none["index"].clone(), none["count"].clone()),
        (json!(0), json!(0))
    );
    find("se", false).await;
    let cleared = find("", false).await;
    assert_eq!(cleared["count"], 0);
    assert_eq!(
        s.probe
            .eval(
                &s.tab,
                "CSS.highlights.has('porthole-find') || document.adoptedStyleSheets.length"
            )
            .await,
        json!(0)
    );
    let mark = s.pane.mark();
    s.pane
        .send(json!({"type": "find", "query": "x".repeat(1001)}));
    assert_eq!(error_after(&s.pane, mark).await["code"], "bad_request");
}

#[tokio::test]
async fn drag_selecting_and_double_clicking_text_then_copy_gives_the_words() {
    let s = setup("pv-select-text", "/view", "Pane view page").await;
    // "select these words" in 20px monospace (12 px a character) from x = 20, y = 500..524.
    let mark = s.pane.mark();
    s.pane.input(
        "mousedown",
        json!({"x": 21, "y": 512, "button": "left", "click_count": 1}),
    );
    for x in [40.0, 60.0, 90.0] {
        s.pane
            .input("mousemove", json!({"x": x, "y": 512, "button": "left"}));
    }
    s.pane.input(
        "mouseup",
        json!({"x": 90, "y": 512, "button": "left", "click_count": 1}),
    );
    s.pane.input("copy", json!({}));
    let copied = s.pane.next_of("clipboard", mark).await;
    assert_eq!(copied["text"], "select");

    let mark = s.pane.mark();
    for count in [1, 2] {
        for kind in ["mousedown", "mouseup"] {
            s.pane.input(
                kind,
                json!({"x": 130, "y": 512, "button": "left", "click_count": count}),
            );
        }
    }
    s.pane.input("copy", json!({}));
    assert_eq!(s.pane.next_of("clipboard", mark).await["text"], "these");
}
