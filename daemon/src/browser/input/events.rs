//! Pane input events and how each becomes CDP `Input.*` calls on the active tab.
//!
//! Coordinates are CSS pixels of the page viewport; on a tab laid out at a pixel scale above 1
//! (see the floor's `layouts`) Chrome takes them in scaled view pixels, so they are multiplied here. Mouse buttons, click counts and modifier
//! bitmasks pass through as CDP defines them; keys get `code`, a virtual key code and text per
//! `keys`. Copy/cut read the selection and hand it back for the pane's clipboard.

use serde::Deserialize;
use serde_json::{json, Value};

use super::keys::{self, modifiers};
use crate::cdp::{CdpConnection, CdpError};

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    #[default]
    Left,
    Middle,
    Right,
    None,
}

impl MouseButton {
    fn cdp_name(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
            MouseButton::None => "none",
        }
    }

    /// The `buttons` bitmask of a move while this button is held.
    fn held_mask(self) -> u8 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
            MouseButton::None => 0,
        }
    }
}

fn one() -> u32 {
    1
}

fn no_button() -> MouseButton {
    MouseButton::None
}

/// Where a mouse or wheel event happens and which modifier keys are held: the part every
/// pointer event shares. Flattened, so on the wire its fields sit beside `input_type`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, utoipa::ToSchema)]
pub struct Pointer {
    pub x: f64,
    pub y: f64,
    // The CDP modifier bitmask (Alt 1, Ctrl 2, Meta 4, Shift 8); no doc comment, which the
    // schema would carry into protocol.d.ts.
    #[serde(default)]
    pub modifiers: u8,
}

impl Pointer {
    pub fn at(x: f64, y: f64, modifiers: u8) -> Self {
        Self { x, y, modifiers }
    }

    /// Finite and within [`MAX_COORDINATE`].
    fn in_range(&self) -> bool {
        point_ok(self.x, self.y)
    }

    fn scale(&mut self, scale: f64) {
        self.x *= scale;
        self.y *= scale;
    }
}

/// One input event from a pane (`{"type":"input","input_type":…}`).
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(tag = "input_type", rename_all = "lowercase")]
pub enum InputEvent {
    Click {
        #[serde(flatten)]
        #[schema(inline)]
        at: Pointer,
        #[serde(default)]
        button: MouseButton,
        #[serde(default = "one")]
        click_count: u32,
    },
    Mousedown {
        #[serde(flatten)]
        #[schema(inline)]
        at: Pointer,
        #[serde(default)]
        button: MouseButton,
        #[serde(default = "one")]
        click_count: u32,
    },
    Mouseup {
        #[serde(flatten)]
        #[schema(inline)]
        at: Pointer,
        #[serde(default)]
        button: MouseButton,
        #[serde(default = "one")]
        click_count: u32,
    },
    Mousemove {
        #[serde(flatten)]
        #[schema(inline)]
        at: Pointer,
        /// The button held while moving (`none` when just hovering).
        #[serde(default = "no_button")]
        button: MouseButton,
    },
    Scroll {
        #[serde(flatten)]
        #[schema(inline)]
        at: Pointer,
        #[serde(default)]
        delta_x: f64,
        #[serde(default)]
        delta_y: f64,
    },
    Keydown {
        key: String,
        #[serde(default)]
        code: String,
        #[serde(default)]
        modifiers: u8,
    },
    Keyup {
        key: String,
        #[serde(default)]
        code: String,
        #[serde(default)]
        modifiers: u8,
    },
    Keypress {
        key: String,
        #[serde(default)]
        code: String,
        #[serde(default)]
        modifiers: u8,
    },
    Typetext {
        text: String,
    },
    Paste {
        text: String,
    },
    Copy {},
    Cut {
        #[serde(default)]
        modifiers: u8,
    },
    /// An IME draft (`Input.imeSetComposition`): shown underlined in the focused field until
    /// `typetext` commits it (or an empty `text` cancels it). The selection is in UTF-16 code
    /// units of `text`; both default to its end.
    Composition {
        text: String,
        #[serde(default)]
        selection_start: Option<u32>,
        #[serde(default)]
        selection_end: Option<u32>,
    },
}

/// An input event with values serde cannot refuse; the message tells the pane what was wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    #[error("coordinates ({x}, {y}) are out of range")]
    Coordinates { x: f64, y: f64 },
    #[error("scroll position or delta is out of range")]
    Scroll,
    #[error("key must not be empty")]
    EmptyKey,
    #[error("composition selection {start}..{end} is not within the text's {length} UTF-16 units")]
    Selection { start: u32, end: u32, length: u32 },
}

/// Largest coordinate accepted (CSS pixels); anything else is a client bug.
const MAX_COORDINATE: f64 = 100_000.0;

fn point_ok(x: f64, y: f64) -> bool {
    x.is_finite() && y.is_finite() && x.abs() <= MAX_COORDINATE && y.abs() <= MAX_COORDINATE
}

impl InputEvent {
    /// The pointer of a mouse or wheel event.
    fn pointer_mut(&mut self) -> Option<&mut Pointer> {
        match self {
            InputEvent::Click { at, .. }
            | InputEvent::Mousedown { at, .. }
            | InputEvent::Mouseup { at, .. }
            | InputEvent::Mousemove { at, .. }
            | InputEvent::Scroll { at, .. } => Some(at),
            _ => None,
        }
    }

    /// Checks values serde cannot: finite, sane coordinates and deltas, non-empty keys.
    pub fn validate(&self) -> Result<(), InputError> {
        match self {
            InputEvent::Click { at, .. }
            | InputEvent::Mousedown { at, .. }
            | InputEvent::Mouseup { at, .. }
            | InputEvent::Mousemove { at, .. }
                if !at.in_range() =>
            {
                Err(InputError::Coordinates { x: at.x, y: at.y })
            }
            InputEvent::Scroll {
                at,
                delta_x,
                delta_y,
            } if !at.in_range() || !point_ok(*delta_x, *delta_y) => Err(InputError::Scroll),
            InputEvent::Keydown { key, .. }
            | InputEvent::Keyup { key, .. }
            | InputEvent::Keypress { key, .. }
                if key.is_empty() =>
            {
                Err(InputError::EmptyKey)
            }
            InputEvent::Composition {
                text,
                selection_start,
                selection_end,
            } => composition_selection(text, *selection_start, *selection_end).map(drop),
            _ => Ok(()),
        }
    }

    /// This event with its coordinates multiplied by `scale` (`None`: no
    /// change needed). Wheel deltas stay CSS px under a view scale (Chromium 156: 100
    /// scrolls 100).
    fn scaled(&self, scale: f64) -> Option<InputEvent> {
        if scale == 1.0 || !scale.is_finite() {
            return None;
        }
        let mut event = self.clone();
        event.pointer_mut()?.scale(scale);
        Some(event)
    }
}

/// The `(start, end)` of a composition's selection, each defaulting to the end of `text`
/// (UTF-16 code units, as the page counts them); refused when out of order or past the end.
fn composition_selection(
    text: &str,
    start: Option<u32>,
    end: Option<u32>,
) -> Result<(u32, u32), InputError> {
    let length = u32::try_from(text.encode_utf16().count()).unwrap_or(u32::MAX);
    let end = end.unwrap_or(length);
    let start = start.unwrap_or(end);
    if start > end || end > length {
        return Err(InputError::Selection { start, end, length });
    }
    Ok((start, end))
}

/// JavaScript that returns the selected text, including a selection inside a text field and
/// inside same-origin iframes.
const READ_SELECTION: &str = include_str!("js/read-selection.js");

/// Sends one event to the tab behind `session`, laid out at `scale` device pixels per CSS px
/// (1 unless a pane asked for more); returns clipboard text for copy/cut.
pub async fn dispatch(
    cdp: &CdpConnection,
    session: &str,
    event: &InputEvent,
    scale: f64,
) -> Result<Option<String>, CdpError> {
    let scaled = event.scaled(scale);
    let event = scaled.as_ref().unwrap_or(event);
    match event {
        InputEvent::Typetext { text } | InputEvent::Paste { text } => {
            cdp.call_on(session, "Input.insertText", json!({ "text": text }))
                .await?;
        }
        InputEvent::Composition {
            text,
            selection_start,
            selection_end,
        } => compose(cdp, session, text, *selection_start, *selection_end).await?,
        InputEvent::Copy {} => return read_selection(cdp, session).await,
        InputEvent::Cut { modifiers } => return cut(cdp, session, *modifiers).await,
        InputEvent::Keydown { .. } | InputEvent::Keyup { .. } | InputEvent::Keypress { .. } => {
            keys(cdp, session, event).await?
        }
        _ => pointer(cdp, session, event).await?,
    }
    Ok(None)
}

/// A mouse or wheel event; any other event sends nothing.
async fn pointer(cdp: &CdpConnection, session: &str, event: &InputEvent) -> Result<(), CdpError> {
    match event {
        InputEvent::Click {
            at,
            button,
            click_count,
        } => {
            // Both leave at once (Chrome's input router keeps their order): waiting for the
            // press's answer put a round trip to the engine before the release.
            futures_util::future::try_join(
                mouse(cdp, session, "mousePressed", at, *button, *click_count),
                mouse(cdp, session, "mouseReleased", at, *button, *click_count),
            )
            .await
            .map(drop)
        }
        InputEvent::Mousedown {
            at,
            button,
            click_count,
        } => mouse(cdp, session, "mousePressed", at, *button, *click_count).await,
        InputEvent::Mouseup {
            at,
            button,
            click_count,
        } => mouse(cdp, session, "mouseReleased", at, *button, *click_count).await,
        InputEvent::Mousemove { at, button } => {
            mouse(cdp, session, "mouseMoved", at, *button, 0).await
        }
        InputEvent::Scroll {
            at,
            delta_x,
            delta_y,
        } => wheel(cdp, session, at, *delta_x, *delta_y).await,
        _ => Ok(()),
    }
}

/// A key down, up, or both; any other event sends nothing.
async fn keys(cdp: &CdpConnection, session: &str, event: &InputEvent) -> Result<(), CdpError> {
    match event {
        InputEvent::Keydown {
            key,
            code,
            modifiers,
        } => key_event(cdp, session, true, key, code, *modifiers).await,
        InputEvent::Keyup {
            key,
            code,
            modifiers,
        } => key_event(cdp, session, false, key, code, *modifiers).await,
        InputEvent::Keypress {
            key,
            code,
            modifiers,
        } => {
            // Down and up leave at once, as a click's press and release do.
            futures_util::future::try_join(
                key_event(cdp, session, true, key, code, *modifiers),
                key_event(cdp, session, false, key, code, *modifiers),
            )
            .await
            .map(drop)
        }
        _ => Ok(()),
    }
}

async fn mouse(
    cdp: &CdpConnection,
    session: &str,
    kind: &str,
    at: &Pointer,
    button: MouseButton,
    click_count: u32,
) -> Result<(), CdpError> {
    let buttons = if kind == "mouseReleased" {
        0
    } else {
        button.held_mask()
    };
    let params = json!({
        "type": kind, "x": at.x, "y": at.y, "button": button.cdp_name(), "buttons": buttons,
        "clickCount": click_count, "modifiers": at.modifiers, "pointerType": "mouse",
    });
    cdp.call_on(session, "Input.dispatchMouseEvent", params)
        .await
        .map(drop)
}

async fn wheel(
    cdp: &CdpConnection,
    session: &str,
    at: &Pointer,
    delta_x: f64,
    delta_y: f64,
) -> Result<(), CdpError> {
    let params = json!({
        "type": "mouseWheel", "x": at.x, "y": at.y, "deltaX": delta_x, "deltaY": delta_y,
        "modifiers": at.modifiers, "pointerType": "mouse",
    });
    cdp.call_on(session, "Input.dispatchMouseEvent", params)
        .await
        .map(drop)
}

/// Shows an IME draft with its selection.
async fn compose(
    cdp: &CdpConnection,
    session: &str,
    text: &str,
    selection_start: Option<u32>,
    selection_end: Option<u32>,
) -> Result<(), CdpError> {
    // Checked by `validate`; a bad one here collapses to the end.
    let (start, end) =
        composition_selection(text, selection_start, selection_end).unwrap_or_else(|_| {
            let length = text.encode_utf16().count() as u32;
            (length, length)
        });
    cdp.call_on(
        session,
        "Input.imeSetComposition",
        json!({"text": text, "selectionStart": start, "selectionEnd": end}),
    )
    .await
    .map(drop)
}

/// Reads the selection, then presses Ctrl+X (or X with the pane's modifiers); the selection
/// (`None` in a secret field: nothing goes to the clipboard, and Chrome cuts nothing there).
async fn cut(
    cdp: &CdpConnection,
    session: &str,
    modifiers: u8,
) -> Result<Option<String>, CdpError> {
    let text = read_selection(cdp, session).await?;
    let mods = if modifiers == 0 {
        modifiers::CTRL
    } else {
        modifiers
    };
    key_event(cdp, session, true, "x", "KeyX", mods).await?;
    key_event(cdp, session, false, "x", "KeyX", mods).await?;
    Ok(text)
}

async fn key_event(
    cdp: &CdpConnection,
    session: &str,
    down: bool,
    key: &str,
    code: &str,
    mods: u8,
) -> Result<(), CdpError> {
    let code = if code.is_empty() {
        keys::code_for_key(key)
    } else {
        code.to_string()
    };
    let vk = keys::virtual_key_code(&code, key);
    let text = keys::key_text(key, mods);
    let kind = match (down, &text) {
        (false, _) => "keyUp",
        (true, Some(_)) => "keyDown",
        (true, None) => "rawKeyDown",
    };
    let mut params = json!({
        "type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk,
        "nativeVirtualKeyCode": vk, "modifiers": mods,
    });
    if let (true, Some(text)) = (down, text) {
        params["text"] = Value::String(text.clone());
        params["unmodifiedText"] = Value::String(text);
    }
    cdp.call_on(session, "Input.dispatchKeyEvent", params)
        .await
        .map(drop)
}

/// The selected text; `None` in a password or one-time-code field (never copied).
async fn read_selection(cdp: &CdpConnection, session: &str) -> Result<Option<String>, CdpError> {
    let result = cdp
        .call_on(
            session,
            "Runtime.evaluate",
            json!({"expression": READ_SELECTION, "returnByValue": true}),
        )
        .await?;
    let value = &result["result"]["value"];
    if value.is_null() && result["result"]["subtype"] == "null" {
        return Ok(None);
    }
    Ok(Some(value.as_str().unwrap_or_default().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_input_messages_parse() {
        let e: InputEvent =
            serde_json::from_str(r#"{"input_type":"click","x":5,"y":6,"type":"input"}"#).unwrap();
        assert_eq!(
            e,
            InputEvent::Click {
                at: Pointer::at(5.0, 6.0, 0),
                button: MouseButton::Left,
                click_count: 1,
            }
        );
        let e: InputEvent = serde_json::from_str(
            r#"{"input_type":"keydown","key":"a","code":"KeyA","modifiers":2}"#,
        )
        .unwrap();
        assert!(matches!(e, InputEvent::Keydown { modifiers: 2, .. }));
        let e: InputEvent = serde_json::from_str(
            r#"{"input_type":"scroll","x":1,"y":2,"delta_y":-3.5,"modifiers":8}"#,
        )
        .unwrap();
        assert_eq!(
            e,
            InputEvent::Scroll {
                at: Pointer::at(1.0, 2.0, 8),
                delta_x: 0.0,
                delta_y: -3.5,
            }
        );
        assert!(serde_json::from_str::<InputEvent>(r#"{"input_type":"teleport"}"#).is_err());
        assert!(
            serde_json::from_str::<InputEvent>(r#"{"input_type":"click","x":"a","y":1}"#).is_err()
        );
    }

    #[test]
    fn composition_selections_default_to_the_end_and_stay_inside() {
        assert_eq!(composition_selection("日本語", None, None), Ok((3, 3)));
        assert_eq!(
            composition_selection("日本語", Some(0), Some(2)),
            Ok((0, 2))
        );
        assert_eq!(composition_selection("😀", None, None), Ok((2, 2)));
        assert!(composition_selection("ab", Some(2), Some(1)).is_err());
        assert!(composition_selection("ab", None, Some(3)).is_err());
    }

    #[test]
    fn absurd_coordinates_are_refused() {
        let e = InputEvent::Mousemove {
            at: Pointer::at(f64::NAN, 1.0, 0),
            button: MouseButton::None,
        };
        assert!(e.validate().is_err());
    }
}
