//! `computer`: clicks, mouse moves, drags, scrolling, typing, keys, waits and screenshots on
//! the active tab, aimed at viewport coordinates or at a ref (scrolled into view, its live
//! centre used, refused when covered). Input goes through the engine's CDP input path, so a
//! pane watching the channel sees every step.

use porthole_mcp::vocabulary::{
    ComputerAction, ComputerArgs, HasWait, PointTarget, ScrollDirection, SCROLL_TICK_PX,
};
use porthole_mcp::ToolOutput;

use crate::browser::{dispatch_input as dispatch, InputEvent, MouseButton, Pointer};
use crate::tools::act::readback::{self, Expect};
use crate::tools::act::waits;
use crate::tools::error::ToolError;
use crate::tools::page::browse as page;
use crate::tools::tab::driver::Tab;
use crate::tools::tab::element_refs as refs;

/// After `type`: a note when the field (the ref's, else the focused one) does not hold the
/// text. `read` is what the settle read already (see [`read_back_in_settle`]).
async fn read_back(
    tab: &Tab,
    args: &ComputerArgs,
    text: &str,
    read: Option<serde_json::Value>,
) -> Option<String> {
    if let Some(answer) = read {
        return readback::judge(&answer, text, Expect::Contains);
    }
    match args.element_ref.as_deref() {
        Some(r) => {
            let (session, _) = refs::locate(tab, r.trim()).ok()?;
            readback::mismatch(tab, &session, Some(r.trim()), text, Expect::Contains).await
        }
        // Coordinates or the current focus: the main frame's focused element.
        None => readback::mismatch(tab, &tab.session_id, None, text, Expect::Contains).await,
    }
}

/// The read-back of a `type` as an expression the settle runs in the main frame (no round
/// trip of its own); `None` when the field is in another frame's session.
fn read_back_in_settle(tab: &Tab, args: &ComputerArgs) -> Option<String> {
    if args.action != ComputerAction::Type {
        return None;
    }
    match args.element_ref.as_deref() {
        Some(r) => {
            let (session, _) = refs::locate(tab, r.trim()).ok()?;
            (session == tab.session_id).then(|| readback::expression(Some(r.trim())))
        }
        None => Some(readback::expression(None)),
    }
}

/// Where a pointer action lands: `(x, y, " on <element>")`.
type Aim = (f64, f64, String);

/// `computer`.
pub async fn computer(tab: &Tab, args: &ComputerArgs) -> Result<ToolOutput, ToolError> {
    use ComputerAction as A;
    // wait and screenshot wait first; everything else acts, then waits.
    if args.action.waits_first() {
        return wait_first(tab, args).await;
    }
    let mods = args.modifier_bits().0;
    let (before, aimed) = before_and_aim(tab, args).await?;
    let done = match args.action {
        A::LeftClick | A::RightClick | A::DoubleClick | A::TripleClick => {
            let aimed = aimed.expect("aimed for clicks");
            if before.is_after_release() {
                return click_then_settle_behind(tab, args, before, aimed, mods).await;
            }
            let (x, y, what) = aimed;
            let (button, count) = button_and_count(args.action);
            click(tab, x, y, button, count, mods).await?;
            format!("{} at ({x:.0}, {y:.0}){what}.", args.action.as_str())
        }
        A::MouseMove | A::Hover => {
            let (x, y, what) = aim(tab, args.target()).await?;
            input(tab, mouse_move(x, y, MouseButton::None, mods)).await?;
            format!("Moved the mouse to ({x:.0}, {y:.0}){what}.")
        }
        A::LeftClickDrag => drag(tab, args, mods).await?,
        A::Scroll => scroll(tab, args, mods).await?,
        A::Type if before.is_after_release() => {
            let aimed = aimed.expect("aimed for a type at a target");
            return type_then_settle_behind(tab, args, before, aimed).await;
        }
        A::Type => type_text(tab, args, aimed).await?,
        A::Key => press_keys(tab, args, mods).await?,
        A::Wait | A::Screenshot => unreachable!("handled above"),
    };
    let then = read_back_in_settle(tab, args);
    let (mut notes, read) = waits::settle(tab, before, then.as_deref()).await;
    if let (A::Type, Some(text)) = (args.action, args.text.as_deref()) {
        if let Some(note) = read_back(tab, args, text, read).await {
            notes.push(note);
        }
    }
    finish(tab, args, done, notes).await
}

/// `wait` and `screenshot`: the wait (a condition or a pause) first, then the screenshot.
async fn wait_first(tab: &Tab, args: &ComputerArgs) -> Result<ToolOutput, ToolError> {
    let mut notes = Vec::new();
    if let Some(wait) = args.wait() {
        notes.push(waits::wait_for(tab, &wait).await?);
    } else if let Some(pause) = args.wait_duration() {
        tokio::time::sleep(pause).await;
        notes.push(format!("Waited {:.1} s.", pause.as_secs_f64()));
    }
    let screenshot = args.action == ComputerAction::Screenshot;
    let mut out = if screenshot {
        page::capture(tab, None).await?
    } else {
        ToolOutput::text(notes.join(" "))
    };
    if screenshot && !notes.is_empty() {
        out = out.with_text(notes.join(" "));
    }
    Ok(out)
}

/// The page's state before the action and, for a click (or a type at a target), where it
/// lands. A click's aim and the state before it are read at once (the event subscription that
/// `before` makes is in place before anything is dispatched); so is a type's at a target.
/// A single click on a ref in the main frame also arms the page for its release: the settle
/// then goes out right behind the click (see `waits::arm_release`).
async fn before_and_aim(
    tab: &Tab,
    args: &ComputerArgs,
) -> Result<(waits::Before, Option<Aim>), ToolError> {
    use ComputerAction as A;
    let clicks = matches!(
        args.action,
        A::LeftClick | A::RightClick | A::DoubleClick | A::TripleClick
    ) || (args.action == A::Type && args.target().is_some());
    if !clicks {
        return Ok((waits::before(tab).await, None));
    }
    let pipelined = pipelines_settle(tab, args);
    let (mut before, aimed, armed) = tokio::join!(
        biased;
        waits::before(tab),
        aim(tab, args.target()),
        async {
            match &pipelined {
                Some((r, arm)) => waits::arm_release(tab, r, *arm).await,
                None => false,
            }
        }
    );
    if armed {
        before.settle_after_release();
    }
    Ok((before, Some(aimed?)))
}

fn button_and_count(action: ComputerAction) -> (MouseButton, u32) {
    match action {
        ComputerAction::RightClick => (MouseButton::Right, 1),
        ComputerAction::DoubleClick => (MouseButton::Left, 2),
        ComputerAction::TripleClick => (MouseButton::Left, 3),
        _ => (MouseButton::Left, 1),
    }
}

/// A click whose settle runs on behind it (the page was armed for the release); the settle's
/// answer, and a `type`'s read-back with it, come back together.
async fn click_then_settle_behind(
    tab: &Tab,
    args: &ComputerArgs,
    before: waits::Before,
    (x, y, what): Aim,
    mods: u8,
) -> Result<ToolOutput, ToolError> {
    let (button, count) = button_and_count(args.action);
    let then = read_back_in_settle(tab, args);
    let (clicked, (notes, _)) = tokio::join!(
        biased;
        click(tab, x, y, button, count, mods),
        waits::settle(tab, before, then.as_deref())
    );
    clicked?;
    let done = format!("{} at ({x:.0}, {y:.0}){what}.", args.action.as_str());
    finish(tab, args, done, notes).await
}

/// A `type` at a ref of the main document's field whose click, text and settle go out back
/// to back (the page was armed for the text's `input` event): in the main frame's process
/// the text follows the click's focus in order, so nothing waits for the click's answer.
/// Its read-back comes with the settle.
async fn type_then_settle_behind(
    tab: &Tab,
    args: &ComputerArgs,
    before: waits::Before,
    (x, y, what): Aim,
) -> Result<ToolOutput, ToolError> {
    let text = args.text.clone().unwrap_or_default();
    let then = read_back_in_settle(tab, args);
    let mut events = click_events(x, y, MouseButton::Left, 1, 0);
    events.push(InputEvent::Typetext { text: text.clone() });
    let (typed, (mut notes, read)) = tokio::join!(
        biased;
        send_in_order(tab, &events),
        waits::settle(tab, before, then.as_deref())
    );
    typed?;
    if let Some(note) = read_back(tab, args, &text, read).await {
        notes.push(note);
    }
    let done = format!("Clicked ({x:.0}, {y:.0}){what}, then typed {text:?}.");
    finish(tab, args, done, notes).await
}

/// `left_click_drag`: press at the start, eight moves with the button held, release at the end.
async fn drag(tab: &Tab, args: &ComputerArgs, mods: u8) -> Result<String, ToolError> {
    const STEPS: u32 = 8;
    let (x0, y0, _) = aim(tab, args.drag_start()).await?;
    let [x1, y1] = args.coordinate.unwrap_or([x0, y0]);
    input(tab, mouse_move(x0, y0, MouseButton::None, mods)).await?;
    input(tab, press(true, x0, y0, MouseButton::Left, 1, mods)).await?;
    for i in 1..=STEPS {
        let t = f64::from(i) / f64::from(STEPS);
        let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
        input(tab, mouse_move(x, y, MouseButton::Left, mods)).await?;
    }
    input(tab, press(false, x1, y1, MouseButton::Left, 1, mods)).await?;
    Ok(format!(
        "Dragged from ({x0:.0}, {y0:.0}) to ({x1:.0}, {y1:.0})."
    ))
}

/// `scroll`: wheel ticks at the target, or at the viewport's centre.
async fn scroll(tab: &Tab, args: &ComputerArgs, mods: u8) -> Result<String, ToolError> {
    let (x, y, what) = match args.target() {
        Some(target) => aim(tab, Some(target)).await?,
        None => {
            let (w, h) = tab.browser.viewport();
            (f64::from(w) / 2.0, f64::from(h) / 2.0, String::new())
        }
    };
    let amount = f64::from(args.scroll_amount()) * SCROLL_TICK_PX;
    let (dx, dy) = match args.scroll_direction.unwrap_or(ScrollDirection::Down) {
        ScrollDirection::Up => (0.0, -amount),
        ScrollDirection::Down => (0.0, amount),
        ScrollDirection::Left => (-amount, 0.0),
        ScrollDirection::Right => (amount, 0.0),
    };
    let wheel = InputEvent::Scroll {
        at: Pointer::at(x, y, mods),
        delta_x: dx,
        delta_y: dy,
    };
    input(tab, wheel).await?;
    Ok(format!(
        "Scrolled by ({dx:.0}, {dy:.0}) px at ({x:.0}, {y:.0}){what}."
    ))
}

/// `type`: a click on the target first when there is one, then the text.
async fn type_text(
    tab: &Tab,
    args: &ComputerArgs,
    aimed: Option<Aim>,
) -> Result<String, ToolError> {
    let text = args.text.clone().unwrap_or_default();
    let typed = InputEvent::Typetext { text: text.clone() };
    let Some((x, y, what)) = aimed else {
        input(tab, typed).await?;
        return Ok(format!("Typed {text:?}."));
    };
    // The click is answered before the text goes: in a cross-origin frame the click's focus
    // reaches the browser process only then, and text sent in the same burst went to the
    // frame that had focus before (mcp::nested_frames).
    click(tab, x, y, MouseButton::Left, 1, 0).await?;
    input(tab, typed).await?;
    Ok(format!(
        "Clicked ({x:.0}, {y:.0}){what}, then typed {text:?}."
    ))
}

/// `key`: each space-separated chord pressed in turn, with the action's modifiers added.
async fn press_keys(tab: &Tab, args: &ComputerArgs, mods: u8) -> Result<String, ToolError> {
    let text = args.text.clone().unwrap_or_default();
    for chord in text.split_whitespace() {
        let (key, chord_mods) = parse_chord(chord)?;
        let keypress = InputEvent::Keypress {
            key,
            code: String::new(),
            modifiers: chord_mods | mods,
        };
        input(tab, keypress).await?;
    }
    Ok(format!("Pressed {text}."))
}

/// The action's answer: `done`, the settle's notes, and the wait asked for.
async fn finish(
    tab: &Tab,
    args: &ComputerArgs,
    done: String,
    mut notes: Vec<String>,
) -> Result<ToolOutput, ToolError> {
    if let Some(wait) = args.wait() {
        notes.push(waits::wait_for(tab, &wait).await?);
    }
    let mut out = ToolOutput::text(done);
    if !notes.is_empty() {
        out = out.with_text(notes.join("\n"));
    }
    Ok(out)
}

/// The ref whose click's settle may go out right behind its input: a single left or right
/// click on a ref of the main frame's session (the helper then checks that its element is of
/// the main document, whose window sees the release; a double click's second press would
/// come after the wait began, and coordinates may land in another frame).
fn pipelines_settle(tab: &Tab, args: &ComputerArgs) -> Option<(String, waits::Arm)> {
    let arm = match args.action {
        ComputerAction::LeftClick | ComputerAction::RightClick => waits::Arm::Release,
        // Text that raises an `input` event; the helper checks that the ref is a field.
        ComputerAction::Type if args.text.as_deref().is_some_and(|t| !t.is_empty()) => {
            waits::Arm::Typed
        }
        _ => return None,
    };
    match args.target() {
        Some(PointTarget::Ref(r)) => {
            let r = r.trim();
            let (session, _) = refs::locate(tab, r).ok()?;
            (session == tab.session_id).then(|| (r.to_string(), arm))
        }
        _ => None,
    }
}

/// Resolves where a pointer action lands.
async fn aim(tab: &Tab, target: Option<PointTarget>) -> Result<Aim, ToolError> {
    match target {
        Some(PointTarget::Coordinate { x, y }) => {
            let (w, h) = tab.browser.viewport();
            if x > f64::from(w) || y > f64::from(h) {
                return Err(ToolError::msg(format!(
                    "({x}, {y}) is outside the {w}x{h} viewport. Use coordinates from a \
                     screenshot, or a ref from read_page."
                )));
            }
            Ok((x, y, String::new()))
        }
        Some(PointTarget::Ref(r)) => {
            let (x, y, what) = crate::tools::tab::iframes::point_of(tab, &r).await?;
            Ok((x, y, format!(" on {r} ({what})")))
        }
        None => Err(ToolError::msg(
            "this action needs `coordinate` [x, y] or `ref` (from read_page or find)",
        )),
    }
}

async fn input(tab: &Tab, event: InputEvent) -> Result<(), ToolError> {
    let scale = tab.browser.zoom().pixel_scale(&tab.session_id);
    dispatch(tab.cdp(), &tab.session_id, &event, scale).await?;
    Ok(())
}

async fn click(
    tab: &Tab,
    x: f64,
    y: f64,
    button: MouseButton,
    count: u32,
    mods: u8,
) -> Result<(), ToolError> {
    send_in_order(tab, &click_events(x, y, button, count, mods)).await
}

/// A click's events: a move there, then each press and release.
fn click_events(x: f64, y: f64, button: MouseButton, count: u32, mods: u8) -> Vec<InputEvent> {
    let mut events = vec![mouse_move(x, y, MouseButton::None, mods)];
    for n in 1..=count {
        events.push(press(true, x, y, button, n, mods));
        events.push(press(false, x, y, button, n, mods));
    }
    events
}

/// Sends `events` back to back, in order (each is written on its first poll), without
/// waiting for the renderer's answer to one before sending the next: Chrome queues input in
/// order.
async fn send_in_order(tab: &Tab, events: &[InputEvent]) -> Result<(), ToolError> {
    let scale = tab.browser.zoom().pixel_scale(&tab.session_id);
    let sends = events
        .iter()
        .map(|event| dispatch(tab.cdp(), &tab.session_id, event, scale));
    futures_util::future::try_join_all(sends).await?;
    Ok(())
}

fn mouse_move(x: f64, y: f64, button: MouseButton, modifiers: u8) -> InputEvent {
    InputEvent::Mousemove {
        at: Pointer::at(x, y, modifiers),
        button,
    }
}

fn press(
    down: bool,
    x: f64,
    y: f64,
    button: MouseButton,
    click_count: u32,
    modifiers: u8,
) -> InputEvent {
    let at = Pointer::at(x, y, modifiers);
    if down {
        InputEvent::Mousedown {
            at,
            button,
            click_count,
        }
    } else {
        InputEvent::Mouseup {
            at,
            button,
            click_count,
        }
    }
}

/// "ctrl+shift+Tab" → ("Tab", Ctrl|Shift); key names are normalised ("enter" → "Enter").
pub fn parse_chord(chord: &str) -> Result<(String, u8), ToolError> {
    use porthole_mcp::vocabulary::Modifiers;
    let parts: Vec<&str> = chord.split('+').filter(|p| !p.is_empty()).collect();
    let Some((key, mods)) = parts.split_last() else {
        return Err(ToolError::msg(format!("`{chord}` names no key")));
    };
    let bits = if mods.is_empty() {
        0
    } else {
        Modifiers::parse(&mods.join("+"))
            .map_err(|e| ToolError::msg(e.to_string()))?
            .0
    };
    let key = match key.to_ascii_lowercase().as_str() {
        "enter" | "return" => "Enter",
        "tab" => "Tab",
        "esc" | "escape" => "Escape",
        "backspace" => "Backspace",
        "delete" | "del" => "Delete",
        "space" => " ",
        "up" | "arrowup" => "ArrowUp",
        "down" | "arrowdown" => "ArrowDown",
        "left" | "arrowleft" => "ArrowLeft",
        "right" | "arrowright" => "ArrowRight",
        "home" => "Home",
        "end" => "End",
        "pageup" | "page_up" => "PageUp",
        "pagedown" | "page_down" => "PageDown",
        "insert" => "Insert",
        _ if key.chars().count() == 1 => key,
        _ if key.len() <= 3 && key.starts_with(['f', 'F']) && key[1..].parse::<u8>().is_ok() => {
            return Ok((key.to_ascii_uppercase(), bits))
        }
        _ => {
            return Err(ToolError::msg(format!(
                "unknown key `{key}` in `{chord}`: use names such as Enter, Tab, Escape, \
                 Backspace, ArrowDown, PageDown, F5 or a single character"
            )))
        }
    };
    Ok((key.to_string(), bits))
}

#[cfg(test)]
mod tests {
    use super::parse_chord;

    #[test]
    fn chords() {
        assert_eq!(parse_chord("Enter").unwrap(), ("Enter".into(), 0));
        assert_eq!(parse_chord("ctrl+a").unwrap(), ("a".into(), 2));
        assert_eq!(
            parse_chord("shift+ArrowDown").unwrap(),
            ("ArrowDown".into(), 8)
        );
        assert!(parse_chord("ctrl+flarp").is_err());
    }
}
