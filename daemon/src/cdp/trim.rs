//! Cutting long strings and arrays out of CDP events before they are published, for events
//! whose every reader keeps only short records (console and network logs): a page that logs
//! megabyte lines or requests megabyte URLs then costs the daemon a few KB per event in the
//! event channel's buffer and in every subscriber, not megabytes (DESIGN.md §16).
//!
//! Owns the rules ([`Trims`]) and the cutting; which events get rules is the caller's choice
//! ([`super::CdpConnection::trim_events`]).

use std::sync::RwLock;

use serde_json::Value;

/// Items kept of an array inside a trimmed event.
const MAX_ITEMS: usize = 100;

/// What is cut from which events: `(method, max_bytes)`, where a method ending in `.` is a
/// whole domain (`Network.`).
#[derive(Default)]
pub(super) struct Trims {
    /// Read by the actor for each long event, written when a rule is added. Short lock.
    rules: RwLock<Vec<(String, usize)>>,
}

impl Trims {
    pub(super) fn add(&self, method: &str, max_bytes: usize) {
        self.rules
            .write()
            .expect("trims lock")
            .push((method.to_string(), max_bytes));
    }

    /// Cuts `params` of a `method` event whose message was `len` bytes, when a rule says so.
    pub(super) fn apply(&self, method: &str, len: usize, params: &mut Value) {
        let rules = self.rules.read().expect("trims lock");
        let max = rules
            .iter()
            .filter(|(m, _)| {
                if m.ends_with('.') {
                    method.starts_with(m.as_str())
                } else {
                    m == method
                }
            })
            .map(|(_, max)| *max)
            .min();
        drop(rules);
        // A message no longer than the cap cannot hold a string longer than it.
        if let Some(max) = max.filter(|max| len > *max) {
            trim_value(params, max);
        }
    }
}

/// Cuts every string in `value` to at most `max_bytes` (marker included) and every array to
/// [`MAX_ITEMS`] items.
pub(super) fn trim_value(value: &mut Value, max_bytes: usize) {
    match value {
        Value::String(s) => {
            if let Some(cut) = cut_text(s, max_bytes) {
                *s = cut;
            }
        }
        Value::Array(items) => {
            items.truncate(MAX_ITEMS);
            items.shrink_to_fit();
            items.iter_mut().for_each(|v| trim_value(v, max_bytes));
        }
        Value::Object(map) => map.values_mut().for_each(|v| trim_value(v, max_bytes)),
        _ => {}
    }
}

/// `text` cut to at most `max_bytes` bytes, its end replaced by `… [N bytes cut]`; `None`
/// when it fits. Cuts at a character boundary.
pub fn cut_text(text: &str, max_bytes: usize) -> Option<String> {
    if text.len() <= max_bytes {
        return None;
    }
    // The marker's longest form: 20 digits.
    let room = max_bytes.saturating_sub(40);
    let mut end = room.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!(
        "{}… [{} bytes cut]",
        &text[..end],
        text.len() - end
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_strings_and_arrays_are_cut_within_the_limit() {
        let long = "é".repeat(5000);
        let cut = cut_text(&long, 4096).unwrap();
        assert!(cut.len() <= 4096, "{}", cut.len());
        assert!(cut.ends_with(" bytes cut]"), "{cut}");
        assert_eq!(cut_text("short", 4096), None);

        let trims = Trims::default();
        trims.add("Network.", 4096);
        trims.add("Runtime.consoleAPICalled", 4096);
        let mut params = json!({"request": {"url": "u".repeat(10_000)}, "list": vec![1; 500]});
        trims.apply("Network.requestWillBeSent", 20_000, &mut params);
        assert!(params["request"]["url"].as_str().unwrap().len() <= 4096);
        assert_eq!(params["list"].as_array().unwrap().len(), MAX_ITEMS);
        // Other events are left whole.
        let mut frame = json!({"data": "d".repeat(10_000)});
        trims.apply("Page.screencastFrame", 20_000, &mut frame);
        assert_eq!(frame["data"].as_str().unwrap().len(), 10_000);
    }
}
