//! The secret stays out of every answer (DESIGN.md §19): after a fill, each secret filled in a
//! channel is kept here (zeroizing, in memory only, until the daemon stops) so that every text
//! answer on that channel can be scanned for it — as is, URL-encoded (`encodeURIComponent` and
//! form encoding, either hex case), base64 (standard and URL-safe, with or without padding) and
//! JSON-escaped — and each match replaced by `[secret]`.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine as _;
use zeroize::Zeroizing;

/// What a match is replaced by.
pub const MARK: &str = "[secret]";
/// The most secrets kept per channel (the oldest go first).
const MAX_PER_CHANNEL: usize = 64;

/// The filled secrets of each channel, in every form they are looked for in.
#[derive(Default)]
pub struct Scanner {
    /// Channel → forms, longest first. Never held across an await.
    forms: Mutex<HashMap<String, Vec<Zeroizing<String>>>>,
}

impl Scanner {
    /// Remembers `secret`, filled in `channel`.
    pub fn remember(&self, channel: &str, secret: &str) {
        if secret.is_empty() {
            return;
        }
        let mut all = self.forms.lock().expect("scanner lock");
        let list = all.entry(channel.to_string()).or_default();
        for form in forms(secret) {
            if !list.iter().any(|f| f.as_str() == form.as_str()) {
                list.push(form);
            }
        }
        while list.len() > MAX_PER_CHANNEL * 12 {
            list.remove(0);
        }
        list.sort_by_key(|f| std::cmp::Reverse(f.len()));
    }

    /// `text` with every filled secret of `channel` replaced by [`MARK`]; `None` when there
    /// was none in it.
    pub fn scrub(&self, channel: &str, text: &str) -> Option<String> {
        let all = self.forms.lock().expect("scanner lock");
        let list = all.get(channel)?;
        let mut out: Option<String> = None;
        for form in list {
            let current = out.as_deref().unwrap_or(text);
            if current.contains(form.as_str()) {
                out = Some(current.replace(form.as_str(), MARK));
            }
        }
        out
    }

    /// Forgets a channel's secrets (the channel was deleted).
    pub fn forget(&self, channel: &str) {
        self.forms.lock().expect("scanner lock").remove(channel);
    }
}

/// The forms `secret` is looked for in.
fn forms(secret: &str) -> Vec<Zeroizing<String>> {
    let mut out = vec![Zeroizing::new(secret.to_string())];
    let component = percent(
        secret,
        |b| b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b),
        false,
    );
    let form = percent(
        secret,
        |b| b.is_ascii_alphanumeric() || b"*-._".contains(&b),
        true,
    );
    for encoded in [component, form] {
        out.push(Zeroizing::new(encoded.to_ascii_lowercase_hex()));
        out.push(encoded);
    }
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    for engine in engines {
        out.push(Zeroizing::new(engine.encode(secret.as_bytes())));
    }
    if let Ok(json) = serde_json::to_string(secret) {
        let json = Zeroizing::new(json);
        // Without its quotes: the secret inside a larger JSON string.
        out.push(Zeroizing::new(json[1..json.len() - 1].to_string()));
    }
    out.retain(|f| !f.is_empty());
    out
}

/// Percent-encodes every byte `keep` does not keep (`plus`: a space becomes `+`).
fn percent(secret: &str, keep: impl Fn(u8) -> bool, plus: bool) -> Zeroizing<String> {
    let mut out = Zeroizing::new(String::with_capacity(secret.len() * 3));
    for b in secret.bytes() {
        if keep(b) {
            out.push(b as char);
        } else if plus && b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The lower-case-hex spelling of a percent-encoded text.
trait LowerHex {
    fn to_ascii_lowercase_hex(&self) -> String;
}

impl LowerHex for Zeroizing<String> {
    fn to_ascii_lowercase_hex(&self) -> String {
        let mut out = String::with_capacity(self.len());
        let mut rest = self.as_str();
        while let Some(i) = rest.find('%') {
            out.push_str(&rest[..i]);
            let code = rest.get(i..i + 3).unwrap_or(&rest[i..]);
            out.push_str(&code.to_ascii_lowercase());
            rest = &rest[i + code.len()..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_filled_secret_is_replaced() {
        let scanner = Scanner::default();
        assert_eq!(scanner.scrub("c", "nothing yet"), None);
        let secret = "s3cr3t P@ss/\"x\"é";
        scanner.remember("c", secret);
        let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret);
        let json = serde_json::to_string(secret).unwrap();
        let texts = [
            format!("value: {secret}."),
            "GET /echo?v=s3cr3t%20P%40ss%2F%22x%22%C3%A9 HTTP".to_string(),
            "q=s3cr3t+P%40ss%2F%22x%22%C3%A9".to_string(),
            "q=s3cr3t%20P%40ss%2f%22x%22%c3%a9".to_string(),
            format!("b64 {b64} and {url_safe}"),
            format!("{{\"typed\":{json}}}"),
        ];
        for text in texts {
            let scrubbed = scanner
                .scrub("c", &text)
                .unwrap_or_else(|| panic!("{text}"));
            assert!(scrubbed.contains(MARK), "{scrubbed}");
            assert!(!scrubbed.contains("s3cr3t"), "{scrubbed}");
            assert!(
                !scrubbed.contains(&b64) && !scrubbed.contains(&url_safe),
                "{scrubbed}"
            );
        }
        assert_eq!(scanner.scrub("other", secret), None, "per channel");
        scanner.forget("c");
        assert_eq!(scanner.scrub("c", secret), None);
    }
}
