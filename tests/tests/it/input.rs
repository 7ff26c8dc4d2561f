//! Input from a pane changes the page as a user would expect, read back inside the page.

use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::{json, Value};

/// A pane on the input page of a fresh channel, with a probe into its Chromium.
struct Setup {
    _daemon: TestDaemon,
    _pages: PageServer,
    pane: Pane,
    probe: Probe,
    tab: String,
}

async fn setup(channel: &str) -> Setup {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start(channel).await;
    pane.open_page(&pages.url("/input"), "Input page").await;
    let probe = Probe::connect(&daemon.profile_dir(channel)).await;
    probe
        .eval_until(&tab, "innerWidth + 'x' + innerHeight", json!("800x600"))
        .await;
    Setup {
        _daemon: daemon,
        _pages: pages,
        pane,
        probe,
        tab,
    }
}

#[tokio::test]
async fn clicks_reach_the_button_in_order() {
    let s = setup("in-click").await;
    s.pane.input("click", json!({"x": 100, "y": 40}));
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('out').textContent",
            json!("clicked 1"),
        )
        .await;
    s.pane.click((100.0, 40.0));
    s.pane.click((100.0, 40.0));
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('out').textContent",
            json!("clicked 3"),
        )
        .await;
    s.pane
        .input("mousedown", json!({"x": 400, "y": 400, "button": "right"}));
    s.pane
        .input("mouseup", json!({"x": 400, "y": 400, "button": "right"}));
    s.probe
        .eval_until(
            &s.tab,
            "seen.some(e => e.type === 'contextmenu')",
            json!(true),
        )
        .await;
}

/// Moves travel several at once (`browser::input_pipeline`), yet reach the page in the order
/// they were made: a pointer never jumps back (a drag once selected less than was dragged over
/// when a later move overtook an earlier one). The page sees a rising sequence ending at the
/// last (Chrome may coalesce moves it has not delivered yet).
#[tokio::test]
async fn moves_reach_the_page_in_the_order_made() {
    let s = setup("in-moves").await;
    // A wheel event between moves keeps them from collapsing, so many travel at once.
    for x in 100..=400 {
        s.pane
            .input("mousemove", json!({"x": x, "y": 300, "button": "none"}));
        s.pane.input(
            "scroll",
            json!({"x": x, "y": 300, "delta_x": 0, "delta_y": 0}),
        );
    }
    s.probe
        .eval_until(&s.tab, "moves[moves.length - 1]", json!(400))
        .await;
    let moves = s.probe.eval(&s.tab, "moves").await;
    let xs: Vec<i64> = moves
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert!(
        xs.windows(2).all(|w| w[0] < w[1]),
        "the pointer went back: {xs:?}"
    );
}

#[tokio::test]
async fn a_drag_selects_text_and_a_double_click_selects_a_word() {
    let s = setup("in-drag").await;
    s.pane.input(
        "mousedown",
        json!({"x": 21, "y": 92, "button": "left", "click_count": 1}),
    );
    for x in [40, 80, 120, 150] {
        s.pane
            .input("mousemove", json!({"x": x, "y": 92, "button": "left"}));
    }
    s.pane.input(
        "mouseup",
        json!({"x": 150, "y": 92, "button": "left", "click_count": 1}),
    );
    let selected = s
        .probe
        .eval_until(
            &s.tab,
            "String(getSelection()).startsWith('alpha b')",
            json!(true),
        )
        .await;
    assert_eq!(selected, json!(true));
    s.pane.input(
        "mousedown",
        json!({"x": 30, "y": 92, "button": "left", "click_count": 1}),
    );
    s.pane.input(
        "mouseup",
        json!({"x": 30, "y": 92, "button": "left", "click_count": 1}),
    );
    s.pane.input(
        "mousedown",
        json!({"x": 30, "y": 92, "button": "left", "click_count": 2}),
    );
    s.pane.input(
        "mouseup",
        json!({"x": 30, "y": 92, "button": "left", "click_count": 2}),
    );
    s.probe
        .eval_until(&s.tab, "String(getSelection()).trim()", json!("alpha"))
        .await;
}

#[tokio::test]
async fn wheel_events_scroll_the_page_by_their_sum() {
    let s = setup("in-wheel").await;
    for _ in 0..10 {
        s.pane
            .input("scroll", json!({"x": 400, "y": 300, "delta_y": 50}));
    }
    s.probe.eval_until(&s.tab, "scrollY", json!(500)).await;
    s.pane
        .input("scroll", json!({"x": 400, "y": 300, "delta_y": -200}));
    s.probe.eval_until(&s.tab, "scrollY", json!(300)).await;
}

#[tokio::test]
async fn typing_enter_and_shortcuts_work_in_a_textarea() {
    let s = setup("in-keys").await;
    s.pane.click((100.0, 180.0));
    s.probe
        .eval_until(&s.tab, "document.activeElement.id", json!("area"))
        .await;
    s.pane.key("H", "KeyH", 8);
    s.pane.key("i", "KeyI", 0);
    s.pane.key("Enter", "Enter", 0);
    s.pane.key("!", "Digit1", 8);
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('area').value",
            json!("Hi\n!"),
        )
        .await;
    s.pane.key("Backspace", "Backspace", 0);
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('area').value",
            json!("Hi\n"),
        )
        .await;
    // Ctrl+A selects all (a shortcut, not text), typing then replaces it.
    s.pane.key("a", "KeyA", 2);
    s.pane.key("z", "KeyZ", 0);
    s.probe
        .eval_until(&s.tab, "document.getElementById('area').value", json!("z"))
        .await;
    // Ctrl+Enter stays a shortcut: no newline.
    s.pane.key("Enter", "Enter", 2);
    s.pane.input("typetext", json!({"text": " typed"}));
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('area').value",
            json!("z typed"),
        )
        .await;
    let seen: Value = s
        .probe
        .eval(
            &s.tab,
            "seen.filter(e => e.type === 'keydown').map(e => e.code).join(',')",
        )
        .await;
    assert!(
        seen.as_str().unwrap().starts_with("KeyH,KeyI,Enter,Digit1"),
        "{seen}"
    );
}

#[tokio::test]
async fn paste_copy_and_cut_go_through_the_pane_clipboard() {
    let s = setup("in-clip").await;
    s.pane.click((450.0, 150.0));
    s.probe
        .eval_until(&s.tab, "document.activeElement.id", json!("field"))
        .await;
    s.pane
        .input("paste", json!({"text": "from the user's clipboard"}));
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('field').value",
            json!("from the user's clipboard"),
        )
        .await;
    s.pane.key("a", "KeyA", 2);
    let mark = s.pane.mark();
    s.pane.input("copy", json!({}));
    let copied = s.pane.next_of("clipboard", mark).await;
    assert_eq!(copied["text"], "from the user's clipboard");
    // Copy changed nothing; cut empties the field and hands the text over.
    let mark = s.pane.mark();
    s.pane.input("cut", json!({"modifiers": 2}));
    let cut = s.pane.next_of("clipboard", mark).await;
    assert_eq!(cut["text"], "from the user's clipboard");
    s.probe
        .eval_until(&s.tab, "document.getElementById('field').value", json!(""))
        .await;
    // A selection in the page itself (not a field) is copied too.
    s.probe
        .eval(
            &s.tab,
            "getSelection().selectAllChildren(document.getElementById('para')); true",
        )
        .await;
    let mark = s.pane.mark();
    s.pane.input("copy", json!({}));
    let copied = s.pane.next_of("clipboard", mark).await;
    assert_eq!(
        copied["text"].as_str().unwrap().trim(),
        "alpha beta gamma delta"
    );
}

/// The pane never copies a password field's selection (the vault review's V16): its value
/// would reach the host's clipboard and the page embedding the pane. Chrome itself refuses
/// to copy there. The control: the text field's selection, copied right after, is the first
/// clipboard answer the pane gets.
#[tokio::test]
async fn a_password_fields_selection_is_never_copied() {
    let s = setup("in-clip-secret").await;
    s.probe
        .eval(
            &s.tab,
            "(() => { const p = document.createElement('input'); p.type = 'password'; \
             p.id = 'pw'; p.value = 'hunter22xyz'; document.body.append(p); \
             document.getElementById('field').value = 'plain text'; \
             p.focus(); p.select(); return document.activeElement.id; })()",
        )
        .await;
    let mark = s.pane.mark();
    s.pane.input("copy", json!({}));
    s.pane.input("cut", json!({"modifiers": 2}));
    s.probe
        .eval(
            &s.tab,
            "(() => { const f = document.getElementById('field'); f.focus(); f.select(); return 1; })()",
        )
        .await;
    s.pane.input("copy", json!({}));
    let copied = s.pane.next_of("clipboard", mark).await;
    assert_eq!(copied["text"], "plain text", "{copied}");
    s.probe
        .eval_until(
            &s.tab,
            "document.getElementById('pw').value",
            json!("hunter22xyz"),
        )
        .await;
}
