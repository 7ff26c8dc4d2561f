//! Just enough JSON to route CDP messages without a JSON crate: the top-level fields of an
//! object as spans of the original bytes (nothing is copied or built; a screencast frame's
//! megabyte of base64 is skipped, not parsed), and the text of a string value.
//!
//! It finds structure, it does not validate: Chrome and the daemon's client send valid JSON,
//! and anything malformed only has to be refused, never to panic.

use std::ops::Range;

/// The top-level fields of the object in `text`: each raw key (between its quotes, escapes
/// kept) and the span of its value in `text`. `None` when `text` is not an object.
pub fn fields(text: &[u8]) -> Option<Vec<(&[u8], Range<usize>)>> {
    let mut i = skip_ws(text, 0);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(text, i + 1);
    let mut out = Vec::new();
    if text.get(i) == Some(&b'}') {
        return Some(out);
    }
    loop {
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(text, i)?;
        let key = &text[i + 1..key_end - 1];
        i = skip_ws(text, key_end);
        if text.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(text, i + 1);
        let end = skip_value(text, start)?;
        out.push((key, start..end));
        i = skip_ws(text, end);
        match text.get(i) {
            Some(b',') => i = skip_ws(text, i + 1),
            Some(b'}') => return Some(out),
            _ => return None,
        }
    }
}

/// The value of the top-level field `key` of the object in `text`, as its raw bytes.
pub fn get<'a>(text: &'a [u8], key: &str) -> Option<&'a [u8]> {
    fields(text)?
        .into_iter()
        .find(|(k, _)| *k == key.as_bytes())
        .map(|(_, span)| &text[span])
}

/// The text of a JSON string value (`"…"`, escapes decoded); `None` for any other value.
pub fn string(value: &[u8]) -> Option<String> {
    if value.len() < 2 || value[0] != b'"' || skip_string(value, 0)? != value.len() {
        return None;
    }
    let inner = std::str::from_utf8(&value[1..value.len() - 1]).ok()?;
    if !inner.contains('\\') {
        return Some(inner.to_string());
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                let unit = u32::from_str_radix(&hex, 16).ok()?;
                // Surrogate pairs never occur in CDP ids; keep them as the replacement char.
                out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The string field `key` of the object in `text`.
pub fn get_string(text: &[u8], key: &str) -> Option<String> {
    get(text, key).and_then(string)
}

/// `"…"` with `text` escaped as a JSON string.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// `text[i]` is `"`: the index just past the closing quote.
fn skip_string(text: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match text.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The index just past the value starting at `i`.
fn skip_value(text: &[u8], i: usize) -> Option<usize> {
    match text.get(i)? {
        b'"' => skip_string(text, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match text.get(j)? {
                    b'"' => {
                        j = skip_string(text, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while let Some(b) = text.get(j) {
                if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    break;
                }
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_fields_and_skips_nested_ones() {
        let text = br#" {"id": 7, "params": {"id": 9, "s": "a\"}b", "l": [1, {"x": []}]}, "sessionId":"S1" } "#;
        let f = fields(text).unwrap();
        let keys: Vec<&[u8]> = f.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [&b"id"[..], b"params", b"sessionId"]);
        assert_eq!(get(text, "id"), Some(&b"7"[..]));
        assert_eq!(get_string(text, "sessionId").as_deref(), Some("S1"));
        let params = get(text, "params").unwrap();
        assert_eq!(get(params, "id"), Some(&b"9"[..]));
        assert_eq!(get_string(params, "s").as_deref(), Some("a\"}b"));
        assert_eq!(get(params, "l"), Some(&br#"[1, {"x": []}]"#[..]));
        assert_eq!(get(text, "missing"), None);
        assert_eq!(fields(b"{}").unwrap().len(), 0);
    }

    #[test]
    fn refuses_what_is_not_an_object_without_panicking() {
        for bad in [
            &b""[..],
            b"[]",
            b"\"x\"",
            b"{",
            b"{\"a\"",
            b"{\"a\":",
            b"{\"a\":1",
            b"{\"a\":1,}",
            b"{\"a\" 1}",
            b"{a:1}",
            b"{\"a\":\"unterminated}",
            b"{\"a\":{\"b\":\"\\",
        ] {
            assert!(fields(bad).is_none(), "{:?}", String::from_utf8_lossy(bad));
        }
        // Arbitrary bytes: no panic.
        let mut seed = 0x1234_5678u32;
        for _ in 0..2000 {
            let len = (seed % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    b"{}[]\",:\\ a1"[(seed >> 16) as usize % 11]
                })
                .collect();
            let _ = fields(&bytes);
            let _ = string(&bytes);
        }
    }

    #[test]
    fn strings_decode_and_quote() {
        assert_eq!(string(br#""plain""#).as_deref(), Some("plain"));
        assert_eq!(
            string(br#""a\"b\\c\/d\n\u0041""#).as_deref(),
            Some("a\"b\\c/d\nA")
        );
        assert_eq!(string(b"12"), None);
        assert_eq!(string(br#""a" "#), None);
        assert_eq!(quote("a\"b\\c\n"), r#""a\"b\\c\u000a""#);
    }
}
