//! Key events as Chrome wants them: DOM `code` → Windows virtual key code, the text a key
//! produces, and the modifier bitmask (DESIGN.md §3 "Keys").

/// Modifier bits as CDP and the pane protocol use them.
pub mod modifiers {
    pub const ALT: u8 = 1;
    pub const CTRL: u8 = 2;
    pub const META: u8 = 4;
    #[cfg(test)]
    pub const SHIFT: u8 = 8;
}

/// The Windows virtual key code of a DOM `code` (or, failing that, of a `key`).
pub fn virtual_key_code(code: &str, key: &str) -> u32 {
    if let Some(letter) = code.strip_prefix("Key") {
        if let [c] = letter.as_bytes() {
            return c.to_ascii_uppercase() as u32;
        }
    }
    if let Some(digit) = code.strip_prefix("Digit") {
        if let [c] = digit.as_bytes() {
            return *c as u32;
        }
    }
    if let Some(digit) = code.strip_prefix("Numpad") {
        if let [c @ b'0'..=b'9'] = digit.as_bytes() {
            return 0x60 + (c - b'0') as u32;
        }
    }
    if let Some(n) = code.strip_prefix('F').and_then(|n| n.parse::<u32>().ok()) {
        if (1..=24).contains(&n) {
            return 0x6F + n;
        }
    }
    let named = match code {
        "Backspace" => 8,
        "Tab" => 9,
        "Enter" | "NumpadEnter" => 13,
        "ShiftLeft" | "ShiftRight" => 16,
        "ControlLeft" | "ControlRight" => 17,
        "AltLeft" | "AltRight" => 18,
        "Pause" => 19,
        "CapsLock" => 20,
        "Escape" => 27,
        "Space" => 32,
        "PageUp" => 33,
        "PageDown" => 34,
        "End" => 35,
        "Home" => 36,
        "ArrowLeft" => 37,
        "ArrowUp" => 38,
        "ArrowRight" => 39,
        "ArrowDown" => 40,
        "Insert" => 45,
        "Delete" => 46,
        "MetaLeft" | "OSLeft" => 91,
        "MetaRight" | "OSRight" => 92,
        "ContextMenu" => 93,
        "NumpadMultiply" => 106,
        "NumpadAdd" => 107,
        "NumpadSubtract" => 109,
        "NumpadDecimal" => 110,
        "NumpadDivide" => 111,
        "Semicolon" => 186,
        "Equal" => 187,
        "Comma" => 188,
        "Minus" => 189,
        "Period" => 190,
        "Slash" => 191,
        "Backquote" => 192,
        "BracketLeft" => 219,
        "Backslash" => 220,
        "BracketRight" => 221,
        "Quote" => 222,
        _ => 0,
    };
    if named != 0 {
        return named;
    }
    // No usable code: derive it from the key.
    match key {
        "Enter" => 13,
        "Backspace" => 8,
        "Tab" => 9,
        "Escape" => 27,
        "Delete" => 46,
        "ArrowLeft" => 37,
        "ArrowUp" => 38,
        "ArrowRight" => 39,
        "ArrowDown" => 40,
        " " => 32,
        _ => {
            let mut chars = key.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphanumeric() => c.to_ascii_uppercase() as u32,
                _ => 0,
            }
        }
    }
}

/// The text a key inserts, if any: printable single characters and Enter (`"\r"`, so a
/// textarea gets a newline), suppressed while a non-Shift modifier is held so shortcuts stay
/// shortcuts.
pub fn key_text(key: &str, mods: u8) -> Option<String> {
    if mods & (modifiers::ALT | modifiers::CTRL | modifiers::META) != 0 {
        return None;
    }
    if key == "Enter" {
        return Some("\r".to_string());
    }
    let mut chars = key.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() => Some(c.to_string()),
        _ => None,
    }
}

/// A best-effort DOM `code` for a bare key name (for callers that only know the key).
pub fn code_for_key(key: &str) -> String {
    let mut chars = key.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => format!("Key{}", c.to_ascii_uppercase()),
        (Some(c), None) if c.is_ascii_digit() => format!("Digit{c}"),
        (Some(' '), None) => "Space".to_string(),
        _ => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_virtual_keys() {
        assert_eq!(virtual_key_code("KeyA", "a"), 65);
        assert_eq!(virtual_key_code("Digit7", "7"), 55);
        assert_eq!(virtual_key_code("Enter", "Enter"), 13);
        assert_eq!(virtual_key_code("F5", "F5"), 116);
        assert_eq!(virtual_key_code("", "x"), 88);
        assert_eq!(virtual_key_code("Numpad3", "3"), 0x63);
    }

    #[test]
    fn text_is_suppressed_under_shortcut_modifiers() {
        assert_eq!(key_text("a", 0).as_deref(), Some("a"));
        assert_eq!(key_text("A", modifiers::SHIFT).as_deref(), Some("A"));
        assert_eq!(key_text("Enter", 0).as_deref(), Some("\r"));
        assert_eq!(key_text("Enter", modifiers::CTRL), None);
        assert_eq!(key_text("a", modifiers::CTRL), None);
        assert_eq!(key_text("ArrowLeft", 0), None);
    }
}
